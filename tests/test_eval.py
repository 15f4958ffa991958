"""kg.eval scores exactly like the reference scorer (the shared tool when present, else a fixture)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kg.eval import evaluate, format_report, read_gold
from kg.eval.scoring import score

DATA = Path(__file__).parent / "data"
DEV = DATA / "icml2025_seed_gold.jsonl"
REFERENCE = Path("/work/shared/tools/score_links.py")

FIXTURE_ROWS = {
    "proposed": {"p": 1.0, "r": 1.0, "f1": 1.0, "pred": 2, "gold": 2},
    "tasks": {"p": 1.0, "r": 1.0, "f1": 1.0, "pred": 1, "gold": 1},
    "datasets": {"p": 1.0, "r": 1.0, "f1": 1.0, "pred": 3, "gold": 3},
    "methods": {"p": 0.5, "r": 0.5, "f1": 0.5, "pred": 2, "gold": 2},
    "metrics": {"p": 0.0, "r": 0.0, "f1": 0.0, "pred": 1, "gold": 1},
    "domains": {"p": 0.0, "r": 0.0, "f1": 0.0, "pred": 1, "gold": 1},
    "threats": {"p": 0.0, "r": 0.0, "f1": 0.0, "pred": 1, "gold": 1},
    "micro": {"p": 0.778, "r": 0.778, "f1": 0.778, "pred": 9, "gold": 9},
}


def test_fixture_scores_equal_reference_output() -> None:
    gold = read_gold(DATA / "eval_fixture_gold.jsonl")
    pred = read_gold(DATA / "eval_fixture_pred.jsonl")
    assert score(gold, pred).rows == FIXTURE_ROWS


@pytest.mark.skipif(not REFERENCE.exists(), reason="reference scorer not on this machine")
def test_dev_set_scores_equal_reference_scorer(tmp_path: Path) -> None:
    report = evaluate(DEV)
    pred_file = tmp_path / "pred.jsonl"
    pred_file.write_text("".join(json.dumps(p) + "\n" for p in report.predictions.values()))
    out = subprocess.run(
        [sys.executable, str(REFERENCE), str(DEV), str(pred_file), "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert report.rows == json.loads(out)


def test_format_report_lists_misses_when_verbose() -> None:
    report = evaluate(DEV)
    text = format_report(report, verbose=True)
    assert text.splitlines()[0] == "19 papers, titles used"
    assert "micro" in text and ("MISS" in text or "FALSE" in text)
