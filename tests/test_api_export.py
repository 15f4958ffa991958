"""/export (api/export.py): the whole graph and one paper's or entity's subgraph over real HTTP (sample)."""

from __future__ import annotations

import io

import httpx
import pyoxigraph as ox
import rdflib
from fixtures_api import MELON_ID, MELON_NAME, Server


def test_whole_graph_turtle_export_parses(sample_server: Server) -> None:
    r = httpx.get(sample_server.url + "/export", params={"format": "turtle"}, timeout=60)
    g = rdflib.Graph().parse(data=r.text, format="turtle")
    assert r.headers["content-type"].startswith("text/turtle") and len(g) > 5000


def test_paper_export_nquads_in_its_graph(sample_server: Server) -> None:
    r = httpx.get(sample_server.url + "/export", params={"format": "nquads", "paper": "seed-12"})
    graphs = {q.graph_name.value for q in ox.parse(r.content, format=ox.RdfFormat.N_QUADS)}
    assert r.headers["content-type"].startswith("application/n-quads")
    assert graphs == {"https://w3id.org/paperkg/graph/paper/seed-12"}


def test_entity_export_jsonld(sample_server: Server) -> None:
    r = httpx.get(sample_server.url + "/export", params={"format": "jsonld", "entity": MELON_ID})
    g = rdflib.Graph().parse(io.BytesIO(r.content), format="json-ld")
    assert r.headers["content-type"] == "application/ld+json"
    assert (
        rdflib.URIRef("https://w3id.org/paperkg/" + MELON_ID),
        rdflib.URIRef("http://www.w3.org/2004/02/skos/core#prefLabel"),
        rdflib.Literal(MELON_NAME),
    ) in g


def test_export_unknown_format_and_missing_paper(sample_server: Server) -> None:
    assert httpx.get(sample_server.url + "/export", params={"format": "yaml"}).status_code == 400
    assert httpx.get(sample_server.url + "/export", params={"paper": "nope"}).status_code == 404


def test_a_whole_dump_is_made_once_per_generation_and_follows_writes(sample_server: Server) -> None:
    def dump() -> bytes:
        r = httpx.get(sample_server.url + "/export", params={"format": "nt"}, timeout=60)
        assert r.status_code == 200
        return r.content

    first = dump()
    assert dump() == first  # served from the one file of this generation
    g = "http://example.org/export-test"
    quad = ox.Quad(ox.NamedNode("http://example.org/s"), ox.NamedNode("http://example.org/p"),
                   ox.Literal("fresh"), ox.NamedNode(g))
    sample_server.store.replace_graphs({g: [quad]})
    try:
        assert b'"fresh"' in dump()  # a write is a new generation: a new dump
    finally:
        sample_server.store.drop_graphs([g])
    assert dump() == first
