"""Hostile and malformed requests over real HTTP: limits hold, errors are clear, nothing is written."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fixtures_api import TOKEN, Server, sample_store, serve

HOSTILE = [
    '"} ; DROP ALL ; {',
    "' OR 1=1 --",
    "x> } DELETE WHERE { ?s ?p ?o } #",
    "{ __typename } fragment f on Query { __typename }",
    "\u0000\u202e",
]


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    yield from serve(sample_store(), api_token=TOKEN)


@pytest.fixture(scope="module")
def tokenless() -> Iterator[Server]:
    yield from serve(sample_store())


def post(
    server: Server, query: str, headers: dict[str, str] | None = None, **variables: Any
) -> httpx.Response:
    return httpx.post(
        server.url + "/graphql",
        json={"query": query, "variables": variables},
        headers=headers or {},
        timeout=60,
    )


def messages(r: httpx.Response) -> list[str]:
    return [e["message"] for e in r.json().get("errors", [])]


@pytest.mark.parametrize("hostile", HOSTILE)
def test_injection_strings_in_every_argument_change_nothing(server: Server, hostile: str) -> None:
    before = server.store.triple_count()
    r = post(
        server,
        """query($s: String!, $id: ID!) {
        papers(dataset: $s, task: $s, method: $s, model: $s, domain: $s, search: $s) { totalCount }
        paper(id: $id) { id }  entity(id: $id, name: $s) { id }  entities(search: $s) { totalCount }
        defenses(target: $s, against: $s) { id }  search(text: $s) { score } }""",
        s=hostile,
        id=hostile,
    )
    body = r.json()
    assert "errors" not in body
    data = body["data"]
    assert (data["papers"], data["paper"], data["entity"], data["defenses"]) == (
        {"totalCount": 0},
        None,
        None,
        [],
    )
    assert server.store.triple_count() == before


def test_deep_query_refused(server: Server) -> None:
    deep = (
        "{ papers { edges { node { links { entity { related { papers { edges { node { id } } } } } } } } } }"
    )
    assert messages(post(server, deep)) == ["query depth 9 exceeds the limit of 8"]


def test_too_many_aliases_refused(server: Server) -> None:
    q = "{ " + " ".join(f'a{i}: paper(id: "seed-01") {{ id }}' for i in range(16)) + " }"
    assert messages(post(server, q)) == ["16 aliases found. Allowed: 15"]


def test_too_many_tokens_refused(server: Server) -> None:
    q = "{ " + " ".join("__typename" for _ in range(2100)) + " }"
    assert messages(post(server, q)) == [
        "Syntax Error: Document contains more than 2000 tokens. Parsing aborted."
    ]


def test_page_size_over_max_is_an_error(server: Server) -> None:
    assert messages(post(server, "{ papers(first: 101) { totalCount } }")) == [
        "`first` must be between 0 and 100 (got 101)"
    ]


def test_forged_cursor_is_an_error(server: Server) -> None:
    assert messages(post(server, '{ papers(after: "bm9wZQ") { totalCount } }')) == ["invalid cursor"]


def test_oversized_body_refused(server: Server) -> None:
    r = httpx.post(
        server.url + "/graphql",
        content=b'{"query": "' + b" " * 1_100_000 + b'"}',
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 413


def test_malformed_json_is_a_clear_400(server: Server) -> None:
    r = httpx.post(
        server.url + "/graphql", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert r.status_code == 400 and "Traceback" not in r.text and "/work" not in r.text


def test_syntax_error_is_a_graphql_error(server: Server) -> None:
    assert messages(post(server, "{ papers(")) == ["Syntax Error: Expected Name, found <EOF>."]


def test_mutation_without_token_refused(server: Server) -> None:
    r = post(server, 'mutation { deletePaper(id: "seed-01") }')
    assert messages(r) == ["mutation refused: missing or invalid bearer token"]
    assert post(server, '{ paper(id: "seed-01") { id } }').json()["data"] == {"paper": {"id": "seed-01"}}


def test_mutation_with_wrong_token_writes_nothing(server: Server) -> None:
    before = server.store.triple_count()
    r = post(
        server,
        'mutation { addPapers(papers: [{id: "evil", abstract: "We use ImageNet."}]) { id } }',
        headers={"Authorization": "Bearer wrong-token"},
    )
    assert messages(r) == ["mutation refused: missing or invalid bearer token"]
    assert server.store.triple_count() == before


def test_mutations_off_without_configured_token(tokenless: Server) -> None:
    r = post(tokenless, 'mutation { deletePaper(id: "seed-01") }', headers={"Authorization": "Bearer x"})
    assert messages(r) == ["mutations are disabled on this server (no API token configured)"]


def test_add_then_delete_with_token(server: Server) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    add = post(
        server,
        """mutation($p: [PaperInput!]!) { addPapers(papers: $p) {
                 id title links(type: DATASET) { entity { name } } } }""",
        headers=auth,
        p=[{"id": "new-1", "title": "Zebra striping", "abstract": "We evaluate on ImageNet and CIFAR-10."}],
    )
    assert add.json()["data"]["addPapers"][0]["id"] == "new-1"
    found = post(server, '{ papers(search: "zebra") { edges { node { id } } } }').json()["data"]
    assert found == {"papers": {"edges": [{"node": {"id": "new-1"}}]}}
    assert post(server, 'mutation { deletePaper(id: "new-1") }', headers=auth).json() == {
        "data": {"deletePaper": True}
    }
    assert post(server, '{ papers(search: "zebra") { totalCount } }').json()["data"] == {
        "papers": {"totalCount": 0}
    }
