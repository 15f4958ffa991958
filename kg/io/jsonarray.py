"""JSON reader: an array of records, a wrapper object (``{"papers": [...]}``, ``{"data": [...]}``…) or one
record; and the Paper Copilot list format (``[{"title", "author": "A; B", "status", "track", "site"…}]``).

Broken JSON does not lose the good records: the records array is then parsed element by element, a bad
element becomes a `ReadProblem` ("record N") and reading resumes at the next ``, {``. A truncated file
keeps every record before the cut.

Paper Copilot lists are recognised by ``status``/``track`` keys (or forced with format "copilot"). Their
ids are only unique within one list, so when the file is named like ``iclr2024.json`` the id becomes
``"iclr2024-<id>"`` (the corpus convention) and the venue/year default to "ICLR 2024"/2024. Titles only
are fine there: the abstract is then "".
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import replace

from kg.io.jsonl import json_error, kind_of, parse_json
from kg.io.records import ALIASES, RawFields, build_paper
from kg.io.scholarly import FieldMapper
from kg.types import Paper, ReadProblem

WRAPPER_KEYS = ("papers", "data", "records", "items", "results", "entries", "hits", "rows")
_STEM = re.compile(r"([a-z0-9]*?[a-z])[-_]?((?:19|20)\d\d)")
_NEXT_RECORD = re.compile(r",\s*(?=\{)")
_WS = re.compile(r"\s*")
_DECODER = json.JSONDecoder(strict=False)

_Item = tuple[int, object] | ReadProblem


def read_json(text: str, name: str) -> Iterator[Paper | ReadProblem]:
    """Records of a JSON document; Paper Copilot lists are detected by their keys."""
    yield from _read(text, name, copilot=None)


def read_copilot(text: str, name: str) -> Iterator[Paper | ReadProblem]:
    """Records of a Paper Copilot list (see the module docstring)."""
    yield from _read(text, name, copilot=True)


def _skip_ws(text: str, pos: int) -> int:
    m = _WS.match(text, pos)
    return m.end() if m else pos


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def records_of(doc: object) -> list[object] | str:
    """The list of records in a parsed document, or a one-line reason there is none."""
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict):
        lowered = {k.casefold(): v for k, v in doc.items() if isinstance(k, str)}
        for key in WRAPPER_KEYS:
            inner = lowered.get(key)
            if isinstance(inner, list):
                return inner
        if any(lowered.get(alias) for alias in ALIASES["title"] + ALIASES["abstract"]):
            return [doc]
        return f"no records found: expected an array or an object with one of {', '.join(WRAPPER_KEYS)}"
    return f"no records found: the document is {kind_of(doc)}"


def iter_array(text: str, pos: int, name: str) -> Iterator[_Item]:
    """Elements of the JSON array whose "[" ends just before `pos`, one at a time, resyncing after errors."""
    index = 0
    end = len(text)
    while True:
        pos = _skip_ws(text, pos)
        if pos >= end:
            yield ReadProblem(name, f"line {_line(text, pos)}", "JSON array not closed (file truncated?)")
            return
        if text[pos] == "]":
            return
        index += 1
        try:
            value, pos = _DECODER.raw_decode(text, pos)
        except (ValueError, RecursionError) as exc:
            yield ReadProblem(name, f"record {index}", f"{json_error(exc)} at line {_line(text, pos)}")
            resync = _NEXT_RECORD.search(text, pos + 1)
            if resync is None:
                return
            pos = resync.end()
            continue
        yield index, value
        pos = _skip_ws(text, pos)
        if pos < end and text[pos] == ",":
            pos += 1
        elif pos < end and text[pos] != "]":
            yield ReadProblem(name, f"line {_line(text, pos)}", f"expected ',' or ']' after record {index}")
            resync = _NEXT_RECORD.search(text, pos)
            if resync is None:
                return
            pos = resync.end()


def _salvage(text: str, name: str, exc: Exception) -> Iterator[_Item]:
    """Records of a document that failed to parse as a whole: walk its first array element by element."""
    start = text.find("[")
    problems = 0
    if start >= 0:
        for item in iter_array(text, start + 1, name):
            problems += isinstance(item, ReadProblem)
            yield item
    if problems == 0:
        where = f"line {exc.lineno}" if isinstance(exc, json.JSONDecodeError) else "file"
        yield ReadProblem(name, where, json_error(exc))


def copilot_defaults(name: str) -> tuple[str | None, str | None, int | None]:
    """(id prefix, venue, year) from a list's file name: "iclr2024.json" → ("iclr2024", "ICLR 2024", 2024)."""
    stem = name.lower().removesuffix(".gz").removesuffix(".json")
    m = _STEM.fullmatch(stem)
    if not m:
        return None, None, None
    return stem, f"{m.group(1).upper()} {m.group(2)}", int(m.group(2))


def looks_like_copilot(record: object) -> bool:
    """A Paper Copilot list entry: has status/track keys and a single "author" string field."""
    return isinstance(record, dict) and ("status" in record or "track" in record) and "authors" not in record


def _copilot(raw: RawFields, prefix: str | None, venue: str | None, year: int | None) -> RawFields:
    return replace(
        raw,
        id=f"{prefix}-{raw.id.strip()}" if prefix and raw.id and raw.id.strip() else raw.id,
        venue=raw.venue or venue,
        year=raw.year or year,
    )


def _emit(items: Iterable[_Item], name: str, copilot: bool | None) -> Iterator[Paper | ReadProblem]:
    prefix, venue, year = copilot_defaults(name)
    mapping = FieldMapper()
    for item in items:
        if isinstance(item, ReadProblem):
            yield item
            continue
        index, value = item
        where = f"record {index}"
        if not isinstance(value, dict):
            yield ReadProblem(name, where, f"expected a JSON object, got {kind_of(value)}")
            continue
        if copilot is None:
            copilot = looks_like_copilot(value)
        raw = mapping(value)
        if copilot:
            raw = _copilot(raw, prefix, venue, year)
        yield from build_paper(raw, name, where, f"{name}:record {index}")


def _read(text: str, name: str, copilot: bool | None) -> Iterator[Paper | ReadProblem]:
    try:
        doc = parse_json(text)
    except (ValueError, RecursionError) as exc:
        yield from _emit(_salvage(text, name, exc), name, copilot)
        return
    records = records_of(doc)
    if isinstance(records, str):
        yield ReadProblem(name, "file", records)
        return
    yield from _emit(enumerate(records, start=1), name, copilot)
