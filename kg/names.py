"""Name normalisation shared by every layer: match keys, IRI slugs and paper-id slugs."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from urllib.parse import quote

_TOKEN = re.compile(r"[a-z0-9]+")
_SLUG_JUNK = re.compile(r"[^a-z0-9]+")


def singular(token: str) -> str:
    """Crude English singular for matching ("datasets" → "dataset", "series" stays)."""
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def fold(text: str) -> str:
    """NFKC, × → x, lower case: the base of every comparison."""
    return unicodedata.normalize("NFKC", text).replace("×", "x").lower()


def match_key(name: str) -> str:
    """Key under which two surface forms count as the same name.

    Case, spacing, hyphens and a plural last word are ignored, so "Kinetics600" ≡ "Kinetics-600" and
    "diffusion models" ≡ "Diffusion Model".
    """
    tokens = _TOKEN.findall(fold(name))
    if tokens and tokens[-1].isalpha():
        tokens[-1] = singular(tokens[-1])
    return "".join(tokens)


def slug(name: str) -> str:
    """IRI-safe slug of a canonical name: lower case, words joined by hyphens.

    "Vision Transformer" → "vision-transformer".
    """
    s = _SLUG_JUNK.sub("-", fold(name)).strip("-")
    return s or "x" + hashlib.sha1(name.encode("utf-8")).hexdigest()[:10]


def paper_slug(paper_id: str) -> str:
    """IRI path segment for a paper id, percent-encoded so any id round-trips."""
    return quote(paper_id, safe="-._~")
