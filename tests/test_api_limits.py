"""Issue 11's attacks, replayed over real HTTP: costly GraphQL is refused before it runs (the exact queries
of the issue), a deadline ends execution, bad bodies are one-line 4xx, client errors log one line, and
every response carries the security headers."""

from __future__ import annotations

import io
import json
import logging
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from fixtures_api import Server, sample_store, serve

# --- the queries, verbatim ------------------------------------------------------------------------
RELATED_CHAIN = ("{ entities(first:100) { edges { node { related(first:100) { related(first:100) { "
                 "related(first:100) { related(first:100) { name } } } } } } } }")
FRAGMENT_FAN_OUT = " ".join(
    ["query Q { ...F0 }"]
    + [f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}" for i in range(20)]
    + ["fragment F20 on Query { stats { papers } }"]
)
CHAIN = "entities(first:100) { edges { node { related(first:100) { related(first:100) { name } } } } }"
ALIASED_CHAINS = "{ " + " ".join(f"a{i}: {CHAIN}" for i in range(15)) + " }"
PROBE = "{ stats { papers } }"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    store = sample_store()
    yield from serve(store)


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=120) as c:
        yield c


def gql(client: httpx.Client, server: Server, query: str) -> httpx.Response:
    return client.post(server.url + "/graphql", json={"query": query})


def test_the_fan_out_query_is_small_and_legal_looking() -> None:
    assert len(FRAGMENT_FAN_OUT) < 900 and len(FRAGMENT_FAN_OUT.split()) < 2000  # under the token limit


@pytest.mark.parametrize("query", [RELATED_CHAIN, FRAGMENT_FAN_OUT, ALIASED_CHAINS],
                         ids=["related-chain", "fragment-fan-out", "aliased-chains"])
def test_costly_queries_are_refused_before_they_run(server: Server, client: httpx.Client, query: str) -> None:
    gql(client, server, PROBE)  # connection and caches warm
    started = time.monotonic()
    r = gql(client, server, query)
    took = time.monotonic() - started
    body = r.json()
    assert r.status_code == 200 and "data" not in body  # refused before execution: a request error
    [error] = body["errors"]
    assert error["message"].startswith("query cost ") and "exceeds the limit of 100,000" in error["message"]
    # refused by the analysis, not by the clock: before, these took 18-45 s (the target, 100 ms, is measured
    # by bench/attack.py; this margin only has to tell "analysed" from "ran")
    assert took < 2.0, took


def test_a_concurrent_probe_keeps_its_latency_during_attacks(server: Server) -> None:
    stop = threading.Event()

    def attack() -> None:
        with httpx.Client(timeout=120) as c:
            while not stop.is_set():
                for q in (RELATED_CHAIN, FRAGMENT_FAN_OUT, ALIASED_CHAINS):
                    c.post(server.url + "/graphql", json={"query": q})

    attackers = [threading.Thread(target=attack) for _ in range(2)]
    for t in attackers:
        t.start()
    latencies = []
    try:
        with httpx.Client(timeout=120) as probe:
            for _ in range(30):
                started = time.monotonic()
                r = probe.post(server.url + "/graphql", json={"query": PROBE})
                latencies.append(time.monotonic() - started)
                assert r.json() == {"data": {"stats": {"papers": 19}}}
    finally:
        stop.set()
        for t in attackers:
            t.join()
    assert max(latencies) < 3.0, latencies  # before: 15.5 s behind one attack query


def test_legal_queries_still_answer(server: Server, client: httpx.Client) -> None:
    q = ('{ papers(first: 100) { totalCount edges { node { id title links { relation entity { name } } } } } '
         'entities(first: 20) { edges { node { name related(first: 10) { name } } } } }')
    body = gql(client, server, q).json()
    assert "errors" not in body and body["data"]["papers"]["totalCount"] == 19


def test_a_fragment_cycle_is_one_clear_error(server: Server, client: httpx.Client) -> None:
    q = "query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }"
    body = gql(client, server, q).json()
    assert "data" not in body and body["errors"][0]["message"] == "fragment 'A' spreads itself"


def test_depth_counts_fragments_once_each(server: Server, client: httpx.Client) -> None:
    q = ("query { ...A } fragment A on Query { papers { edges { node { ...B } } } } "
         "fragment B on Paper { links { entity { related { papers { edges { node { id } } } } } } }")
    assert [e["message"] for e in gql(client, server, q).json()["errors"]] == [
        "query depth 9 exceeds the limit of 8"]


def test_the_deadline_ends_execution_past_the_cost_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the cost limit lifted, the related chain runs until the deadline stops it (before: a 5 s limit
    answered after 18.4 s); its resolvers and loaders stop, and a probe is answered meanwhile."""
    monkeypatch.setenv("KG_MAX_COST", "1e18")
    store = sample_store()
    running = serve(store, query_timeout_s=0.3)
    srv = next(running)
    try:
        with httpx.Client(timeout=120) as c:
            gql(c, srv, PROBE)
            started = time.monotonic()
            r = gql(c, srv, RELATED_CHAIN)
            took = time.monotonic() - started
        assert r.status_code in {200, 503}
        assert r.json() == {"data": None, "errors": [{"message": "query time limit of 0.3 s exceeded"}]}
        assert took < 0.3 + 2.0, took  # measured 0.5 s; the margin is for a busy machine
    finally:
        next(running, None)


# --- issue 25: introspection, repeated fields and variables get past no limit ------------------------------
TYPEREF = ("name kind ofType { name kind ofType { name kind ofType { name kind ofType { name kind ofType { "
           "name kind ofType { name kind } } } } } }")
INTROSPECTION = ("__schema { types { name kind fields { name args { name type { " + TYPEREF + " } } type { "
                 + TYPEREF + " } } } }")
INTROSPECTION_15 = "{ " + " ".join(f"a{i}: {INTROSPECTION}" for i in range(15)) + " }"
VARIABLE_CHAIN = ("query($n:Int!=100){ entities(first:$n){ edges{ node{ related(first:$n){ "
                  "related(first:$n){ name }}}}}}")
LITERAL_COST = ("query cost 7,696,427 exceeds the limit of 100,000; ask for fewer items (`first`) or fewer "
                "nested lists")


def test_introspection_counts_toward_the_cost(server: Server, client: httpx.Client) -> None:
    [error] = gql(client, server, INTROSPECTION_15).json()["errors"]
    assert error["message"].startswith("query cost 438,375 exceeds the limit of 100,000")


def test_graphiqls_introspection_query_still_answers(server: Server, client: httpx.Client) -> None:
    from graphql import get_introspection_query

    body = gql(client, server, get_introspection_query(descriptions=True)).json()
    assert "errors" not in body and body["data"]["__schema"]["queryType"]["name"] == "Query"


def test_introspection_stops_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its resolvers read no store and no loader; the deadline is checked at every list it completes (it
    ran on for 18 s after the time limit answered before). Execution takes ~0.5 s; the budget is 0.05 s."""
    import asyncio

    from api.limits import DeadlineExceeded
    from api.schema import build_schema
    from kg.settings import Settings

    monkeypatch.setenv("KG_MAX_COST", "1e18")
    schema = build_schema(Settings(query_timeout_s=0.05))
    with pytest.raises(DeadlineExceeded, match="query time limit of 0.05 s exceeded"):
        asyncio.run(schema.execute(INTROSPECTION_15))


@pytest.mark.parametrize("repeats", [280, 490])
def test_repeated_fields_are_refused_before_validation(server: Server, client: httpx.Client,
                                                       repeats: int) -> None:
    query = "query { " + " ".join(["stats { papers }"] * repeats) + " }"  # 4.8 KB at 280, no alias
    assert gql(client, server, query).json() == {"errors": [{"message": (
        "the document repeats too many fields to validate (more than 3,000 field comparisons); "
        "ask for each field once")}]}


def test_a_few_repeated_fields_still_validate_and_answer(server: Server, client: httpx.Client) -> None:
    query = "query { " + " ".join(["stats { papers }"] * 10) + " }"
    assert gql(client, server, query).json() == {"data": {"stats": {"papers": 19}}}


@pytest.mark.parametrize("variables", [None, {"n": 100}, {"n": 100.0}], ids=["default", "int", "float"])
def test_variables_are_costed_as_execution_uses_them(server: Server, client: httpx.Client,
                                                     variables: dict[str, object] | None) -> None:
    r = client.post(server.url + "/graphql", json={"query": VARIABLE_CHAIN, "variables": variables})
    assert r.json() == {"errors": [{"message": LITERAL_COST}]}


def test_a_small_variable_is_costed_small(server: Server, client: httpx.Client) -> None:
    r = client.post(server.url + "/graphql", json={"query": VARIABLE_CHAIN, "variables": {"n": 3}})
    assert "errors" not in r.json()


# --- bad requests -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("body", "message"), [
    (b'{"query": "{ stats { papers } }\xff\xfe"}', "request body is not valid UTF-8 (byte 31)"),
    (b"[" * 100_000, "request body nests too deeply"),
    (b'{"a":' * 50_000, "request body nests too deeply"),
    (b"{" * 100_000, "Unable to parse request body as JSON"),
    (b"42", "request body must be a JSON object"),
])
def test_malformed_bodies_are_one_line_4xx(server: Server, client: httpx.Client, body: bytes,
                                           message: str) -> None:
    r = client.post(server.url + "/graphql", content=body, headers={"content-type": "application/json"})
    assert (r.status_code, r.json()) == (400, {"errors": [{"message": message}]})  # a GraphQL error body


ROUTES = ["/graphql", "/sparql?query=ASK%7B%7D", "/export?format=nt&paper=seed-01", "/healthz", "/explore",
          "/explore/static/index.html", "/explore/static/explorer.js", "/explore/types.json", "/nope"]


@pytest.mark.parametrize("path", ROUTES)
def test_every_response_says_nosniff(server: Server, client: httpx.Client, path: str) -> None:
    r = client.get(server.url + path)
    assert r.headers.get("x-content-type-options") == "nosniff", (path, r.status_code)


def test_post_and_error_responses_say_nosniff_too(server: Server, client: httpx.Client) -> None:
    for r in (gql(client, server, PROBE), client.post(server.url + "/graphql", content=b"[" * 10),
              client.post(server.url + "/graphql", content=b"x" * 2_000_000)):
        assert r.headers.get("x-content-type-options") == "nosniff", r.status_code


def test_the_explorer_csp_covers_its_static_html(server: Server, client: httpx.Client) -> None:
    page = client.get(server.url + "/explore")
    static = client.get(server.url + "/explore/static/index.html")
    assert static.status_code == 200 and static.headers["content-type"].startswith("text/html")
    assert static.headers.get("content-security-policy") == page.headers["content-security-policy"]
    assert "script-src 'self'" in static.headers["content-security-policy"]


def test_client_errors_log_one_line_each_without_traceback() -> None:
    store = sample_store()
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    running = serve(store, api_token="t0k3n")
    srv = next(running)
    client_errors = [
        "{ papers(first: 101) { totalCount } }",
        '{ neighborhood(id: "no-such-id") { truncated } }',
        'mutation { deletePaper(id: "seed-01") }',
        '{ papers(after: "bogus") { totalCount } }',
        RELATED_CHAIN,
    ]
    try:
        with httpx.Client(timeout=120) as c:
            for q in client_errors:
                assert gql(c, srv, q).json()["errors"]
    finally:
        next(running, None)
        root.removeHandler(handler)
        root.setLevel(old_level)
    lines = [ln for ln in stream.getvalue().splitlines() if "api.graphql" in ln or "strawberry" in ln
             or "Traceback" in ln or ln.startswith((" ", "\t"))]
    assert "Traceback" not in stream.getvalue()
    assert len(lines) == len(client_errors), lines
    assert all(ln.startswith("INFO api.graphql graphql client error: ") for ln in lines), lines


# --- issue 25, item 6: a lone surrogate is a one-line 400, wherever it is --------------------------------
SURROGATE_QUERIES = {
    "neighborhood": "query($s: ID!) { neighborhood(id: $s) { nodes { id } } }",
    "cooccurrence": "query($s: ID!) { cooccurrence(id: $s) { nodes { id } } }",
    "compare": "query($s: ID!) { compare(papers: [$s]) { paper { id } } }",
    "paper": "query($s: ID!) { paper(id: $s) { id } }",
}


def post_json(client: httpx.Client, server: Server, body: object) -> httpx.Response:
    """`body` as JSON with every non-ASCII character escaped (how a client sends "\\udfff")."""
    return client.post(server.url + "/graphql", content=json.dumps(body).encode(),
                       headers={"content-type": "application/json"})


@pytest.mark.parametrize("query", SURROGATE_QUERIES.values(), ids=SURROGATE_QUERIES.keys())
def test_a_lone_surrogate_in_a_variable_is_a_400(server: Server, client: httpx.Client, query: str) -> None:
    r = post_json(client, server, {"query": query, "variables": {"s": "\udfff"}})
    assert (r.status_code, r.json()) == (400, {"errors": [{"message": (
        "request body holds a lone surrogate, which is not text: '\\udfff' at variables.s")}]})


def test_a_lone_surrogate_in_any_add_papers_string_is_a_400(server: Server, client: httpx.Client) -> None:
    paper = {"id": "s", "abstract": "We study ImageNet.", "authors": ["Ada", "\ud800x"]}
    add = "mutation($p: [PaperInput!]!) { addPapers(papers: $p) { id } }"
    r = post_json(client, server, {"query": add, "variables": {"p": [paper]}})
    assert (r.status_code, r.json()["errors"][0]["message"]) == (
        400, "request body holds a lone surrogate, which is not text: '\\ud800' at variables.p[0].authors[1]")


def test_a_lone_surrogate_in_the_document_is_a_400(server: Server, client: httpx.Client) -> None:
    r = post_json(client, server, {"query": '{ paper(id: "\udfff") { id } }'})
    assert (r.status_code, r.json()["errors"][0]["message"]) == (
        400, "request body holds a lone surrogate, which is not text: '\\udfff' at query")
