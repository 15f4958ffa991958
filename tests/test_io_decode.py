"""Input decoding: missing/empty/binary files, encodings, BOMs, NULs, gzip."""

from __future__ import annotations

import gzip
from pathlib import Path

from kg.io import read_papers
from kg.io.decode import decode
from kg.types import Paper, ReadProblem

RECORD = '{"id": "1", "title": "Café"}\n'


def test_missing_file(tmp_path: Path) -> None:
    assert list(read_papers(tmp_path / "nope.jsonl")) == [ReadProblem("nope.jsonl", "file", "file not found")]


def test_directory(tmp_path: Path) -> None:
    assert list(read_papers(tmp_path)) == [ReadProblem(tmp_path.name, "file", "is a directory, not a file")]


def test_empty_file(tmp_path: Path) -> None:
    f = tmp_path / "e.jsonl"
    f.write_bytes(b"")
    assert list(read_papers(f)) == [ReadProblem("e.jsonl", "file", "empty file")]


def test_whitespace_only_file(tmp_path: Path) -> None:
    f = tmp_path / "e.txt"
    f.write_bytes(b"\n \n\t\n")
    assert list(read_papers(f)) == [ReadProblem("e.txt", "file", "empty file")]


def test_binary_file(tmp_path: Path) -> None:
    f = tmp_path / "b.jsonl"
    f.write_bytes(bytes(range(256)) * 8)
    assert list(read_papers(f)) == [ReadProblem("b.jsonl", "file", "binary data, not text; skipped")]


def test_pdf_file(tmp_path: Path) -> None:
    f = tmp_path / "paper.txt"
    f.write_bytes(b"%PDF-1.7\nsome text that looks fine\n")
    assert list(read_papers(f)) == [ReadProblem("paper.txt", "file", "a PDF file, not text; skipped")]


def test_utf8_bom(tmp_path: Path) -> None:
    f = tmp_path / "x.jsonl"
    f.write_bytes(b"\xef\xbb\xbf" + RECORD.encode())
    [paper] = list(read_papers(f))
    assert isinstance(paper, Paper) and paper.title == "Café"


def test_utf16_with_bom(tmp_path: Path) -> None:
    f = tmp_path / "x.jsonl"
    f.write_bytes(RECORD.encode("utf-16"))
    [paper] = list(read_papers(f))
    assert isinstance(paper, Paper) and paper.title == "Café"


def test_utf16_without_bom(tmp_path: Path) -> None:
    f = tmp_path / "x.jsonl"
    f.write_bytes(RECORD.encode("utf-16-le"))
    [paper] = list(read_papers(f))
    assert isinstance(paper, Paper) and paper.title == "Café"


def test_latin1_falls_back_with_warning(tmp_path: Path) -> None:
    f = tmp_path / "x.jsonl"
    f.write_bytes(RECORD.encode("latin-1"))
    problem, paper = list(read_papers(f))
    assert problem == ReadProblem(
        "x.jsonl", "file", "not valid UTF-8 (byte 0xE9 at offset 25); decoded as cp1252"
    )
    assert isinstance(paper, Paper) and paper.title == "Café"


def test_raw_nul_bytes_removed_with_one_warning(tmp_path: Path) -> None:
    f = tmp_path / "x.jsonl"
    f.write_bytes(b'{"id": "1", "ti\x00tle": "A\x00B"}\n\x00\n')
    problem, paper = list(read_papers(f))
    assert problem == ReadProblem("x.jsonl", "file", "removed 3 NUL characters")
    assert isinstance(paper, Paper) and paper.title == "AB"


def test_gzip_any_format(tmp_path: Path) -> None:
    f = tmp_path / "x.csv.gz"
    f.write_bytes(gzip.compress(b"title,abstract\nT,A\n"))
    [paper] = list(read_papers(f))
    assert isinstance(paper, Paper) and paper.source == "x.csv.gz:2"


def test_truncated_gzip_keeps_what_was_there(tmp_path: Path) -> None:
    data = gzip.compress(("".join(f'{{"id": "{n}", "title": "T{n}"}}\n' for n in range(200))).encode())
    f = tmp_path / "x.jsonl.gz"
    f.write_bytes(data[: len(data) - 20])
    items = list(read_papers(f))
    assert items[0] == ReadProblem("x.jsonl.gz", "file", "gzip data truncated; read what was there")
    assert sum(isinstance(i, Paper) for i in items) >= 190


def test_corrupt_gzip(tmp_path: Path) -> None:
    f = tmp_path / "x.jsonl.gz"
    f.write_bytes(b"\x1f\x8b" + b"\xff" * 40)
    [problem] = list(read_papers(f))
    assert isinstance(problem, ReadProblem) and problem.message.startswith("corrupt gzip data")


def test_crlf_line_ends(tmp_path: Path) -> None:
    f = tmp_path / "x.txt"
    f.write_bytes(b"Header\r\n\r\nAbstract one.\r\nMore.\r\n\r\nAbstract two.\r\n")
    assert [(p.abstract, p.source) for p in read_papers(f) if isinstance(p, Paper)] == [
        ("Abstract one. More.", "x.txt:3"),
        ("Abstract two.", "x.txt:6"),
    ]


def test_decode_reports_nothing_for_clean_utf8() -> None:
    assert decode("ok ✓".encode(), "n").problems == ()
