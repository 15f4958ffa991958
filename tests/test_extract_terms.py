"""`paperkg_terms`: mined-tier terms found in noun-phrase runs, typed by how the abstract uses them (the
typing policy of ontology/README.md), and left out when the abstract only mentions them in passing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from spacy.language import Language

from kg.extract.fields import join_fields
from kg.extract.pipeline import build_nlp
from kg.extract.terms import TermFinder, TierTerm, load_tier
from kg.names import match_key
from kg.settings import DEFAULT_BASE_IRI

TIER = {
    match_key(t.name): t
    for t in (
        TierTerm("trajectory optimization", "Method", "Task", 40),
        TierTerm("tail latency", "Metric", None, 30),
        TierTerm("orbit forecasting", "Task", None, 4),
    )
}


@pytest.fixture(scope="module")
def nlp() -> Iterator[Language]:
    nlp = build_nlp(DEFAULT_BASE_IRI, with_recogniser=False)
    finder = nlp.get_pipe("paperkg_terms")
    assert isinstance(finder, TermFinder)
    shipped, finder.tier = finder.tier, TIER
    yield nlp
    finder.tier = shipped


def found(nlp: Language, abstract: str, title: str = "") -> set[tuple[str, str]]:
    doc = nlp(join_fields(title, abstract))
    return {(m["type"], m["name"]) for m in doc._.kg_mentions if m["rule"] == "mined-term"}


def test_a_phrase_the_paper_studies_is_a_task(nlp: Language) -> None:
    assert found(nlp, "We study trajectory optimization for legged robots.") == {
        ("Task", "trajectory optimization")
    }


def test_the_same_phrase_used_as_a_means_is_a_method(nlp: Language) -> None:
    assert found(nlp, "Smooth paths for the arm are produced using trajectory optimization.") == {
        ("Method", "trajectory optimization")
    }


def test_without_a_cue_the_corpus_prior_types_it(nlp: Language) -> None:
    assert found(nlp, "Our planner couples trajectory optimization with a learned critic.") == {
        ("Method", "trajectory optimization")
    }


def test_a_passing_mention_in_background_is_left_out(nlp: Language) -> None:
    text = "Robotics has long relied on planners, e.g. trajectory optimization, sampling and search."
    assert found(nlp, text) == set()


def test_a_metric_needs_a_measuring_sentence(nlp: Language) -> None:
    assert found(nlp, "Tail latency matters for web services.") == set()
    assert found(nlp, "Our scheduler reduces tail latency by 40% on a real cluster.") == {
        ("Metric", "tail latency")
    }


def test_a_rare_term_counts_when_used_twice_but_not_in_a_we_sentence_alone(nlp: Language) -> None:
    twice = "We discuss orbit forecasting briefly. Orbit forecasting needs long horizons."
    assert found(nlp, twice) == {("Task", "orbit forecasting")}
    assert found(nlp, "We also discuss orbit forecasting briefly.") == set()


def test_a_rare_term_modifying_a_generic_head_is_left_out(nlp: Language) -> None:
    assert found(nlp, "We propose an orbit forecasting framework for satellites.") == set()


def test_the_shipped_tier_loads_offline() -> None:
    tier = load_tier(DEFAULT_BASE_IRI)
    assert len({(t.type, t.name) for t in tier.values()}) >= 5000
    assert {t.type for t in tier.values()} == {"Task", "Method", "Metric", "Dataset"}


def test_a_curated_label_with_other_hyphens_is_found_by_its_key(nlp: Language) -> None:
    doc = nlp("Our hashing beats baselines on click-through-rate prediction tasks.")
    got = {(m["type"], m["name"]) for m in doc._.kg_mentions if m["rule"] == "vocab-key"}
    assert got == {("Task", "click-through rate prediction")}


def test_a_curated_task_before_a_tool_noun_is_not_found_by_its_key_either(nlp: Language) -> None:
    doc = nlp("The decoder leverages semantic-parsing guidance to select priors.")
    assert not [m for m in doc._.kg_mentions if m["rule"] == "vocab-key"]
