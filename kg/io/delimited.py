"""CSV/TSV reader: a header row naming the fields (the same tolerant names as JSON), one record per row.

A row whose field count differs from the header's is reported and skipped (its columns are probably
shifted, e.g. by an unquoted delimiter in an abstract). A header naming none of the known fields is one
`ReadProblem` for the file. The csv module's field size limit is raised (never lowered) process-wide to
`FIELD_SIZE_LIMIT` so that over-long abstracts reach the truncation rule instead of failing.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from kg.io.records import KNOWN_FIELDS, build_paper, fields_from_mapping
from kg.types import Paper, ReadProblem

FIELD_SIZE_LIMIT = 64 * 1024 * 1024
_DELIMITERS = (",", "\t", ";", "|")


def _raise_field_limit() -> None:
    if csv.field_size_limit() < FIELD_SIZE_LIMIT:
        csv.field_size_limit(FIELD_SIZE_LIMIT)


def guess_delimiter(text: str) -> str:
    """The delimiter occurring most often in the first non-blank line (comma on ties or none)."""
    first = next((line for line in text.split("\n", 50) if line.strip()), "")
    return max(_DELIMITERS, key=lambda d: (first.count(d), d == ","))


def read_csv(text: str, name: str) -> Iterator[Paper | ReadProblem]:
    """Records of a comma- (or semicolon-/tab-/pipe-, guessed from the header) separated file."""
    yield from read_delimited(text, name, guess_delimiter(text))


def read_tsv(text: str, name: str) -> Iterator[Paper | ReadProblem]:
    """Records of a tab-separated file."""
    yield from read_delimited(text, name, "\t")


def read_delimited(text: str, name: str, delimiter: str) -> Iterator[Paper | ReadProblem]:
    """One Paper per data row; `Paper.source` is "name:line where the row starts"."""
    _raise_field_limit()
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=False)
    header: list[str] | None = None
    done = 0  # physical lines consumed so far
    while True:
        start = done + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield ReadProblem(name, f"line {start}", f"unreadable CSV row: {exc}")
            if reader.line_num <= done:
                return
            done = reader.line_num
            continue
        done = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        if header is None:
            header = [cell.strip() for cell in row]
            if not KNOWN_FIELDS.intersection(h.casefold() for h in header):
                yield ReadProblem(
                    name, f"line {start}", "header names none of the known fields (title, abstract, …)"
                )
                return
            continue
        where = f"line {start}"
        if len(row) != len(header):
            yield ReadProblem(name, where, f"row has {len(row)} fields, the header {len(header)}; skipped")
            continue
        record: dict[object, object] = {}
        for key, value in zip(header, row, strict=True):
            if key:
                record.setdefault(key, value)
        yield from build_paper(fields_from_mapping(record), name, where, f"{name}:{start}")
