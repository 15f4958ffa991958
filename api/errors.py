"""Which errors a client may read: our own one-line messages and GraphQL's; everything else is masked."""

from __future__ import annotations

from graphql import GraphQLError

from kg.query import BadCursor, BadOrder
from kg.query.guard import MalformedQuery, QueryRefused, ServiceRefused, UpdateRefused
from kg.store.types import QueryTimeout, TooManyRows


class PublicError(Exception):
    """A refusal or bad argument whose message is meant for the client."""


class Refused(Exception):
    """An HTTP request refused with `status` and a one-line message for the client."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


# the library's domain errors as HTTP statuses (the library raises them knowing nothing of HTTP)
QUERY_STATUS: dict[type[QueryRefused], int] = {MalformedQuery: 400, UpdateRefused: 403, ServiceRefused: 403}


def query_status(exc: QueryRefused) -> int:
    """The HTTP status for a query the read-only guard (kg.query.guard) would not run."""
    return next((status for kind, status in QUERY_STATUS.items() if isinstance(exc, kind)), 400)


_VISIBLE = (PublicError, BadCursor, BadOrder, QueryTimeout, TooManyRows)


def should_mask(error: GraphQLError) -> bool:
    """Mask unexpected exceptions (no messages, paths or traces from inside leak to clients)."""
    original = error.original_error
    return original is not None and not isinstance(original, (*_VISIBLE, GraphQLError))
