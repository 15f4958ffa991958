"""CORS for the public read-only endpoints: browser tools on another origin may read /sparql, /graphql
queries, /export, the Linked Data pages and descriptions, never write.

Cross-origin reads are GET/HEAD anywhere public and POST to /sparql and /graphql (queries travel by POST).
Preflights allow only the `Accept` and `Content-Type` request headers, so a browser never sends a bearer
token cross-origin: GraphQL mutations (which need one) cannot be made from another origin, and no
credentials (cookies) are ever allowed. Origins come from `Settings.cors_origins` ("*", a comma list, or
"none" to switch CORS off).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

POST_PATHS = ("/sparql", "/graphql")  # reads that may travel by POST
PRIVATE = ("/healthz",)
ALLOWED_HEADERS = b"Accept, Content-Type"
MAX_AGE = b"600"


def parse_origins(value: str) -> tuple[str, ...]:
    """Allowed origins from the setting: ("*",), a tuple of origins, or () for "none" / empty."""
    items = tuple(o.strip().rstrip("/") for o in value.split(",") if o.strip())
    return () if items in ((), ("none",)) else items


class Cors:
    """ASGI middleware adding CORS headers for allowed origins on read-only routes and answering their
    preflights (OPTIONS) itself; every other request passes through untouched."""

    def __init__(self, app: ASGIApp, origins: str = "*") -> None:
        self.app = app
        self.origins = parse_origins(origins)

    def _allowed(self, origin: str) -> bytes | None:
        if not self.origins or not origin:
            return None
        if "*" in self.origins:
            return b"*"
        return origin.encode("latin-1") if origin.rstrip("/") in self.origins else None

    @staticmethod
    def _methods(path: str) -> tuple[str, ...]:
        if path.startswith(PRIVATE):
            return ()
        return ("GET", "HEAD", "POST") if path in POST_PATHS else ("GET", "HEAD")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        origin = headers.get(b"origin", b"").decode("latin-1")
        path, method = str(scope.get("path", "")), str(scope.get("method", "GET"))
        methods = self._methods(path)
        allow = self._allowed(origin)
        if method == "OPTIONS" and b"access-control-request-method" in headers:
            wanted = headers[b"access-control-request-method"].decode("latin-1").upper()
            ok = allow is not None and wanted in methods
            out = [(b"vary", b"Origin"), (b"content-length", b"0")]
            if ok and allow is not None:
                out += [(b"access-control-allow-origin", allow),
                        (b"access-control-allow-methods", ", ".join(methods).encode()),
                        (b"access-control-allow-headers", ALLOWED_HEADERS),
                        (b"access-control-max-age", MAX_AGE)]
            await send({"type": "http.response.start", "status": 204 if ok else 403, "headers": out})
            await send({"type": "http.response.body", "body": b""})
            return
        if allow is None or method not in methods:
            await self.app(scope, receive, send)
            return

        async def with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                out = [(k, v) for k, v in message.get("headers", [])
                       if not k.lower().startswith(b"access-control-")]
                out += [(b"access-control-allow-origin", allow), (b"vary", b"Origin")]
                message = {**message, "headers": out}
            await send(message)

        await self.app(scope, receive, with_cors)
