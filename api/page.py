"""Argument bounds checked before any work: a clear GraphQL error, never a silent clamp."""

from __future__ import annotations

from api.errors import PublicError


def check_range(name: str, value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise PublicError(f"`{name}` must be between {low} and {high} (got {value})")
    return value
