"""kg.query.trends: per-year points of an entity and the entities rising most, in-process and over GraphQL."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import httpx
import pytest
from fixtures_api import BASE, Server, serve
from pyoxigraph import Literal as PyLiteral
from pyoxigraph import NamedNode, Quad

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


# --- venues: a venue filter, shares normalised per venue, years without papers ---------------------
NER = EntityRef("Task", "named entity recognition")
CLASSIFICATION = EntityRef("Task", "image classification")


def _at(i: int, year: int, venue: str | None, *refs: EntityRef) -> Extraction:
    text = "We study " + (" and ".join(r.name for r in refs) or "nothing in particular") + "."
    links = tuple(Link("addressesTask", r, Evidence(text, r.name, text.index(r.name),
                                                    text.index(r.name) + len(r.name), 0.9, rule="vocab"))
                  for r in refs)
    return Extraction(Paper(f"v{i:02d}", text, title=f"Venue paper {i}", venue=venue, year=year), links,
                      extractor_version="t")


def venue_corpus() -> list[Extraction]:
    """NeurIPS 2019: 4 papers (NER in 1); NeurIPS 2022: 4 (NER 1, classification 1); ACL 2022: 2 (NER in
    both); 2022 without a venue: 1 (NER); NeurIPS 2023: 4 (NER 1, classification 1); ACL 2023: 2 (NER 1).
    No paper of 2020 or 2021. NER is a quarter of NeurIPS every year: only ACL's arrival lifts it."""
    return [
        _at(1, 2019, "NeurIPS", NER), _at(2, 2019, "NeurIPS"), _at(3, 2019, "NeurIPS"),
        _at(4, 2019, "NeurIPS"), _at(5, 2022, "NeurIPS", NER), _at(6, 2022, "NeurIPS", CLASSIFICATION),
        _at(7, 2022, "NeurIPS"), _at(8, 2022, "NeurIPS"), _at(9, 2022, "ACL", NER), _at(10, 2022, "ACL", NER),
        _at(11, 2022, None, NER),
        _at(12, 2023, "NeurIPS", NER), _at(13, 2023, "NeurIPS", CLASSIFICATION), _at(14, 2023, "NeurIPS"),
        _at(15, 2023, "NeurIPS"), _at(16, 2023, "ACL", NER), _at(17, 2023, "ACL"),
    ]


@pytest.fixture(scope="module")
def vctx() -> QueryContext:
    return QueryContext.open(store_from(venue_corpus()), BASE)


def points_of(ctx: QueryContext, ref: EntityRef, **kw: object) -> list[tuple[int, int, float]]:
    return [(p.year, p.papers, round(p.share, 4)) for p in entity_trend(ctx, iri(ctx, ref), **kw)]  # type: ignore[arg-type]


def test_years_without_papers_have_no_point(vctx: QueryContext) -> None:
    assert points_of(vctx, NER) == [(2019, 1, 0.25), (2022, 4, round(4 / 7, 4)), (2023, 2, round(2 / 6, 4))]


def test_entity_trend_within_a_venue(vctx: QueryContext) -> None:
    assert points_of(vctx, NER, venues=["ACL"]) == [(2022, 2, 1.0), (2023, 1, 0.5)]
    assert points_of(vctx, NER, venues=["NeurIPS"]) == [(2019, 1, 0.25), (2022, 1, 0.25), (2023, 1, 0.25)]


def test_entity_trend_within_several_venues_leaves_out_papers_without_one(vctx: QueryContext) -> None:
    assert points_of(vctx, NER, venues=["NeurIPS", "ACL"]) == [(2019, 1, 0.25), (2022, 3, 0.5),
                                                               (2023, 2, round(2 / 6, 4))]


def test_entity_trend_normalised_per_venue_is_the_mean_of_venue_shares(vctx: QueryContext) -> None:
    # 2022: (1/4 NeurIPS + 2/2 ACL) / 2; 2023: (1/4 + 1/2) / 2; the paper without a venue is left out
    assert points_of(vctx, NER, normalize="VENUE") == [(2019, 1, 0.25), (2022, 3, 0.625), (2023, 2, 0.375)]


def test_unknown_venue_has_no_points(vctx: QueryContext) -> None:
    assert points_of(vctx, NER, venues=["ICML"]) == []


def test_trending_over_all_papers_lets_a_new_venue_lift_its_topics(vctx: QueryContext) -> None:
    found = trending(vctx, "Task", since=2022, first=5, min_papers=1)
    assert [(t.entity.name, round(t.rise, 4), t.recent_papers, t.earlier_papers) for t in found] == [
        ("named entity recognition", round(6 / 13 - 1 / 4, 4), 6, 1),
        ("image classification", round(2 / 13, 4), 2, 0)]


def test_trending_normalised_per_venue_compares_venues_seen_on_both_sides(vctx: QueryContext) -> None:
    # ACL has no paper before 2022: only NeurIPS is compared, where NER stays at a quarter
    found = trending(vctx, "Task", since=2022, first=5, min_papers=1, normalize="VENUE")
    assert [(t.entity.name, round(t.rise, 4), t.recent_papers, t.earlier_papers, round(t.recent_share, 4),
             round(t.earlier_share, 4)) for t in found] == [
        ("image classification", 0.25, 2, 0, 0.25, 0.0), ("named entity recognition", 0.0, 2, 1, 0.25, 0.25)]


def test_trending_within_a_venue(vctx: QueryContext) -> None:
    found = trending(vctx, "Task", since=2022, first=5, min_papers=1, venues=["NeurIPS"])
    assert [(t.entity.name, round(t.rise, 4)) for t in found] == [
        ("image classification", 0.25), ("named entity recognition", 0.0)]
    assert [t.since for t in trending(vctx, "Task", venues=["ACL"], min_papers=1)] == [2023]


def test_trending_normalised_per_venue_without_comparable_venues_is_empty(vctx: QueryContext) -> None:
    assert trending(vctx, "Task", since=2022, normalize="VENUE", venues=["ACL"]) == []


def test_unknown_normalisation_is_refused(vctx: QueryContext) -> None:
    with pytest.raises(ValueError, match="normalize must be one of PAPERS, VENUE"):
        trending(vctx, normalize="YEAR")  # type: ignore[arg-type]


def test_venue_trends_follow_writes_and_a_changed_venue() -> None:
    exs = venue_corpus()
    store = store_from(exs[:8])
    write_extractions(store, exs[8:], GraphMapper(Iris(BASE)))
    ctx = QueryContext.open(store, BASE)
    assert points_of(ctx, NER, venues=["ACL"]) == [(2022, 2, 1.0), (2023, 1, 0.5)]
    moved = replace(exs[9], paper=replace(exs[9].paper, venue="EMNLP"))  # v10: ACL 2022 -> EMNLP 2022
    write_extractions(store, [moved], GraphMapper(Iris(BASE)))
    assert points_of(ctx, NER, venues=["ACL"]) == [(2022, 1, 1.0), (2023, 1, 0.5)]
    assert points_of(ctx, NER, venues=["EMNLP"]) == [(2022, 1, 1.0)]


def test_venue_trends_of_a_store_without_venue_counts_come_from_the_graph() -> None:
    from kg.query.counts import Layout, stored_globals

    store = store_from(venue_corpus())
    layout = Layout(Iris(BASE))
    old = stored_globals(store, layout)
    assert old is not None
    old.venues = None  # as aggregates written before venues were counted
    meta, graph = layout.meta, layout.stats_graph
    store.replace_graphs({graph: [Quad(NamedNode(meta), layout.term("stats"), PyLiteral(old.to_json()),
                                       NamedNode(graph))]})
    ctx = QueryContext.open(store, BASE)
    assert points_of(ctx, NER, normalize="VENUE") == [(2019, 1, 0.25), (2022, 3, 0.625), (2023, 2, 0.375)]
    assert [t.entity.name for t in trending(ctx, "Task", since=2022, min_papers=1, normalize="VENUE")] == [
        "image classification", "named entity recognition"]


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


@pytest.fixture(scope="module")
def venue_server() -> Iterator[Server]:
    yield from serve(store_from(venue_corpus()))


def test_graphql_trend_and_trending_within_venues(venue_server: Server) -> None:
    query = ('{ entity(name: "named entity recognition") { acl: trend(venues: ["ACL"]) { year papers share } '
             'mean: trend(normalize: VENUE) { year share } } '
             'trending(type: TASK, since: 2022, normalize: VENUE) { entity { name } rise } '
             'neurips: trending(type: TASK, since: 2022, venues: ["NeurIPS"]) { entity { name } rise } }')
    r = httpx.post(venue_server.url + "/graphql", json={"query": query}, timeout=30)
    body = r.json()
    assert r.status_code == 200 and "errors" not in body, body
    assert body["data"]["entity"]["acl"] == [{"year": 2022, "papers": 2, "share": 1.0},
                                             {"year": 2023, "papers": 1, "share": 0.5}]
    assert body["data"]["entity"]["mean"] == [{"year": 2019, "share": 0.25}, {"year": 2022, "share": 0.625},
                                              {"year": 2023, "share": 0.375}]
    assert body["data"]["trending"] == [{"entity": {"name": "image classification"}, "rise": 0.25},
                                        {"entity": {"name": "named entity recognition"}, "rise": 0.0}]
    assert body["data"]["neurips"] == body["data"]["trending"]


def test_graphql_trending_refuses_an_empty_venue_list(venue_server: Server) -> None:
    body = {"query": "{ trending(venues: []) { rise } }"}
    r = httpx.post(venue_server.url + "/graphql", json=body, timeout=30)
    assert "number of venues" in r.json()["errors"][0]["message"]
