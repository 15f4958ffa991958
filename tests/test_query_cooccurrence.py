"""kg.query.graph.ring: the co-occurrence map counts only the links at or above a minimum confidence."""

from __future__ import annotations

import pytest
from fixtures_api import BASE

from kg.build import ensure_schema
from kg.query import QueryContext, ring
from kg.rdf.iris import Iris
from kg.rdf.mapping import GraphMapper
from kg.store.embedded import EmbeddedStore
from kg.types import EntityRef, Evidence, Extraction, Link, Paper
from kg.write import write_extractions

IMAGENET = EntityRef("Dataset", "ImageNet")
RESNET = EntityRef("Method", "ResNet")
DROPOUT = EntityRef("Method", "dropout")


def _paper(i: int, *links: tuple[str, EntityRef, float]) -> Extraction:
    text = "We use " + " and ".join(r.name for _, r, _ in links) + "."
    return Extraction(Paper(f"c{i}", text, title=f"Paper {i}", year=2024), tuple(
        Link(rel, r, Evidence(text, r.name, text.index(r.name), text.index(r.name) + len(r.name), conf,
                              rule=f"r{int(conf * 10)}"))
        for rel, r, conf in links), extractor_version="t")


@pytest.fixture(scope="module")
def ctx() -> QueryContext:
    """c1: ImageNet 0.9, ResNet 0.4; c2: ImageNet 0.9, ResNet 0.9, dropout 0.3;
    c3: ImageNet 0.2, ResNet 0.9."""
    store = EmbeddedStore(None, base_iri=BASE)
    ensure_schema(store, BASE)
    write_extractions(store, [
        _paper(1, ("usesDataset", IMAGENET, 0.9), ("usesMethod", RESNET, 0.4)),
        _paper(2, ("usesDataset", IMAGENET, 0.9), ("usesMethod", RESNET, 0.9), ("usesMethod", DROPOUT, 0.3)),
        _paper(3, ("usesDataset", IMAGENET, 0.2), ("usesMethod", RESNET, 0.9)),
    ], GraphMapper(Iris(BASE)))
    return QueryContext.open(store, BASE)


def shared(ctx: QueryContext, least: float) -> tuple[int, dict[str, int]]:
    found = ring(ctx, "dataset/imagenet", min_confidence=least)
    assert found is not None
    return found.paper_count, found.shared


def test_every_link_counts_without_a_threshold(ctx: QueryContext) -> None:
    assert shared(ctx, 0.0) == (3, {"method/resnet": 3, "method/dropout": 1})


def test_links_below_the_threshold_are_not_counted(ctx: QueryContext) -> None:
    # c3's link to ImageNet (0.2) is out, so is c1's to ResNet (0.4) and c2's to dropout (0.3)
    assert shared(ctx, 0.5) == (2, {"method/resnet": 1})


def test_a_paper_centre_keeps_only_its_confident_links(ctx: QueryContext) -> None:
    found = ring(ctx, "c2", min_confidence=0.5)
    assert found is not None
    assert sorted(n.id for n in found.nodes) == ["c2", "dataset/imagenet", "method/resnet"]
