"""Fair shares of the machine between clients: light requests keep their latency while heavy ones run.

`ConcurrencyShare` (ASGI middleware) bounds the costly requests of a route that are served at once, in all
and per client address (beyond: 503 with Retry-After, at once and cheaply): GraphQL documents large
enough that parsing them costs tens of milliseconds of the interpreter, whole-graph exports. `HeavyClients`
remembers which addresses recently ran a heavy SPARQL query, so their next queries go to the heavy lane of
the worker pool (api.sparql_worker) and leave the light lane to everyone else.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

HEAVY_MEMORY_S = 60.0  # how long an address counts as heavy after its last heavy query
MAX_REMEMBERED = 10_000  # addresses remembered at most (the oldest are forgotten first)


def client_of(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "?"


class HeavyClients:
    """Addresses whose last heavy query (one past the light budget) is at most `memory_s` old."""

    def __init__(self, memory_s: float = HEAVY_MEMORY_S, most: int = MAX_REMEMBERED) -> None:
        self.memory_s, self.most = memory_s, most
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()

    def mark(self, client: str) -> None:
        with self._lock:
            self._last.pop(client, None)
            self._last[client] = time.monotonic()  # insertion order is age order
            while len(self._last) > self.most:
                del self._last[next(iter(self._last))]

    def heavy(self, client: str) -> bool:
        with self._lock:
            at = self._last.get(client)
        return at is not None and time.monotonic() - at < self.memory_s


def large_body(min_bytes: int) -> Callable[[Scope], bool]:
    """Requests announcing a body of at least `min_bytes` (or none: chunked bodies count as large)."""

    def applies(scope: Scope) -> bool:
        if scope.get("method") != "POST":
            return False
        length = dict(scope.get("headers") or []).get(b"content-length")
        return length is None or not length.isdigit() or int(length) >= min_bytes

    return applies


def whole_export(scope: Scope) -> bool:
    """/export without `paper=` or `entity=`: the whole graph."""
    query = scope.get("query_string", b"")
    return b"paper=" not in query and b"entity=" not in query


class ConcurrencyShare:
    """At most `total` requests on `path` that `applies` selects run at once, `per_client` of them from one
    address; the others are refused with 503 and `Retry-After: 1` before the app reads them. With
    `graphql`, the refusal is a GraphQL error body."""

    def __init__(self, app: ASGIApp, path: str, applies: Callable[[Scope], bool], total: int,
                 per_client: int = 1, graphql: bool = False, what: str = "requests") -> None:
        self.app, self.path, self.applies = app, path, applies
        self.total, self.per_client, self.graphql, self.what = total, per_client, graphql, what
        self._running: Counter[str] = Counter()  # on the event loop only
        self._all = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") != self.path or not self.applies(scope):
            await self.app(scope, receive, send)
            return
        client = client_of(scope)
        if self._all >= self.total or self._running[client] >= self.per_client:
            await self._refuse(send)
            return
        self._all += 1
        self._running[client] += 1
        held = True

        def release() -> None:
            nonlocal held
            if held:
                held = False
                self._all -= 1
                self._running[client] -= 1
                if self._running[client] <= 0:
                    del self._running[client]

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                release()  # before the last byte leaves: the client's next request finds its share free
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            release()

    async def _refuse(self, send: Send) -> None:
        message = f"too many {self.what} at once; retry in a second"
        if self.graphql:
            body, media = json.dumps({"errors": [{"message": message}]}).encode(), b"application/json"
        else:
            body, media = message.encode(), b"text/plain; charset=utf-8"
        await send({"type": "http.response.start", "status": 503, "headers": [
            (b"content-type", media), (b"content-length", str(len(body)).encode()), (b"retry-after", b"1")]})
        await send({"type": "http.response.body", "body": body})

