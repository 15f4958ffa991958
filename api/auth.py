"""Who may write and which requests write: the bearer-token permission on every mutation field (constant-time
compare, the token never leaves this module) and the operation type read from the parsed document."""

from __future__ import annotations

import hmac
from collections.abc import Iterator
from typing import Any

from starlette.requests import Request
from strawberry.extensions import FieldExtension, SchemaExtension
from strawberry.permission import BasePermission, PermissionExtension
from strawberry.types import Info
from strawberry.types.graphql import OperationType

from api.errors import PublicError


def check_token(request: Request, token: str | None) -> None:
    """Raise PublicError unless mutations are on and the request carries `Authorization: Bearer <token>`."""
    if not token:
        raise PublicError("mutations are disabled on this server (no API token configured)")
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    expected = token.encode()
    ok = hmac.compare_digest(given.strip().encode(), expected) and scheme.lower() == "bearer"
    if not ok:
        raise PublicError("mutation refused: missing or invalid bearer token")


class TokenRequired(BasePermission):
    """A field only a request with the server's API token may run; the refusal says why in one line
    (mutations off, or a missing or wrong token), as a PublicError the error mask lets through."""

    message = "mutation refused: missing or invalid bearer token"

    def has_permission(self, source: Any, info: Info[Any, Any], **kwargs: Any) -> bool:
        check_token(info.context.request, info.context.settings.api_token)
        return True


def token_required() -> list[FieldExtension]:
    """A mutation's field extensions: the token check, with no schema directive (the SDL stays as it was)."""
    return [PermissionExtension(permissions=[TokenRequired()], use_directives=False)]


class MarkMutations(SchemaExtension):
    """Records on the request's context whether the operation about to execute is a mutation (read from the
    parsed document, never guessed), so the view runs a mutation exactly once."""

    def on_execute(self) -> Iterator[None]:
        ctx = self.execution_context
        if ctx.operation_type is OperationType.MUTATION:
            ctx.context.mutation = True
        yield
