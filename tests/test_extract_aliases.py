"""A link's aliases are other names of its entity (issue 27 (d)): never a cut-off piece of the name, the tool
that performs a task, an acronym read in lower case, or a form with half a pair of quotes; a variant the
vocabulary knows as narrower is its own entity with `skos:broader`, not an alias."""

from __future__ import annotations

import pytest

from kg.extract import Extractor
from kg.extract.acronyms import find_definitions
from kg.types import EntityRef, Extraction, Link, Paper


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor()


def link(ex: Extraction, name: str) -> Link:
    return next(lk for lk in ex.links if lk.entity.name == name)


def names(ex: Extraction) -> set[str]:
    return {lk.entity.name for lk in ex.links}


def test_a_defined_acronym_takes_one_word_per_letter_over_the_shortest_spelling() -> None:
    (found,) = find_definitions("We fine-tune the policy with proximal policy optimization (PPO) on games.")
    assert (found.short, found.long) == ("PPO", "proximal policy optimization")


def test_a_cut_off_piece_of_the_name_is_no_alias(extractor: Extractor) -> None:
    ex = extractor.extract_one(Paper(
        id="rl", title="Stable fine-tuning of language models",
        abstract="We fine-tune language models with proximal policy optimization (PPO). Unlike standard "
        "policy optimization, our clipped objective keeps PPO stable on long dialogues.",
    ))
    assert link(ex, "proximal policy optimization").aliases == ("PPO",)


def test_the_object_of_a_task_is_no_alias_of_it(extractor: Extractor) -> None:
    ex = extractor.extract_one(Paper(
        id="noisy", title="Learning from noisy labels with co-teaching",
        abstract="Deep networks memorise noisy labels. We study learning from noisy labels and train two "
        "networks that teach each other on CIFAR-10.",
    ))
    assert "noisy labels" not in link(ex, "learning from noisy labels").aliases


def test_the_tool_that_performs_a_task_is_no_alias_of_it(extractor: Extractor) -> None:
    ex = extractor.extract_one(Paper(
        id="det", title="Sparse voxel features for 3D object detection",
        abstract="We address 3D object detection from LiDAR point clouds. Existing 3D object detectors waste "
        "computation on empty space; our sparse backbone runs twice as fast on KITTI.",
    ))
    assert link(ex, "3D object detection").aliases == ()


def test_half_a_pair_of_quotes_is_trimmed_from_an_alias(extractor: Extractor) -> None:
    ex = extractor.extract_one(Paper(
        id="vos", title="Box-supervised tracking of object masks",
        abstract='"Video Object Segmentation (VOS) is central to video editing. We study video object '
        'segmentation with only box supervision and reach strong results on DAVIS 2017."',
    ))
    assert all(not a.startswith('"') for a in link(ex, "video object segmentation").aliases)


def test_a_mined_acronym_is_not_read_in_lower_case(extractor: Extractor) -> None:
    ex = extractor.extract_one(Paper(
        id="clips", title="Temporal grounding of short video clips",
        abstract="We localise sentences in long videos by ranking short clips. Our ranker aligns clips with "
        "the query and improves recall on Charades-STA.",
    ))
    assert not any("clips" in (lk.evidence.mention, *lk.aliases) for lk in ex.links)


def test_a_narrower_task_the_vocabulary_knows_is_its_own_entity(extractor: Extractor) -> None:
    ex = extractor.extract_one(Paper(
        id="nmt", title="Low-resource translation with monolingual data",
        abstract="We improve neural machine translation (NMT) for low-resource language pairs with "
        "back-translation of monolingual text.",
    ))
    nmt = link(ex, "neural machine translation")
    assert (nmt.relation, nmt.broader) == ("addressesTask", (EntityRef("Task", "machine translation"),))
    assert "machine translation" not in names(ex)
