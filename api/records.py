"""GraphQL objects from the query layer's records: the fields both have by name are copied, so the
conversions say only what differs (ids, lists for tuples, nested objects)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar, cast

T = TypeVar("T")


def from_record(cls: Callable[..., T], record: object, **differ: Any) -> T:
    """`cls` (a strawberry type) built from `record`'s same-named fields, `differ` given where it differs;
    a field the record lacks raises AttributeError (a renamed field is never silently None)."""
    fields = dataclasses.fields(cast(Any, cls))  # strawberry types are dataclasses
    same = {f.name: getattr(record, f.name) for f in fields if f.init and f.name not in differ}
    return cls(**same, **differ)
