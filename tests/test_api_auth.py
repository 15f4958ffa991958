"""api.auth: the token is a permission on each mutation field; mutations are known from the operation type."""

from __future__ import annotations

from typing import Any

import httpx
from fixtures_api import TOKEN, Server

from api.schema import build_schema
from kg.settings import Settings

AUTH = {"Authorization": f"Bearer {TOKEN}"}
# a document holding a query and a mutation: only the operation type of the one named says it writes
DOCUMENT = """query Look($id: ID!) { paper(id: $id) { id } }
              mutation Drop($id: ID!) { deletePaper(id: $id) }"""


def post(server: Server, operation: str, headers: dict[str, str] | None = None, **variables: Any) -> Any:
    body = {"query": DOCUMENT, "operationName": operation, "variables": variables}
    return httpx.post(server.url + "/graphql", json=body, headers=headers or {}, timeout=60).json()


def test_a_mutation_runs_once_though_its_own_write_moves_the_generation(gold_token_server: Server) -> None:
    # run twice, the second run would find the paper gone and answer false
    assert post(gold_token_server, "Drop", AUTH, id="seed-03") == {"data": {"deletePaper": True}}
    assert post(gold_token_server, "Look", id="seed-03") == {"data": {"paper": None}}


def test_the_permission_refuses_before_the_resolver(gold_token_server: Server) -> None:
    answer = post(gold_token_server, "Drop", {"Authorization": "Bearer nope"}, id="seed-04")
    assert [e["message"] for e in answer["errors"]] == ["mutation refused: missing or invalid bearer token"]
    assert post(gold_token_server, "Look", id="seed-04") == {"data": {"paper": {"id": "seed-04"}}}


def test_the_schema_text_names_no_permission() -> None:
    sdl = build_schema(Settings()).as_str()
    assert "TokenRequired" not in sdl and "deletePaper(id: ID!): Boolean!" in sdl
