"""/sparql (read-only SPARQL 1.1 protocol, api/sparql.py) over real HTTP on the sample; /export is in
test_api_export.py."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from fixtures_api import Server, sample_store, serve

KG = "PREFIX kg: <https://w3id.org/paperkg/ontology#> PREFIX dcterms: <http://purl.org/dc/terms/> "
USES_AGENTDOJO = (
    KG + "SELECT ?id WHERE { ?p kg:usesDataset <https://w3id.org/paperkg/dataset/agentdojo> ; "
    "dcterms:identifier ?id }"
)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    yield from serve(sample_store(), sparql_row_cap=50)


def test_select_json_over_get(server: Server) -> None:
    r = httpx.get(server.url + "/sparql", params={"query": USES_AGENTDOJO})
    assert r.headers["content-type"].startswith("application/sparql-results+json")
    assert r.json() == {
        "head": {"vars": ["id"]},
        "results": {"bindings": [{"id": {"type": "literal", "value": "seed-12"}}]},
    }


def test_select_csv_over_post_form(server: Server) -> None:
    r = httpx.post(server.url + "/sparql", data={"query": USES_AGENTDOJO}, headers={"Accept": "text/csv"})
    assert (r.status_code, r.text) == (200, "id\r\nseed-12\r\n")


def test_select_xml_over_post_body(server: Server) -> None:
    r = httpx.post(
        server.url + "/sparql",
        content=USES_AGENTDOJO,
        headers={"Content-Type": "application/sparql-query", "Accept": "application/sparql-results+xml"},
    )
    assert '<binding name="id"><literal>seed-12</literal></binding>' in r.text


def test_ask(server: Server) -> None:
    r = httpx.get(server.url + "/sparql", params={"query": KG + "ASK { ?p a kg:Paper }"})
    assert r.json() == {"head": {}, "boolean": True}


@pytest.mark.parametrize(
    "update",
    [
        "DROP ALL",
        "INSERT DATA { <http://a> <http://b> <http://c> }",
        "LOAD <http://example.org/x.ttl>",
        "DELETE WHERE { ?s ?p ?o }",
    ],
)
def test_updates_refused_every_way(server: Server, update: str) -> None:
    before = server.store.triple_count()
    codes = [
        httpx.get(server.url + "/sparql", params={"query": update}).status_code,
        httpx.post(server.url + "/sparql", data={"update": update}).status_code,
        httpx.post(
            server.url + "/sparql", content=update, headers={"Content-Type": "application/sparql-update"}
        ).status_code,
    ]
    assert codes == [403, 403, 403] and server.store.triple_count() == before


def test_service_refused(server: Server) -> None:
    q = "SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }"
    assert httpx.get(server.url + "/sparql", params={"query": q}).status_code == 403


def test_malformed_query_is_400(server: Server) -> None:
    r = httpx.get(server.url + "/sparql", params={"query": "SELECT ?x WHERE {"})
    assert (r.status_code, r.text) == (400, "malformed SPARQL query at line 1, column 18")


def test_a_misspelt_keyword_says_where_it_fails(server: Server) -> None:
    r = httpx.get(server.url + "/sparql", params={"query": "SELEC ?x WHERE { ?x ?p ?o }"})
    assert (r.status_code, r.text) == (400, "malformed SPARQL query at line 1, column 1, "
                                            "near 'SELEC ?x WHERE { ?x ?p ?o }'")


def test_a_result_over_the_row_cap_is_unprocessable_not_too_large_a_request(server: Server) -> None:
    r = httpx.get(server.url + "/sparql", params={"query": "SELECT * WHERE { ?s ?p ?o }"})
    assert (r.status_code, r.text) == (422, "query returned more than 50 rows; add a LIMIT or narrow it")


def test_construct_as_ntriples(server: Server) -> None:
    q = (
        KG + "CONSTRUCT { ?p dcterms:identifier ?id } WHERE { ?p kg:usesDataset ?d ; dcterms:identifier ?id }"
        " LIMIT 1"
    )
    r = httpx.get(server.url + "/sparql", params={"query": q}, headers={"Accept": "application/n-triples"})
    assert r.headers["content-type"].startswith("application/n-triples") and r.text.count(" .\n") == 1
