"""Measure the extractor on gold files: the library behind `kg eval` (the one command line for it).

Extracts from the gold records' own texts (`text`, plus `title` unless `kg eval --no-titles`) and scores
like the reference scorer (kg/eval/scoring.py): per-category P/R/F1, micro over the five main categories.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg.eval.scoring import CATS, Score, score
from kg.extract import Extractor, to_json
from kg.types import Paper


@dataclass
class EvalReport:
    score: Score
    predictions: dict[str, dict[str, Any]]
    papers: int
    with_title: bool

    @property
    def rows(self) -> dict[str, dict[str, float]]:
        return self.score.rows


def read_gold(path: str | Path) -> dict[str, dict[str, Any]]:
    gold: dict[str, dict[str, Any]] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                g = json.loads(line)
                gold[str(g["id"])] = g
    return gold


def evaluate(
    gold_path: str | Path, extractor: Extractor | None = None, *, with_title: bool = True
) -> EvalReport:
    """Extract from the gold file's texts and score the result against its gold links."""
    return evaluate_gold(read_gold(gold_path), extractor, with_title=with_title)


def union(golds: list[dict[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Several gold sets as one; an id seen in an earlier set is prefixed with its set's position."""
    out: dict[str, dict[str, Any]] = {}
    for i, gold in enumerate(golds):
        for pid, g in gold.items():
            out[pid if pid not in out else f"{i}:{pid}"] = g
    return out


BANDS = ((0.9, 1.01), (0.8, 0.9), (0.7, 0.8), (0.6, 0.7), (0.5, 0.6), (0.0, 0.5))


def calibration(report: EvalReport) -> list[tuple[str, int, float]]:
    """Precision of the distinct predicted links (five main categories) per confidence band."""
    rows = []
    for lo, hi in BANDS:
        hits = [right for *_, conf, right in report.score.judged if lo <= conf < hi]
        label = f"[{lo:.1f}, {min(hi, 1.0):.1f}{']' if hi > 1 else ')'}"
        rows.append((label, len(hits), sum(hits) / len(hits) if hits else 0.0))
    return rows


def format_calibration(report: EvalReport) -> str:
    lines = ["confidence      links  precision"]
    lines += [f"{label:15s} {n:5d}  {p:9.3f}" for label, n, p in calibration(report)]
    return "\n".join(lines)


def evaluate_gold(
    gold: dict[str, dict[str, Any]], extractor: Extractor | None = None, *, with_title: bool = True
) -> EvalReport:
    """Extract from gold records' texts and score the result against their gold links."""
    extractor = extractor or Extractor()
    papers = [
        Paper(id=pid, abstract=g.get("text") or "", title=(g.get("title") if with_title else None))
        for pid, g in gold.items()
    ]
    preds = {ex.paper.id: to_json(ex) for ex in extractor.extract(papers)}
    return EvalReport(score(gold, preds), preds, len(papers), with_title)


def format_report(report: EvalReport, verbose: bool = False) -> str:
    lines = [
        f"{report.papers} papers, titles {'used' if report.with_title else 'not used'}",
        f"{'category':9s} {'P':>6s} {'R':>6s} {'F1':>6s}  pred gold",
    ]
    for c in (*CATS, "micro"):
        r = report.rows[c]
        lines.append(
            f"{c:9s} {r['p']:6.3f} {r['r']:6.3f} {r['f1']:6.3f}  {int(r['pred']):4d} {int(r['gold']):4d}"
        )
    if verbose:
        by_paper: dict[str, list[str]] = {}
        for pid, cat, name in report.score.misses:
            by_paper.setdefault(pid, []).append(f"  MISS  {cat:9s} {name}")
        for pid, cat, name in report.score.extras:
            by_paper.setdefault(pid, []).append(f"  FALSE {cat:9s} {name}")
        for pid in sorted(by_paper):
            lines.append(pid)
            lines.extend(by_paper[pid])
    return "\n".join(lines)
