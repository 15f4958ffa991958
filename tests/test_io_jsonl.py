"""JSONL reader, including gzip corpus-style files and broken lines."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from kg.io import read_papers
from kg.types import Paper, ReadProblem

SEED_JSONL = Path(__file__).resolve().parent.parent / "data" / "icml2025_seed.jsonl"


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_seed_jsonl_ids() -> None:
    papers = [p for p in read_papers(SEED_JSONL) if isinstance(p, Paper)]
    assert [p.id for p in papers] == [f"seed-{n:02d}" for n in range(1, 20)]


def test_seed_jsonl_fields_and_source() -> None:
    first = next(iter(read_papers(SEED_JSONL)))
    assert isinstance(first, Paper)
    assert first.title == "Masked Generative Nested Transformers with Decode Time Scaling"
    assert (first.venue, first.source) == ("ICML 2025", "icml2025_seed.jsonl:1")
    assert first.abstract.startswith("Recent advances in visual generation")


def test_seed_text_and_jsonl_have_same_abstracts() -> None:
    txt = [p.abstract for p in read_papers(SEED_JSONL.with_suffix(".txt")) if isinstance(p, Paper)]
    jsonl = [p.abstract for p in read_papers(SEED_JSONL) if isinstance(p, Paper)]
    assert txt == jsonl


def test_broken_line_does_not_lose_others(tmp_path: Path) -> None:
    f = _write(
        tmp_path / "x.jsonl",
        ['{"id": "a", "title": "A"}', '{"id": "b", "title": ', '{"id": "c", "title": "C"}'],
    )
    items = list(read_papers(f))
    assert [getattr(i, "id", None) for i in items] == ["a", None, "c"]
    assert items[1] == ReadProblem("x.jsonl", "line 2", "invalid JSON: Expecting value (column 22)")


def test_non_object_line(tmp_path: Path) -> None:
    f = _write(tmp_path / "x.jsonl", ['["a"]', '{"title": "T"}'])
    items = list(read_papers(f))
    assert items[0] == ReadProblem("x.jsonl", "line 1", "expected a JSON object, got an array")
    assert isinstance(items[1], Paper)


def test_deeply_nested_line(tmp_path: Path) -> None:
    f = _write(
        tmp_path / "x.jsonl", ['{"title": "T", "x": ' + "[" * 100_000 + "]" * 100_000 + "}", '{"title": "U"}']
    )
    items = list(read_papers(f))
    assert items[0] == ReadProblem("x.jsonl", "line 1", "JSON nested too deeply")
    assert isinstance(items[1], Paper) and items[1].title == "U"


def test_blank_lines_skipped_and_line_numbers_kept(tmp_path: Path) -> None:
    f = _write(tmp_path / "x.jsonl", ["", '{"title": "T"}', "   "])
    [paper] = list(read_papers(f))
    assert isinstance(paper, Paper) and paper.source == "x.jsonl:2"


def test_empty_record_reported(tmp_path: Path) -> None:
    f = _write(tmp_path / "x.jsonl", ['{"id": "z", "venue": "V"}'])
    assert list(read_papers(f)) == [
        ReadProblem("x.jsonl", "line 1", "record has neither a title nor an abstract; skipped")
    ]


def test_bad_year_becomes_none(tmp_path: Path) -> None:
    f = _write(
        tmp_path / "x.jsonl", ['{"title": "T", "year": "next year"}', '{"title": "U", "year": {"y": 1}}']
    )
    assert [p.year for p in read_papers(f) if isinstance(p, Paper)] == [None, None]


def test_huge_integer_does_not_crash(tmp_path: Path) -> None:
    f = _write(tmp_path / "x.jsonl", ['{"title": "T", "year": ' + "9" * 5000 + "}", '{"title": "U"}'])
    items = list(read_papers(f))
    assert isinstance(items[0], ReadProblem) and items[0].location == "line 1"
    assert isinstance(items[1], Paper)


def test_nul_escape_in_string_is_cleaned(tmp_path: Path) -> None:
    f = _write(tmp_path / "x.jsonl", ['{"title": "A\\u0000B"}'])
    [paper] = list(read_papers(f))
    assert isinstance(paper, Paper) and paper.title == "AB"


def test_corpus_style_gzip(tmp_path: Path) -> None:
    record = {
        "id": "3dv2025-abc", "title": "Flash3D", "abstract": "We propose Flash3D.", "authors": ["A B", "C D"],
        "venue": "3DV 2025", "year": 2025, "url": "https://openreview.net/forum?id=abc", "github": "",
    }  # fmt: skip
    f = tmp_path / "3dv_3dv2025.jsonl.gz"
    f.write_bytes(gzip.compress((json.dumps(record) + "\n").encode()))
    assert list(read_papers(f)) == [
        Paper(
            id="3dv2025-abc", abstract="We propose Flash3D.", title="Flash3D", authors=("A B", "C D"),
            venue="3DV 2025", year=2025, url="https://openreview.net/forum?id=abc",
            source="3dv_3dv2025.jsonl.gz:1",
        )
    ]  # fmt: skip


def test_reused_id_for_different_papers_gets_fallback_ids(tmp_path: Path) -> None:
    f = _write(
        tmp_path / "x.jsonl",
        ['{"id": "dup", "title": "One"}', '{"id": "dup", "title": "Two", "url": "https://t"}'],
    )
    items = list(read_papers(f))
    assert [getattr(i, "id", None) for i in items] == ["dup", "https://t", None]
    assert items[2] == ReadProblem(
        "x.jsonl", "line 2", "id 'dup' already used by a different paper at line 1; using 'https://t'"
    )


def test_same_record_twice_yields_one_paper(tmp_path: Path) -> None:
    line = '{"id": "p1", "title": "T", "abstract": "A"}'
    items = list(read_papers(_write(tmp_path / "x.jsonl", [line, line])))
    assert items[1] == ReadProblem("x.jsonl", "line 2", "duplicate of paper 'p1' at line 1; skipped")
    assert len(items) == 2
