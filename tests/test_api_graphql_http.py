"""GraphQL over HTTP against a live server: the `graphql-http` audit suite (npm, run by node from tests/js)
passes every MUST with no warning; application/graphql-response+json and its status codes; expected client
errors are one log line without a traceback."""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fixtures_api import ROOT, TOKEN, Server, gold_extractions, serve, store_from

JS = ROOT / "tests" / "js"
GRAPHQL_RESPONSE = "application/graphql-response+json"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    yield from serve(store_from(gold_extractions()), api_token=TOKEN)


def post(server: Server, body: object, accept: str | None = GRAPHQL_RESPONSE) -> httpx.Response:
    headers = {"Accept": accept} if accept else {}
    return httpx.post(server.url + "/graphql", json=body, headers=headers, timeout=30)


def test_graphql_http_audits_pass(server: Server) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (scripts/test installs the system tools)")
    assert (JS / "node_modules" / "graphql-http").is_dir(), "run scripts/setup: npm ci --prefix tests/js"
    proc = subprocess.run([node, str(JS / "audit.mjs"), server.url + "/graphql"], capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    by_status: dict[str, list[str]] = {}
    for r in results:
        by_status.setdefault(r["status"], []).append(f"{r['id']} {r['name']}: {r['reason']}")
    must = [r for r in results if r["name"].startswith("MUST")]
    assert len(must) >= 13 and all(r["status"] == "ok" for r in must), by_status
    assert not by_status.get("error") and not by_status.get("warn"), by_status
    # what is left are notices: GET queries are off on purpose (GET /graphql opens GraphiQL)
    assert all("GET" in line for line in by_status.get("notice", [])), by_status


def test_graphql_response_json_status_codes(server: Server) -> None:
    ok = post(server, {"query": "{ stats { papers } }"})
    assert (ok.status_code, ok.headers["content-type"]) == (200, GRAPHQL_RESPONSE)
    assert ok.json() == {"data": {"stats": {"papers": 19}}}
    unparsable = post(server, {"query": "{ stats { papers "})
    assert unparsable.status_code == 400 and "data" not in unparsable.json()
    assert unparsable.json()["errors"] and unparsable.headers["content-type"] == GRAPHQL_RESPONSE
    invalid = post(server, {"query": "{ noSuchField }"})
    assert invalid.status_code == 400 and "data" not in invalid.json()
    coercion = post(server, {"query": "query($n: Int!) { papers(first: $n) { totalCount } }",
                             "variables": {"n": "many"}})
    assert coercion.status_code == 400 and "data" not in coercion.json()
    partly = '{ paper(id: "seed-01") { title } papers(after: "bogus") { totalCount } }'
    field_error = post(server, {"query": partly})
    assert field_error.status_code == 200 and "data" in field_error.json() and field_error.json()["errors"]


def test_application_json_keeps_the_legacy_answer(server: Server) -> None:
    for accept in (None, "application/json", "*/*"):
        r = post(server, {"query": "{ noSuchField }"}, accept=accept)
        assert (r.status_code, r.headers["content-type"]) == (200, "application/json"), accept
        assert "data" not in r.json() and r.json()["errors"]  # a request error never executed: no data
    q_pref = post(server, {"query": "{ stats { papers } }"},
                  accept=f"application/json;q=0.5, {GRAPHQL_RESPONSE}")
    assert q_pref.headers["content-type"] == GRAPHQL_RESPONSE


def test_expected_client_errors_are_one_log_line(server: Server, caplog: pytest.LogCaptureFixture,
                                                 tmp_path: Path) -> None:
    mutation = 'mutation { deletePaper(id: "seed-01") { deleted } }'
    with caplog.at_level(logging.INFO):
        refused = post(server, {"query": mutation})  # no token
        unknown = post(server, {"query": '{ paper(id: "nope") { title } entity(id: "x/y") { name } }'})
    assert refused.json()["errors"] and unknown.status_code == 200
    client = [r for r in caplog.records if r.getMessage().startswith("graphql client error")]
    assert client, caplog.text
    assert "Traceback" not in caplog.text and not any(r.exc_info for r in caplog.records)
    assert all("\n" not in r.getMessage() for r in client)


# --- issue 25, item 10 ------------------------------------------------------------------------------------
RECOMMENDED_ACCEPT = "application/graphql-response+json; charset=utf-8, application/json; charset=utf-8"


def test_the_accept_header_the_spec_recommends_gets_graphql_response_json(server: Server) -> None:
    r = post(server, {"query": "{ stats { papers "}, accept=RECOMMENDED_ACCEPT)
    assert (r.status_code, r.headers["content-type"]) == (400, GRAPHQL_RESPONSE)
    assert r.json() == {"errors": [{"message": "Syntax Error: Expected Name, found <EOF>.",
                                    "locations": [{"line": 1, "column": 18}]}]}


def test_a_mutation_over_get_is_405(server: Server) -> None:
    r = httpx.get(server.url + "/graphql", params={"query": 'mutation { deletePaper(id: "seed-01") }'},
                  headers={"Accept": "application/json"})
    assert (r.status_code, r.headers["allow"]) == (405, "POST")
    assert r.json() == {"errors": [{"message": "mutations are not allowed when using GET"}]}


@pytest.mark.parametrize(("accept", "media"), [(None, "application/json"),
                                               (GRAPHQL_RESPONSE, GRAPHQL_RESPONSE)])
def test_an_unknown_operation_name_is_a_graphql_error_body(server: Server, accept: str | None,
                                                            media: str) -> None:
    r = post(server, {"query": "query A { stats { papers } }", "operationName": "B"}, accept=accept)
    assert (r.status_code, r.headers["content-type"]) == (400, media)
    assert r.json() == {"errors": [{"message": 'Unknown operation named "B".'}]}


def gql_client(server: Server, **kwargs: Any) -> Any:
    from gql import Client
    from gql.transport.httpx import HTTPXTransport

    return Client(transport=HTTPXTransport(url=server.url + "/graphql", timeout=30), **kwargs)


def test_gql_reads_answers_and_fetches_the_schema(server: Server) -> None:
    from gql import gql

    with gql_client(server, fetch_schema_from_transport=True) as session:  # gql's introspection query
        assert session.execute(gql("{ stats { papers } }")) == {"stats": {"papers": 19}}
        assert session.client.schema is not None and "Query" in session.client.schema.type_map


def test_gql_reads_an_unknown_operation_name_as_a_graphql_error(server: Server) -> None:
    from gql import gql
    from gql.transport.exceptions import TransportQueryError

    with gql_client(server) as session, pytest.raises(TransportQueryError) as caught:
        session.execute(gql("query A { stats { papers } }"), operation_name="B")
    assert caught.value.errors == [{"message": 'Unknown operation named "B".'}]


def test_gql_reads_a_refused_mutation_as_a_graphql_error(server: Server) -> None:
    from gql import gql
    from gql.transport.exceptions import TransportQueryError

    with gql_client(server) as session, pytest.raises(TransportQueryError) as caught:
        session.execute(gql('mutation { deletePaper(id: "seed-01") }'))
    assert caught.value.errors is not None
    assert caught.value.errors[0]["message"] == "mutation refused: missing or invalid bearer token"
