"""A list of papers as plain records, CSV (csv module quoting) or BibTeX (bibtexparser): `kg papers` and
/export/papers."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from typing import Any

from bibtexparser.entrypoint import write_string
from bibtexparser.library import Library
from bibtexparser.model import Block, Entry, Field

from kg.query.model import PaperInfo

PAPER_COLUMNS = ("id", "title", "year", "venue", "authors", "doi", "url", "code", "citations")
_LATEX = str.maketrans({"{": "(", "}": ")", "&": r"\&", "%": r"\%", "#": r"\#", "$": r"\$", "_": r"\_"})


def paper_records(items: Iterable[PaperInfo]) -> list[dict[str, Any]]:
    """One flat record per paper (authors and code URLs joined by "; "), the CSV/JSON shape."""
    return [
        {
            "id": p.id, "title": p.title, "year": p.year, "venue": p.venue, "authors": "; ".join(p.authors),
            "doi": p.doi, "url": p.url, "code": "; ".join(p.code_urls), "citations": p.citations,
        }
        for p in items
    ]


def papers_csv(items: Iterable[PaperInfo]) -> str:
    """A header line and one row per paper; empty cells for missing values."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(PAPER_COLUMNS), lineterminator="\n")
    w.writeheader()
    w.writerows({k: "" if v is None else v for k, v in r.items()} for r in paper_records(items))
    return buf.getvalue()


def bibtex_key(paper_id: str) -> str:
    """The citation key of a paper: its id with anything but letters, digits, `-_:.` replaced by `_`."""
    return re.sub(r"[^A-Za-z0-9_:.\-]", "_", paper_id) or "paper"


def papers_bibtex(items: Iterable[PaperInfo]) -> str:
    """One @article (@inproceedings when it has a venue) per paper. Braces become parentheses and LaTeX's
    special characters are escaped, so every value is balanced and typesets as written."""
    entries: list[Block] = []
    for p in items:
        fields = [("title", p.title), ("author", " and ".join(p.authors) or None),
                  ("year", None if p.year is None else str(p.year)), ("booktitle", p.venue),
                  ("doi", p.doi), ("url", p.url)]
        kind = "inproceedings" if p.venue else "article"
        entries.append(Entry(kind, bibtex_key(p.id),
                             [Field(k, v.translate(_LATEX)) for k, v in fields if v]))
    return write_string(Library(entries))
