"""Pick a format for an input: its extension when that is unambiguous, else a look at its content.

".json", ".txt", unknown extensions and stdin are sniffed: "[" → json (copilot when the first record has
status/track keys); "{" → jsonl when the first line alone is a record, else json; "@type{" → bibtex; a
header line with known field names separated by tabs or commas → tsv / csv; anything else → text.
A trailing ".gz" is ignored.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePath

from kg.io.records import KNOWN_FIELDS
from kg.io.registry import format_for_extension

SNIFFED_EXTENSIONS = frozenset({".json", ".txt", ""})
_BIBTEX = re.compile(r"^\s*@[A-Za-z]+\s*[{(]", re.MULTILINE)
_COPILOT_KEY = re.compile(r'"(?:status|track)"\s*:')
_AUTHORS_KEY = re.compile(r'"authors"\s*:')


def _first_record_is_copilot(head: str) -> bool:
    first = head[: head.find("}") + 1] if "}" in head else head
    return bool(_COPILOT_KEY.search(first)) and not _AUTHORS_KEY.search(first)


def _is_jsonl(first_line: str) -> bool:
    try:
        value = json.loads(first_line, strict=False)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict) and any(isinstance(k, str) and k.casefold() in KNOWN_FIELDS for k in value)


def _header_format(first_line: str) -> str | None:
    for fmt, delimiter in (("tsv", "\t"), ("csv", ","), ("csv", ";")):
        cells = [c.strip().strip('"').casefold() for c in first_line.split(delimiter)]
        if len(cells) >= 2 and KNOWN_FIELDS.intersection(cells):
            return fmt
    return None


def sniff(text: str) -> str:
    """The format name the content looks like (see the module docstring)."""
    head = text[:65536].lstrip("\ufeff \t\n")
    if head.startswith("["):
        return "copilot" if _first_record_is_copilot(head) else "json"
    first_line = head.split("\n", 1)[0]
    if head.startswith("{"):
        return "jsonl" if _is_jsonl(first_line.strip()) else "json"
    if _BIBTEX.search(head):
        return "bibtex"
    return _header_format(first_line) or "text"


def choose_format(name: str, text: str) -> str:
    """The registered format for `name`'s extension, or the sniffed one for ambiguous/unknown ones."""
    base = name[:-3] if name.lower().endswith(".gz") else name
    ext = PurePath(base).suffix.lower() if base not in ("-", "<stdin>") else ""
    fmt = format_for_extension(ext) if ext not in SNIFFED_EXTENSIONS else None
    return fmt or sniff(text)
