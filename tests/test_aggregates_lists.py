"""Each entity's papers kept at write time (kg.query.paperlists, store format 4): after any sequence of
adds, replaces and deletes the stored blocks equal the lists recomputed from the graph, and pages read
from them equal the pages of the list computed from the graph (same items, totals and cursors)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

import pytest
from fixtures_api import BASE, gold_extractions
from pyoxigraph import Quad
from test_store_remote import server  # noqa: F401  (the fixture)

import kg.query as q
import kg.query.paperlists as paperlists
from kg.build import ensure_schema
from kg.query import QueryContext
from kg.query.counts import Layout
from kg.query.papers import _pages
from kg.rdf.iris import Iris
from kg.rdf.mapping import GraphMapper
from kg.store import open_store
from kg.store.embedded import EmbeddedStore
from kg.store.remote import RemoteStore
from kg.store.types import Store
from kg.types import Extraction
from kg.write import delete_papers, rebuild_aggregates, recount, write_extractions

IRIS = Iris(BASE)


@pytest.fixture()
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of at most 3 entries (2 when cut afresh), so a handful of papers splits and empties them."""
    monkeypatch.setattr(paperlists, "CAP", 3)
    monkeypatch.setattr(paperlists, "FILL", 2)


@pytest.fixture()
def store() -> EmbeddedStore:
    st = EmbeddedStore(None, base_iri=BASE)
    ensure_schema(st, BASE)
    return st


def assert_lists(store: Store) -> dict[str, dict[str, str]]:
    """Stored lists == recomputed from the graph, and the blocks are well formed: sizes as indexed,
    ids inside their block's range, none over CAP, the first block starting at ""."""
    layout = Layout(IRIS)
    full = recount(store, IRIS).lists
    eids = {IRIS.entity_id_of(e) or "": e for e in full}
    kept = paperlists.full_lists(store, layout, sorted(eids))
    assert {eids[e]: dict(entries) for e, entries in kept.items()} == full
    for entries in kept.values():
        assert [i for i, _ in entries] == sorted(dict(entries))
    indexes = paperlists.stored_indexes(store, layout, sorted(eids))
    assert set(indexes) == set(eids)
    blocks = paperlists.stored_blocks(store, layout, [(e, k) for e, ix in indexes.items() for k, _, _ in ix])
    for e, ix in indexes.items():
        assert ix and ix[0][1] == ""
        bounds = [f for _, f, _ in ix[1:]] + [None]
        for (k, start, n), end in zip(ix, bounds, strict=True):
            ids = [i for i, _ in blocks[(e, k)]]
            assert len(ids) == n and 0 < n <= paperlists.CAP
            assert all(start <= i and (end is None or i < end) for i in ids)
    # no block graph outside an index (a deleted entity's or a dropped block's are gone)
    rows = store.select(f"SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{ ?b {layout.term('papers')} ?v }} }}")
    listed = {paperlists.block_graph(layout, e, k) for e, ix in indexes.items() for k, _, _ in ix}
    assert {r["g"].value for r in rows} == listed
    return full


def assert_pages(store: Store, full: dict[str, dict[str, str]], first: int = 2) -> None:
    """Every entity's pages (all relations, and one relation) read from the blocks equal the pages of
    the list recomputed from the graph, walked to the end with the cursors."""
    for iri, papers in sorted(full.items()):
        for relation in (None, sorted({r for rels in papers.values() for r in rels.split()})[0]):
            ids = tuple(sorted(p for p, rels in papers.items()
                               if relation is None or relation in rels.split()))
            ctx = QueryContext.open(store, BASE)
            after = None
            while True:
                mine = q.papers(ctx, entity_iris=[iri], relation=relation, first=first, after=after)
                theirs = _pages(ctx, [ids], first, after)[0]
                assert mine == theirs
                batched = q.papers_of_entities(QueryContext.open(store, BASE), [iri], relation, first, after)
                assert batched[iri] == theirs
                if not mine.has_next:
                    break
                after = mine.end_cursor


def relinked(ex: Extraction) -> Extraction:
    """The same paper with its first dataset link under another relation (same entity, same counts)."""
    links = list(ex.links)
    for i, lk in enumerate(links):
        if lk.relation == "usesDataset":
            links[i] = replace(lk, relation="introducesDataset")
            break
    return replace(ex, links=tuple(links))


def _steps(store: Store) -> Iterator[None]:
    exs = gold_extractions()
    mapper = GraphMapper(IRIS)
    write_extractions(store, exs[:8], mapper, batch_size=3)
    yield
    rng = random.Random(11)
    write_extractions(store, exs[8:], mapper, batch_size=4)  # adds: blocks split
    yield
    changed = [replace(ex, links=ex.links[: len(ex.links) // 2]) for ex in rng.sample(exs, 5)]
    write_extractions(store, changed + [relinked(ex) for ex in exs[10:14]], mapper)  # replaces
    yield
    delete_papers(store, IRIS, [ex.paper.id for ex in rng.sample(exs, 7)] + ["no-such-paper"])
    yield
    write_extractions(store, exs, mapper, batch_size=50)  # back again, all in one write
    yield
    delete_papers(store, IRIS, [ex.paper.id for ex in exs])  # every list empties
    yield


def test_lists_follow_adds_replaces_and_deletes(store: EmbeddedStore, small_blocks: None) -> None:
    most = 0
    for _ in _steps(store):
        full = assert_lists(store)
        assert_pages(store, full)
        eids = [IRIS.entity_id_of(e) or "" for e in full]
        most = max([most, *(len(ix) for ix in paperlists.stored_indexes(store, Layout(IRIS), eids).values())])
    assert most >= 2 and not full  # blocks were split, and every list emptied at the end


def test_a_relation_change_alone_reaches_the_list(store: EmbeddedStore) -> None:
    """Replacing usesDataset by introducesDataset keeps every count, but the list's relations change."""
    exs = gold_extractions()
    write_extractions(store, exs, GraphMapper(IRIS))
    ex = next(x for x in exs if any(lk.relation == "usesDataset" for lk in x.links))
    write_extractions(store, [relinked(ex)], GraphMapper(IRIS))
    full = assert_lists(store)
    assert any(rels == "introducesDataset" for papers in full.values() for p, rels in papers.items()
               if p == ex.paper.id)
    assert_pages(store, full)


def test_first_write_and_rebuild_cut_the_lists_from_the_graph(store: EmbeddedStore,
                                                              small_blocks: None) -> None:
    exs = gold_extractions()
    mapper = GraphMapper(IRIS)
    graphs: dict[str, list[Quad]] = {}
    for ex in exs[:12]:
        m = mapper.map(ex)
        graphs[m.graph] = m.quads
        graphs.setdefault(IRIS.entities_graph, []).extend(m.shared)
    store.replace_graphs({g: list(dict.fromkeys(v)) for g, v in graphs.items()})  # bypasses kg.write
    write_extractions(store, exs[12:], mapper)  # the first write through kg.write lists everything
    assert_pages(store, assert_lists(store))
    store.drop_graphs([IRIS.paper_graph(exs[3].paper.id)])  # behind kg.write's back: lists stale
    rebuild_aggregates(store, IRIS)
    assert_pages(store, assert_lists(store))


@pytest.fixture
def remote(server: str) -> Iterator[RemoteStore]:  # noqa: F811
    st = open_store(server, base_iri=BASE)
    assert isinstance(st, RemoteStore)
    st.drop_graphs(st.named_graphs())
    yield st
    st.close()


def test_remote_lists_follow_writes(remote: RemoteStore, small_blocks: None) -> None:
    """On a real `oxigraph serve`, kg.write reads and replaces the blocks with SPARQL only."""
    for step, _ in enumerate(_steps(remote)):
        full = assert_lists(remote)
        if step == 2:  # after the replaces
            assert full
            assert_pages(remote, full)
    assert not full
