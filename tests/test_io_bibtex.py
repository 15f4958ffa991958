"""BibTeX reader: entries → papers, broken blocks → problems, the rest still read."""

from __future__ import annotations

from pathlib import Path

from kg.io import read_papers
from kg.io.bibtex import bibtex_authors
from kg.types import Paper, ReadProblem

SAMPLE = Path(__file__).resolve().parent / "data" / "io" / "sample.bib"


def test_sample_file_items_in_order() -> None:
    items = list(read_papers(SAMPLE))
    assert [type(i).__name__ for i in items] == ["Paper", "ReadProblem", "Paper", "ReadProblem"]


def test_full_entry() -> None:
    first = next(iter(read_papers(SAMPLE)))
    assert first == Paper(
        id="10.5555/abc.123",
        abstract="We improve FID by 40% on ImageNet256×256.",
        title="Flow Matching for X-Generation",
        authors=("Ann Lee", "Bo Chen"),
        venue="Proceedings of ICML",
        year=2024,
        doi="10.5555/abc.123",
        source="sample.bib:2",
    )


def test_unbalanced_braces_reported_at_its_line() -> None:
    problem = list(read_papers(SAMPLE))[1]
    assert isinstance(problem, ReadProblem)
    assert (problem.source, problem.location) == ("sample.bib", "line 11")
    assert problem.message.endswith("; entry skipped")
    assert "\n" not in problem.message


def test_entry_after_broken_one_is_read() -> None:
    third = list(read_papers(SAMPLE))[2]
    assert isinstance(third, Paper)
    assert (third.id, third.title, third.authors, third.year) == (
        "https://example.org/sae",
        "Sparse Autoencoders",
        ("Cy Dü",),
        2022,
    )


def test_entry_without_title_or_abstract_named_by_key() -> None:
    assert list(read_papers(SAMPLE))[3] == ReadProblem(
        "sample.bib", "entry empty2021", "record has neither a title nor an abstract; skipped"
    )


def test_duplicate_key_still_read_with_warning(tmp_path: Path) -> None:
    f = tmp_path / "d.bib"
    f.write_text("@misc{k, title={One}}\n@misc{k, title={Two}}\n", encoding="utf-8")
    items = list(read_papers(f))
    assert [getattr(i, "title", None) for i in items] == ["One", None, "Two"]
    assert items[1] == ReadProblem("d.bib", "entry k", "Duplicate entry key 'k'; read anyway")


def test_unterminated_last_entry(tmp_path: Path) -> None:
    f = tmp_path / "t.bib"
    f.write_text("@misc{a, title={A}}\n@misc{b, title={B\n", encoding="utf-8")
    items = list(read_papers(f))
    assert isinstance(items[0], Paper) and items[0].title == "A"
    assert isinstance(items[1], ReadProblem) and items[1].location == "line 2"
    assert len(items) == 2


def test_bibtex_authors_forms() -> None:
    assert bibtex_authors("Lee, Ann and Bo Chen AND Du, C{\\'e}") == ("Ann Lee", "Bo Chen", "Cé Du")


def test_bib_content_in_txt_file_is_sniffed(tmp_path: Path) -> None:
    f = tmp_path / "refs.txt"
    f.write_text("@article{x, title = {Sniffed}}\n", encoding="utf-8")
    [paper] = list(read_papers(f))
    assert isinstance(paper, Paper) and paper.title == "Sniffed"
