"""End-to-end extraction on abstracts written for these tests, in the style of real ones, invented names."""

from __future__ import annotations

import pytest

from kg.extract import Extractor, to_json
from kg.types import Paper


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(with_linker=False)  # the rule components' own mentions, the linker's candidates


def links(extractor: Extractor, abstract: str, title: str | None = None) -> set[tuple[str, str, str]]:
    ex = extractor.extract_one(Paper(id="t", abstract=abstract, title=title))
    return {(lk.relation, lk.entity.type, lk.entity.name) for lk in ex.links}


MOL = (
    "Generating valid molecules remains difficult. In this paper, we propose FooNet, a novel graph "
    "transformer that learns bond grammars. Experiments on the QuuxBench benchmark and ZINC250k show that "
    "FooNet outperforms GraphAF, MoFlow, and GDSS. Code is available at https://github.com/acme/FooNet."
)
FED = (
    "Clients in cross-silo settings hold skewed data. We present Gradient Harmonised Averaging (GHA), a "
    "federated learning algorithm that reweights client updates. Compared to FedAvg, FedProx and SCAFFOLD, "
    "GHA improves accuracy on CIFAR-10 and the Blorp-7 dataset. GHA also reduces communication."
)
SEC = (
    "Web agents are vulnerable to indirect prompt injection. We introduce ShieldBot, a lightweight defense "
    "for LLM agents that filters tool outputs. We also release WebTrap, a benchmark of 500 poisoned pages. "
    "On WebTrap, ShieldBot reduces the attack success rate of Llama-3-8B from 40% to 3%."
)


def test_proposed_model_datasets_and_baselines(extractor: Extractor) -> None:
    assert links(extractor, MOL, "FooNet: Fast Graph Reasoning for Molecule Generation") == {
        ("addressesTask", "Task", "molecule generation"),
        ("addressesTask", "Task", "graph reasoning"),  # the title's "Fast Graph Reasoning" (mined tier)
        ("proposes", "Method", "FooNet"),
        ("usesMethod", "Method", "Graph Transformer"),  # "a novel graph transformer": the longer term wins
        ("usesDataset", "Dataset", "QuuxBench"),
        ("usesDataset", "Dataset", "ZINC250k"),
        ("comparesWith", "Method", "GraphAF"),
        ("comparesWith", "Method", "MoFlow"),
        ("comparesWith", "Method", "GDSS"),
    }


def test_code_url_without_trailing_period(extractor: Extractor) -> None:
    ex = extractor.extract_one(Paper(id="t", abstract=MOL))
    assert ex.code_urls == ("https://github.com/acme/FooNet",)


def test_long_form_acronym_proposal_and_known_baselines(extractor: Extractor) -> None:
    got = links(extractor, FED)
    assert ("proposes", "Method", "GHA (Gradient Harmonised Averaging)") in got  # the acronym, defined
    assert {n for r, _, n in got if r == "comparesWith"} == {"federated averaging", "FedProx", "SCAFFOLD"}
    assert {n for r, _, n in got if r == "usesDataset"} == {"CIFAR-10", "Blorp-7"}
    assert ("reportsMetric", "Metric", "accuracy") in got


def test_acronym_aliases_kept(extractor: Extractor) -> None:
    ex = extractor.extract_one(Paper(id="t", abstract=FED))
    gha = next(lk for lk in ex.links if lk.relation == "proposes")
    assert gha.entity.kind == "Algorithm" and gha.evidence.mention == "GHA"
    assert gha.aliases[:1] == ("GHA",) and "Gradient Harmonised Averaging" in gha.aliases


def test_defense_benchmark_threat_and_model_variant(extractor: Extractor) -> None:
    ex = extractor.extract_one(Paper(id="t", abstract=SEC))
    got = {(lk.relation, lk.entity.type, lk.entity.name, lk.entity.kind) for lk in ex.links}
    assert ("proposes", "Method", "ShieldBot", "Defense") in got
    assert ("introducesDataset", "Dataset", "WebTrap", "Benchmark") in got
    assert ("studiesThreat", "Threat", "indirect prompt injection", None) in got
    assert ("reportsMetric", "Metric", "attack success rate", None) in got
    llama = next(lk for lk in ex.links if lk.relation == "evaluatesModel")
    assert (llama.entity.name, llama.evidence.mention, llama.variant_of and llama.variant_of.name) == (
        "Llama 3",
        "Llama-3-8B",
        "Llama",
    )
    rels = {(r.subject.name, r.relation, r.object.name) for r in ex.relations}
    assert ("ShieldBot", "defendsAgainst", "indirect prompt injection") in rels
    assert ("ShieldBot", "targetsDomain", "LLM agents") in rels


def test_variant_dataset_and_resolution_suffix(extractor: Extractor) -> None:
    ex = extractor.extract_one(
        Paper(
            id="t",
            abstract=(
                "We train on ImageNet64$\\times$64 and report results on the CIFAR-100-LT and "
                "Tiny ImageNet datasets."
            ),
        )
    )
    by_name = {lk.entity.name: lk for lk in ex.links}
    assert by_name["ImageNet"].evidence.mention == "ImageNet64"
    assert by_name["CIFAR-100-LT"].variant_of is not None
    assert by_name["CIFAR-100-LT"].variant_of.name == "CIFAR-100"


def test_offsets_are_relative_to_the_field(extractor: Extractor) -> None:
    title, abstract = "ZorbNet: Sparse Routing", "We propose ZorbNet, a sparse mixture model."
    ex = extractor.extract_one(Paper(id="t", abstract=abstract, title=title))
    for lk in ex.links:
        text = title if lk.evidence.field == "title" else abstract
        assert text[lk.evidence.start : lk.evidence.end] == lk.evidence.mention


def test_to_json_shape(extractor: Extractor) -> None:
    ex = extractor.extract_one(Paper(id="p1", abstract=SEC, title="ShieldBot"))
    j = to_json(ex)
    assert set(j) == {"id", "title", "entities", "relations", "code", "results"}
    assert j["id"] == "p1"
    assert set(j["entities"][0]) == {
        "name",
        "type",
        "kind",
        "relation",
        "mention",
        "evidence",
        "start",
        "end",
        "confidence",
        "rule",  # added in extractor 0.2.0: which rule or model linked it, and its tier
        "tier",
    }
    assert set(j["relations"][0]) == {
        "subject",
        "subject_type",
        "relation",
        "object",
        "object_type",
        "evidence",
        "confidence",
    }


POISON = (
    "Our backdoor reaches a 20% attack success rate with 3% poisoning samples on the Florble corpus. "
    "Decoding gets faster by reusing the re-ranking scores for *passage pruning*. "
    "We employ a _Selective Token Poisoning_ technique to boost the attack."
)


def test_a_percent_before_a_word_is_part_of_a_measurement_not_a_name(extractor: Extractor) -> None:
    assert not any(name[:1] in "%+" for _, _, name in links(extractor, POISON))


def test_markdown_emphasis_is_no_part_of_a_name(extractor: Extractor) -> None:
    ex = extractor.extract_one(Paper(id="t", abstract=POISON))
    by_name = {lk.entity.name: lk.evidence for lk in ex.links}
    assert "passage pruning" in by_name and "selective token poisoning" in by_name
    ev = by_name["selective token poisoning"]
    assert POISON[ev.start : ev.end] == ev.mention == "Selective Token Poisoning"


def test_a_participle_before_a_generic_head_is_no_method(extractor: Extractor) -> None:
    text = ("We distil the trained models into a learned policy and compare with the aforementioned methods. "
            "Our energy-based model outperforms them.")
    names = {name for _, _, name in links(extractor, text)}
    assert not names & {"trained models", "learned policy", "aforementioned methods"}
    assert "energy-based model" in names


@pytest.mark.parametrize(
    ("text", "proposal", "long_form"),
    [
        pytest.param("To close this gap, we propose BRAVE (Bounded Retrieval Adaptation for Visual Question "
                     "Answering), a novel approach that adapts retrieval to each question.",
                     "BRAVE (Bounded Retrieval Adaptation for Visual Question Answering)",
                     "Bounded Retrieval",
                     id="an acronym for a method for a known problem"),
        pytest.param("Our proposed approach KLIMT (Kernel Lifting with Implicit Temporal Memory) "
                     "demonstrates superior performance compared to existing methods.",
                     "KLIMT (Kernel Lifting with Implicit Temporal Memory)", "Kernel Lifting",
                     id="the name after our proposed approach"),
    ],
)
def test_the_proposal_is_the_acronym_not_its_long_form(
    extractor: Extractor, text: str, proposal: str, long_form: str
) -> None:
    """The acronym names the proposal, its definition its disambiguator; no other entity is named by the long
    form or a piece of it."""
    got = links(extractor, text)
    assert ("proposes", "Method", proposal) in got
    assert [name for _, _, name in got if long_form in name] == [proposal]


def test_no_name_is_cut_across_a_parenthesis_or_a_hyphen(extractor: Extractor) -> None:
    text = ("Agents either pick the next action or write plans and executing sub-tasks with tools. We report "
            "results for both referring widget parsing (RWP) and segmentation (RWS) tasks on the Glimmer "
            "benchmark.")
    names = {name for _, _, name in links(extractor, text)}
    assert not any(")" in n or "(" in n or n.endswith("-") for n in names), names


THEORY = (
    "Degrees of such graphs follow a power law. Learned control replaces hand-derived control laws. "
    "We derive upper bounds on the estimation error and near-optimal regret bounds, improving on the "
    "upper confidence bound algorithm. Using matrix perturbation analysis, we recover the leading "
    "eigenvectors."
)


def test_a_theory_papers_bounds_are_results_not_methods(extractor: Extractor) -> None:
    got = links(extractor, THEORY)
    assert not any(t == "Method" and name.endswith("bounds") for _, t, name in got)
    assert any(name == "upper confidence bound" for _, _, name in got)


def test_an_ambiguous_domain_word_headed_by_another_noun_is_no_domain(extractor: Extractor) -> None:
    assert ("targetsDomain", "Domain", "law") not in links(extractor, THEORY)
    assert ("targetsDomain", "Domain", "law") in links(extractor, "We study AI tools in law and medicine.")


def test_a_perturbation_is_a_threat_only_among_attacks(extractor: Extractor) -> None:
    assert not any(t == "Threat" for _, t, _ in links(extractor, THEORY))
    text = "Chinese language models are brittle under adversarial attacks such as word perturbation."
    assert any(t == "Threat" and "perturbation" in name for _, t, name in links(extractor, text))


def test_a_judged_measure_is_named_by_the_measure(extractor: Extractor) -> None:
    text = ("Zorblax achieves comparable accuracy to strong baselines with comparable model size on the "
            "Florble benchmark.")
    got = links(extractor, text)
    assert ("reportsMetric", "Metric", "accuracy") in got
    assert not any(name.split()[0] in ("comparable", "model") for _, _, name in got)


def test_agents_counted_or_acted_on_are_no_domain(extractor: Extractor) -> None:
    text = ("We consider the problem where M agents interact with M identical environments. Notable examples "
            "include training agents to play Atari games. We build LLM agents for web navigation.")
    domains = {name for _, t, name in links(extractor, text) if t == "Domain"}
    assert domains == {"LLM agents"}


def test_title_case_words_are_not_ambiguous_entries(extractor: Extractor) -> None:
    got = links(extractor, "We route vehicles on city roads.",
                title="Zorbnet: Boosting Graph Networks for Traffic Flow Prediction in Multi-Agent Systems")
    names = {name for _, _, name in got}
    assert not names & {"boosting", "Traffic", "agents"}, names
    assert ("addressesTask", "Task", "traffic flow prediction") in got


def test_vague_modifiers_are_no_part_of_a_name(extractor: Extractor) -> None:
    text = ("We study available foundation models without requiring additional training. Extensive "
            "experiments demonstrate superior performance with minimal computational overhead.")
    names = {name for _, _, name in links(extractor, text)}
    assert not any(n.split()[0] in ("available", "requiring", "additional", "minimal") for n in names), names


def test_a_naming_cue_is_no_part_of_a_name(extractor: Extractor) -> None:
    text = ("To handle this limitation, this paper proposes a novel framework named Multi-Agent Zorble "
            "Coordination via Shared Teammate Modeling (MAZCO), which learns to communicate.")
    names = {name for _, _, name in links(extractor, text)}
    assert "MAZCO (Multi-Agent Zorble Coordination via Shared Teammate Modeling)" in names
    assert not any(" named " in n for n in names), names


def test_a_one_word_list_item_is_a_task_or_measure_only_when_it_reads_as_one(extractor: Extractor) -> None:
    text = ("Zorblax handles tasks such as cameras, datasets, and translation, and we report metrics "
            "including culture, diversity, and the Jaccard index on the Florble benchmark.")
    names = {name for _, t, name in links(extractor, text) if t in ("Task", "Metric")}
    assert not names & {"cameras", "datasets", "culture"}, names
    assert {"diversity", "translation"} <= names


def test_a_named_dataset_written_all_lowercase_is_a_plain_phrase(extractor: Extractor) -> None:
    plain = "This prompts the natural question whether the bound extends to the agnostic case."
    assert not any(t == "Dataset" for _, t, _ in links(extractor, plain))
    named = "We evaluate on Natural Questions and TriviaQA."
    assert {n for _, t, n in links(extractor, named) if t == "Dataset"} == {"Natural Questions", "TriviaQA"}
