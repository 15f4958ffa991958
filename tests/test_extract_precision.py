"""Precision rules found on real abstracts, shown on invented ones: modifiers are not names, parts are not
tasks, kinds of benchmark are not benchmarks, the paper's own agent is not a domain."""

from __future__ import annotations

import pytest

from kg.extract import Extractor
from kg.types import Paper


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(with_linker=False)  # the rule components' own mentions, the linker's candidates


def found(extractor: Extractor, abstract: str, type_: str, title: str | None = None) -> set[str]:
    ex = extractor.extract_one(Paper(id="t", abstract=abstract, title=title))
    return {lk.entity.name for lk in ex.links if lk.entity.type == type_}


def test_the_name_after_the_head_noun_is_proposed(extractor: Extractor) -> None:
    text = "We propose a Noise-Tolerant approach QuarkNet for sparse graphs."
    assert found(extractor, text, "Method") == {"QuarkNet"}


def test_an_acronym_with_a_version_digit_is_defined(extractor: Extractor) -> None:
    ex = extractor.extract_one(
        Paper(id="t", abstract="We propose Sparse Token Routing Engine (STRE2), a router.")
    )
    assert [(lk.entity.name, lk.evidence.mention, lk.aliases) for lk in ex.links] == [
        ("STRE2 (Sparse Token Routing Engine)", "STRE2", ("STRE2", "Sparse Token Routing Engine"))
    ]


def test_a_hyphenated_word_stays_in_the_task(extractor: Extractor) -> None:
    assert found(extractor, "We address next-frame prediction for traffic.", "Task") == {
        "next-frame prediction"
    }


def test_a_based_compound_is_not_part_of_the_task(extractor: Extractor) -> None:
    assert found(extractor, "We study kernels for lattice-based forecasting.", "Task") == set()


def test_a_task_word_before_a_part_noun_is_no_task(extractor: Extractor) -> None:
    assert found(extractor, "We design a new image classification loss.", "Task") == set()


def test_a_task_head_before_another_noun_is_no_task(extractor: Extractor) -> None:
    assert found(extractor, "The tool guides users towards optimal calibration images.", "Task") == set()


def test_based_compound_links_the_base_method(extractor: Extractor) -> None:
    assert found(extractor, "We adapt Transformer-Based encoders to audio.", "Method") == {"Transformer"}


def test_a_counted_kind_of_benchmark_is_not_a_dataset(extractor: Extractor) -> None:
    assert found(extractor, "Experiments on four ZQR benchmarks show gains.", "Dataset") == set()


def test_the_papers_own_agent_is_not_a_domain(extractor: Extractor) -> None:
    text = "We present Wibble, a planner, and deploy Wibble agents in board games."
    assert found(extractor, text, "Domain") == set()


def test_a_participle_is_not_part_of_a_domain(extractor: Extractor) -> None:
    text = "The resulting warehouse agents coordinate without a central planner."
    assert found(extractor, text, "Domain") == {"warehouse agents"}


def test_a_task_after_an_aware_compound_keeps_its_cue(extractor: Extractor) -> None:
    text = "We study drift-aware schema matching across tables."
    assert found(extractor, text, "Task") == {"schema matching"}


def test_the_fields_generic_words_are_no_links(extractor: Extractor) -> None:
    text = "Deep learning is everywhere. We fine-tune foundation models for quokka counting."
    assert found(extractor, text, "Method") | found(extractor, text, "Task") == {"quokka counting"}


def test_a_plural_task_noun_names_outputs_not_the_task(extractor: Extractor) -> None:
    text = "We release a collection of model generations on our benchmark."
    assert found(extractor, text, "Task") == set()


def test_pieces_of_a_proposed_name_are_not_proposed_themselves(extractor: Extractor) -> None:
    title = "Quokka Decoding: Constrained Generation with Predicate Logic"
    text = "We propose Quokka, a decoding algorithm that enforces constraints. Quokka Decoding is fast."
    ex = extractor.extract_one(Paper(id="t", abstract=text, title=title))
    assert {lk.entity.name for lk in ex.links if lk.relation in ("proposes", "introducesDataset")} == {
        "Quokka Decoding"
    }


def test_the_acronym_of_the_problem_solved_is_not_a_proposal(extractor: Extractor) -> None:
    text = (
        "We present a learned heuristic for the quokka routing problem (QRP). QRP achieves wide use in "
        "logistics. QRP enables delivery planning."
    )
    ex = extractor.extract_one(Paper(id="t", abstract=text, title="Learning Heuristics for QRP"))
    assert [lk.entity.name for lk in ex.links if lk.relation == "proposes"] == []
