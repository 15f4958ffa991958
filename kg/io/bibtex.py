"""BibTeX reader (bibtexparser 2.x): one Paper per entry with a title or an abstract.

The citation key is *not* the paper id — keys like "smith2020" collide across files — so ids come from
DOI, URL or the content hash; the key names the entry in problems ("entry smith2020"). A block
bibtexparser cannot parse (unbalanced braces, missing "=") is one `ReadProblem` at its line and the next
entry is read normally. Entries with a duplicate key or duplicate fields are still read, with a warning.
Protective braces (``{BERT}``) are dropped; "Last, First and …" author lists become "First Last".
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator

from bibtexparser.entrypoint import parse_string
from bibtexparser.model import Block, Entry, ParsingFailedBlock

from kg.io.clean import clean_text
from kg.io.records import MAX_AUTHORS, RawFields, build_paper, parse_year
from kg.types import Paper, ReadProblem

# Parse errors become ReadProblems; without a handler the parser's own warnings would also hit stderr.
logging.getLogger("bibtexparser").addHandler(logging.NullHandler())

_BRACE = re.compile(r"[{}]")
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)


def _text(value: object) -> str | None:
    """A field value as clean text; enclosing quotes (left on salvaged entries) and braces dropped."""
    if not isinstance(value, str) or not value.strip():
        return None
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    return _BRACE.sub("", clean_text(value)).strip() or None


def bibtex_authors(value: str) -> tuple[str, ...]:
    """ "Wang, Xiaochen and Shen, Yanyan and others" → ("Xiaochen Wang", "Yanyan Shen")."""
    names: list[str] = []
    for part in _AND.split(value)[:MAX_AUTHORS]:
        if "," in part:
            last, _, first = part.partition(",")
            part = f"{first} {last}"
        name = _text(part)
        if name and name.casefold() != "others":
            names.append(name)
    return tuple(names)


def _fields(entry: Entry) -> RawFields:
    values = {key.casefold(): field.value for key, field in entry.fields_dict.items()}
    author = values.get("author")
    return RawFields(
        title=_text(values.get("title")),
        abstract=_text(values.get("abstract")),
        authors=bibtex_authors(author) if isinstance(author, str) else (),
        venue=_text(values.get("journal") or values.get("booktitle")),
        year=parse_year(values.get("year") or values.get("date")),
        url=_text(values.get("url")),
        doi=_text(values.get("doi")),
    )


def _error_line(error: Exception) -> str:
    message = getattr(error, "abort_reason", None) or getattr(error, "message", None) or str(error)
    first = str(message).strip().split("\n", 1)[0]
    return first or type(error).__name__


def _line(block: Block) -> int:
    return (block.start_line or 0) + 1


def _entry(entry: Entry, name: str) -> Iterator[Paper | ReadProblem]:
    line = _line(entry)
    where = f"entry {entry.key}" if entry.key else f"line {line}"
    yield from build_paper(_fields(entry), name, where, f"{name}:{line}")


def read_bibtex(text: str, name: str) -> Iterator[Paper | ReadProblem]:
    """Papers from the entries of a BibTeX file, in file order; `Paper.source` is "name:entry line"."""
    try:
        library = parse_string(text)
    except Exception as exc:  # the parser's own bug on odd input must not end the run
        yield ReadProblem(name, "file", f"BibTeX parser failed: {_error_line(exc)}")
        return
    for block in library.blocks:
        if isinstance(block, Entry):
            yield from _entry(block, name)
        elif isinstance(block, ParsingFailedBlock):
            salvaged = block.ignore_error_block
            if isinstance(salvaged, Entry):
                yield ReadProblem(name, f"entry {salvaged.key}", _error_line(block.error) + "; read anyway")
                yield from _entry(salvaged, name)
            else:
                yield ReadProblem(name, f"line {_line(block)}", _error_line(block.error) + "; entry skipped")
