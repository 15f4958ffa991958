"""GraphQL over HTTP (the GraphQL Foundation's spec): `application/graphql-response+json` for clients that
accept it (the Accept header the spec recommends to clients included), with its status codes — a request
error (the document does not parse or validate, variables cannot be coerced) is a 400 without a `data`
entry; field errors stay 200. Clients that ask for `application/json` (or nothing) get the legacy answer:
200 and application/json, a request error without `data` there too. Requests refused before any GraphQL
runs answer a GraphQL error body, never text/plain.
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from strawberry.schema.exceptions import InvalidOperationTypeError
from strawberry.types.graphql import OperationType

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


def wants_graphql_response(request: Request) -> bool:
    """Whether the client names application/graphql-response+json and prefers it (or ranks it equal to
    application/json, as the spec recommends clients to send); no Accept or `*/*` is the legacy JSON."""
    accept = request.headers.get("accept") or ""
    chosen = choose(accept, (GRAPHQL_RESPONSE, JSON)) if GRAPHQL_RESPONSE in accept.lower() else None
    return chosen == GRAPHQL_RESPONSE


def adapt(request: Request, response: Response) -> Response:
    """The view's JSON response answered as the Accept header prefers (see the module docstring): a request
    error has no `data` entry in either media type, and is a 400 under graphql-response+json."""
    if response.media_type != JSON or request.method != "POST":
        return response
    graphql_response = wants_graphql_response(request)
    request_error = getattr(request.state, _MARK, False) and response.status_code == 200
    if not graphql_response and not request_error:
        return response
    body, status = bytes(response.body), response.status_code
    if request_error:
        data = json.loads(body)
        if isinstance(data, dict):  # one operation (a batch keeps its per-item results and 200)
            data.pop("data", None)
            body = json.dumps(data).encode()
            status = 400 if graphql_response else 200
    headers = {k: v for k, v in response.headers.items()
               if k.lower() not in ("content-length", "content-type")}
    return Response(body, status_code=status, media_type=GRAPHQL_RESPONSE if graphql_response else JSON,
                    headers=headers, background=response.background)


def refusal(request: Request, status: int, reason: str, cause: BaseException | None) -> Response:
    """A request the view refused before any GraphQL ran (body not JSON or not text, unknown operationName,
    a mutation over GET...) as a GraphQL error body in the negotiated media type, never text/plain; a
    mutation over GET is 405 with `Allow: POST` (GraphQL over HTTP: GET never writes)."""
    headers = {}
    if isinstance(cause, InvalidOperationTypeError) and cause.operation_type is OperationType.MUTATION:
        status, headers = 405, {"Allow": "POST"}
    media = GRAPHQL_RESPONSE if wants_graphql_response(request) else JSON
    return Response(json.dumps({"errors": [{"message": reason}]}), status_code=status, media_type=media,
                    headers=headers)


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # how JSON text writes a UTF-16 surrogate


def lone_surrogate(value: object, text: str | None = None) -> str | None:
    """Where a decoded JSON request body holds a lone UTF-16 surrogate (`"\\udfff"` is valid JSON but no
    Unicode text: every string of the request would fail later, deep in the store or the index), as
    `'\\udfff' at variables.s`; None when every string and key is text. Given the body's `text`, a body
    that writes no surrogate escape is not walked (strict UTF-8 decoding leaves no surrogate otherwise)."""
    if text is not None and _SURROGATE_ESCAPE.search(text) is None:
        return None
    path: list[str] = []

    def bad(item: object) -> str | None:
        if isinstance(item, str):
            if item.isascii():
                return None
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                return item[exc.start]
            return None
        if isinstance(item, dict):
            for key, child in item.items():
                if (found := bad(key) or bad(child)) is not None:
                    path.append(f".{key}" if isinstance(key, str) and not bad(key) else "")
                    return found
        elif isinstance(item, list):
            for i, child in enumerate(item):
                if (found := bad(child)) is not None:
                    path.append(f"[{i}]")
                    return found
        return None

    found = bad(value)
    if found is None:
        return None
    return f"{found!r} at {''.join(reversed(path)).lstrip('.') or 'the body'}"
