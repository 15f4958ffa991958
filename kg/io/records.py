"""Loose records (JSON objects, CSV rows, BibTeX entries) → cleaned `Paper`s, tolerating common field names.

Limits, applied to every format: an abstract longer than `MAX_ABSTRACT_CHARS` (after cleaning) is cut at
a word boundary and a warning `ReadProblem` is emitted next to the paper; a title over `MAX_TITLE_CHARS`
likewise. Ids that are a stringified missing value ("None", "cvpr2016-None", "null") count as no id.
A record with neither title nor abstract is a `ReadProblem`, not a paper. Years outside
1800–2100 or not readable as a year become None.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from kg.io.clean import clean_text, drop_invisible
from kg.io.identity import doi_from_url, normalise_doi, paper_id
from kg.types import Paper, ReadProblem

MAX_ABSTRACT_CHARS = 100_000
MAX_TITLE_CHARS = 2_000
MAX_AUTHORS = 2_000
MIN_YEAR, MAX_YEAR = 1800, 2100

# Accepted field names (compared case-insensitively), most specific first.
ALIASES: dict[str, tuple[str, ...]] = {
    "id": ("id", "paper_id", "paperid", "uid"),
    "title": ("title", "name", "paper_title"),
    "abstract": ("abstract", "summary", "text", "paperabstract", "abstracttext", "abstract_text"),
    "authors": ("authors", "author", "author_names", "creators"),
    "venue": ("venue", "journal", "booktitle", "conference"),
    "year": ("year", "date", "published", "publication_date", "publicationdate", "pub_date"),
    "url": ("url", "link", "site", "pdf", "pdf_url", "html_url"),
    "doi": ("doi",),
    "citations": ("citations", "citation_count", "citationcount", "cited_by_count", "n_citation",
                  "num_citations"),
}
KNOWN_FIELDS = frozenset(alias for names in ALIASES.values() for alias in names)

_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d|2100)(?!\d)")
# Ids stringified from a missing value ("None", "cvpr2016-None") count as no id.
_PLACEHOLDER_ID = re.compile(r"(?:^|[-_:/])(?:none|null|nan|undefined)\s*$", re.IGNORECASE)
_AND = re.compile(r"\s+and\s+|\s*&\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class RawFields:
    """A record's values after field-name matching, before cleaning."""

    id: str | None = None
    title: str | None = None
    abstract: str | None = None
    authors: tuple[str, ...] = ()
    venue: str | None = None
    year: int | None = None
    url: str | None = None
    doi: str | None = None
    citations: int | None = None


def as_text(value: object) -> str | None:
    """A scalar as text: strings as-is, numbers via str(); None, booleans and containers → None."""
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return None


def parse_count(value: object) -> int | None:
    """A citation count: a non-negative whole number (or its digits as text), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def parse_year(value: object) -> int | None:
    """2024, 2024.0, "2024", "2024-05-01" or "May 2024" → 2024; anything else → None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if MIN_YEAR <= value <= MAX_YEAR else None
    if isinstance(value, float):
        return int(value) if value.is_integer() and MIN_YEAR <= value <= MAX_YEAR else None
    if isinstance(value, str):
        m = _YEAR.search(value[:200])
        return int(m.group(1)) if m else None
    return None


def split_authors(text: str) -> list[str]:
    """ "A; B", "A, B and C", "A & B", "Last, First and Last, First" → separate names."""
    if ";" in text:
        return text.split(";")
    if _AND.search(text):
        parts = _AND.split(text)
        if len(parts) > 1 and all(p.count(",") == 1 for p in parts):
            return [" ".join(reversed([s.strip() for s in p.split(",")])) for p in parts]
        return [name for part in parts for name in part.split(",")]
    return text.split(",")


def _author_name(item: object) -> str | None:
    if isinstance(item, Mapping):
        for key in ("name", "full_name", "fullname", "display_name"):
            name = as_text(item.get(key))
            if name:
                return name
        given = as_text(item.get("given")) or as_text(item.get("first")) or ""
        family = as_text(item.get("family")) or as_text(item.get("last")) or ""
        return f"{given} {family}".strip() or None
    return as_text(item)


def parse_authors(value: object) -> tuple[str, ...]:
    """Author names from a string (see `split_authors`) or a list of strings / {"name": …} objects."""
    if isinstance(value, str):
        raw: list[str] = split_authors(value)
    elif isinstance(value, list | tuple):
        raw = [n for n in (_author_name(item) for item in value[:MAX_AUTHORS]) if n]
    else:
        return ()
    names = (clean_text(n) for n in raw[:MAX_AUTHORS])
    return tuple(n for n in names if n and n.casefold() != "others")


def lookup(lowered: Mapping[str, object], field: str) -> object:
    """The first non-empty value among `field`'s aliases in a record whose keys are case-folded."""
    for alias in ALIASES[field]:
        value = lowered.get(alias)
        if value is not None and value != "" and value != []:
            return value
    return None


def fields_from_mapping(record: Mapping[object, object]) -> RawFields:
    """Pick the known fields out of one loosely-named record (keys compared case-insensitively)."""
    lowered: dict[str, object] = {}
    for key, value in record.items():
        if isinstance(key, str):
            lowered.setdefault(key.strip().casefold(), value)

    def get(field: str) -> object:
        return lookup(lowered, field)

    url = get("url")
    if isinstance(url, list) and url:
        url = url[0]
    return RawFields(
        id=as_text(get("id")),
        title=as_text(get("title")),
        abstract=as_text(get("abstract")),
        authors=parse_authors(get("authors")),
        venue=as_text(get("venue")),
        year=parse_year(get("year")),
        url=as_text(url),
        doi=as_text(get("doi")),
        citations=parse_count(get("citations")),
    )


def _truncate(text: str, cap: int) -> str:
    cut = text[:cap]
    space = cut.rfind(" ", cap - 200)
    return cut[:space] if space > 0 else cut


def build_paper(raw: RawFields, name: str, where: str, source: str) -> list[Paper | ReadProblem]:
    """Clean one record's fields into a Paper; emit problems for an empty record or truncated text."""
    out: list[Paper | ReadProblem] = []
    abstract = clean_text((raw.abstract or "")[: 4 * MAX_ABSTRACT_CHARS])
    if len(abstract) > MAX_ABSTRACT_CHARS:
        size = len(raw.abstract or "")
        abstract = _truncate(abstract, MAX_ABSTRACT_CHARS)
        out.append(ReadProblem(name, where, f"abstract of {size} characters truncated to {len(abstract)}"))
    title = clean_text((raw.title or "")[: 4 * MAX_TITLE_CHARS]) or None
    if title and len(title) > MAX_TITLE_CHARS:
        title = _truncate(title, MAX_TITLE_CHARS)
        out.append(ReadProblem(name, where, f"title truncated to {len(title)} characters"))
    if not title and not abstract:
        return [ReadProblem(name, where, "record has neither a title nor an abstract; skipped")]
    url = drop_invisible(raw.url).strip() if raw.url else None
    doi = normalise_doi(raw.doi) or doi_from_url(url)
    record_id = drop_invisible(raw.id) if raw.id and not _PLACEHOLDER_ID.search(raw.id) else None
    paper = Paper(
        id=paper_id(record_id, doi, url, title, abstract),
        abstract=abstract,
        title=title,
        authors=raw.authors,
        venue=clean_text(raw.venue) or None if raw.venue else None,
        year=raw.year,
        url=url or None,
        doi=doi,
        source=source,
        citations=raw.citations,
    )
    return [paper, *out]
