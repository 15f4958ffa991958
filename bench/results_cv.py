"""The results extractor scored per cross-validation fold over all visible results gold (issue 28).

    python bench/results_cv.py [--label NAME] [--out bench/results/results_cv.json] [--errors FILE.md]

Gold: the three training sets' results (`../shared/data/train{340,360,350}_results_gold.jsonl`, abstracts
read from their entity gold `train*_gold.jsonl`, which holds title and text) and the project's own
`data/results_gold/` (abstracts read from the shared corpus by id). Folds: `data/cv_folds.json` by document
(kg.learn.folds), the same folds as the entity extractor's cross-validation.

Scored as in `bench/results_quality.py`: a predicted result matches a gold one of the same abstract when the
value, the metric and the dataset all match (names through the curated vocabulary; each gold result matched
at most once). Per fold and as mean ± sd over the 5 folds (and pooled over all documents):

- P/R overall (any kind);
- P/R on absolute results (predicted absolute against gold absolute), and how many predicted absolute
  results are the gold's deltas or ratios (an improvement that a leaderboard would rank as a score);
- method attribution: of the matched results whose gold names a method, how many name that method (by
  match key, through the vocabulary's methods and models, or its acronym in parentheses).

The rules learn nothing from the folds: the folds only give the spread. Each run is stored under `--label`
in the JSON (`baseline` before the issue-28 changes, `current` after), the other labels kept.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import results_quality  # noqa: E402
from results_quality import _canon, _paper, _records, matches  # noqa: E402

from kg.learn.folds import doc_key, read_folds  # noqa: E402
from kg.names import match_key  # noqa: E402
from kg.types import Paper  # noqa: E402

# the shared data beside the checkout (a worktree of /work/main sits one level deeper), or $KG_SHARED_DATA
SHARED = next(
    (p for p in (Path(os.environ.get("KG_SHARED_DATA", "/nonexistent")), ROOT.parent / "shared" / "data",
                 ROOT.parent.parent / "shared" / "data") if p.is_dir()),
    ROOT.parent / "shared" / "data",
)
results_quality.CORPUS = SHARED / "corpus"
TRAIN_SETS = ("train340", "train360", "train350")
OWN_GOLD = ROOT / "data" / "results_gold" / "results_gold.jsonl"
OUT = ROOT / "bench" / "results" / "results_cv.json"


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_gold() -> list[tuple[str, str, Paper, list[dict[str, Any]]]]:
    """(set, document key, paper, gold results) of every visible results-gold abstract."""
    out: list[tuple[str, str, Paper, list[dict[str, Any]]]] = []
    for name in TRAIN_SETS:
        texts = {r["id"]: r for r in _jsonl(SHARED / f"{name}_gold.jsonl")}
        for g in _jsonl(SHARED / f"{name}_results_gold.jsonl"):
            t = texts[g["id"]]
            paper = _paper({"id": g["id"], "title": t.get("title") or "", "abstract": t.get("text") or ""})
            out.append((name, doc_key(g), paper, g["results"]))
    by_file: dict[str, dict[str, dict[str, Any]]] = {}
    for g in _jsonl(OWN_GOLD):
        if g["file"] not in by_file:
            by_file[g["file"]] = _records(g["file"])
        out.append(("results_gold", doc_key(g), _paper(by_file[g["file"]][g["id"]]), g["results"]))
    return out


def _method_keys(name: str) -> set[str]:
    keys = {match_key(name)}
    for t in ("Method", "Model"):
        if (k := _canon(name, t)) is not None:
            keys.add(k)
    if m := re.search(r"\(([^()]+)\)\s*$", name):  # "Relative Contrastive Learning (RCL)"
        keys.add(match_key(m.group(1)))
    keys.add(match_key(re.sub(r"\s*\([^()]*\)\s*$", "", name)))
    return keys - {""}


OURS = {"ours", "our method", "our model", "our approach", "the proposed method"}


def method_matches(pred: str | None, gold: str | None, proposals: frozenset[str] = frozenset()) -> bool:
    """Whether a predicted method names the gold's: the same name, or for the gold's "ours" (the paper's own,
    unnamed method) no name or one of the paper's proposals."""
    if gold is None:
        return pred is None
    if gold.strip().lower() in OURS:
        return pred is None or pred in proposals
    return pred is not None and bool(_method_keys(pred) & _method_keys(gold))


def _pair(
    preds: list[dict[str, Any]],
    golds: list[dict[str, Any]],
    ok: Callable[[dict[str, Any], dict[str, Any]], bool],
) -> list[tuple[int, int]]:
    """Greedy one-to-one matching in gold order: (gold index, predicted index)."""
    used: set[int] = set()
    out = []
    for gi, g in enumerate(golds):
        hit = next((i for i, p in enumerate(preds) if i not in used and ok(p, g)), None)
        if hit is not None:
            used.add(hit)
            out.append((gi, hit))
    return out


def score_doc(
    preds: list[dict[str, Any]], golds: list[dict[str, Any]], proposals: frozenset[str] = frozenset()
) -> dict[str, int]:
    pairs = _pair(preds, golds, matches)
    pa = [p for p in preds if p["kind"] == "absolute"]
    ga = [g for g in golds if g["kind"] == "absolute"]
    abs_pairs = _pair(pa, ga, matches)
    matched_abs = {pi for _, pi in abs_pairs}
    improvements = [g for g in golds if g["kind"] != "absolute"]
    ranked_improvements = len(
        _pair([p for i, p in enumerate(pa) if i not in matched_abs], improvements, matches)
    )
    with_method = [(gi, pi) for gi, pi in pairs if golds[gi].get("method")]
    return {
        "gold": len(golds),
        "pred": len(preds),
        "tp": len(pairs),
        "gold_abs": len(ga),
        "pred_abs": len(pa),
        "tp_abs": len(abs_pairs),
        "abs_that_are_improvements": ranked_improvements,
        "kind_right": sum(1 for gi, pi in pairs if preds[pi]["kind"] == golds[gi]["kind"]),
        "method_judged": len(with_method),
        "method_right": sum(
            1
            for gi, pi in with_method
            if method_matches(preds[pi].get("method"), golds[gi]["method"], proposals)
        ),
    }


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def figures(c: dict[str, int]) -> dict[str, Any]:
    p, r = _ratio(c["tp"], c["pred"]), _ratio(c["tp"], c["gold"])
    return {
        **c,
        "precision": p,
        "recall": r,
        "f1": round(2 * p * r / (p + r), 4) if p and r else 0.0,
        "precision_abs": _ratio(c["tp_abs"], c["pred_abs"]),
        "recall_abs": _ratio(c["tp_abs"], c["gold_abs"]),
        "kind_accuracy": _ratio(c["kind_right"], c["tp"]),
        "method_accuracy": _ratio(c["method_right"], c["method_judged"]),
    }


KEYS = ("precision", "recall", "f1", "precision_abs", "recall_abs", "kind_accuracy", "method_accuracy")


def mean_sd(fold_figures: Iterable[dict[str, Any]]) -> dict[str, dict[str, float | None]]:
    """Mean and sample sd over the folds of each figure of `KEYS` (folds where it is undefined left out)."""
    figs = list(fold_figures)
    out: dict[str, dict[str, float | None]] = {}
    for k in KEYS:
        xs = [f[k] for f in figs if f[k] is not None]
        out[k] = {
            "mean": round(statistics.mean(xs), 4) if xs else None,
            "sd": round(statistics.stdev(xs), 4) if len(xs) > 1 else None,
        }
    return out


def _add(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    return {k: a.get(k, 0) + v for k, v in b.items()}


def run(label: str, out: Path, errors: Path | None) -> dict[str, Any]:
    from kg.extract import Extractor, to_json

    gold = load_gold()
    folds = read_folds()
    t0 = time.perf_counter()
    ex = Extractor()
    preds: dict[str, list[dict[str, Any]]] = {}
    proposed: dict[str, frozenset[str]] = {}
    for e in ex.extract(p for _, _, p, _ in gold):
        preds[e.paper.id] = to_json(e)["results"]
        proposed[e.paper.id] = frozenset(lk.entity.name for lk in e.links if lk.relation == "proposes")
    seconds = time.perf_counter() - t0
    per_fold: dict[int, dict[str, int]] = {}
    per_set: dict[str, dict[str, int]] = {}
    lines: list[str] = []
    for name, key, paper, golds in gold:
        pr = preds.get(paper.id, [])
        props = proposed.get(paper.id, frozenset())
        c = score_doc(pr, golds, props)
        fold = folds[key]
        per_fold[fold] = _add(per_fold.get(fold, {}), c)
        per_set[name] = _add(per_set.get(name, {}), c)
        if errors is not None:
            pairs = _pair(pr, golds, matches)
            got = {gi for gi, _ in pairs}
            used = {pi for _, pi in pairs}
            for gi, g in enumerate(golds):
                if gi not in got:
                    lines.append(f"- miss [f{fold}] `{paper.id}` {g['kind']} {g['value']}{g['unit']} "
                                 f"{g['metric']} on {g['dataset']} ({g.get('method')})")
            for pi, p in enumerate(pr):
                if pi not in used:
                    lines.append(f"- false [f{fold}] `{paper.id}` {p['kind']} {p['value']}{p['unit']} "
                                 f"{p['metric']} on {p['dataset']} ({p['method']}) — “{p['evidence'][:200]}”")
            for gi, pi in pairs:
                g, p = golds[gi], pr[pi]
                if g.get("method") and not method_matches(p.get("method"), g["method"], props):
                    lines.append(f"- method [f{fold}] `{paper.id}` {p['value']}{p['unit']} {p['metric']}: "
                                 f"{p['method']!r} for {g['method']!r}")
                if p["kind"] != g["kind"]:
                    lines.append(f"- kind [f{fold}] `{paper.id}` {p['value']}{p['unit']} {p['metric']}: "
                                 f"{p['kind']} for {g['kind']}")
    # precision by the extractor's confidence (pooled): what the leaderboards' LOW_CONFIDENCE rests on
    by_conf: dict[str, list[int]] = {}
    for _name, _key, paper, golds in gold:
        pr = preds.get(paper.id, [])
        hit = {pi for _, pi in _pair(pr, golds, matches)}
        for pi, p in enumerate(pr):
            band = f"{p['kind']} {float(p['confidence']):.2f}"
            by_conf.setdefault(band, [0, 0])
            by_conf[band][0] += pi in hit
            by_conf[band][1] += 1
    pooled: dict[str, int] = {}
    for c in per_fold.values():
        pooled = _add(pooled, c)
    fold_figs = {str(k): figures(v) for k, v in sorted(per_fold.items())}
    # issue 28's rule changes were read off the errors of folds 0-2 only: 3-4 are the less biased figure
    groups: dict[str, dict[str, int]] = {}
    for k, v in per_fold.items():
        g = "folds 0-2 (errors read)" if k <= 2 else "folds 3-4 (errors not read)"
        groups[g] = _add(groups.get(g, {}), v)
    summary = mean_sd(fold_figs.values())
    report = {
        "label": label,
        "extractor_version": ex.version,
        "abstracts": len(gold),
        "extract_seconds": round(seconds, 1),
        "mean_sd_over_folds": summary,
        "pooled": figures(pooled),
        "pooled_by_fold_group": {g: figures(v) for g, v in sorted(groups.items())},
        "folds": fold_figs,
        "sets": {k: figures(v) for k, v in per_set.items()},
        "precision_by_confidence": {
            k: {"right": a, "predicted": b, "precision": _ratio(a, b)}
            for k, (a, b) in sorted(by_conf.items())
        },
    }
    old: dict[str, Any] = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    old.setdefault("runs", {})[label] = report
    old["about"] = (
        "bench/results_cv.py: the results extractor over all visible results gold, per fold of "
        "data/cv_folds.json; value, metric and dataset must match"
    )
    out.write_text(json.dumps(old, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if errors is not None:
        errors.write_text(f"# results_cv errors ({label})\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    _print(report)
    return report


def _print(report: dict[str, Any]) -> None:
    s = report["mean_sd_over_folds"]
    print(f"{report['label']}: {report['abstracts']} abstracts, extractor {report['extractor_version']}, "
          f"{report['extract_seconds']} s")
    for k in KEYS:
        m, sd = s[k]["mean"], s[k]["sd"]
        print(f"  {k:16} {m if m is not None else '-':>7} ± {sd if sd is not None else '-'}")
    p = report["pooled"]
    print(f"  pooled: P {p['precision']} R {p['recall']} | absolute P {p['precision_abs']} "
          f"R {p['recall_abs']} "
          f"| absolute that are gold improvements {p['abs_that_are_improvements']} | method "
          f"{p['method_right']}/{p['method_judged']}")
    for g, f in report["pooled_by_fold_group"].items():
        print(f"  {g}: P {f['precision']} R {f['recall']} | abs P {f['precision_abs']} R {f['recall_abs']}"
              f" | method {f['method_accuracy']}")
    for band, c in report["precision_by_confidence"].items():
        print(f"  confidence {band}: {c['right']}/{c['predicted']} right (precision {c['precision']})")
    for name, f in report["sets"].items():
        print(f"  {name:13} P {f['precision']} R {f['recall']} | abs P {f['precision_abs']} "
              f"R {f['recall_abs']}"
              f" | method {f['method_right']}/{f['method_judged']}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--label", default="current")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--errors", type=Path, default=None, help="misses and false results (markdown)")
    a = ap.parse_args(argv)
    run(a.label, a.out, a.errors)


if __name__ == "__main__":
    main()
