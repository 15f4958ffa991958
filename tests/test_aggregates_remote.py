"""Aggregates kept at write time on a remote store (a real `oxigraph serve`): kg.write reads and replaces
them with SPARQL only, and they equal what the graph says after adds, replaces and deletes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from fixtures_api import BASE, gold_extractions
from test_store_remote import server  # noqa: F401  (the fixture)

import kg.query as q
from kg.query import QueryContext
from kg.query.counts import Layout, stored_entities, stored_entity_quads, stored_globals
from kg.query.stats import stats_from_graph
from kg.rdf.iris import Iris
from kg.rdf.mapping import GraphMapper
from kg.store import open_store
from kg.store.remote import RemoteStore
from kg.write import delete_papers, recount, write_extractions

IRIS = Iris(BASE)


@pytest.fixture
def remote(server: str) -> Iterator[RemoteStore]:  # noqa: F811
    store = open_store(server, base_iri=BASE)
    assert isinstance(store, RemoteStore)
    store.drop_graphs(store.named_graphs())  # the aggregate graphs too: the remote backend lists them
    yield store
    store.close()


def test_remote_aggregates_follow_writes(remote: RemoteStore) -> None:
    exs = [replace(ex, paper=replace(ex.paper, year=2020 + i % 4)) for i, ex in enumerate(gold_extractions())]
    mapper = GraphMapper(IRIS)
    write_extractions(remote, exs[:12], mapper, batch_size=5)
    write_extractions(remote, [replace(exs[0], links=exs[0].links[:1])] + exs[12:], mapper)
    delete_papers(remote, IRIS, [exs[3].paper.id])
    layout = Layout(IRIS)
    kept, full = stored_globals(remote, layout), recount(remote, IRIS)
    assert kept is not None and kept.papers == 18
    assert (kept.papers, kept.paper_quads, kept.links, kept.years) == (
        full.globals.papers, full.globals.paper_quads, full.globals.links, full.globals.years)
    assert stored_entity_quads(remote, layout) == full.entity_quads
    assert stored_entities(remote, layout, sorted(full.entities)) == full.entities
    ctx = QueryContext.open(remote, BASE)
    mine, theirs = q.stats(ctx), stats_from_graph(ctx)
    assert (mine.papers, mine.links_per_relation, mine.entities_per_type) == (
        theirs.papers, theirs.links_per_relation, theirs.entities_per_type)
