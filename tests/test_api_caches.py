"""The API's per-request costs stay cached: GraphQL validation is done once per query text, the request's
shape walked once per request."""

from __future__ import annotations

import functools
from typing import Any, cast

import pytest
from strawberry.extensions.validation_cache import _get_validate_cache

from api import limits, shape
from api.schema import build_schema
from kg.settings import Settings


def test_validation_is_cached_across_requests() -> None:
    schema = build_schema(Settings())
    cache = cast("functools._lru_cache_wrapper[Any]", _get_validate_cache(512))
    query = "{ __typename a1: __typename }"
    assert schema.execute_sync(query).errors is None
    before = cache.cache_info()
    for _ in range(3):
        assert schema.execute_sync(query).errors is None
    after = cache.cache_info()
    assert (after.hits - before.hits, after.misses - before.misses) == (3, 0)


def test_limits_still_apply_with_the_cache() -> None:
    schema = build_schema(Settings(max_aliases=2, max_depth=2))
    for _ in range(2):
        errors = schema.execute_sync("{ a: __typename b: __typename c: __typename }").errors
        assert errors and "aliases" in errors[0].message


def test_the_shape_checks_share_one_walk_per_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """Depth, cost and the one-write rule read one analysis of the request, not one each."""
    walks: list[str | None] = []

    def counted(*args: Any) -> Any:
        walks.append(args[2])
        return shape.analyse(*args)

    monkeypatch.setattr(limits, "analyse", counted)
    schema = build_schema(Settings())
    assert schema.execute_sync("query A { __typename }").errors is None
    assert schema.execute_sync("query B { __typename }").errors is None
    assert walks == ["A", "B"]


def test_a_shared_walk_still_refuses_for_each_limit() -> None:
    schema = build_schema(Settings(max_depth=1))
    deep = schema.execute_sync("{ stats { papers } entities(first: 1) { edges { node { name } } } }").errors
    assert deep and "query depth" in deep[0].message
    writes = schema.execute_sync("mutation { a: deletePaper(id: \"x\") b: deletePaper(id: \"y\") }").errors
    assert writes and "one mutation field per request" in writes[0].message
