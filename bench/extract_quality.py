"""Extraction quality on the dev sets: per-category tables for dev19 and dev60 (when ../shared is present),
their union, precision by confidence band, and the before/after table against the recorded baseline.

    .venv/bin/python bench/extract_quality.py        # → bench/results/extract_quality.{md,json}
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.eval import calibration, evaluate_gold, read_gold, union  # noqa: E402
from kg.eval.scoring import CATS  # noqa: E402
from kg.extract import Extractor  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
GOLDS = {
    "dev19": ROOT / "tests" / "data" / "icml2025_seed_gold.jsonl",
    "dev60": SHARED / "dev60_gold.jsonl",
}
RESULTS = ROOT / "bench" / "results"
BEFORE = RESULTS / "extract_quality_before.json"


def table(rows: dict[str, dict[str, float]], before: dict[str, dict[str, float]] | None) -> list[str]:
    head = "| category | P | R | F1 | pred | gold |" + (" F1 before |" if before else "")
    out = [head, "|" + " --- |" * (head.count("|") - 1)]
    for c in (*CATS, "micro"):
        r = rows[c]
        cells = [
            f"{r['p']:.3f}",
            f"{r['r']:.3f}",
            f"**{r['f1']:.3f}**",
            str(int(r["pred"])),
            str(int(r["gold"])),
        ]
        if before:
            cells.append(f"{before[c]['f1']:.3f}")
        out.append(f"| {c} | " + " | ".join(cells) + " |")
    return out


def main() -> int:
    extractor = Extractor()
    golds = {name: read_gold(p) for name, p in GOLDS.items() if p.is_file()}
    if len(golds) > 1:
        golds["union"] = union(list(golds.values()))
    before = json.loads(BEFORE.read_text()) if BEFORE.is_file() else {}
    results: dict[str, dict[str, object]] = {}
    lines = [
        "# Extraction quality",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} by `bench/extract_quality.py`.",
        "",
    ]
    for name, gold in golds.items():
        t0 = time.perf_counter()
        report = evaluate_gold(gold, extractor)
        results[name] = {"rows": report.rows, "calibration": calibration(report)}
        lines += [f"## {name} ({report.papers} abstracts, titles used, {time.perf_counter() - t0:.1f} s)", ""]
        lines += table(report.rows, before.get(name))
        lines += ["", "Precision by confidence band (distinct predicted links, five main categories):", ""]
        lines += ["| confidence | links | precision |", "| --- | --- | --- |"]
        lines += [f"| {label} | {n} | {p:.3f} |" for label, n, p in calibration(report)]
        lines.append("")
    without = Extractor(with_recogniser=False)
    lines += [
        "## What the trained recogniser adds",
        "",
        "| set | micro F1 without | with | P without | with | R without | with |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, gold in golds.items():
        a = evaluate_gold(gold, without).rows["micro"]
        b = results[name]["rows"]["micro"]  # type: ignore[index]
        cells = [f"{x[k]:.3f}" for k in ("f1", "p", "r") for x in (a, b)]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
        results[name]["without_recogniser"] = a
    lines.append("")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "extract_quality.json").write_text(json.dumps(results, indent=1) + "\n")
    (RESULTS / "extract_quality.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
