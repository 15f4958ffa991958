"""Paging: argument bounds checked before any work (a clear GraphQL error, never a silent clamp) and the one
generic GraphQL Connection every paged field returns."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, Self, TypeVar

import strawberry

from api.errors import PublicError
from kg.query import Page

T = TypeVar("T")


def check_range(name: str, value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise PublicError(f"`{name}` must be between {low} and {high} (got {value})")
    return value


@strawberry.type
class PageInfo:
    has_next_page: bool
    end_cursor: str | None


@strawberry.type(name="Edge")
class PageEdge(Generic[T]):
    """One node of a page and its opaque cursor (named "PaperEdge", "EntityEdge"... in the schema)."""

    cursor: str
    node: T


@strawberry.type
class Connection(Generic[T]):
    """A page of a Connection: the total, the edges and where the next page starts."""

    total_count: int
    edges: list[PageEdge[T]]
    page_info: PageInfo

    @classmethod
    def page(cls, page: Page[Any], node: Callable[[Any], T], info: type[PageInfo] = PageInfo) -> Self:
        """The connection of `page`, each of its items made a node by `node` (`info`: the PageInfo type the
        subclass declares)."""
        edges = [PageEdge(cursor=c, node=node(x)) for x, c in zip(page.items, page.cursors, strict=True)]
        return cls(total_count=page.total, edges=edges,
                   page_info=info(has_next_page=page.has_next, end_cursor=page.end_cursor))
