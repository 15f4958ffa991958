"""Registry, format choice (extension / explicit / sniffed), stdin and in-memory input."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import kg.io.registry as registry
from kg.io import ReaderError, available_formats, parse_papers, read_papers, register_reader
from kg.io.registry import format_for_extension, get_loader
from kg.io.sniff import choose_format, sniff
from kg.types import Paper, ReadProblem


@pytest.fixture
def scratch_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registrations made by a test vanish after it, so other tests see only the built-in readers."""
    monkeypatch.setattr(registry, "_READERS", registry._READERS.copy())
    monkeypatch.setattr(registry, "_BY_EXTENSION", dict(registry._BY_EXTENSION))


def test_builtin_formats() -> None:
    assert available_formats() == ["bibtex", "copilot", "csv", "json", "jsonl", "text", "tsv"]


def test_registrations_are_undone_between_tests(scratch_registry: None) -> None:
    register_reader("temp-test", (".tmpx",), "kg.io.text:read_text")
    assert "temp-test" in available_formats()


def test_extension_lookup() -> None:
    assert [format_for_extension(e) for e in (".jsonl", "bib", ".TSV", ".ndjson", ".pdf")] == [
        "jsonl",
        "bibtex",
        "tsv",
        "jsonl",
        None,
    ]


def test_unknown_format_raises_at_call_time(tmp_path: Path) -> None:
    with pytest.raises(ReaderError, match="unknown input format 'xml'; available: bibtex, copilot"):
        read_papers(tmp_path / "missing.xml", fmt="xml")


def test_lazy_loader_string_is_imported_on_first_use(scratch_registry: None) -> None:
    register_reader("lazy-test", (".lazytest",), "kg.io.text:read_text")
    assert not registry._READERS.is_loaded("lazy-test")
    assert get_loader("lazy-test").__name__ == "read_text"
    assert format_for_extension(".lazytest") == "lazy-test"


def test_bad_lazy_loader_raises_reader_error(scratch_registry: None) -> None:
    register_reader("broken-test", (), "kg.io.nope:read")
    with pytest.raises(ReaderError, match="reader 'broken-test' cannot be loaded"):
        get_loader("broken-test")


def test_lazy_loader_needs_colon(scratch_registry: None) -> None:
    with pytest.raises(ReaderError):
        register_reader("x", (), "kg.io.text.read_text")


def test_custom_reader_by_extension(tmp_path: Path, scratch_registry: None) -> None:
    def read_lines(text: str, name: str) -> Iterator[Paper | ReadProblem]:
        for n, line in enumerate(text.split("\n"), start=1):
            if line:
                yield Paper(id=f"l{n}", abstract=line, source=f"{name}:{n}")

    register_reader("lines-test", (".lines",), read_lines)
    f = tmp_path / "a.lines"
    f.write_text("one\ntwo\n", encoding="utf-8")
    assert [p.id for p in read_papers(f) if isinstance(p, Paper)] == ["l1", "l2"]


def test_explicit_format_overrides_extension(tmp_path: Path) -> None:
    f = tmp_path / "data.csv"
    f.write_text('{"title": "T"}\n', encoding="utf-8")
    [paper] = list(read_papers(f, fmt="jsonl"))
    assert isinstance(paper, Paper) and paper.title == "T"


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ('[{"title": "T"}]', "json"),
        ('[{"title": "T", "status": "Poster", "track": "main"}]', "copilot"),
        ('{"title": "T"}\n{"title": "U"}', "jsonl"),
        ('{\n  "papers": []\n}', "json"),
        ('{"papers": []}', "json"),
        ("@article{k, title={T}}", "bibtex"),
        ("title\tabstract\nT\tA", "tsv"),
        ("id,title\n1,T", "csv"),
        ("ICML 2025\n\nSome abstract.", "text"),
    ],
)
def test_sniff(text: str, fmt: str) -> None:
    assert sniff(text) == fmt


def test_choose_format_trusts_unambiguous_extension() -> None:
    assert choose_format("x.bib.gz", "plain words") == "bibtex"
    assert choose_format("x.json", '{"title": "T"}\n') == "jsonl"
    assert choose_format("<stdin>", "plain words") == "text"


def test_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = io.TextIOWrapper(io.BytesIO(b'{"id": "s1", "title": "From stdin"}\n'), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", fake)
    assert list(read_papers("-")) == [Paper(id="s1", abstract="", title="From stdin", source="<stdin>:1")]


def test_parse_papers_from_str() -> None:
    [paper] = list(parse_papers("title,abstract\nT,A\n", name="upload.csv"))
    assert isinstance(paper, Paper)
    assert paper == Paper(id=paper.id, abstract="A", title="T", source="upload.csv:2")


def test_parse_papers_from_bytes_with_format() -> None:
    items = list(parse_papers(b"Header line\n\nAn abstract.", fmt="text"))
    assert [type(i).__name__ for i in items] == ["Paper"]


def test_reader_crash_becomes_problem(tmp_path: Path, scratch_registry: None) -> None:
    def explode(text: str, name: str) -> Iterator[Paper | ReadProblem]:
        yield Paper(id="ok", abstract="fine", source=f"{name}:1")
        raise RuntimeError("boom\nsecond line")

    register_reader("explode-test", (".boom",), explode)
    f = tmp_path / "a.boom"
    f.write_text("x", encoding="utf-8")
    items = list(read_papers(f))
    assert items[1] == ReadProblem(
        "a.boom", "file", "explode-test reader failed (RuntimeError: boom); stopped"
    )
