"""The linker's design choices, each decided by the same 5-fold cross-validation as `kg train`.

    .venv/bin/python bench/linker_choices.py configs     # network settings (seeds, epochs, width, dropout)
    .venv/bin/python bench/linker_choices.py ablate      # each rule component left out
    .venv/bin/python bench/linker_choices.py labels      # trained on exact-name or whole-phrase positives
    .venv/bin/python bench/linker_choices.py decode      # choices after the network, same trained folds

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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.eval.scoring import LOOSE, categories, matches  # noqa: E402
from kg.learn.gold import read_gold  # noqa: E402
from kg.learn.linker_train import (  # noqa: E402
    GOLD_FILES,
    CVReport,
    Resources,
    TrainConfig,
    cross_validate,
    prepare,
    relabel,
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
# each decoding choice flipped from the default (leaving undefined ambiguous acronyms to the rules' sense from
# context scored -0.001 +- 0.001 and is not in the code: bench/results/linker_choices_decode.log)
DECODE = {
    "linked where cut only": {"all_occurrences": False},  # the default links a phrase wherever written
}
LABEL_RULES = {
    "exact": "exact names and aliases only",
    "scorer": "the reference scorer's rule (loose for tasks, domains and threats)",
    "whole": "loose matches only where no longer loosely matching candidate contains the phrase",
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


def main() -> int:
    what = sys.argv[1] if len(sys.argv) > 1 else "configs"
    docs = read_gold(GOLD_FILES)
    extractor = rules_extractor(DEFAULT_BASE_IRI)
    res = Resources.load(DEFAULT_BASE_IRI)
    default = TrainConfig()
    scored = prepare(docs, extractor, res)  # positives by the reference scorer's rule; relabelled below
    items = relabel(scored, default.labels)
    ref = cross_validate(items, extractor, res, default, name="default")
    rows = [_row("default", ref, None, {"config": asdict(default)})]
    if what == "configs":
        for name, config in CONFIGS.items():
            if name != "default":
                r = cross_validate(items, extractor, res, config, name=name)
                rows.append(_row(name, r, ref, {"config": asdict(config)}))
    elif what == "labels":  # scored as always (loose for tasks, domains, threats); trained on other positives
        for labels, says in LABEL_RULES.items():
            if labels != default.labels:
                config = replace(default, labels=labels)
                r = cross_validate(relabel(scored, labels), extractor, res, config, name=f"{labels} labels")
                rows.append(_row(f"{labels} labels", r, ref, {"labels": says}))
    elif what == "decode":  # the default's trained folds, decoded otherwise
        for name, changes in DECODE.items():
            config = replace(default, **changes)
            r = cross_validate(items, extractor, res, config, name=name, reuse=ref)
            rows.append(_row(name, r, ref, {"changes": changes}))
    else:
        for component in COMPONENTS:
            ab = relabel(prepare(docs, extractor, res, disabled=[component]), default.labels)
            r = cross_validate(ab, extractor, res, default, name=f"without {component}")
            rows.append(_row(f"without {component}", r, ref, {"component": component}))
    out = ROOT / "bench" / "results" / f"linker_choices_{what}.json"
    out.write_text(json.dumps(rows, indent=1) + "\n")
    print(f"→ {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
