"""JSON Lines reader (also the corpus ``*.jsonl.gz`` files): one JSON object per line.

A line that is not valid JSON, is nested too deeply, or is not an object becomes one `ReadProblem` and
reading goes on with the next line. Blank lines are skipped silently. Fields are mapped with the profile the
first record shows (OpenAlex, arXiv, Semantic Scholar: `kg.io.scholarly`), else the generic mapping.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from kg.io.records import build_paper
from kg.io.scholarly import FieldMapper, S2Abstracts
from kg.types import Paper, ReadProblem


def parse_json(text: str) -> object:
    """`json.loads` that tolerates raw control characters in strings (strict=False)."""
    return json.loads(text, strict=False)


def json_error(exc: Exception) -> str:
    """A one-line description of a JSON parsing failure."""
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON: {exc.msg} (column {exc.colno})"
    if isinstance(exc, RecursionError):
        return "JSON nested too deeply"
    return f"invalid JSON: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"


def kind_of(value: object) -> str:
    """JSON type name of a parsed value, for messages."""
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool | int | float):
        return "a " + ("boolean" if isinstance(value, bool) else "number")
    return "an object"


def read_jsonl(
    text: str, name: str, abstracts: S2Abstracts | None = None
) -> Iterator[Paper | ReadProblem]:
    """One Paper per JSON-object line; `Paper.source` is "name:line". `abstracts` (Semantic Scholar, by
    corpusid) fills the abstracts of S2 "papers" records."""
    mapping = FieldMapper(abstracts)
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            value = parse_json(line)
        except (ValueError, RecursionError) as exc:
            yield ReadProblem(name, where, json_error(exc))
            continue
        if not isinstance(value, dict):
            yield ReadProblem(name, where, f"expected a JSON object, got {kind_of(value)}")
            continue
        yield from build_paper(mapping(value), name, where, f"{name}:{number}")
