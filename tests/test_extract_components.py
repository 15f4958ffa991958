"""One behaviour per component of the extraction pipeline."""

from __future__ import annotations

import pytest
import spacy
from spacy.language import Language

from kg.extract.acronyms import Acronym, best_long_form, find_definitions
from kg.extract.canon import type_of_long_form
from kg.extract.common import name_strength
from kg.extract.fields import code_urls, join_fields
from kg.extract.lexicon import load_lexicon
from kg.extract.pipeline import build_nlp
from kg.settings import DEFAULT_BASE_IRI


@pytest.fixture(scope="module")
def nlp() -> Language:
    return build_nlp(DEFAULT_BASE_IRI)


def test_every_component_declares_what_it_reads_and_writes_and_the_order_satisfies_it(nlp: Language) -> None:
    ours = [name for name in nlp.pipe_names if name.startswith("paperkg_")]
    assert all(nlp.get_pipe_meta(name).assigns for name in ours)
    analysis = nlp.analyze_pipes(pretty=False)
    assert analysis is not None
    assert analysis["problems"] == {name: [] for name in nlp.pipe_names}


def test_pipeline_runs_only_needed_pipes(nlp: Language) -> None:
    assert nlp.pipe_names == [
        "tok2vec",
        "tagger",
        "paperkg_fields",
        "sentencizer",
        "paperkg_acronyms",
        "paperkg_vocab",
        "paperkg_proposals",
        "paperkg_experiments",
        "paperkg_topics",
        "paperkg_lists",
        "paperkg_terms",
        "paperkg_recogniser",
        "paperkg_canon",
        "paperkg_results",
    ]


def test_acronym_long_form_then_short() -> None:
    text = "We use quantum tensor sketching (QTS) throughout."
    assert find_definitions(text) == [Acronym("QTS", "quantum tensor sketching", 33, 36, 7, 31, "LF(SF)")]


def test_acronym_short_then_long_form() -> None:
    text = "We present ZAP (Zero-shot Adaptive Pruning), a method."
    assert find_definitions(text) == [Acronym("ZAP", "Zero-shot Adaptive Pruning", 11, 14, 16, 42, "SF(LF)")]


def test_acronym_digit_for_to() -> None:
    assert best_long_form("StT", "Speech-to-Text") == "Speech-to-Text"
    assert find_definitions("Image-to-Image translation (I2I) works.")[0][1] == "Image-to-Image translation"


def test_acronym_long_form_in_markdown_emphasis() -> None:
    text = "a method called *Quokka Tensor Sketching* (QTS)."
    assert find_definitions(text)[0][:2] == ("QTS", "Quokka Tensor Sketching")


def test_acronym_long_form_starts_at_a_content_word() -> None:
    text = "we introduce Adaptive Decoding and Planning for complex Texts (ADaPT), an approach"
    assert find_definitions(text)[0][:2] == ("ADaPT", "Adaptive Decoding and Planning for complex Texts")


def test_acronym_long_form_never_reaches_across_an_earlier_parenthesis() -> None:
    text = "for both widget layout parsing (WLP) and segmentation (WS) tasks"
    assert [a.short for a in find_definitions(text)] == ["WLP"]


def test_parenthesised_example_is_not_a_definition() -> None:
    assert find_definitions("a colour space (e.g., YUV) and") == []


def test_code_urls_exactly_as_written() -> None:
    text = (
        "Code: [https://github.com/a/b](https://github.com/a/b). Data at https://huggingface.co/datasets/x/y."
    )
    assert code_urls(text) == ["https://github.com/a/b", "https://huggingface.co/datasets/x/y"]


def test_fields_boundary_is_a_sentence_start(nlp: Language) -> None:
    doc = nlp(join_fields("Gizmo Nets for Graphs", "We study graphs."))
    assert doc._.kg_title_end == len("Gizmo Nets for Graphs")
    assert [s.text.strip() for s in doc.sents] == ["Gizmo Nets for Graphs", "We study graphs."]


def test_vocab_matcher_case_and_plural(nlp: Language) -> None:
    doc = nlp(join_fields("", "We train graph neural networks and Vision Transformers."))
    names = {(m["type"], m["name"]) for m in doc._.kg_mentions if m["rule"] == "vocab"}
    assert ("Method", "graph neural network") in names


def test_vocab_hidden_label_needs_exact_case(nlp: Language) -> None:
    doc = nlp(join_fields("", "The qa pairs were cleaned."))
    assert not [m for m in doc._.kg_mentions if m["name"] == "question answering"]


def test_lexicon_lookup_by_match_key() -> None:
    lex = load_lexicon(DEFAULT_BASE_IRI)
    e = lex.lookup("Kinetics600")
    assert e is not None and e.ref.name == "Kinetics-600"


def test_proposals_named_pattern(nlp: Language) -> None:
    doc = nlp(join_fields("", "Here we describe an attack, dubbed Snagglepuss, that evades filters."))
    got = [(m["relation"], m["name"], m["kind"]) for m in doc._.kg_mentions if m["rule"] == "named-pattern"]
    assert got == [("proposes", "Snagglepuss", "Attack")]


def test_proposals_variants_of_the_acronym_and_camel_case_continuations(nlp: Language) -> None:
    text = (
        "We present Quokka Tensor Sketching (QTS) and two variants, QTS-PF and QTS-HYBRID. "
        "We also release Wombat, creating WombatChat on top of it."
    )
    doc = nlp(join_fields("", text))
    got = {m["name"] for m in doc._.kg_mentions if m["rule"] == "propose-variant"}
    assert got == {"QTS-PF", "QTS-HYBRID", "WombatChat"}


def test_proposals_title_colon(nlp: Language) -> None:
    doc = nlp(join_fields("Wobbler: A Benchmark for Tabular Reasoning", "Wobbler contains 3k tables."))
    got = [(m["relation"], m["type"], m["name"]) for m in doc._.kg_mentions if m["rule"] == "title-colon"]
    assert got == [("introducesDataset", "Dataset", "Wobbler")]


def test_evaluation_datasets_such_as(nlp: Language) -> None:
    doc = nlp(join_fields("", "We evaluate on benchmarks such as Zebrafish-QA and TallyBench."))
    got = sorted(m["name"] for m in doc._.kg_mentions if m["type"] == "Dataset")
    assert got == ["TallyBench", "Zebrafish-QA"]


def test_topics_slash_task(nlp: Language) -> None:
    doc = nlp(join_fields("", "We study methods for audio/speech separation in noisy rooms."))
    got = sorted(m["name"] for m in doc._.kg_mentions if m["rule"] == "task-phrase")
    assert got == ["audio separation", "speech separation"]


def test_topics_threat_needs_a_content_modifier(nlp: Language) -> None:
    doc = nlp(join_fields("", "Sophisticated attacks exist, such as clock glitching attacks."))
    got = [m["name"] for m in doc._.kg_mentions if m["type"] == "Threat"]
    assert got == ["clock glitching attack"]


def test_canon_types_unknown_defined_terms() -> None:
    assert type_of_long_form("sparse spectral fine-tuning") == ("Method", "Method")
    assert type_of_long_form("lunar crater detection") == ("Task", None)


def test_name_strength() -> None:
    assert [name_strength(w) for w in ("FooNet", "ZINC250k", "Galileo", "the", "LLMs", "7B")] == [
        2,
        2,
        1,
        0,
        0,
        0,
    ]


def test_canon_merges_acronym_and_long_form(nlp: Language) -> None:
    doc = nlp(join_fields("", "We adopt sparse spectral fine-tuning (SSFT). SSFT is cheap."))
    ents = [(e["name"], e["type"], e["aliases"]) for e in doc._.kg_entities]
    assert ents == [("sparse spectral fine-tuning", "Method", ["SSFT"])]


def test_blank_model_is_not_needed_for_acronyms() -> None:
    nlp = spacy.blank("en")
    nlp.add_pipe("paperkg_acronyms")
    assert nlp("Deep Sea Nets (DSN) are used.")._.kg_acronyms[0][:2] == ("DSN", "Deep Sea Nets")


def test_proposals_data_the_paper_creates(nlp: Language) -> None:
    text = "We gather texts from forty forums and create the WALRUS corpus for dialect research."
    doc = nlp(join_fields("", text))
    got = [(m["relation"], m["name"]) for m in doc._.kg_mentions if m["rule"] == "makes-data"]
    assert got == [("introducesDataset", "WALRUS")]


def test_proposals_a_defined_part_that_acts_is_named_but_a_defined_problem_is_not(nlp: Language) -> None:
    text = (
        "The Minimum Quokka Cover Problem (MQCP) is NP-hard. "
        "Then, the temporal fidelity regulating gate (TFRG) enhances fidelity through feature interaction."
    )
    doc = nlp(join_fields("", text))
    got = [m["name"] for m in doc._.kg_mentions if m["rule"] == "defined-subject"]
    assert got == ["TFRG"]


def test_canon_a_phrase_containing_the_name_is_no_alias() -> None:
    from kg.extract.canon import _contains_name

    assert _contains_name("image generation on ImageNet", "ImageNet")
    assert not _contains_name("ImageNet", "ImageNet")
    assert not _contains_name("ILSVRC", "ImageNet")
    assert _contains_name("image/video classification", "image classification")
