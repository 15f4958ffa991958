"""Plain-text reader: an optional header line, then one abstract per blank-line-separated paragraph.

The first paragraph is a header (not a paper) when it is a single line of at most `HEADER_MAX_CHARS`
characters and `HEADER_MAX_WORDS` words not ending like a sentence (".", "!", "?", "。"), e.g.
"ICML 2025 论文列表". If the header names a venue and year
("ICML 2025", "NeurIPS'24" is not matched), every paper gets that venue and year. Papers carry no title;
their ids are content hashes (see `kg.io.identity`). A paragraph with no letter or digit at all (a
"-----" separator) is reported and skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kg.io.records import RawFields, build_paper
from kg.types import Paper, ReadProblem

HEADER_MAX_CHARS = 120
HEADER_MAX_WORDS = 15
_VENUE = re.compile(r"\b([A-Z][A-Za-z]*[A-Z][A-Za-z]*)\s?((?:19|20)\d\d)\b")
_WORDY = re.compile(r"\w")


def paragraphs(text: str) -> Iterator[tuple[int, str]]:
    """(first line number, paragraph text) for each run of non-blank lines; lines joined by newlines."""
    start = 0
    lines: list[str] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            if not lines:
                start = number
            lines.append(line)
        elif lines:
            yield start, "\n".join(lines)
            lines = []
    if lines:
        yield start, "\n".join(lines)


def is_header(paragraph: str) -> bool:
    """A single short line that does not end like a sentence (a list title), not an abstract."""
    line = paragraph.strip()
    return (
        "\n" not in line
        and len(line) <= HEADER_MAX_CHARS
        and len(line.split()) <= HEADER_MAX_WORDS
        and not line.endswith((".", "!", "?", "。"))
    )


def venue_from_header(header: str) -> tuple[str | None, int | None]:
    """("ICML 2025", 2025) from "ICML 2025 论文列表"; (None, None) if the header names no venue-year."""
    m = _VENUE.search(header)
    if not m:
        return None, None
    return f"{m.group(1)} {m.group(2)}", int(m.group(2))


def read_text(text: str, name: str) -> Iterator[Paper | ReadProblem]:
    """One Paper (abstract only) per paragraph; `Paper.source` is "name:first line"."""
    venue: str | None = None
    year: int | None = None
    for index, (line, para) in enumerate(paragraphs(text)):
        if index == 0 and is_header(para):
            venue, year = venue_from_header(para)
            continue
        where = f"line {line}"
        if not _WORDY.search(para):
            yield ReadProblem(name, where, "paragraph has no words (a separator?); skipped")
            continue
        yield from build_paper(
            RawFields(abstract=para, venue=venue, year=year), name, where, f"{name}:{line}"
        )
