"""Plain-text reader: header line, one abstract per paragraph, hash ids."""

from __future__ import annotations

from pathlib import Path

from kg.io import read_papers
from kg.io.identity import content_hash_id
from kg.io.text import is_header, venue_from_header
from kg.types import Paper, ReadProblem

SEED_TXT = Path(__file__).resolve().parent.parent / "data" / "icml2025_seed.txt"


def _papers(path: Path) -> list[Paper]:
    return [p for p in read_papers(path) if isinstance(p, Paper)]


def test_seed_text_gives_19_papers_and_no_problems() -> None:
    items = list(read_papers(SEED_TXT))
    assert len(items) == 19
    assert all(isinstance(i, Paper) for i in items)


def test_seed_text_first_abstract_and_cleaning() -> None:
    first = _papers(SEED_TXT)[0]
    assert first.abstract.startswith("Recent advances in visual generation")
    assert "ImageNet256×256 , UCF101" in first.abstract
    assert "$" not in first.abstract


def test_seed_text_header_gives_venue_and_source_line() -> None:
    first = _papers(SEED_TXT)[0]
    assert (first.title, first.venue, first.year, first.source) == (
        None,
        "ICML 2025",
        2025,
        "icml2025_seed.txt:3",
    )


def test_seed_text_ids_are_content_hashes() -> None:
    first = _papers(SEED_TXT)[0]
    assert first.id == content_hash_id(None, first.abstract)
    assert first.id.startswith("h-") and len(first.id) == 18


def test_rereading_gives_same_ids() -> None:
    assert [p.id for p in _papers(SEED_TXT)] == [p.id for p in _papers(SEED_TXT)]


def test_no_header_when_first_paragraph_is_long(tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_text("First abstract line one\ncontinues here.\n\nSecond abstract.\n", encoding="utf-8")
    papers = _papers(f)
    assert [(p.abstract, p.source) for p in papers] == [
        ("First abstract line one continues here.", "a.txt:1"),
        ("Second abstract.", "a.txt:4"),
    ]


def test_header_without_venue(tmp_path: Path) -> None:
    f = tmp_path / "b.txt"
    f.write_text("My reading list\n\nWe propose a method for things.\n", encoding="utf-8")
    [paper] = _papers(f)
    assert (paper.abstract, paper.venue, paper.year) == ("We propose a method for things.", None, None)


def test_separator_paragraph_reported(tmp_path: Path) -> None:
    f = tmp_path / "c.txt"
    f.write_text("Header\n\nAbstract one is here.\n\n-----\n\nAbstract two.\n", encoding="utf-8")
    items = list(read_papers(f))
    assert [type(i).__name__ for i in items] == ["Paper", "ReadProblem", "Paper"]
    assert items[1] == ReadProblem("c.txt", "line 5", "paragraph has no words (a separator?); skipped")


def test_same_paragraph_twice_is_one_paper(tmp_path: Path) -> None:
    f = tmp_path / "d.txt"
    f.write_text("Header\n\nSame abstract text.\n\nSame  abstract\ntext.\n", encoding="utf-8")
    items = list(read_papers(f))
    assert len([i for i in items if isinstance(i, Paper)]) == 1
    assert isinstance(items[1], ReadProblem) and items[1].location == "line 5"


def test_whitespace_lines_separate_paragraphs(tmp_path: Path) -> None:
    f = tmp_path / "e.txt"
    f.write_text("Alpha abstract one.\n   \t\nBeta abstract two.\n", encoding="utf-8")
    assert [p.abstract for p in _papers(f)] == ["Alpha abstract one.", "Beta abstract two."]


def test_is_header_rules() -> None:
    assert is_header("ICML 2025 论文列表")
    assert not is_header("one line\ntwo lines")
    assert not is_header("word " * 16)
    assert not is_header("A one-sentence abstract.")


def test_venue_from_header() -> None:
    assert venue_from_header("NeurIPS 2024 accepted papers") == ("NeurIPS 2024", 2024)
    assert venue_from_header("Collected 2025") == (None, None)
