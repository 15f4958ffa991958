"""Aggregates kept at write time (kg.query.counts, kg.write): after any sequence of writes they equal what
the graph says when everything is recomputed from it, and reading them scans nothing."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from fixtures_api import BASE, gold_extractions
from pyoxigraph import Quad

import kg.query as q
from kg.build import ensure_schema
from kg.query import QueryContext
from kg.query.counts import Layout, stored_entities, stored_entity_quads, stored_globals
from kg.query.entities import _count, _ranking
from kg.query.stats import stats_from_graph
from kg.rdf.iris import Iris
from kg.rdf.mapping import GraphMapper
from kg.store.embedded import EmbeddedStore
from kg.types import Extraction
from kg.write import delete_papers, rebuild_aggregates, recount, write_extractions

IRIS = Iris(BASE)


def fresh_ctx(store: EmbeddedStore) -> QueryContext:
    return QueryContext.open(store, BASE)


def assert_consistent(store: EmbeddedStore) -> None:
    """Stored aggregates == recomputed from the graph, for the statistics, every entity and the ranking."""
    layout = Layout(IRIS)
    kept = stored_globals(store, layout)
    assert kept is not None
    full = recount(store, IRIS)
    assert (kept.papers, kept.paper_quads, kept.links, kept.extractors, kept.years) == (
        full.globals.papers, full.globals.paper_quads, {k: v for k, v in full.globals.links.items() if v},
        full.globals.extractors, full.globals.years)
    assert kept.venues == full.globals.venues
    assert stored_entity_quads(store, layout) == full.entity_quads
    ctx = fresh_ctx(store)
    assert q.stats(ctx) == stats_from_graph(ctx)
    assert q.stats(ctx).triples == store.triple_count()
    every = sorted(full.entities)
    assert stored_entities(store, layout, every) == full.entities
    counted = {e: n for e, n in _count(ctx, every).items() if n}
    assert counted == {e: c.papers for e, c in full.entities.items()}
    for t in (None, "Dataset", "Method", "Task"):
        walked, after = [], None
        while True:
            page = q.entities(ctx, t, first=7, after=after)
            walked += [(-e.paper_count, e.iri) for e in page.items]
            assert page.total == len(_ranking(ctx, t))
            if not page.has_next:
                break
            after = page.end_cursor
        assert walked == _ranking(ctx, t)


def years(exs: list[Extraction]) -> list[Extraction]:
    return [replace(ex, paper=replace(ex.paper, year=2019 + i % 7 if i % 5 else None))
            for i, ex in enumerate(exs)]


@pytest.fixture()
def store() -> EmbeddedStore:
    st = EmbeddedStore(None, base_iri=BASE)
    ensure_schema(st, BASE)
    return st


def test_counts_follow_adds_replaces_and_deletes(store: EmbeddedStore) -> None:
    exs = years(gold_extractions())
    mapper = GraphMapper(IRIS)
    write_extractions(store, exs[:10], mapper, batch_size=4)
    assert_consistent(store)
    rng = random.Random(3)
    # replace some papers with fewer links, a new year and another extractor version; add the rest
    changed = [replace(ex, links=ex.links[: len(ex.links) // 2], extractor_version="v2",
                       paper=replace(ex.paper, year=2030)) for ex in rng.sample(exs[:10], 4)]
    write_extractions(store, changed + exs[10:], mapper, batch_size=5)
    assert_consistent(store)
    delete_papers(store, IRIS, [exs[0].paper.id, exs[12].paper.id, "no-such-paper"])
    assert_consistent(store)
    ctx = fresh_ctx(store)
    assert q.stats(ctx).papers == 17
    write_extractions(store, [exs[0]], mapper)  # back again
    assert_consistent(store)


def test_a_store_filled_another_way_is_answered_from_the_graph_then_counted(store: EmbeddedStore) -> None:
    exs = years(gold_extractions())
    mapper = GraphMapper(IRIS)
    graphs: dict[str, list[Quad]] = {}
    for ex in exs[:12]:
        m = mapper.map(ex)
        graphs[m.graph] = m.quads
        graphs.setdefault(IRIS.entities_graph, []).extend(m.shared)
    store.replace_graphs({g: list(dict.fromkeys(v)) for g, v in graphs.items()})  # bypasses kg.write
    ctx = fresh_ctx(store)
    assert stored_globals(store, Layout(IRIS)) is None
    before = (q.stats(ctx), [(e.id, e.paper_count) for e in q.entities(ctx, "Method", first=50).items])
    write_extractions(store, exs[12:], mapper)  # the first write through kg.write counts everything
    assert_consistent(store)
    rebuild_aggregates(store, IRIS)
    assert_consistent(store)
    assert before[0].papers == 12 and q.stats(fresh_ctx(store)).papers == 19


def test_rebuild_is_idempotent_and_drops_stale_counters(store: EmbeddedStore) -> None:
    exs = years(gold_extractions())
    write_extractions(store, exs, GraphMapper(IRIS))
    kept = stored_globals(store, Layout(IRIS))
    # a paper graph dropped behind kg.write's back leaves counters that no longer hold
    store.drop_graphs([IRIS.paper_graph(exs[3].paper.id)])
    rebuild_aggregates(store, IRIS)
    assert_consistent(store)
    again = stored_globals(store, Layout(IRIS))
    assert kept is not None and again is not None and again.papers == kept.papers - 1


def test_statistics_read_no_paper_graph(store: EmbeddedStore) -> None:
    """`stats` and the first page of `entities` read the aggregate graphs, never a paper graph."""
    write_extractions(store, years(gold_extractions()), GraphMapper(IRIS))
    ctx = fresh_ctx(store)
    seen: list[str] = []
    real = store.select

    def spy(query: str, *a: object, **k: object) -> list:  # type: ignore[type-arg]
        seen.append(query)
        return real(query, *a, **k)  # type: ignore[arg-type]

    store.select = spy  # type: ignore[method-assign]
    q.stats(ctx)
    q.entities(ctx, "Dataset", first=3)
    assert seen and not any("graph/paper" in s or "GROUP BY" in s for s in seen), seen


def test_trending_reads_one_query_of_year_tables(store: EmbeddedStore) -> None:
    """`trending`, with or without venues, reads the year-table shards in one query: no paper graph, no
    aggregation, no query per entity."""
    from kg.query.trends import trending

    write_extractions(store, years(gold_extractions()), GraphMapper(IRIS))
    seen: list[str] = []
    real = store.select

    def spy(query: str, *a: object, **k: object) -> list:  # type: ignore[type-arg]
        seen.append(query)
        return real(query, *a, **k)  # type: ignore[arg-type]

    store.select = spy  # type: ignore[method-assign]
    for kw in ({}, {"normalize": "VENUE"}, {"venues": ["ICML"]}):
        ctx = fresh_ctx(store)
        trending(ctx, "Dataset", since=2024, min_papers=1, **kw)
    tables = [s for s in seen if "yearTable" in s]
    assert len(tables) == 3 and not any("graph/paper" in s or "GROUP BY" in s for s in seen), seen


def test_trend_numbers_come_from_the_counters(store: EmbeddedStore) -> None:
    from kg.query.counts import _by_year
    from kg.query.trends import trends_by_iris

    write_extractions(store, years(gold_extractions()), GraphMapper(IRIS))
    ctx = fresh_ctx(store)
    every = _by_year(ctx, "")
    found = trends_by_iris(ctx, list(every))
    for iri, ys in every.items():
        assert {p.year: p.papers for p in found[iri] if p.papers} == ys


def _answers(ctx: QueryContext, names: list[str], ids: list[str]) -> list[object]:
    out: list[object] = [q.papers(ctx, first=100), q.stats(ctx)]
    for n in names:
        out += [q.papers(ctx, dataset=n, first=50), q.papers(ctx, method=n, first=50), q.entity(ctx, name=n)]
    for t in ("Dataset", "Method", None):
        out.append(q.entities(ctx, t, first=10))
    out += [q.links(ctx, i) for i in ids] + [q.paper(ctx, i) for i in ids]
    return out


def test_caches_carried_over_a_write_answer_like_fresh_ones(store: EmbeddedStore) -> None:
    """After each write by this process, a warm context (its caches carried over the write) answers
    exactly like a context that starts cold."""
    exs = years(gold_extractions())
    mapper = GraphMapper(IRIS)
    write_extractions(store, exs[:12], mapper)
    warm = fresh_ctx(store)
    names = sorted({lk.entity.name for ex in exs for lk in ex.links
                    if lk.entity.type in ("Dataset", "Method")})
    ids = [ex.paper.id for ex in exs]
    _answers(warm, names, ids)
    rng = random.Random(5)
    for step in range(6):
        kind = step % 3
        if kind == 0:  # add new papers
            write_extractions(store, exs[12 + step : 14 + step], mapper)
        elif kind == 1:  # replace papers with other links
            pick = rng.sample(exs[:12], 2)
            write_extractions(store, [replace(ex, links=tuple(rng.sample(ex.links, len(ex.links) // 2)))
                                      for ex in pick], mapper)
        else:
            delete_papers(store, IRIS, [rng.choice(ids)])
        assert warm.memo.peek(store, ("papers",)) is not None  # carried over the write, patched
        assert _answers(warm, names, ids) == _answers(fresh_ctx(store), names, ids)
    assert warm.memo.hits > 0
