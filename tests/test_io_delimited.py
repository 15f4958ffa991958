"""CSV/TSV reader: header row, tolerant names, ragged rows."""

from __future__ import annotations

from pathlib import Path

from kg.io import read_papers
from kg.io.delimited import guess_delimiter
from kg.types import Paper, ReadProblem


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_csv_records(tmp_path: Path) -> None:
    f = _write(
        tmp_path / "p.csv",
        'id,Title,Abstract,authors,year,link\n1,T1,"A, with comma",Ann Lee; Bo Chen,2020,https://x\n',
    )
    assert list(read_papers(f)) == [
        Paper(
            id="1", abstract="A, with comma", title="T1", authors=("Ann Lee", "Bo Chen"), year=2020,
            url="https://x", source="p.csv:2",
        )
    ]  # fmt: skip


def test_multiline_quoted_field_keeps_start_line(tmp_path: Path) -> None:
    f = _write(tmp_path / "p.csv", 'title,abstract\nA,"line one\nline two"\nB,b\n')
    assert [(p.title, p.abstract, p.source) for p in read_papers(f) if isinstance(p, Paper)] == [
        ("A", "line one line two", "p.csv:2"),
        ("B", "b", "p.csv:4"),
    ]


def test_ragged_rows_reported_and_skipped(tmp_path: Path) -> None:
    f = _write(tmp_path / "p.csv", "title,abstract\nA,a\nB,b,extra\nC\nD,d\n")
    items = list(read_papers(f))
    assert [getattr(i, "title", None) for i in items] == ["A", None, None, "D"]
    assert items[1] == ReadProblem("p.csv", "line 3", "row has 3 fields, the header 2; skipped")
    assert items[2] == ReadProblem("p.csv", "line 4", "row has 1 fields, the header 2; skipped")


def test_blank_rows_skipped(tmp_path: Path) -> None:
    f = _write(tmp_path / "p.csv", "title,abstract\n\n,\nA,a\n")
    assert [p.source for p in read_papers(f) if isinstance(p, Paper)] == ["p.csv:4"]


def test_unknown_header(tmp_path: Path) -> None:
    f = _write(tmp_path / "p.csv", "foo,bar\n1,2\n")
    assert list(read_papers(f)) == [
        ReadProblem("p.csv", "line 1", "header names none of the known fields (title, abstract, …)")
    ]


def test_tsv(tmp_path: Path) -> None:
    f = _write(tmp_path / "p.tsv", "title\tsummary\tvenue\nT, with comma\tS\tICML 2025\n")
    [paper] = list(read_papers(f))
    assert isinstance(paper, Paper)
    assert (paper.title, paper.abstract, paper.venue) == ("T, with comma", "S", "ICML 2025")


def test_semicolon_csv(tmp_path: Path) -> None:
    f = _write(tmp_path / "p.csv", "title;abstract\nT;A\n")
    [paper] = list(read_papers(f))
    assert isinstance(paper, Paper) and (paper.title, paper.abstract) == ("T", "A")


def test_huge_field_is_truncated_not_an_error(tmp_path: Path) -> None:
    f = _write(tmp_path / "p.csv", "title,abstract\nT," + "word " * 250_000 + "\n")
    items = list(read_papers(f))
    assert isinstance(items[0], Paper) and len(items[0].abstract) == 99_999
    assert items[1] == ReadProblem("p.csv", "line 2", "abstract of 1250000 characters truncated to 99999")


def test_csv_content_in_txt_is_sniffed(tmp_path: Path) -> None:
    f = _write(tmp_path / "p.txt", "title,abstract\nT,A\n")
    [paper] = list(read_papers(f))
    assert isinstance(paper, Paper) and paper.title == "T"


def test_guess_delimiter() -> None:
    assert [guess_delimiter(h) for h in ("a,b", "a\tb", "a;b", "ab")] == [",", "\t", ";", ","]
