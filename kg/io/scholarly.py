"""Field-mapping profiles for bibliographic snapshots: OpenAlex works, arXiv metadata, Semantic Scholar.

A JSON Lines (or JSON array) input is read with the profile its first record shows, else with the tolerant
generic mapping (`kg.io.records.fields_from_mapping`):

- OpenAlex work (``id`` "https://openalex.org/W…", ``authorships``, ``abstract_inverted_index``): the
  abstract is rebuilt from the inverted index, authors are ``authorships[].author.display_name`` in order,
  venue ``primary_location.source.display_name``, year ``publication_year``, title ``title``/``display_name``.
- arXiv metadata snapshot (``categories`` with ``versions`` or ``authors_parsed``): id ``arXiv:<id>``, authors
  from ``authors_parsed`` ("First Last"), year of version v1's ``created`` date, venue "arXiv". The
  categories are not kept (a paper record has no such field).
- Semantic Scholar datasets: a "papers" record (``corpusid``, ``externalids``) and an "abstracts" record
  (``corpusid`` and ``abstract`` only). `kg.io.read_inputs` joins them by corpusid across the inputs given.

Identity: a record with a DOI gets no record id, so the DOI is its id (`kg.io.identity`) and the same paper
seen through two sources is one paper; without a DOI the id is ``arXiv:<id>`` (arXiv, or S2 with an ArXiv
external id), ``CorpusId:<n>`` (S2) or the OpenAlex work IRI.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kg.io.identity import normalise_doi
from kg.io.records import RawFields, as_text, fields_from_mapping, parse_authors, parse_count, parse_year

Mapper = Callable[[Mapping[Any, object]], RawFields]
S2_ABSTRACT_KEYS = frozenset({"corpusid", "abstract", "openaccessinfo", "updated"})
_MAX_WORDS = 20_000  # positions past this in an inverted index are ignored (abstracts are capped anyway)


def _lower(record: Mapping[Any, object]) -> dict[str, object]:
    """The record with case-folded string keys (S2's API says ``corpusId``, its datasets ``corpusid``)."""
    return {k.casefold(): v for k, v in record.items() if isinstance(k, str)}


def _get(value: object, *path: str) -> object:
    """``value[path[0]][path[1]]…``, or None where a step is missing or not an object."""
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def rebuild_abstract(index: object) -> str | None:
    """The text of an OpenAlex ``abstract_inverted_index`` ({word: [positions]}); None if empty or not one."""
    if not isinstance(index, Mapping):
        return None
    words: dict[int, str] = {}
    for word, positions in index.items():
        if isinstance(word, str) and isinstance(positions, list):
            for pos in positions:
                if isinstance(pos, int) and not isinstance(pos, bool) and 0 <= pos < _MAX_WORDS:
                    words[pos] = word
    return " ".join(words[p] for p in sorted(words)) or None


def openalex_fields(record: Mapping[Any, object]) -> RawFields:
    """The fields of one OpenAlex work object."""
    doi = normalise_doi(as_text(record.get("doi")))
    authorships = record.get("authorships")
    names = [_get(a, "author", "display_name") for a in authorships] if isinstance(authorships, list) else []
    return RawFields(
        id=None if doi else as_text(record.get("id")),
        title=as_text(record.get("title")) or as_text(record.get("display_name")),
        abstract=rebuild_abstract(record.get("abstract_inverted_index")),
        authors=parse_authors([n for n in names if isinstance(n, str)]),
        venue=as_text(_get(record, "primary_location", "source", "display_name")),
        year=parse_year(record.get("publication_year")) or parse_year(record.get("publication_date")),
        url=as_text(_get(record, "primary_location", "landing_page_url")) or as_text(record.get("id")),
        doi=doi,
        citations=parse_count(record.get("cited_by_count")),
    )


def _arxiv_authors(record: Mapping[Any, object]) -> tuple[str, ...]:
    parsed = record.get("authors_parsed")
    if isinstance(parsed, list) and parsed:
        names = [
            " ".join(str(p).strip() for p in (item[1], item[0], *item[2:]) if str(p).strip())
            for item in parsed
            if isinstance(item, list) and len(item) >= 2
        ]
        return parse_authors(names)
    return parse_authors(record.get("authors"))


def _first_version_date(versions: object) -> object:
    if not isinstance(versions, list) or not versions:
        return None
    first = next((v for v in versions if _get(v, "version") == "v1"), versions[0])
    return _get(first, "created")


def arxiv_fields(record: Mapping[Any, object]) -> RawFields:
    """The fields of one arXiv metadata-snapshot object."""
    doi = normalise_doi(as_text(record.get("doi")))
    arxiv_id = as_text(record.get("id"))
    return RawFields(
        id=None if doi else (f"arXiv:{arxiv_id.strip()}" if arxiv_id else None),
        title=as_text(record.get("title")),
        abstract=as_text(record.get("abstract")),
        authors=_arxiv_authors(record),
        venue="arXiv",
        year=parse_year(_first_version_date(record.get("versions"))) or parse_year(record.get("update_date")),
        url=f"https://arxiv.org/abs/{arxiv_id.strip()}" if arxiv_id else None,
        doi=doi,
    )


def corpus_id(record: Mapping[Any, object]) -> str | None:
    """A Semantic Scholar record's corpusid as text ("215416146"), or None."""
    return as_text(_lower(record).get("corpusid"))


@dataclass(slots=True)
class S2Abstracts:
    """Semantic Scholar abstracts by corpusid, remembering which were joined into a "papers" record."""

    texts: dict[str, str] = field(default_factory=dict)
    joined: set[str] = field(default_factory=set)

    def get(self, cid: str) -> str | None:
        """The abstract of corpus id `cid` (marked as joined), or None."""
        text = self.texts.get(cid)
        if text is not None:
            self.joined.add(cid)
        return text


def s2_paper_fields(record: Mapping[Any, object], abstracts: S2Abstracts | None = None) -> RawFields:
    """The fields of one S2 "papers" record; its abstract comes from `abstracts` by corpusid."""
    low = _lower(record)
    ext_raw = low.get("externalids")
    ext = _lower(ext_raw) if isinstance(ext_raw, Mapping) else {}
    doi = normalise_doi(as_text(ext.get("doi")))
    arxiv, cid = as_text(ext.get("arxiv")), corpus_id(record)
    venue = as_text(low.get("venue")) or as_text(_get(low.get("publicationvenue"), "name"))
    return RawFields(
        id=None if doi else f"arXiv:{arxiv.strip()}" if arxiv else f"CorpusId:{cid}" if cid else None,
        title=as_text(low.get("title")),
        abstract=abstracts.get(cid) if abstracts and cid else None,
        authors=parse_authors(low.get("authors")),
        venue=venue or as_text(_get(low.get("journal"), "name")),
        year=parse_year(low.get("year")) or parse_year(low.get("publicationdate")),
        url=as_text(low.get("url")) or (f"https://api.semanticscholar.org/CorpusId:{cid}" if cid else None),
        doi=doi,
        citations=parse_count(low.get("citationcount")),
    )


def s2_abstract_fields(record: Mapping[Any, object]) -> RawFields:
    """An S2 "abstracts" record read on its own: an abstract-only paper with id ``CorpusId:<n>``."""
    cid = corpus_id(record)
    return RawFields(id=f"CorpusId:{cid}" if cid else None, abstract=as_text(_lower(record).get("abstract")))


def profile_of(record: Mapping[Any, object]) -> str | None:
    """ "openalex", "arxiv", "s2-papers", "s2-abstracts", or None for a record of no known snapshot."""
    keys = set(_lower(record))
    if "corpusid" in keys:
        return "s2-abstracts" if keys <= S2_ABSTRACT_KEYS else "s2-papers"
    if "abstract_inverted_index" in keys or "authorships" in keys:
        return "openalex"
    if "categories" in keys and ("versions" in keys or "authors_parsed" in keys):
        return "arxiv"
    return None


def first_profile(head: str) -> str | None:
    """The profile of the first JSON-object line among the complete lines of `head` (see `profile_of`)."""
    for line in head.split("\n")[:-1][:100]:
        try:
            value = json.loads(line, strict=False)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            return profile_of(value)
    return None


def mapper_for(profile: str | None, abstracts: S2Abstracts | None = None) -> Mapper:
    """The field mapping of a profile (None → the generic, tolerant one)."""
    if profile == "openalex":
        return openalex_fields
    if profile == "arxiv":
        return arxiv_fields
    if profile == "s2-papers":
        return lambda record: s2_paper_fields(record, abstracts)
    if profile == "s2-abstracts":
        return s2_abstract_fields
    return fields_from_mapping


@dataclass(slots=True)
class FieldMapper:
    """Maps every record of one input with the profile its first record showed."""

    abstracts: S2Abstracts | None = None  # joined into S2 "papers" records
    _mapper: Mapper | None = field(default=None, init=False)

    def __call__(self, record: Mapping[str, object]) -> RawFields:
        if self._mapper is None:
            self._mapper = mapper_for(profile_of(record), self.abstracts)
        return self._mapper(record)
