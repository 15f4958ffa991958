"""Loose record → Paper: tolerant field names, authors, years, caps."""

from __future__ import annotations

from kg.io.records import (
    MAX_ABSTRACT_CHARS,
    RawFields,
    build_paper,
    fields_from_mapping,
    parse_authors,
    parse_year,
    split_authors,
)
from kg.types import Paper, ReadProblem


def test_alias_field_names() -> None:
    raw = fields_from_mapping(
        {"Name": "T", "paperAbstract": "A", "author": "X; Y", "date": "2021-03-04", "link": "https://l"}
    )
    assert raw == RawFields(title="T", abstract="A", authors=("X", "Y"), year=2021, url="https://l")


def test_first_non_empty_alias_wins() -> None:
    assert fields_from_mapping({"abstract": "", "summary": "S"}).abstract == "S"


def test_url_preferred_over_pdf_and_site() -> None:
    assert (
        fields_from_mapping({"pdf": "https://p", "site": "https://s", "url": "https://u"}).url == "https://u"
    )


def test_numeric_id_becomes_text() -> None:
    assert fields_from_mapping({"id": 42, "title": "T"}).id == "42"


def test_split_authors_semicolons() -> None:
    assert split_authors("A B; C D") == ["A B", " C D"]


def test_parse_authors_comma_and() -> None:
    assert parse_authors("Ann Lee, Bo Chen and Cy Dú") == ("Ann Lee", "Bo Chen", "Cy Dú")


def test_parse_authors_oxford_comma() -> None:
    assert parse_authors("A, B, and C") == ("A", "B", "C")


def test_parse_authors_bibtex_style_reordered() -> None:
    assert parse_authors("Wang, Xiaochen and Shen, Yanyan") == ("Xiaochen Wang", "Yanyan Shen")


def test_parse_authors_list_of_strings_and_objects() -> None:
    value = ["A", {"name": "B"}, {"given": "C", "family": "D"}, 7, None]
    assert parse_authors(value) == ("A", "B", "C D", "7")


def test_parse_authors_drops_others_and_blanks() -> None:
    assert parse_authors("A;  ; others") == ("A",)


def test_parse_authors_of_non_text_is_empty() -> None:
    assert parse_authors({"x": 1}) == ()


def test_year_forms() -> None:
    assert [parse_year(v) for v in (2024, 2024.0, "2024", "May 2024", "2024-05-01")] == [2024] * 5


def test_year_not_a_year_is_none() -> None:
    assert [parse_year(v) for v in ("soon", True, 20245, 2024.5, float("nan"), None, [2024])] == [None] * 7


def test_year_out_of_range_is_none() -> None:
    assert (parse_year(1500), parse_year(3000)) == (None, None)


def test_build_paper_cleans_fields() -> None:
    raw = RawFields(title=" A  \\textbf{T} ", abstract="x$\\times$y", venue=" ICML  2025 ", url=" https://u ")
    [paper] = build_paper(raw, "f.json", "record 1", "f.json:record 1")
    assert paper == Paper(
        id="https://u",
        abstract="x×y",
        title="A T",
        venue="ICML 2025",
        url="https://u",
        source="f.json:record 1",
    )


def test_doi_taken_from_doi_url() -> None:
    [paper] = build_paper(RawFields(title="T", url="https://doi.org/10.1234/AB"), "f", "line 1", "f:1")
    assert isinstance(paper, Paper)
    assert (paper.id, paper.doi) == ("10.1234/ab", "10.1234/ab")


def test_placeholder_id_counts_as_missing() -> None:
    [paper] = build_paper(RawFields(id="cvpr2016-None", title="T", url="https://u"), "f", "line 1", "f:1")
    assert isinstance(paper, Paper) and paper.id == "https://u"


def test_record_without_title_and_abstract_is_a_problem() -> None:
    out = build_paper(RawFields(id="x", abstract="  \x00 \n "), "f.jsonl", "line 3", "f.jsonl:3")
    assert out == [ReadProblem("f.jsonl", "line 3", "record has neither a title nor an abstract; skipped")]


def test_title_only_record_is_a_paper_with_empty_abstract() -> None:
    [paper] = build_paper(RawFields(title="Only A Title"), "f", "line 1", "f:1")
    assert isinstance(paper, Paper)
    assert (paper.title, paper.abstract) == ("Only A Title", "")


def test_huge_abstract_truncated_with_warning() -> None:
    raw = RawFields(title="T", abstract="word " * 300_000)  # 1,500,000 characters
    paper, problem = build_paper(raw, "f", "line 1", "f:1")
    assert isinstance(paper, Paper)
    assert len(paper.abstract) == MAX_ABSTRACT_CHARS - 1
    assert problem == ReadProblem("f", "line 1", "abstract of 1500000 characters truncated to 99999")
