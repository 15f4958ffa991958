"""Bearer-token check for mutations: constant-time compare, the token never leaves this function."""

from __future__ import annotations

import hmac

from starlette.requests import Request

from api.errors import PublicError


def require_token(request: Request, token: str | None) -> None:
    """Raise PublicError unless mutations are on and the request carries `Authorization: Bearer <token>`."""
    request.state.kg_mutation = True  # a mutation runs once: the GraphQL view never re-runs this request
    if not token:
        raise PublicError("mutations are disabled on this server (no API token configured)")
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    expected = token.encode()
    ok = hmac.compare_digest(given.strip().encode(), expected) and scheme.lower() == "bearer"
    if not ok:
        raise PublicError("mutation refused: missing or invalid bearer token")
