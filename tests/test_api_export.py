"""/export (api/export.py): the whole graph and one paper's or entity's subgraph over real HTTP (sample)."""

from __future__ import annotations

import io

import httpx
import pyoxigraph as ox
import rdflib
from fixtures_api import Server


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
    r = httpx.get(sample_server.url + "/export", params={"format": "jsonld", "entity": "method/melon"})
    g = rdflib.Graph().parse(io.BytesIO(r.content), format="json-ld")
    assert r.headers["content-type"] == "application/ld+json"
    assert (
        rdflib.URIRef("https://w3id.org/paperkg/method/melon"),
        rdflib.URIRef("http://www.w3.org/2004/02/skos/core#prefLabel"),
        rdflib.Literal("MELON"),
    ) in g


def test_export_unknown_format_and_missing_paper(sample_server: Server) -> None:
    assert httpx.get(sample_server.url + "/export", params={"format": "yaml"}).status_code == 400
    assert httpx.get(sample_server.url + "/export", params={"paper": "nope"}).status_code == 404
