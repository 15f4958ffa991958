"""api.shares.ConcurrencyShare over a real ASGI app under uvicorn: costly requests beyond the share are
refused at once with 503 and Retry-After, in the route's own shape; others pass; a slot is free again as
soon as its response has been sent."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator

import httpx
import pytest
import uvicorn
from fixtures_api import free_port
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from api.shares import ConcurrencyShare, large_body, whole_export

RELEASE = threading.Event()
PARKED: list[int] = [0]  # requests waiting in `slow` right now


async def slow(request: Request) -> Response:
    """Answers once the test sets RELEASE (each request parks here, holding its share)."""
    await request.body()
    PARKED[0] += 1
    try:
        while not RELEASE.is_set():
            await asyncio.sleep(0.01)
    finally:
        PARKED[0] -= 1
    return PlainTextResponse("done")


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    app = Starlette(routes=[Route("/graphql", slow, methods=["POST"]), Route("/export", slow)], middleware=[
        Middleware(ConcurrencyShare, path="/graphql", applies=large_body(1024), total=2, graphql=True,
                   what="large GraphQL documents"),
        Middleware(ConcurrencyShare, path="/export", applies=whole_export, total=1,
                   what="whole-graph exports"),
    ])
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        thread.join(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


Send = Callable[[httpx.Client], httpx.Response]


def big_document(url: str) -> Send:
    return lambda c: c.post(url + "/graphql", content=b"{" + b" " * 2000 + b"}",
                            headers={"content-type": "application/json"})


def whole_dump(url: str) -> Send:
    return lambda c: c.get(url + "/export?format=nt")


def client_at(address: str) -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=60)


def parked(n: int, send: Send) -> list[threading.Thread]:
    """`n` requests, each from its own address, parked in the app (they hold their shares)."""
    def one(i: int) -> None:
        with client_at(f"127.0.0.{40 + i}") as c:
            send(c)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 60  # a hang guard, not a speed check
    while PARKED[0] < n:
        assert time.monotonic() < deadline, "the requests never reached the app"
        time.sleep(0.01)
    return threads


def refused(send: Send, address: str) -> httpx.Response:
    with client_at(address) as c:
        return send(c)


def test_large_documents_beyond_the_share_are_503_graphql_errors(url: str) -> None:
    RELEASE.clear()
    threads = parked(2, big_document(url))
    try:
        r = refused(big_document(url), "127.0.0.50")
        assert (r.status_code, r.headers["retry-after"], r.json()) == (503, "1", {"errors": [{
            "message": "too many large GraphQL documents at once; retry in a second"}]})
    finally:
        RELEASE.set()
        for t in threads:
            t.join()


def test_small_documents_are_never_held_back(url: str) -> None:
    RELEASE.set()
    with httpx.Client(timeout=60) as c:
        assert [c.post(url + "/graphql", content=b"{}").status_code for _ in range(5)] == [200] * 5


def test_one_client_gets_one_share_and_it_frees_with_the_response(url: str) -> None:
    RELEASE.set()
    with httpx.Client(timeout=60) as c:  # back to back from one address: each one's share is free again
        assert [big_document(url)(c).status_code for _ in range(20)] == [200] * 20


def test_a_whole_export_beyond_the_share_is_503_and_a_subgraph_is_not(url: str) -> None:
    RELEASE.clear()
    threads = parked(1, whole_dump(url))
    try:
        r = refused(whole_dump(url), "127.0.0.51")
        assert (r.status_code, r.text) == (503, "too many whole-graph exports at once; retry in a second")
    finally:
        RELEASE.set()
        for t in threads:
            t.join()
    assert httpx.get(url + "/export?format=nt&paper=seed-01", timeout=60).status_code == 200
