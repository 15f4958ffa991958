"""JSON reader (arrays, wrappers, single records, broken documents) and the Paper Copilot list format."""

from __future__ import annotations

import json
from pathlib import Path

from kg.io import read_papers
from kg.io.jsonarray import copilot_defaults
from kg.types import Paper, ReadProblem

COPILOT = Path(__file__).resolve().parent / "data" / "io" / "iclr2024.json"


def _json(path: Path, value: object) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def _ids(items: list[Paper | ReadProblem]) -> list[str | None]:
    return [i.id if isinstance(i, Paper) else None for i in items]


def test_array_of_records(tmp_path: Path) -> None:
    f = _json(tmp_path / "a.json", [{"id": "1", "title": "T1"}, {"id": "2", "summary": "S2"}])
    assert list(read_papers(f)) == [
        Paper(id="1", abstract="", title="T1", source="a.json:record 1"),
        Paper(id="2", abstract="S2", source="a.json:record 2"),
    ]


def test_papers_wrapper(tmp_path: Path) -> None:
    f = _json(tmp_path / "a.json", {"count": 1, "papers": [{"id": "1", "title": "T"}]})
    assert _ids(list(read_papers(f))) == ["1"]


def test_data_wrapper(tmp_path: Path) -> None:
    f = _json(tmp_path / "a.json", {"data": [{"id": "1", "title": "T"}, {"id": "2", "title": "U"}]})
    assert _ids(list(read_papers(f))) == ["1", "2"]


def test_single_record_object(tmp_path: Path) -> None:
    f = tmp_path / "a.json"
    f.write_text('{\n  "id": "only",\n  "title": "T"\n}\n', encoding="utf-8")
    assert _ids(list(read_papers(f))) == ["only"]


def test_object_without_records(tmp_path: Path) -> None:
    f = _json(tmp_path / "a.json", {"meta": {"x": 1}})
    [problem] = list(read_papers(f))
    assert isinstance(problem, ReadProblem) and problem.location == "file"
    assert problem.message.startswith("no records found: expected an array or an object with one of papers")


def test_scalar_document(tmp_path: Path) -> None:
    assert list(read_papers(_json(tmp_path / "a.json", 42), fmt="json")) == [
        ReadProblem("a.json", "file", "no records found: the document is a number")
    ]


def test_non_object_element(tmp_path: Path) -> None:
    f = _json(tmp_path / "a.json", ["str", {"title": "T"}])
    items = list(read_papers(f))
    assert items[0] == ReadProblem("a.json", "record 1", "expected a JSON object, got a string")
    assert isinstance(items[1], Paper)


def test_truncated_array_keeps_complete_records(tmp_path: Path) -> None:
    f = tmp_path / "a.json"
    f.write_text(
        '[\n{"id": "1", "title": "T1"},\n{"id": "2", "title": "T2"},\n{"id": "3", "tit', encoding="utf-8"
    )
    items = list(read_papers(f))
    assert _ids(items) == ["1", "2", None]
    assert items[2] == ReadProblem(
        "a.json", "record 3", "invalid JSON: Unterminated string starting at (column 13) at line 4"
    )


def test_broken_record_in_middle_resyncs(tmp_path: Path) -> None:
    f = tmp_path / "a.json"
    f.write_text(
        '[{"id": "1", "title": "A"}, {"id": "2" "title": "B"}, {"id": "3", "title": "C"}]', encoding="utf-8"
    )
    items = list(read_papers(f))
    assert _ids(items) == ["1", None, "3"]
    assert isinstance(items[1], ReadProblem) and items[1].location == "record 2"


def test_unclosed_array(tmp_path: Path) -> None:
    f = tmp_path / "a.json"
    f.write_text('[{"id": "1", "title": "A"},\n', encoding="utf-8")
    items = list(read_papers(f))
    assert items == [
        Paper(id="1", abstract="", title="A", source="a.json:record 1"),
        ReadProblem("a.json", "line 2", "JSON array not closed (file truncated?)"),
    ]


def test_deeply_nested_document(tmp_path: Path) -> None:
    f = tmp_path / "a.json"
    f.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    assert list(read_papers(f)) == [ReadProblem("a.json", "record 1", "JSON nested too deeply at line 1")]


def test_garbage_without_array(tmp_path: Path) -> None:
    f = tmp_path / "a.json"
    f.write_text('{"title": ', encoding="utf-8")
    assert list(read_papers(f)) == [
        ReadProblem("a.json", "line 1", "invalid JSON: Expecting value (column 11)")
    ]


def test_jsonl_content_in_json_file_is_sniffed(tmp_path: Path) -> None:
    f = tmp_path / "a.json"
    f.write_text('{"id": "1", "title": "A"}\n{"id": "2", "title": "B"}\n', encoding="utf-8")
    assert [(getattr(p, "id", None), getattr(p, "source", None)) for p in read_papers(f)] == [
        ("1", "a.json:1"),
        ("2", "a.json:2"),
    ]


def test_copilot_list() -> None:
    assert list(read_papers(COPILOT)) == [
        Paper(
            id="iclr2024-Abc123", abstract="", title="Flow Matching for X-Generation",
            authors=("Ann Lee", "Bo Chen"),
            venue="ICLR 2024", year=2024, url="https://openreview.net/forum?id=Abc123",
            source="iclr2024.json:record 1",
        ),
        Paper(
            id="iclr2024-Def456", abstract="We train sparse autoencoders on GPT-4 activations.",
            title="Sparse Autoencoders at Scale", authors=("Cy Du",), venue="ICLR 2024", year=2024,
            url="https://openreview.net/forum?id=Def456", source="iclr2024.json:record 2",
        ),
    ]  # fmt: skip


def test_copilot_forced_on_generic_name(tmp_path: Path) -> None:
    f = _json(tmp_path / "list.json", [{"id": "x", "title": "T", "author": "A; B"}])
    [paper] = list(read_papers(f, fmt="copilot"))
    assert isinstance(paper, Paper)
    assert (paper.id, paper.authors, paper.venue) == ("x", ("A", "B"), None)


def test_generic_records_not_prefixed(tmp_path: Path) -> None:
    f = _json(tmp_path / "neurips2023.json", [{"id": "x", "title": "T", "authors": ["A"]}])
    [paper] = list(read_papers(f))
    assert isinstance(paper, Paper) and (paper.id, paper.venue) == ("x", None)


def test_copilot_defaults_from_file_name() -> None:
    assert copilot_defaults("3dv2025.json.gz") == ("3dv2025", "3DV 2025", 2025)
    assert copilot_defaults("papers.json") == (None, None, None)
