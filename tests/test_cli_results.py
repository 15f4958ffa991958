"""`kg results` and `kg compare` end to end: inline abstracts built by the real `kg build` into an on-disk
store, then read through the CLI in subprocesses (table, CSV, JSON, one-line errors)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
from pathlib import Path

import pytest
from fixtures_api import run_kg

PAPERS = [
    {
        "id": "r-alpha",
        "title": "AlphaNet: sparse vision transformers",
        "abstract": "We propose AlphaNet, a sparse vision transformer. "
        "AlphaNet achieves 84.3% top-1 accuracy on "
        "ImageNet with half the compute.",
    },
    {
        "id": "r-beta",
        "title": "BetaNet: dense vision transformers",
        "abstract": "We propose BetaNet, a dense vision transformer. "
        "BetaNet reaches 86.1% top-1 accuracy on ImageNet. "
        "As a generator it obtains an FID of 2.5 on ImageNet.",
    },
    {
        "id": "r-gamma",
        "title": "GammaGAN: faster adversarial generators",
        "abstract": "We propose GammaGAN, a generative adversarial network. "
        "GammaGAN reduces FID from 3.1 to 1.9 on "
        "ImageNet and samples 4x faster than StyleGAN2.",
    },
    {
        "id": "r-delta",
        "title": "DeltaNet: vision transformers with deltas",
        "abstract": "We propose DeltaNet, a vision transformer. DeltaNet achieves 86.1% top-1 accuracy on "
        "ImageNet. DeltaNet yields a 2.69% relative top-1 accuracy improvement on ImageNet over BetaNet.",
    },
]


def kg(*args: str | Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    """`kg` in a subprocess, its tables 200 columns wide."""
    return run_kg(*args, check=check, env={"COLUMNS": "200"})


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("results-cli")
    src = d / "papers.jsonl"
    src.write_text("".join(json.dumps(p) + "\n" for p in PAPERS), encoding="utf-8")
    kg("build", src, "--store", d / "store")
    return d / "store"


def test_leaderboard_json_sorted_by_direction(store: Path) -> None:
    acc = json.loads(
        kg("results", "ImageNet", "--metric", "top-1 accuracy", "--format", "json", "--store", store).stdout
    )
    # a tie shares its rank; the improvement follows, unranked
    assert [(r["paper"], r["value"], r["kind"], r["rank"]) for r in acc] == [
        ("r-beta", 86.1, "absolute", 1),
        ("r-delta", 86.1, "absolute", 1),
        ("r-alpha", 84.3, "absolute", 3),
        ("r-delta", 2.69, "delta", None),
    ]
    assert acc[0]["board"] == "top-1 accuracy · ImageNet" and acc[3]["board"] is None
    assert acc[3]["improvement"] == "+2.69% top-1 accuracy over BetaNet" and acc[3]["method"] == "DeltaNet"
    assert acc[0]["higher_is_better"] is True and acc[0]["evidence"].startswith("BetaNet reaches 86.1%")
    fid = json.loads(
        kg("results", "imagenet", "--metric", "FID", "--format", "json", "--store", store).stdout
    )
    assert [(r["paper"], r["value"]) for r in fid] == [("r-gamma", 1.9), ("r-beta", 2.5)]
    assert fid[0]["higher_is_better"] is False


def test_leaderboard_csv_and_table(store: Path) -> None:
    rows = list(
        csv.DictReader(io.StringIO(kg("results", "ImageNet", "--format", "csv", "--store", store).stdout))
    )
    assert {r["paper"] for r in rows} == {"r-alpha", "r-beta", "r-gamma", "r-delta"}
    assert rows[0]["metric"] and rows[0]["evidence"]
    table = kg("results", "ImageNet", "--store", store).stdout
    assert "86.1%" in table and "top-1 accuracy" in table and "metrics:" in table
    assert "improvements (not ranked)" in table and "4x speedup" in table


def test_compare_json_and_table(store: Path) -> None:
    cols = json.loads(kg("compare", "r-alpha", "r-gamma", "--format", "json", "--store", store).stdout)
    assert [c["paper"] for c in cols] == ["r-alpha", "r-gamma"]
    assert "ImageNet" in cols[0]["datasets"] and "AlphaNet" in cols[0]["methods"]
    assert [(r["metric"], r["value"]) for r in cols[1]["results"]][:1] == [
        ("Frechet Inception Distance", 1.9)
    ]
    table = kg("compare", "r-alpha", "r-beta", "--store", store).stdout
    assert "AlphaNet" in table and "BetaNet" in table and "results" in table
    flat = list(
        csv.DictReader(
            io.StringIO(kg("compare", "r-alpha", "r-beta", "--format", "csv", "--store", store).stdout)
        )
    )
    assert flat[1]["paper"] == "r-beta" and "86.1%" in flat[1]["results"]
    flat = list(
        csv.DictReader(
            io.StringIO(kg("compare", "r-gamma", "r-delta", "--format", "csv", "--store", store).stdout)
        )
    )
    # improvements apart from the results, in words
    assert [(f["results"], f["improvements"]) for f in flat] == [
        ("Frechet Inception Distance 1.9 on ImageNet", "4x speedup over StyleGAN2 on ImageNet"),
        ("top-1 accuracy 86.1% on ImageNet", "+2.69% top-1 accuracy over BetaNet on ImageNet"),
    ]


def test_errors_are_one_line(store: Path) -> None:
    for args in (
        ("compare", "r-alpha", "no-such-paper"),
        ("results", "NoSuchSet"),
        ("results", "ImageNet", "--format", "xml"),
    ):
        proc = kg(*args, "--store", store, check=False)
        assert (
            proc.returncode == 1 and proc.stderr.startswith("error:") and len(proc.stderr.splitlines()) == 1
        )


def test_leaderboard_table_at_80_columns_keeps_evidence_to_two_lines(store: Path) -> None:
    out = run_kg("results", "ImageNet", "--store", store, env={"COLUMNS": "80"}).stdout
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    at = next(i for i, line in enumerate(lines) if "r-alpha" in line)
    assert lines[at].rstrip().endswith("│ AlphaNet achieves      │")
    assert lines[at + 1].rstrip().endswith("│ 84.3% top-1 accuracy…  │")
    assert lines[at + 2].startswith("│ 1 │ 1.9 ")  # the next row
