"""Stable paper identity: the same record read twice, from any file, gets the same id.

Rule, first that applies: the record's own id (whitespace-stripped) → its DOI (normalised: lower case,
no ``https://doi.org/`` or ``doi:`` prefix) → its URL (stripped) → ``"h-" + sha1(text)[:16]`` where
text is title + " " + abstract, cleaned (`clean_text`), case-folded and single-spaced.
"""

from __future__ import annotations

import hashlib
import re

from kg.io.clean import clean_text, collapse_whitespace

_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_DOI_IN_URL = re.compile(r"^https?://(?:dx\.)?doi\.org/(10\.\d{4,9}/\S+)$", re.IGNORECASE)
_DOI_SHAPE = re.compile(r"^10\.\d{4,9}/\S+$")


def normalise_doi(raw: str | None) -> str | None:
    """``"https://doi.org/10.1000/ABC"`` → ``"10.1000/abc"``; anything not shaped like a DOI → None."""
    if not raw:
        return None
    doi = _DOI_PREFIX.sub("", raw.strip()).strip().lower()
    return doi if _DOI_SHAPE.match(doi) else None


def doi_from_url(url: str | None) -> str | None:
    """The DOI inside a ``doi.org`` URL, else None."""
    if not url:
        return None
    m = _DOI_IN_URL.match(url.strip())
    return normalise_doi(m.group(1)) if m else None


def content_text(title: str | None, abstract: str | None) -> str:
    """The normalised text the content hash is taken over (case-folded, cleaned, single-spaced)."""
    joined = f"{title or ''} {abstract or ''}"
    return collapse_whitespace(clean_text(joined).casefold())


def content_hash_id(title: str | None, abstract: str | None) -> str:
    """``"h-"`` + the first 16 hex digits of the SHA-1 of `content_text`."""
    digest = hashlib.sha1(content_text(title, abstract).encode("utf-8")).hexdigest()
    return "h-" + digest[:16]


def paper_id(
    record_id: str | None,
    doi: str | None,
    url: str | None,
    title: str | None,
    abstract: str | None,
) -> str:
    """The stable id of a record (see the module docstring for the rule)."""
    if record_id and record_id.strip():
        return record_id.strip()
    norm_doi = normalise_doi(doi)
    if norm_doi:
        return norm_doi
    if url and url.strip():
        return url.strip()
    return content_hash_id(title, abstract)
