"""The linker's design choices, each decided by the same 5-fold cross-validation as `kg train`.

    .venv/bin/python bench/linker_choices.py configs     # network settings (seeds, epochs, width, dropout)
    .venv/bin/python bench/linker_choices.py ablate      # each rule component left out
    .venv/bin/python bench/linker_choices.py labels      # trained on exact-name labels (no loose match)

Writes bench/results/linker_choices_<what>.json and prints each row's micro F1 (mean ± sd over the folds)
next to the default's. A choice is kept only when its cross-validated micro F1 beats the default's by more
than the folds' standard deviation of the difference; otherwise the simpler or faster option stays.
"""

from __future__ import annotations

import json
import statistics
import sys
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.eval.scoring import LOOSE, categories, matches  # noqa: E402
from kg.learn.gold import read_gold  # noqa: E402
from kg.learn.linker_train import (  # noqa: E402
    GOLD_FILES,
    CVReport,
    Prepared,
    Resources,
    TrainConfig,
    candidate_labels,
    cross_validate,
    prepare,
    rules_extractor,
)
from kg.settings import DEFAULT_BASE_IRI  # noqa: E402

CONFIGS = {
    "default": TrainConfig(),
    "one seed": TrainConfig(seeds=(0,)),
    "one seed, min feature count 2": TrainConfig(seeds=(0,), min_feature_count=2),
    "one global threshold": TrainConfig(per_label_thresholds=False),
    "10 epochs": TrainConfig(epochs=10),
    "hidden 256": TrainConfig(hidden=256),
    "dropout 0.5": TrainConfig(dropout=0.5),
    "threats by the rules": TrainConfig(rule_types=("Threat",)),
    "threats and domains by the rules": TrainConfig(rule_types=("Threat", "Domain")),
}
COMPONENTS = (
    "paperkg_recogniser",
    "paperkg_terms",
    "paperkg_topics",
    "paperkg_lists",
    "paperkg_experiments",
    "paperkg_proposals",
)


def _loose_only(r: CVReport) -> dict[str, float]:
    """Per loosely scored category: the share of the out-of-fold predictions the reference scorer counts right
    only by sharing content words with a gold item ("self-supervised" for "self-supervised learning")."""
    gold = {p.gold.id: p.gold.record for p in r.order}
    out: dict[str, float] = {}
    for cat in sorted(LOOSE):
        loose_only = total = 0
        for pid, line in r.oof_preds.items():
            items = list(gold.get(pid, {}).get(cat) or [])
            names = {e["name"]: [e["name"], e.get("mention", "")] for e in line.get("entities") or []
                     if cat in categories(e)}
            for forms in names.values():
                total += 1
                loose_only += not any(matches(forms, it, False) for it in items) and any(
                    matches(forms, it, True) for it in items)
        out[cat] = round(loose_only / total, 4) if total else 0.0
    return out


def _row(name: str, r: CVReport, ref: CVReport | None, extra: dict[str, object]) -> dict[str, object]:
    f1 = [f.rows["micro"]["f1"] for f in r.folds]
    out: dict[str, object] = {
        "name": name,
        "micro_f1_mean": round(statistics.fmean(f1), 4),
        "micro_f1_sd": round(statistics.pstdev(f1), 4),
        "right_only_by_loose_match": _loose_only(r),
        "per_category_f1": {c: round(v["f1"][0], 4) for c, v in r.summary().items()},
        "seconds": round(r.seconds, 1),
        **extra,
    }
    if ref is not None:
        diff = [a - b for a, b in zip(f1, (f.rows["micro"]["f1"] for f in ref.folds), strict=True)]
        out["diff_vs_default_mean"] = round(statistics.fmean(diff), 4)
        out["diff_vs_default_sd"] = round(statistics.pstdev(diff), 4)
    print(
        f"{name:28s} micro F1 {out['micro_f1_mean']:.3f} ± {out['micro_f1_sd']:.3f}"
        + (f"  Δ {out['diff_vs_default_mean']:+.3f} ± {out['diff_vs_default_sd']:.3f}" if ref else "")
        + f"  ({r.seconds:.0f} s)",
        flush=True,
    )
    return out


def _whole_phrase(p: Prepared, strict: NDArray[np.float32]) -> NDArray[np.float32]:
    """`p`'s loose labels, less those of a phrase inside a longer candidate that matches the same category
    loosely too ("self-supervised" inside "self-supervised representation learning")."""
    out = p.labels.copy()
    spans = [set(c.occurrences) for c in p.cands]
    for r, j in zip(*np.nonzero((p.labels == 1) & (strict == 0)), strict=True):
        if any(
            p.labels[r2, j] == 1 and r2 != r
            and any(s2 <= s and e <= e2 and (s2, e2) != (s, e) for s, e in spans[r] for s2, e2 in spans[r2])
            for r2 in range(len(p.cands))
        ):
            out[r, j] = 0.0
    return out


def main() -> int:
    what = sys.argv[1] if len(sys.argv) > 1 else "configs"
    docs = read_gold(GOLD_FILES)
    extractor = rules_extractor(DEFAULT_BASE_IRI)
    res = Resources.load(DEFAULT_BASE_IRI)
    items = prepare(docs, extractor, res)
    ref = cross_validate(items, extractor, res, TrainConfig(), name="default")
    rows = [_row("default", ref, None, {"config": asdict(TrainConfig())})]
    if what == "configs":
        for name, config in CONFIGS.items():
            if name != "default":
                r = cross_validate(items, extractor, res, config, name=name)
                rows.append(_row(name, r, ref, {"config": asdict(config)}))
    elif what == "labels":  # scored as always (loose for tasks, domains, threats); trained on exact names
        none: frozenset[str] = frozenset()
        strict = [
            replace(p, labels=candidate_labels(p.cands, p.gold.record, p.gold.text, none)) for p in items
        ]
        r = cross_validate(strict, extractor, res, TrainConfig(), name="exact-name labels")
        rows.append(_row("exact-name labels", r, ref, {"labels": "exact names and aliases only"}))
        whole = [replace(p, labels=_whole_phrase(p, s.labels)) for p, s in zip(items, strict, strict=True)]
        r = cross_validate(whole, extractor, res, TrainConfig(), name="whole-phrase labels")
        rows.append(_row("whole-phrase labels", r, ref, {
            "labels": "loose matches only where no longer loosely matching candidate contains the phrase"}))
    else:
        for component in COMPONENTS:
            ab = prepare(docs, extractor, res, disabled=[component])
            r = cross_validate(ab, extractor, res, TrainConfig(), name=f"without {component}")
            rows.append(_row(f"without {component}", r, ref, {"component": component}))
    out = ROOT / "bench" / "results" / f"linker_choices_{what}.json"
    out.write_text(json.dumps(rows, indent=1) + "\n")
    print(f"→ {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
