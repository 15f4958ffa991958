"""Readers layer: input files → cleaned `Paper` records, with a `ReadProblem` for everything that went wrong.

    for item in read_papers("papers.jsonl.gz"):
        if isinstance(item, ReadProblem): print(item)   # "papers.jsonl.gz:line 12: invalid JSON: …"
        else: handle(item)                              # a Paper

Formats (see `available_formats()`): text, jsonl, json, copilot, csv, tsv, bibtex; chosen by `fmt`, else
by extension, else by sniffing the content (".json", ".txt", unknown extensions and stdin). Gzip input is
decompressed whatever the format; ``"-"`` reads standard input.

Bad data never raises: a missing or unreadable file, an empty or binary file, and every bad record are each
one `ReadProblem` (source = file name, location = "file", "line 12", "record 3" or "entry key"), and
reading continues with the next record. Only caller mistakes raise `ReaderError` (an unknown `fmt`).
Within one input a paper seen before is reported as a duplicate and not yielded again; an id reused by a
different paper is replaced by its fallback id, with a warning (see `kg.io.dedupe`).

`read_inputs` reads several files the same way and joins Semantic Scholar "abstracts" files into the S2
"papers" records with the same corpusid (see `kg.io.scholarly` for the OpenAlex, arXiv and S2 mappings).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from pathlib import Path

from kg.io.decode import decode, load_bytes, peek_text
from kg.io.dedupe import Deduper
from kg.io.jsonl import read_jsonl
from kg.io.registry import Loader, ReaderError, available_formats, get_loader, register_reader
from kg.io.scholarly import S2Abstracts, first_profile
from kg.io.sniff import choose_format
from kg.types import Paper, ReadProblem

__all__ = [
    "Loader",
    "ReaderError",
    "available_formats",
    "parse_papers",
    "read_inputs",
    "read_papers",
    "register_reader",
]

Item = Paper | ReadProblem


def read_papers(path: str | Path, fmt: str | None = None) -> Iterator[Paper | ReadProblem]:
    """Papers and problems from one file (``"-"`` = stdin), in file order. Raises ReaderError only for an
    unknown `fmt`, and does so at once rather than on first iteration."""
    if fmt is not None:
        get_loader(fmt)
    return _read_path(path, fmt)


def parse_papers(
    data: bytes | str, name: str = "<data>", fmt: str | None = None
) -> Iterator[Paper | ReadProblem]:
    """Like `read_papers` for content already in memory (an upload, a test); `name` is used for provenance
    and, through its extension, for choosing the format."""
    if fmt is not None:
        get_loader(fmt)
    raw = data.encode("utf-8", errors="replace") if isinstance(data, str) else data
    return _parse(raw, name, fmt)


def read_inputs(paths: Iterable[str | Path]) -> Iterator[Paper | ReadProblem]:
    """Papers and problems from several files in order, as `read_papers` gives them; but when Semantic Scholar
    "papers" and "abstracts" files are both among them, the abstracts are read first and joined into the
    papers records by corpusid, and an abstract no papers record has is skipped (one warning per file)."""
    inputs = list(paths)
    profiles = [None if str(p) == "-" else first_profile(peek_text(p)) for p in inputs]
    if "s2-papers" not in profiles or "s2-abstracts" not in profiles:
        for path in inputs:
            yield from read_papers(path)
        return
    abstracts = S2Abstracts()
    held: dict[str, list[str]] = {}  # abstracts file → its corpus ids
    for path in (p for p, profile in zip(inputs, profiles, strict=True) if profile == "s2-abstracts"):
        for item in read_papers(path):
            if isinstance(item, Paper):
                cid = item.id.removeprefix("CorpusId:")
                abstracts.texts[cid] = item.abstract
                held.setdefault(Path(path).name, []).append(cid)
            else:
                yield item
    join = functools.partial(read_jsonl, abstracts=abstracts)
    for path, profile in zip(inputs, profiles, strict=True):
        if profile != "s2-abstracts":
            yield from _read_path(path, None, join if profile == "s2-papers" else None)
    for name, cids in held.items():
        unmatched = [cid for cid in cids if cid not in abstracts.joined]
        if unmatched:
            n = len(unmatched)
            note = f"{n} abstract{'s' * (n != 1)} (corpusid {unmatched[0]}, …) match no papers record"
            yield ReadProblem(name, "file", note + "; skipped")


def _read_path(path: str | Path, fmt: str | None, loader: Loader | None = None) -> Iterator[Item]:
    name = "<stdin>" if str(path) == "-" else Path(path).name
    data = load_bytes(path)
    if isinstance(data, ReadProblem):
        yield data
        return
    yield from _parse(data, name, fmt, loader)


def _parse(data: bytes, name: str, fmt: str | None, loader: Loader | None = None) -> Iterator[Item]:
    decoded = decode(data, name)
    yield from decoded.problems
    if decoded.text is None:
        return
    chosen = "jsonl" if loader else fmt or choose_format(name, decoded.text)
    dedupe = Deduper(name)
    try:
        for item in (loader or get_loader(chosen))(decoded.text, name):
            if isinstance(item, Paper):
                yield from dedupe.admit(item)
            else:
                yield item
    except Exception as exc:  # a reader bug must not end a batch run with a traceback
        detail = str(exc).strip().split("\n", 1)[0]
        yield ReadProblem(name, "file", f"{chosen} reader failed ({type(exc).__name__}: {detail}); stopped")
