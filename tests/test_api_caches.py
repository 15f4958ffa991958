"""The API's per-request costs stay cached: GraphQL validation is done once per query text."""

from __future__ import annotations

import functools
from typing import Any, cast

from strawberry.extensions.validation_cache import _get_validate_cache

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
