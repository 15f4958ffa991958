"""`kg papers`, `kg search` and `kg defenses` through the real command on the sample store on disk: tables
at 80 columns, CSV read back with the csv module, BibTeX with bibtexparser, JSON, one-line errors."""

from __future__ import annotations

import csv
import io
import json
import subprocess
from pathlib import Path

import pytest
from bibtexparser.entrypoint import parse_string
from fixtures_api import MELON_ID, MELON_NAME, run_kg, sample_store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lists") / "store"
    sample_store(str(path)).close()
    return path


def kg(store: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run_kg(*args, "--store", store, check=check, env={"COLUMNS": "80"})


def test_papers_csv_reads_back_with_every_field(store: Path) -> None:
    out = kg(store, "papers", "--dataset", "ImageNet", "--format", "csv").stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows == [{
        "id": "seed-01", "title": "Masked Generative Nested Transformers with Decode Time Scaling",
        "year": "", "venue": "ICML 2025", "authors": "", "doi": "", "url": "", "code": "", "citations": "",
    }]


def test_papers_title_order_venue_filter_and_first(store: Path) -> None:
    out = kg(store, "papers", "--venue", "icml 2025", "--order", "title", "--first", "3", "--format", "json")
    assert [p["id"] for p in json.loads(out.stdout)] == ["seed-06", "seed-02", "seed-13"]


def test_papers_year_filter_with_no_dated_paper_is_empty(store: Path) -> None:
    assert json.loads(kg(store, "papers", "--year", "2024", "--format", "json").stdout) == []


def test_papers_bibtex_parses_back(store: Path) -> None:
    out = kg(store, "papers", "--first", "2", "--format", "bibtex").stdout
    lib = parse_string(out)
    assert lib.failed_blocks == []
    assert [(e.entry_type, e.key, {f.key: f.value for f in e.fields}) for e in lib.entries] == [
        ("inproceedings", "seed-01",
         {"title": "Masked Generative Nested Transformers with Decode Time Scaling",
          "booktitle": "ICML 2025"}),
        ("inproceedings", "seed-02",
         {"title": "Adversarial Robustness in Two-Stage Learning-to-Defer: Algorithms and Guarantees",
          "booktitle": "ICML 2025"}),
    ]


def test_papers_table_fits_80_columns(store: Path) -> None:
    out = kg(store, "papers", "--first", "5").stdout
    assert "5 of 19 papers" in out and "seed-05" in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_papers_unknown_order_is_one_line(store: Path) -> None:
    proc = kg(store, "papers", "--order", "newest", check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        "error: --order must be one of ID, YEAR, TITLE, CONFIDENCE, CITATIONS, not 'newest'"]


def test_search_json_ranks_entities_and_papers(store: Path) -> None:
    hits = json.loads(kg(store, "search", "prompt injection", "--first", "3", "--format", "json").stdout)
    assert [(h["kind"], h["id"]) for h in hits] == [
        ("Threat", "threat/indirect-prompt-injection"), ("Threat", "threat/prompt-injection"),
        ("paper", "seed-12"),
    ]


def test_search_table_fits_80_columns(store: Path) -> None:
    out = kg(store, "search", "prompt injection", "--first", "3").stdout
    assert "threat/indirect-prompt-injection" in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_defenses_for_a_target_as_csv(store: Path) -> None:
    out = kg(store, "defenses", "--target", "LLM agents", "--format", "csv").stdout
    assert list(csv.reader(io.StringIO(out))) == [
        ["id", "name", "type", "papers"],
        [MELON_ID, MELON_NAME, "Method", "1"],
        ["method/melon-aug", "MELON-Aug", "Method", "1"],
    ]


def test_defenses_table_names_each_defense(store: Path) -> None:
    out = kg(store, "defenses").stdout
    assert "MELON-Aug" in out and "defenses" in out


def test_validate_shows_its_steps_on_stderr_on_a_terminal(store: Path) -> None:
    proc = run_kg("validate", "--store", store, env={"FORCE_COLOR": "1", "TTY_INTERACTIVE": "1"})
    assert "conforms" in proc.stdout
    assert "reading 7,138 triples" in proc.stderr and "checking the SHACL shapes" in proc.stderr


def test_validate_prints_no_progress_when_not_a_terminal(store: Path) -> None:
    proc = run_kg("validate", "--store", store)
    assert proc.stdout == "conforms: the graph passes every SHACL shape\n" and proc.stderr == ""


@pytest.fixture(scope="module")
def dated_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four papers built by the real `kg build`: two of 2020 on CIFAR-10, two of 2024 on ImageNet."""
    root = tmp_path_factory.mktemp("trending")
    rows = [
        {"id": f"p{i}", "title": f"Paper {i}", "year": year, "venue": "ICML",
         "abstract": f"We train a classifier and evaluate it on {data}, where it improves accuracy."}
        for i, (year, data) in enumerate([(2020, "CIFAR-10"), (2020, "CIFAR-10"),
                                          (2024, "ImageNet"), (2024, "ImageNet")])
    ]
    src = root / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    run_kg("build", src, "--store", root / "store")
    return root / "store"


def test_trending_datasets_since_a_year_as_csv(dated_store: Path) -> None:
    out = kg(dated_store, "trending", "--type", "dataset", "--since", "2024", "--format", "csv").stdout
    assert list(csv.reader(io.StringIO(out)))[:2] == [
        ["id", "name", "type", "since", "recent", "earlier", "rise"],
        ["dataset/imagenet", "ImageNet", "Dataset", "2024", "2", "0", "1.0"],
    ]


def test_trending_of_an_unknown_type_is_one_line(dated_store: Path) -> None:
    proc = kg(dated_store, "trending", "--type", "gadget", check=False)
    assert proc.returncode != 0 and proc.stderr.strip().splitlines() == [
        "error: --type must be one of Task, Dataset, Method, Metric, Model, Domain, Threat, not 'gadget'"
    ]
