"""A paper's authors keep their order: in RDF (bibo:authorList, an rdf:Seq), the query layer, GraphQL over
HTTP, the RDF export and the records `kg reextract` rebuilds — with authors that are not alphabetical."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pyoxigraph as ox
import pytest
from fixtures_api import BASE, Server, serve

import kg.query as q
from kg.build import ensure_schema
from kg.query import QueryContext
from kg.rdf.iris import Iris
from kg.rdf.mapping import GraphMapper
from kg.reextract import read_papers
from kg.store.embedded import EmbeddedStore
from kg.types import EntityRef, Evidence, Extraction, Link, Paper
from kg.write import write_extractions

AUTHORS = ("Zoë Zhang", "Ada Lovelace", "Mo Ng", "Béla Bartók", "Ada Lovelace Jr.")
TEXT = "We evaluate on ImageNet."


def _store() -> EmbeddedStore:
    store = EmbeddedStore(None, base_iri=BASE)
    ensure_schema(store, BASE)
    ev = Evidence(TEXT, "ImageNet", 15, 23, 0.9, rule="vocab")
    exs = [Extraction(Paper("ordered", TEXT, title="Order matters", authors=AUTHORS),
                      (Link("usesDataset", EntityRef("Dataset", "ImageNet"), ev),), extractor_version="t"),
           Extraction(Paper("solo", TEXT, authors=("Only Author",)), (), extractor_version="t")]
    write_extractions(store, exs, GraphMapper(Iris(BASE)))
    return store


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    yield from serve(_store())


def test_the_query_layer_and_reextract_keep_the_order() -> None:
    store = _store()
    assert tuple(sorted(AUTHORS)) != AUTHORS
    info = q.paper(QueryContext.open(store, BASE), "ordered")
    assert info is not None and info.authors == AUTHORS
    iris = Iris(BASE)
    rebuilt = read_papers(store, iris, [iris.paper_graph("ordered"), iris.paper_graph("solo")])
    assert rebuilt[iris.paper_graph("ordered")].authors == AUTHORS
    assert rebuilt[iris.paper_graph("solo")].authors == ("Only Author",)


def test_sparql_reads_the_first_author_and_all_in_order() -> None:
    store = _store()
    first = store.select("SELECT ?a WHERE { ?p <http://purl.org/ontology/bibo/authorList>/"
                         "<http://www.w3.org/1999/02/22-rdf-syntax-ns#_1> ?a ; "
                         "<http://purl.org/dc/terms/identifier> \"ordered\" }")
    assert [r["a"].value for r in first] == ["Zoë Zhang"]


def test_graphql_returns_authors_in_order(server: Server) -> None:
    query = '{ paper(id: "ordered") { authors } }'
    r = httpx.post(server.url + "/graphql", json={"query": query}, timeout=30)
    assert r.json() == {"data": {"paper": {"authors": list(AUTHORS)}}}


def test_the_rdf_export_carries_the_sequence(server: Server) -> None:
    r = httpx.get(server.url + "/export", params={"format": "nquads", "paper": "ordered"}, timeout=30)
    assert r.status_code == 200
    quads = list(ox.parse(r.content, ox.RdfFormat.N_QUADS))
    seq = [q for q in quads if q.predicate.value == "http://purl.org/ontology/bibo/authorList"]
    assert len(seq) == 1
    members = {q.predicate.value.rpartition("#_")[2]: q.object.value
               for q in quads if q.subject == seq[0].object}
    assert [members[str(i)] for i in range(1, len(AUTHORS) + 1)] == list(AUTHORS)
