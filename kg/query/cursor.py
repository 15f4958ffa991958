"""Opaque pagination cursors: url-safe base64 of a small JSON sort key, checked on the way back."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any


class BadCursor(ValueError):
    """An `after` value that this server did not hand out."""


def encode(kind: str, key: list[Any]) -> str:
    raw = json.dumps([kind, *key], separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(kind: str, cursor: str, types: tuple[type, ...]) -> list[Any]:
    """The sort key inside `cursor`, which must be a `kind` cursor whose parts have `types`."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise BadCursor("invalid cursor") from None
    if (
        not isinstance(data, list)
        or len(data) != len(types) + 1
        or data[0] != kind
        or not all(isinstance(v, t) and not isinstance(v, bool) for v, t in zip(data[1:], types, strict=True))
    ):
        raise BadCursor("invalid cursor")
    return data[1:]
