"""Hierarchies (issue 27): a variant gets skos:broader to the entity it specialises, read from its head and
modifiers; a name is a whole phrase, never a piece of a longer one; "DATASET task" is the task on the dataset;
`papers(task: …)` includes the narrower entities' papers unless `includeNarrower: false`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fixtures_api import BASE, Server, serve, store_from

from kg.extract import Extractor
from kg.extract.hierarchy import Hierarchy
from kg.query import QueryContext
from kg.types import EntityRef, Extraction, Paper

VIDEO = Paper(
    id="video",
    title="Temporally consistent video semantic segmentation",
    abstract="We study video semantic segmentation with a memory of past frames and report mIoU on "
    "Cityscapes and VSPW.",
)
POINTS = Paper(
    id="points",
    title="Point cloud action recognition with transformers",
    abstract="We study point cloud action recognition and weakly supervised semantic segmentation on "
    "NTU RGB+D.",
)
PLAIN = Paper(
    id="plain",
    title="Boundary-aware semantic segmentation",
    abstract="We address semantic segmentation with a boundary loss and report mIoU on ADE20K.",
)


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor()


def tasks(ex: Extraction) -> dict[str, list[str]]:
    """Task name → the names of its broader entities."""
    return {lk.entity.name: [b.name for b in lk.broader] for lk in ex.links if lk.entity.type == "Task"}


def test_a_variant_is_narrower_than_the_name_it_ends_with() -> None:
    h = Hierarchy.load()
    assert h.broader_of("Task", "video semantic segmentation") == [EntityRef("Task", "semantic segmentation")]
    assert h.broader_of("Task", "point cloud action recognition") == [EntityRef("Task", "action recognition")]
    # "weakly" goes with "supervised": no kind of "supervised semantic segmentation"
    assert h.broader_of("Task", "weakly supervised semantic segmentation") == [
        EntityRef("Task", "semantic segmentation")
    ]
    assert h.broader_of("Task", "segmentation of semantic segmentation maps") == []  # no modifier of the head
    assert h.broader_of("Metric", "top-1 accuracy") == []  # tasks, methods and datasets only


def test_extracted_variants_carry_their_broader_entity(extractor: Extractor) -> None:
    video, points = extractor.extract([VIDEO, POINTS])
    assert tasks(video) == {"video semantic segmentation": ["semantic segmentation"]}
    assert tasks(points) == {
        "point cloud action recognition": ["action recognition"],
        "weakly supervised semantic segmentation": ["semantic segmentation"],
    }


@pytest.mark.parametrize(
    ("title", "abstract", "expected"),
    [
        (  # a title-case name after a capitalised possessive starts at the possessive
            "Epipolar Attention Field Transformers for Bird's Eye View Semantic Segmentation",
            "Spatial understanding is key. We tackle Bird's Eye View Semantic Segmentation from cameras.",
            {"Bird's Eye View Semantic Segmentation": ["semantic segmentation"]},
        ),
        (  # the title's "Adaptive Semantic Segmentation" is the end of the name the abstract writes whole
            "Domain Adaptive Semantic Segmentation with Prototypes",
            "We study Domain Adaptive Semantic Segmentation.",
            {"Domain Adaptive Semantic Segmentation": ["semantic segmentation"]},
        ),
    ],
)
def test_a_name_is_never_a_piece_of_a_longer_one(
    extractor: Extractor, title: str, abstract: str, expected: dict[str, list[str]]
) -> None:
    found = tasks(extractor.extract_one(Paper(id="t", title=title, abstract=abstract)))
    got = {n.lower(): b for n, b in found.items()}
    [(whole, broader)] = expected.items()
    assert got[whole.lower()] == broader  # the whole name, as the paper or the mined tier writes it
    pieces = [n for n in got if n != whole.lower() and whole.lower().endswith(n) and n not in broader]
    assert pieces == []


def test_a_dataset_before_a_task_is_the_task_on_that_dataset(extractor: Extractor) -> None:
    ex = extractor.extract_one(Paper(
        id="t",
        title="Label-efficient segmentation",
        abstract="Our method improves Cityscapes semantic segmentation with few labels.",
    ))
    assert {(lk.entity.type, lk.entity.name) for lk in ex.links} >= {
        ("Dataset", "Cityscapes"),
        ("Task", "semantic segmentation"),
    }
    assert "cityscapes semantic segmentation" not in {lk.entity.name.lower() for lk in ex.links}


@pytest.fixture(scope="module")
def server(extractor: Extractor) -> Iterator[Server]:
    yield from serve(store_from(list(extractor.extract([VIDEO, POINTS, PLAIN]))))


def paper_ids(server: Server, args: str) -> list[str]:
    query = f"{{ papers({args}) {{ edges {{ node {{ id }} }} }} }}"
    body = httpx.post(f"{server.url}/graphql", json={"query": query}, timeout=60).json()
    assert "errors" not in body, body
    return [e["node"]["id"] for e in body["data"]["papers"]["edges"]]


def test_papers_on_a_task_include_its_narrower_tasks_unless_asked_not_to(server: Server) -> None:
    assert paper_ids(server, 'task: "semantic segmentation"') == ["plain", "points", "video"]
    assert paper_ids(server, 'task: "semantic segmentation", includeNarrower: true') == [
        "plain",
        "points",
        "video",
    ]
    assert paper_ids(server, 'task: "semantic segmentation", includeNarrower: false') == ["plain"]
    assert paper_ids(server, 'task: "action recognition"') == ["points"]


def test_readmes_sparql_example_walks_skos_broader(server: Server) -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    query = next(b.split("```", 1)[0] for b in readme.split("```sparql\n")[1:] if "?task skos:broader*" in b)
    rows = QueryContext.open(server.store, BASE).select(query)
    found = [(str(r["paper"].value).rsplit("/", 1)[1], str(r["task"].value).rsplit("/", 1)[1]) for r in rows]
    assert ("plain", "semantic-segmentation") in found  # the entity itself (zero steps) ...
    assert ("points", "weakly-supervised-semantic-segmentation") in found  # ... and its narrower tasks
    assert ("video", "video-semantic-segmentation") in found
    assert sorted({paper for paper, _ in found}) == ["plain", "points", "video"]
