"""GraphQL over HTTP (the GraphQL Foundation's spec): `application/graphql-response+json` for clients that
accept it, with its status codes — a request error (the document does not parse or validate, variables
cannot be coerced) is a 400 without a `data` entry; field errors stay 200. Clients that ask for
`application/json` (or nothing) get the legacy answer: 200 and application/json.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from api.negotiation import choose

GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON = "application/json"
_MARK = "kg_request_error"


def is_request_error(result: Any) -> bool:
    """A result that never executed: no data and only errors without a path (parse, validation or
    variable coercion failures, limits refused before execution)."""
    errors = getattr(result, "errors", None) or []
    return getattr(result, "data", None) is None and bool(errors) and all(
        getattr(e, "path", None) is None for e in errors)


def mark(request: Request, result: Any) -> None:
    """Remember on the request whether its (single) result was a request error."""
    timed_out = getattr(request.state, "kg_deadline", False)  # out of time: not the request's fault
    setattr(request.state, _MARK, not timed_out and is_request_error(result))


def adapt(request: Request, response: Response) -> Response:
    """The view's JSON response answered as the Accept header prefers (see the module docstring)."""
    if response.media_type != JSON or request.method != "POST":
        return response
    if choose(request.headers.get("accept"), (JSON, GRAPHQL_RESPONSE)) != GRAPHQL_RESPONSE:
        return response
    body, status = bytes(response.body), response.status_code
    if getattr(request.state, _MARK, False) and status == 200:
        data = json.loads(body)
        if isinstance(data, dict):  # one operation (a batch keeps its per-item results and 200)
            data.pop("data", None)
            body, status = json.dumps(data).encode(), 400
    headers = {k: v for k, v in response.headers.items()
               if k.lower() not in ("content-length", "content-type")}
    return Response(body, status_code=status, media_type=GRAPHQL_RESPONSE, headers=headers,
                    background=response.background)
