"""GraphQL endpoint under attack, over real HTTP: schema-driven fuzzing (hypothesis-graphql), injection
strings in every string argument, auth edge cases and log hygiene, oversized and trickled request bodies.

KG_FUZZ_GRAPHQL sets the number of generated queries (CI default 300; the full run uses 1000)."""

from __future__ import annotations

import inspect
import io
import json
import logging
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import graphql
import httpx
import pytest
from fixtures_api import ROOT, TOKEN, Server, sample_store, serve
from hypothesis import HealthCheck, given, settings

import api.auth
from api.schema import build_schema
from kg.settings import Settings

hypothesis_graphql = pytest.importorskip("hypothesis_graphql")

LIMITS = Settings()
SDL = build_schema(LIMITS).as_str()
FUZZ_EXAMPLES = int(os.environ.get("KG_FUZZ_GRAPHQL", "300"))
FUZZ = settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    yield from serve(sample_store(), api_token=TOKEN)


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=60) as c:
        yield c


def post(client: httpx.Client, server: Server, query: str, headers: dict[str, str] | None = None,
         **variables: Any) -> httpx.Response:
    return client.post(server.url + "/graphql", json={"query": query, "variables": variables},
                       headers=headers or {})


def leaks(text: str) -> list[str]:
    return [m for m in ("Traceback", 'File "', str(ROOT), "site-packages", "pyoxigraph", "SELECT ", "PREFIX ")
            if m in text]


def depth(node: graphql.language.Node, level: int = 0) -> int:
    sel = getattr(node, "selection_set", None)
    if not sel:
        return level
    return max((depth(child, level + 1) for child in sel.selections or ()), default=level)


def violations(query: str) -> set[str]:
    """Which public limits a document breaks: depth, aliases (both checked before execution) and a page size
    (`first` literal outside 0..max_page) on a top-level field, which is always resolved."""
    out = set()
    doc = graphql.parse(query)
    if any(depth(op) - 1 > LIMITS.max_depth for op in doc.definitions):  # fields below the operation
        out.add("depth")
    if sum(isinstance(n, graphql.FieldNode) and n.alias is not None for n in _walk(doc)) > LIMITS.max_aliases:
        out.add("aliases")
    for op in doc.definitions:
        for field in getattr(getattr(op, "selection_set", None), "selections", None) or ():
            for arg in getattr(field, "arguments", None) or ():
                value = arg.value
                if arg.name.value == "first" and isinstance(value, graphql.IntValueNode) and not (
                        0 <= int(value.value) <= LIMITS.max_page):
                    out.add("page")
    return out


def _walk(node: Any) -> Iterator[Any]:
    yield node
    for key in getattr(node, "keys", ()):
        value = getattr(node, key, None)
        for child in value if isinstance(value, list | tuple) else [value]:
            if isinstance(child, graphql.language.Node):
                yield from _walk(child)


def check_response(r: httpx.Response, query: str) -> dict[str, Any]:
    assert r.status_code < 500, (query, r.status_code, r.text[:300])
    assert leaks(r.text) == [], (query, r.text[:300])
    body: dict[str, Any] = r.json()
    messages = [e["message"] for e in body.get("errors", [])]
    broken = violations(query)
    refused_by_cost = any(m.startswith("query cost ") for m in messages)  # checked before aliases, pages
    if "depth" in broken:
        assert any(m.startswith("query depth ") for m in messages), query
    if "aliases" in broken:
        assert any("aliases found" in m for m in messages) or refused_by_cost, query
    # a non-null root field that failed nulls the whole answer, and graphql-core then reports no sibling's
    # error (`results` without a filter): the page check may not have been reached
    nulled = body.get("data") is None and any(e.get("path") for e in body.get("errors", []))
    if "page" in broken:
        assert any("must be between" in m for m in messages) or refused_by_cost or nulled, query
    return body


def test_generated_queries_never_5xx_leak_or_slip_a_limit(server: Server, client: httpx.Client) -> None:
    ran = 0

    @FUZZ
    @given(query=hypothesis_graphql.queries(SDL))
    def one(query: str) -> None:
        nonlocal ran
        ran += 1
        check_response(post(client, server, query), query)

    one()
    print(f"graphql fuzz cases: {ran}")
    assert ran >= min(FUZZ_EXAMPLES, 100)  # the fuzzer really ran (hypothesis stops early on tiny spaces)


@settings(max_examples=max(50, FUZZ_EXAMPLES // 3), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(query=hypothesis_graphql.mutations(SDL))
def test_generated_mutations_without_token_write_nothing(server: Server, client: httpx.Client,
                                                        query: str) -> None:
    before = server.store.generation()
    body = check_response(post(client, server, query), query)
    assert body.get("errors"), query
    assert server.store.generation() == before


@settings(max_examples=max(50, FUZZ_EXAMPLES // 3), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(query=hypothesis_graphql.queries(SDL, mode=hypothesis_graphql.Mode.NEGATIVE))
def test_invalid_generated_queries_are_clear_graphql_errors(server: Server, client: httpx.Client,
                                                           query: str) -> None:
    r = post(client, server, query)
    assert r.status_code < 500 and leaks(r.text) == [], (query, r.text[:300])


def test_batched_request_cannot_multiply_the_limits(server: Server, client: httpx.Client) -> None:
    one = {"query": "{ " + " ".join(f'a{i}: paper(id: "seed-01") {{ id }}' for i in range(15)) + " }"}
    r = client.post(server.url + "/graphql", json=[one] * 200)
    assert r.status_code == 400 and leaks(r.text) == []


# --- injection: known SPARQL / GraphQL / SQL / path payloads in every string argument ----------------------
INJECTIONS = [
    '"} ; DROP ALL ; {', "' OR 1=1 --", "x> } DELETE WHERE { ?s ?p ?o } #", '" . ?s ?p ?o . FILTER("1"="1',
    "ImageNet\" } UNION { ?s ?p ?o } #", "ImageNet' } UNION { ?s ?p ?o", "<http://evil/> ?p ?o",
    "\\u0022} INSERT DATA { <a> <b> <c> }", "\"\"\"triple quoted\"\"\" } ; CLEAR ALL", "}}}}}}}}}}",
    "#", "?s ?p ?o", "SERVICE <http://127.0.0.1:1/> { ?s ?p ?o }", "LOAD <file:///etc/passwd>",
    "VALUES ?x { 1 }", "FILTER(true)", "^^<http://www.w3.org/2001/XMLSchema#string>", "@en",
    "{ __schema { types { name } } }", "query { paper(id: \"seed-01\") { id } }", "\") { id } mutation { x",
    "$var", "...on Query { __typename }", "fragment f on Query { __typename }", "' UNION SELECT NULL--",
    "; DROP TABLE docs; --", "\" OR \"\"=\"", "name\" MATCH \"*", "NEAR(a b)", "a* OR b*", "\"unterminated",
    "../../../../etc/passwd", "%2e%2e%2f%2e%2e%2f", "\x00\x01\x02", "\u202e\u2066RTL\u2069",
    "e\u0301\u0301\u0301",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "${jndi:ldap://127.0.0.1:1/a}", "{{7*7}}", "<script>alert(1)</script>", "*", "%", "_",
    "imagenet\n} ; DROP ALL", "A" * 5000,
]
ALL_STRING_ARGS = """query($s: String!, $id: ID!) {
  papers(dataset: $s, task: $s, method: $s, model: $s, domain: $s, search: $s) {
    totalCount edges { node { id } } }
  a: papers(dataset: $s) { totalCount }  b: papers(search: $s) { totalCount }
  paper(id: $id) { id }  entity(id: $id) { id }  n: entity(name: $s) { id }
  entities(search: $s) { totalCount }  defenses(target: $s) { id }  d: defenses(against: $s) { id }
  search(text: $s) { score paper { id } entity { id } }
}"""


@pytest.mark.parametrize("payload", INJECTIONS)
def test_injection_strings_are_only_data(server: Server, client: httpx.Client, payload: str) -> None:
    before = server.store.generation()
    r = post(client, server, ALL_STRING_ARGS, s=payload, id=payload)
    body = check_response(r, ALL_STRING_ARGS)
    assert "errors" not in body, body["errors"]
    data = body["data"]
    found = (data["papers"]["totalCount"], data["a"], data["paper"], data["entity"], data["n"],
             data["defenses"], data["d"])
    assert found == (0, {"totalCount": 0}, None, None, None, [], [])
    words = "".join(c if c.isalnum() else " " for c in payload).split()
    plain = post(client, server, "query($s: String!) { search(text: $s) { score } }",
                 s=" ".join(words)).json()["data"]["search"]
    assert len(data["search"]) == len(plain)  # search reads the words, nothing else
    assert server.store.generation() == before


@pytest.mark.parametrize("payload", INJECTIONS[:12])
def test_injection_in_cursor_and_export_params_is_a_clear_refusal(server: Server, client: httpx.Client,
                                                                 payload: str) -> None:
    r = post(client, server, "query($c: String) { papers(after: $c) { totalCount } }", c=payload)
    assert [e["message"] for e in r.json()["errors"]] == ["invalid cursor"]
    for param in ("paper", "entity"):
        e = client.get(server.url + "/export", params={param: payload, "format": "turtle"})
        assert e.status_code in {400, 404} and leaks(e.text) == []


def test_injection_strings_are_stored_literally_by_add_papers(server: Server, client: httpx.Client) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    payload = '"} ; DROP ALL ; { <x> <y> "z" . } #\\'
    before = server.store.triple_count()
    add = post(client, server, """mutation($p: [PaperInput!]!) { addPapers(papers: $p) {
               id title venue authors abstract } }""", headers=auth,
               p=[{"id": "inj-1", "title": payload, "abstract": f"We use ImageNet. {payload}",
                   "venue": payload, "authors": [payload]}])
    got = add.json()["data"]["addPapers"][0]
    assert (got["id"], got["title"], got["venue"], got["authors"]) == ("inj-1", payload, payload, [payload])
    assert post(client, server, 'mutation { deletePaper(id: "inj-1") }', headers=auth).json() == {
        "data": {"deletePaper": True}}
    assert server.store.triple_count() == before


# --- auth -------------------------------------------------------------------------------------------------
DELETE = 'mutation { deletePaper(id: "seed-02") }'
REFUSED = ["mutation refused: missing or invalid bearer token"]


@pytest.mark.parametrize("header", [
    "", "Bearer", f"bearer {TOKEN}-", f"Basic {TOKEN}", f"Token {TOKEN}", f"Bearer {TOKEN[:-1]}",
    f"Bearer {TOKEN}x",
    f"Bearer {TOKEN.upper()}", f"Bearer  {TOKEN} extra", f"Bearer\t{TOKEN}x", f"{TOKEN}", "Bearer null",
])
def test_wrong_tokens_are_refused_and_write_nothing(server: Server, client: httpx.Client,
                                                    header: str) -> None:
    before = server.store.generation()
    r = post(client, server, DELETE, headers={"Authorization": header} if header else {})
    assert [e["message"] for e in r.json()["errors"]] == REFUSED
    assert server.store.generation() == before


def test_token_comparison_is_constant_time() -> None:
    source = inspect.getsource(api.auth)
    assert "hmac.compare_digest(" in source or "secrets.compare_digest(" in source
    assert "== expected" not in source and "== token" not in source


def test_token_never_appears_in_logs(caplog: pytest.LogCaptureFixture,
                                     capfd: pytest.CaptureFixture[str]) -> None:
    import uvicorn
    from fixtures_api import BASE, free_port

    from api import create_app

    store = sample_store()
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    root = logging.getLogger()
    root.addHandler(handler)
    old_level = root.level
    root.setLevel(logging.DEBUG)
    app = create_app(Settings(store=store.location, base_iri=BASE, api_token=TOKEN), store)
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="debug", access_log=True))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    try:
        while not srv.started:
            time.sleep(0.02)
        url = f"http://127.0.0.1:{port}"
        with httpx.Client(timeout=120) as c:
            for headers in ({"Authorization": f"Bearer {TOKEN}"}, {"Authorization": f"Bearer {TOKEN}-no"}):
                for query in (DELETE.replace("seed-02", "nope"), "mutation { addPapers(papers: []) { id } }",
                              "{ papers(first: 1000) { totalCount } }"):
                    c.post(url + "/graphql", headers=headers, json={"query": query})
                c.post(url + "/graphql", headers=headers, content=b"{broken")
                c.get(url + f"/graphql?token={TOKEN[:4]}", headers=headers)
    finally:
        srv.should_exit = True
        thread.join(10)
        root.removeHandler(handler)
        root.setLevel(old_level)
    out, err = capfd.readouterr()
    logged = stream.getvalue() + caplog.text + out + err
    assert "POST /graphql" in logged  # the access log really was captured
    assert TOKEN not in logged


# --- request bodies and slow clients ----------------------------------------------------------------------
def raw_request(server: Server, head: bytes, body: bytes = b"") -> socket.socket:
    host, port = server.url.removeprefix("http://").split(":")
    s = socket.create_connection((host, int(port)), timeout=20)
    s.sendall(head + body)
    return s


def read_status(s: socket.socket) -> int:
    data = b""
    while b"\r\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    return int(data.split(b" ", 2)[1]) if data else 0


def test_body_over_the_cap_is_refused_before_it_is_sent(server: Server) -> None:
    head = (b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 500000000\r\n\r\n")
    s = raw_request(server, head, b'{"query": "')  # 500 MB announced, 11 bytes sent
    try:
        assert read_status(s) == 413
    finally:
        s.close()


def test_chunked_body_over_the_cap_is_cut_off_at_the_cap(server: Server) -> None:
    head = (b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n")
    s = raw_request(server, head)
    chunk = b"x" * 65536
    sent = 0
    try:
        s.settimeout(10)
        while sent < 50_000_000:  # no Content-Length: the cap is counted as chunks arrive
            s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            sent += len(chunk)
            if sent > 2 * LIMITS.max_body_bytes:
                break
        assert read_status(s) == 413
    finally:
        s.close()


def test_slow_clients_do_not_block_others(server: Server, client: httpx.Client) -> None:
    head = (b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n")
    slow = [raw_request(server, head, b'{"query') for _ in range(50)]
    try:
        for k in range(20):  # the slow ones trickle a byte each round while others are served
            for s in slow:
                s.sendall(b" ")
            started = time.monotonic()
            r = post(client, server, '{ paper(id: "seed-01") { id } }')
            assert r.json() == {"data": {"paper": {"id": "seed-01"}}}
            assert time.monotonic() - started < 5, k
    finally:
        for s in slow:
            s.close()


def test_oversized_variables_json_is_refused(server: Server, client: httpx.Client) -> None:
    big = json.dumps({"query": "{ __typename }", "variables": {"x": "a" * 2_000_000}})
    r = client.post(server.url + "/graphql", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413
