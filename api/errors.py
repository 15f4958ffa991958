"""Which errors a client may read: our own one-line messages and GraphQL's; everything else is masked."""

from __future__ import annotations

from graphql import GraphQLError

from kg.query import BadCursor
from kg.store.types import QueryTimeout, TooManyRows


class PublicError(Exception):
    """A refusal or bad argument whose message is meant for the client."""


_VISIBLE = (PublicError, BadCursor, QueryTimeout, TooManyRows)


def should_mask(error: GraphQLError) -> bool:
    """Mask unexpected exceptions (no messages, paths or traces from inside leak to clients)."""
    original = error.original_error
    return original is not None and not isinstance(original, (*_VISIBLE, GraphQLError))
