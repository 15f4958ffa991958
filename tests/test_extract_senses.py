"""One meaning per name (issue 27): an acronym means what the paper defines it as; a bare acronym with several
senses (long forms sharing no content word) is the sense the paper's own words point to, or nothing; two
papers' different long forms are two entities in the store, each keeping only its own aliases."""

from __future__ import annotations

import pytest
from fixtures_api import BASE, store_from

import kg.query as q
from kg.extract import Extractor
from kg.extract.canon import defined_name
from kg.extract.senses import content_words, load_senses, share_content_word
from kg.query import QueryContext
from kg.types import Extraction, Paper

JAILBREAK = Paper(
    id="jailbreak",
    title="Jailbreaking Aligned Language Models with Adversarial Suffixes",
    abstract="Large language models remain vulnerable to jailbreak attacks. We propose a gradient-guided "
    "suffix search that raises the Attack Success Rate (ASR) on harmful behaviours. Our attack reaches an "
    "ASR of 92% against Llama-2-Chat and transfers to GPT-4.",
)
SPEECH = Paper(
    id="speech",
    title="Streaming Speech Recognition with Conformer Transducers",
    abstract="We study end-to-end automatic speech recognition (ASR) for streaming applications. Our "
    "transducer lowers word error rate on LibriSpeech, and the ASR system runs on device.",
)
MASKED = Paper(
    id="masked",
    title="Masked Autoencoders Are Scalable Vision Learners",
    abstract="This paper shows that masked autoencoders (MAE) are scalable self-supervised learners for "
    "computer vision. We mask random patches of the input image and reconstruct the missing pixels. MAE "
    "pre-training on ImageNet-1K outperforms supervised pre-training.",
)
TRAFFIC = Paper(
    id="traffic",
    title="Traffic flow forecasting with graph networks",
    abstract="We forecast traffic flow with a spatio-temporal graph network. On PEMS04 our model reduces the "
    "mean absolute error (MAE) by 8% and the root mean squared error by 5%.",
)


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor()


@pytest.fixture(scope="module")
def rules() -> Extractor:
    """The rule components alone: their acronym mentions reach the canonicaliser's choice of sense."""
    return Extractor(with_linker=False)


def linked(ex: Extraction, mention: str) -> list[tuple[str, str]]:
    """(type, name) of the links whose evidence mention is `mention`, or whose aliases include it."""
    return [
        (lk.entity.type, lk.entity.name)
        for lk in ex.links
        if lk.evidence.mention == mention or mention in lk.aliases
    ]


def test_senses_of_an_acronym_are_grouped_by_shared_content_words() -> None:
    table = load_senses()
    names = {short: [[s.name for s in g] for g in table.groups(short)] for short in ("ASR", "MAE")}
    assert names == {
        "ASR": [["attack success rate"], ["speech recognition"]],
        "MAE": [["masked autoencoder"], ["mean absolute error"]],
    }
    assert table.ambiguous("ASR") and table.ambiguous("MAEs")
    assert not table.ambiguous("ImageNet")
    assert share_content_word("Masked Autoencoders", "masked autoencoder")
    assert not share_content_word("Attack Success Rate", "speech recognition")
    assert content_words("auto-encoders for speech") == {"auto", "encoder", "autoencoder", "speech"}


def test_a_definition_decides_what_the_acronym_means(extractor: Extractor) -> None:
    jail, speech = extractor.extract([JAILBREAK, SPEECH])
    assert linked(jail, "ASR") == [("Metric", "attack success rate")]
    assert linked(speech, "ASR") == [("Task", "speech recognition")]
    masked, traffic = extractor.extract([MASKED, TRAFFIC])
    assert linked(masked, "MAE") == [("Method", "masked autoencoder")]
    assert linked(traffic, "MAE") == [("Metric", "mean absolute error")]


def test_a_definition_overrides_a_vocabulary_sense_that_shares_no_word_with_it(extractor: Extractor) -> None:
    # the curated "SAM" is the Segment Anything Model; this paper's SAM is its own definition
    ex = extractor.extract_one(Paper(
        id="sam",
        title="Flat minima for robust fine-tuning",
        abstract="We revisit sharpness-aware minimization (SAM) for fine-tuning vision transformers. SAM "
        "seeks flat minima and improves accuracy on CIFAR-100.",
    ))
    assert ("Method", "Segment Anything Model") not in {(lk.entity.type, lk.entity.name) for lk in ex.links}
    assert all("sharpness-aware minimization" not in lk.aliases or lk.entity.name != "Segment Anything Model"
               for lk in ex.links)


def test_a_definition_sharing_only_its_head_with_a_sense_is_another_thing(extractor: Extractor) -> None:
    sparse, supervised = extractor.extract([
        Paper(id="sparse", title="Sparse fine-tuning of language models",
              abstract="We revisit sparse fine-tuning (SFT), which updates a small subset of weights. SFT "
              "matches full fine-tuning on GLUE."),
        Paper(id="sft", title="Alignment", abstract="After supervised fine-tuning (SFT), we apply RLHF."),
    ])
    assert linked(sparse, "SFT") == [("Method", "sparse fine-tuning")]
    assert linked(supervised, "SFT") == [("Method", "supervised fine-tuning")]


UNDEFINED = [
    (
        "Universal jailbreak prompts",
        "We craft adversarial prompts that jailbreak aligned chatbots; the ASR of our attack exceeds 90% "
        "on AdvBench.",
        [("Metric", "attack success rate")],
    ),
    (
        "Low-resource acoustic modelling",
        "We train acoustic models for ASR on 10 hours of transcribed speech and lower word error rate on "
        "LibriSpeech by 12%.",
        [("Task", "speech recognition")],
    ),
    (
        "Self-supervised visual pre-training",
        "We pre-train vision transformers with MAE, reconstructing masked patches, and fine-tune on "
        "ADE20K.",
        [("Method", "masked autoencoder")],
    ),
    (
        "Depth from a single image",
        "Our regression network predicts depth and lowers the MAE of the predicted error maps by 10% on "
        "NYU Depth v2.",
        [("Metric", "mean absolute error")],
    ),
    ("A note", "Results on ASR are reported in Table 2 for all runs.", []),  # no word to go by: unlinked
]


@pytest.mark.parametrize(("title", "abstract", "expected"), UNDEFINED)
def test_an_undefined_acronym_takes_the_sense_of_its_context(
    rules: Extractor, title: str, abstract: str, expected: list[tuple[str, str]]
) -> None:
    ex = rules.extract_one(Paper(id="t", title=title, abstract=abstract))
    assert linked(ex, "ASR" if "ASR" in abstract else "MAE") == expected


@pytest.mark.parametrize(("title", "abstract", "expected"), UNDEFINED)
def test_the_default_extractor_never_links_an_undefined_acronym_to_another_sense(
    extractor: Extractor, title: str, abstract: str, expected: list[tuple[str, str]]
) -> None:
    # the trained linker may leave a bare ambiguous acronym unlinked; what it links is the context's sense
    ex = extractor.extract_one(Paper(id="t", title=title, abstract=abstract))
    assert set(linked(ex, "ASR" if "ASR" in abstract else "MAE")) <= set(expected)


def test_two_long_forms_of_one_acronym_are_two_entities_in_the_store(extractor: Extractor) -> None:
    ctx = QueryContext.open(store_from(list(extractor.extract([JAILBREAK, SPEECH, MASKED, TRAFFIC]))), BASE)
    asr = q.entity(ctx, name="attack success rate")
    speech = q.entity(ctx, name="speech recognition")
    assert asr is not None and speech is not None and asr.id != speech.id
    assert "Attack Success Rate" in asr.aliases and "Attack Success Rate" not in speech.aliases
    assert [p.id for p in q.papers(ctx, entity_iris=[speech.iri]).items] == ["speech"]
    assert [p.id for p in q.papers(ctx, entity_iris=[asr.iri]).items] == ["jailbreak"]
    mae = q.entity(ctx, name="mean absolute error")
    assert mae is not None and not {"Masked Autoencoders", "masked autoencoders"} & set(mae.aliases)
    assert [p.id for p in q.papers(ctx, entity_iris=[mae.iri]).items] == ["traffic"]


PRIOR = Paper(
    id="prior",
    title="Few-shot segmentation with learned priors",
    abstract="We propose Adaptive Prior Learning (APL), a novel method for few-shot segmentation. APL learns "
    "a class prior from the support images and outperforms prototype matching on PASCAL VOC.",
)
PRIOR_AGAIN = Paper(
    id="prior-again",
    title="Priors for few-shot segmentation",
    abstract="We propose adaptive prior learning (APL), a novel method for few-shot segmentation. APL "
    "refines the prior of each class at test time.",
)
PSEUDO = Paper(
    id="pseudo",
    title="Semi-supervised object detection",
    abstract="We propose asymmetric pseudo-labeling (APL), a novel framework for semi-supervised object "
    "detection. APL improves mAP on COCO with one tenth of the labels.",
)


def _apl(ctx: QueryContext) -> dict[str, list[str]]:
    """The store's entities with the label "APL": name → its papers' ids."""
    rows = ctx.store.select(
        "SELECT DISTINCT ?e WHERE { GRAPH ?g { ?e <http://www.w3.org/2004/02/skos/core#altLabel> \"APL\" } }"
    )
    out = {}
    for r in rows:
        e = q.entity(ctx, id=ctx.iris.entity_id_of(r["e"].value))
        assert e is not None
        out[e.name] = sorted(p.id for p in q.papers(ctx, entity_iris=[e.iri]).items)
    return out


def test_a_proposal_named_by_an_acronym_it_defines_carries_its_definition(extractor: Extractor) -> None:
    ex = extractor.extract_one(PSEUDO)
    [own] = [lk for lk in ex.links if lk.relation == "proposes"]
    assert (own.entity.name, own.aliases) == (
        "APL (asymmetric pseudo-labeling)",
        ("APL", "asymmetric pseudo-labeling"),
    )
    assert own.evidence.sentence.startswith("We propose asymmetric pseudo-labeling (APL)")
    assert own.evidence.mention in own.aliases  # either form of the definition


def test_one_acronym_defined_two_ways_by_two_papers_is_two_entities(extractor: Extractor) -> None:
    ctx = QueryContext.open(store_from(list(extractor.extract([PRIOR, PSEUDO]))), BASE)
    assert _apl(ctx) == {
        "APL (Adaptive Prior Learning)": ["prior"],
        "APL (asymmetric pseudo-labeling)": ["pseudo"],
    }
    pseudo = q.entity(ctx, name="APL (asymmetric pseudo-labeling)")
    assert pseudo is not None and "Adaptive Prior Learning" not in pseudo.aliases


def test_one_acronym_defined_alike_by_two_papers_is_one_entity(extractor: Extractor) -> None:
    exs = list(extractor.extract([PRIOR, PRIOR_AGAIN]))
    names = [lk.entity.name for ex in exs for lk in ex.links if lk.relation == "proposes"]
    assert names == ["APL (Adaptive Prior Learning)", "APL (adaptive prior learning)"]  # case aside, alike
    ctx = QueryContext.open(store_from(exs), BASE)
    assert list(_apl(ctx).values()) == [["prior", "prior-again"]]


def test_searching_the_acronym_finds_each_of_its_entities(extractor: Extractor) -> None:
    ctx = QueryContext.open(store_from(list(extractor.extract([PRIOR, PSEUDO]))), BASE)
    found = {h.entity.id for h in q.search(ctx, "APL") if h.entity is not None}
    assert {"method/apl-adaptive-prior-learning", "method/apl-asymmetric-pseudo-labeling"} <= found


def test_a_defined_proposal_is_narrower_than_what_its_long_form_specialises(extractor: Extractor) -> None:
    ex = extractor.extract_one(
        Paper(
            id="alora",
            title="Allocating rank budgets",
            abstract="We propose allocating low-rank adaptation (ALoRA), a novel method that reallocates the "
            "rank of each adapter during fine-tuning. ALoRA outperforms uniform ranks on GLUE.",
        )
    )
    [own] = [lk for lk in ex.links if lk.relation == "proposes"]
    assert own.entity.name == "ALoRA (allocating low-rank adaptation)"
    assert [b.name for b in own.broader] == ["low-rank adaptation"]


def test_a_parenthesis_that_only_holds_the_acronyms_letters_names_nothing(extractor: Extractor) -> None:
    ex = extractor.extract_one(
        Paper(
            id="zap",
            abstract="Our approach, dubbed ZAP (lazy adaptive pruner), outperforms prior work. ZAP halves "
            "the cost of BERT.",
        )
    )
    [own] = [lk for lk in ex.links if lk.relation == "proposes"]
    assert (own.entity.name, own.aliases) == ("ZAP", ("lazy adaptive pruner",))  # no definition of ZAP


def test_a_long_form_keeps_no_markdown_emphasis_in_the_name_it_gives() -> None:
    assert defined_name("MGFiD", "M**ulti-**G**ranularity guided **F**usion-**i**n-**D**ecoder") == (
        "MGFiD (Multi-Granularity guided Fusion-in-Decoder)"
    )


def test_a_proposal_whose_definition_marks_its_letters_is_named_without_marks(extractor: Extractor) -> None:
    paper = Paper(
        id="marked",
        abstract="We propose **M**asked **P**rompt **L**earning (MPL), a framework for few-shot "
        "classification. MPL improves accuracy on five benchmarks.",
    )
    [own] = [lk for lk in extractor.extract_one(paper).links if lk.relation == "proposes"]
    assert (own.entity.name, own.aliases) == (
        "MPL (Masked Prompt Learning)",
        ("MPL", "Masked Prompt Learning"),
    )
