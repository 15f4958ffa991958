"""`paperkg_lists`: members of a list are what its cue says they are."""

from __future__ import annotations

import pytest
from spacy.language import Language

from kg.extract.fields import join_fields
from kg.extract.pipeline import build_nlp
from kg.settings import DEFAULT_BASE_IRI


@pytest.fixture(scope="module")
def nlp() -> Language:
    return build_nlp(DEFAULT_BASE_IRI, with_recogniser=False)


def listed(nlp: Language, abstract: str) -> set[tuple[str, str]]:
    doc = nlp(join_fields("", abstract))
    return {(m["type"], m["name"]) for m in doc._.kg_mentions if m["rule"] == "typed-list"}


def test_members_after_tasks_such_as_are_tasks(nlp: Language) -> None:
    text = "The model is evaluated on tasks such as code completion, lemma retrieval and proof repair."
    assert listed(nlp, text) == {
        ("Task", "code completion"),
        ("Task", "lemma retrieval"),
        ("Task", "proof repair"),
    }


def test_members_before_a_tasks_tail_are_tasks(nlp: Language) -> None:
    text = (
        "Our encoder improves both image retrieval and molecule property prediction tasks by a wide margin."
    )
    assert listed(nlp, text) == {("Task", "image retrieval"), ("Task", "molecule property prediction")}


def test_members_after_metrics_including_are_metrics(nlp: Language) -> None:
    text = "We report standard metrics including precision, recall and word error rate on all splits."
    assert listed(nlp, text) == {("Metric", "precision"), ("Metric", "recall"), ("Metric", "word error rate")}


def test_members_after_in_terms_of_are_metrics(nlp: Language) -> None:
    text = "The switch design wins in terms of tail latency and energy consumption."
    assert listed(nlp, text) == {("Metric", "tail latency"), ("Metric", "energy consumption")}


def test_applications_such_as_are_not_tasks(nlp: Language) -> None:
    text = "Language models now serve applications such as healthcare, finance and education."
    assert listed(nlp, text) == set()


def test_a_single_tasks_word_without_a_list_types_nothing(nlp: Language) -> None:
    assert listed(nlp, "We benchmark several downstream tasks.") == set()


def test_a_modifier_between_the_cue_and_the_list_does_not_hide_the_cue(nlp: Language) -> None:
    text = "The skills transfer to downstream tasks such as real-world hoof adaptation, where we win."
    assert listed(nlp, text) == {("Task", "hoof adaptation")}


def test_the_fields_examples_in_a_background_sentence_are_not_this_papers_tasks(nlp: Language) -> None:
    text = "It quantifies dependence in many inference problems such as quokka mapping and wombat ranking."
    assert listed(nlp, text) == set()


def test_examples_in_a_sentence_about_this_work_are_its_tasks(nlp: Language) -> None:
    text = "These inputs serve diverse sensing tasks, such as quokka mapping and wombat detection."
    assert listed(nlp, text) == {("Task", "quokka mapping"), ("Task", "wombat detection")}


def test_adjectives_before_a_metrics_tail_are_kinds_not_metrics(nlp: Language) -> None:
    text = "We report qualitative and quantitative metrics on our benchmark."
    assert listed(nlp, text) == set()
