"""kg.query.trends: per-year points of an entity and the entities rising most, in-process and over GraphQL."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import httpx
import pytest
from fixtures_api import BASE, Server, serve

from kg.build import ensure_schema
from kg.query import QueryContext
from kg.query.trends import entity_trend, trending
from kg.rdf.iris import Iris
from kg.rdf.mapping import GraphMapper
from kg.store.embedded import EmbeddedStore
from kg.types import EntityRef, Evidence, Extraction, Link, Paper
from kg.write import write_extractions

IMAGENET = EntityRef("Dataset", "ImageNet")
COCO = EntityRef("Dataset", "COCO")
MNIST = EntityRef("Dataset", "MNIST")
TRANSFORMER = EntityRef("Method", "Transformer")


def _paper(i: int, year: int | None, *refs: EntityRef) -> Extraction:
    text = "We evaluate on " + " and ".join(r.name for r in refs) + "."
    links = tuple(
        Link("usesMethod" if r.type == "Method" else "usesDataset", r,
             Evidence(text, r.name, text.index(r.name), text.index(r.name) + len(r.name), 0.9, rule="vocab"))
        for r in refs
    )
    return Extraction(Paper(f"p{i:02d}", text, title=f"Paper {i}", year=year), links, extractor_version="t")


def corpus() -> list[Extraction]:
    """2020: 4 papers (ImageNet in 2, MNIST in 2); 2021: 2 papers (ImageNet 1); 2022: 4 papers (COCO in 3,
    ImageNet in 1, MNIST in 1); one paper without a year (COCO)."""
    return [
        _paper(1, 2020, IMAGENET, MNIST), _paper(2, 2020, IMAGENET), _paper(3, 2020, MNIST), _paper(4, 2020),
        _paper(5, 2021, IMAGENET, TRANSFORMER), _paper(6, 2021),
        _paper(7, 2022, COCO, TRANSFORMER), _paper(8, 2022, COCO, IMAGENET), _paper(9, 2022, COCO),
        _paper(10, 2022, MNIST), _paper(11, None, COCO),
    ]


def store_from(exs: list[Extraction]) -> EmbeddedStore:
    """A store as `kg build` writes it: schema graphs, then the papers through the one write path."""
    store = EmbeddedStore(None, base_iri=BASE)
    ensure_schema(store, BASE)
    write_extractions(store, exs, GraphMapper(Iris(BASE)))
    return store


@pytest.fixture(scope="module")
def ctx() -> QueryContext:
    return QueryContext.open(store_from(corpus()), BASE)


def iri(ctx: QueryContext, ref: EntityRef) -> str:
    return ctx.iris.entity(ref)


def test_entity_trend_counts_and_shares_per_year(ctx: QueryContext) -> None:
    points = [(p.year, p.papers, round(p.share, 4)) for p in entity_trend(ctx, iri(ctx, IMAGENET))]
    assert points == [(2020, 2, 0.5), (2021, 1, 0.5), (2022, 1, 0.25)]


def test_entity_trend_has_zero_years_and_ignores_undated_papers(ctx: QueryContext) -> None:
    points = [(p.year, p.papers, p.share) for p in entity_trend(ctx, iri(ctx, COCO))]
    assert points == [(2020, 0, 0.0), (2021, 0, 0.0), (2022, 3, 0.75)]


def test_unknown_entity_has_only_zeros(ctx: QueryContext) -> None:
    points = entity_trend(ctx, ctx.iris.entity_from_id("dataset/no-such-thing"))
    assert [p.papers for p in points] == [0, 0, 0]


def test_trending_ranks_by_rise_in_share(ctx: QueryContext) -> None:
    found = trending(ctx, "Dataset", since=2022, first=5)
    # COCO: 3/4 recent, 0/6 earlier -> +0.75; ImageNet 1/4 vs 3/6 -> -0.25 (MNIST 1 recent paper: below 2)
    assert [(t.entity.name, round(t.rise, 4), t.recent_papers, t.earlier_papers) for t in found] == [
        ("COCO", 0.75, 3, 0), ]
    assert trending(ctx, "Dataset", since=2021, first=5, min_papers=1)[0].entity.name == "COCO"
    everything = trending(ctx, "Dataset", since=2021, first=5, min_papers=1)
    assert [t.entity.name for t in everything] == ["COCO", "ImageNet", "MNIST"]
    assert round(everything[1].rise, 4) == round(2 / 6 - 2 / 4, 4)


def test_trending_defaults_to_the_latest_year_and_filters_by_type(ctx: QueryContext) -> None:
    assert [(t.since, t.entity.name) for t in trending(ctx)] == [(2022, "COCO")]
    names = [t.entity.name for t in trending(ctx, min_papers=1)]
    assert names == ["COCO", "Transformer", "MNIST", "ImageNet"]
    assert [t.entity.name for t in trending(ctx, "Method", min_papers=1)] == ["Transformer"]
    assert [t.entity.name for t in trending(ctx, first=0)] == []
    assert trending(ctx, "Task") == []
    assert trending(ctx, since=2030) == []


def test_trends_follow_writes() -> None:
    store = store_from(corpus()[:4])
    ctx = QueryContext.open(store, BASE)
    assert [(p.year, p.papers) for p in entity_trend(ctx, iri(ctx, IMAGENET))] == [(2020, 2)]
    write_extractions(store, [replace(corpus()[4])], GraphMapper(Iris(BASE)))
    assert [(p.year, p.papers, p.share) for p in entity_trend(ctx, iri(ctx, IMAGENET))] == [
        (2020, 2, 0.5), (2021, 1, 1.0)]


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    store: EmbeddedStore = store_from(corpus())
    yield from serve(store)


def test_graphql_trend_and_trending(server: Server) -> None:
    query = ('{ entity(name: "ImageNet") { trend { year papers share } } '
             'trending(type: DATASET, since: 2022, first: 3) { entity { name } rise recentPapers '
             'earlierPapers recentShare earlierShare since } }')
    r = httpx.post(server.url + "/graphql", json={"query": query}, timeout=30)
    body = r.json()
    assert r.status_code == 200 and "errors" not in body, body
    assert body["data"]["entity"]["trend"] == [
        {"year": 2020, "papers": 2, "share": 0.5}, {"year": 2021, "papers": 1, "share": 0.5},
        {"year": 2022, "papers": 1, "share": 0.25}]
    assert body["data"]["trending"] == [{"entity": {"name": "COCO"}, "rise": 0.75, "recentPapers": 3,
                                         "earlierPapers": 0, "recentShare": 0.75, "earlierShare": 0.0,
                                         "since": 2022}]


def test_graphql_trending_first_is_bounded(server: Server) -> None:
    r = httpx.post(server.url + "/graphql", json={"query": "{ trending(first: 1000) { rise } }"}, timeout=30)
    assert "errors" in r.json()
