"""The learned re-scorer of the results rules (issue 28), chosen and measured by cross-validation.

    nice python bench/results_train.py [--out bench/results/results_learned.json] [--no-write]

Candidates are the results the rules produce (`KG_RESULTS_MODEL=0`) on all visible results gold (the same
abstracts, folds and matcher as `bench/results_cv.py`, whose functions this reuses); a candidate is right
when `results_quality.matches` pairs it with a gold result (value, metric and dataset). Features:
`kg.extract.results_model.features`. Per outer fold k of `data/cv_folds.json`, nested, so fold k decides
nothing about itself:

1. on the other four folds, an inner 4-fold cross-validation gives out-of-fold probabilities for each
   regularisation strength C (the one with the lowest log loss is kept);
2. isotonic regression fitted on those inner out-of-fold probabilities calibrates;
3. the keep-threshold is the calibrated probability that maximises F1 over the inner out-of-fold results;
4. the logistic regression refitted on all four folds scores fold k, calibrated and thresholded.

Printed and stored: P/R overall and absolute, F1, method attribution as mean ± sd over the 5 folds next to
the rules alone (and the rules with a threshold on their own confidence, chosen the same nested way), and
the calibration bands (precision per confidence band, out of fold). The shipped model
(`kg/extract/models/results.npz`) is the same procedure over all five folds, seeded.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ["KG_RESULTS_MODEL"] = "candidates"  # the rules' results and the candidates they refuse

from results_cv import _add, _pair, figures, load_gold, mean_sd, score_doc  # noqa: E402
from results_quality import matches  # noqa: E402

from kg.extract import results_model  # noqa: E402
from kg.learn.folds import read_folds  # noqa: E402

OUT = ROOT / "bench" / "results" / "results_learned.json"
CS = (0.03, 0.1, 0.3, 1.0, 3.0)
SEED = 28
MIN_COUNT = 2
BANDS = (0.0, 0.3, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 1.01)


@dataclass
class Doc:
    fold: int
    golds: list[dict[str, Any]]
    preds: list[dict[str, Any]]  # result_json of the rules' results
    feats: list[list[str]]
    labels: list[int]
    proposals: frozenset[str]


def candidates() -> list[Doc]:
    from kg.extract import Extractor
    from kg.extract.common import doc_text
    from kg.extract.results import abstract_start, result_json

    gold = load_gold()
    folds = read_folds()
    ex = Extractor()
    texts = [ex._prepare(p)[0] for _, _, p, _ in gold]
    out = []
    for (_name, key, paper, golds), doc in zip(gold, ex.nlp.pipe(texts, batch_size=32), strict=True):
        e = ex._extraction(paper, doc, ())
        preds = [result_json(r) for r in e.results]
        dicts = doc._.kg_results or []
        assert len(dicts) == len(preds), paper.id
        text = doc_text(doc)
        at, end = abstract_start(doc), len(text.rstrip())
        feats = [results_model.features(text, d, at, end) for d in dicts]
        hit = {pi for _, pi in _pair(preds, golds, matches)}
        out.append(
            Doc(
                fold=folds[key],
                golds=golds,
                preds=preds,
                feats=feats,
                labels=[int(i in hit) for i in range(len(preds))],
                proposals=frozenset(lk.entity.name for lk in e.links if lk.relation == "proposes"),
            )
        )
    return out


def _rows(docs: list[Doc]) -> tuple[list[list[str]], np.ndarray]:
    feats = [f for d in docs for f in d.feats]
    return feats, np.array([y for d in docs for y in d.labels], dtype=np.int64)


# feature families tried in the inner cross-validation (names kept by prefix): all; all but the sparse word
# and metric identities; the rules' own confidence alone (then the model is a calibration of the rules)
_SPARSE = ("b=", "a=", "b1=", "b2=", "b3=", "a1=", "a2=", "a3=", "metric=")
FAMILIES: dict[str, Callable[[str], bool]] = {
    "all": lambda f: True,
    "dense": lambda f: not f.startswith(_SPARSE),
    "confidence": lambda f: f.startswith("conf="),
}


def fit(docs: list[Doc], c: float, family: str = "all") -> results_model.ResultsModel:
    """A logistic regression on the candidates of `docs` (identity calibration, threshold 0)."""
    from sklearn.linear_model import LogisticRegression

    feats, y = _rows(docs)
    counts: dict[str, int] = {}
    for fs in feats:
        for f in set(fs):
            counts[f] = counts.get(f, 0) + 1
    keep = FAMILIES[family]
    names = sorted(f for f, n in counts.items() if n >= MIN_COUNT and f != "bias" and keep(f))
    index = {n: i for i, n in enumerate(names)}
    x = np.zeros((len(feats), len(names)))
    for r, fs in enumerate(feats):
        for f in fs:
            if (i := index.get(f)) is not None:
                x[r, i] = 1.0
    lr = LogisticRegression(C=c, max_iter=5000, random_state=SEED)
    lr.fit(x, y)
    return results_model.ResultsModel(
        names=("bias", *names),
        weights=np.concatenate([lr.intercept_, lr.coef_[0]]).astype(np.float64),
        iso_x=np.array([0.0, 1.0]),
        iso_y=np.array([0.0, 1.0]),
        threshold=0.0,
    )


def _raw(model: results_model.ResultsModel, docs: list[Doc]) -> list[list[float]]:
    return [[model.raw(f) for f in d.feats] for d in docs]


def _logloss(p: list[list[float]], docs: list[Doc]) -> float:
    ps = np.clip(np.array([x for row in p for x in row]), 1e-6, 1 - 1e-6)
    y = np.array([v for d in docs for v in d.labels])
    return float(-np.mean(y * np.log(ps) + (1 - y) * np.log(1 - ps)))


def score(docs: list[Doc], probs: list[list[float]], threshold: float) -> dict[str, int]:
    c: dict[str, int] = {}
    for d, ps in zip(docs, probs, strict=True):
        kept = [p for p, q in zip(d.preds, ps, strict=True) if q >= threshold]
        c = _add(c, score_doc(kept, d.golds, d.proposals))
    return c


SIMILAR_RECALL = 0.95


def _rules_tp(docs: list[Doc]) -> int:
    """Right results among the rules' own (not the refused candidates) of `docs`, all kept."""
    keep = [[-1.0 if "rule=result-loose" in f else 1.0 for f in d.feats] for d in docs]
    return score(docs, keep, 0.0)["tp"]


def best_threshold(docs: list[Doc], probs: list[list[float]], objective: str = "f1") -> float:
    """The threshold of the highest pooled F1 (`objective` "f1"), or of the highest precision that keeps
    SIMILAR_RECALL of the rules' right results ("precision"); the lowest of equals (keep more)."""
    cands = sorted({0.0, *(q for row in probs for q in row)})
    floor = SIMILAR_RECALL * _rules_tp(docs) if objective == "precision" else 0.0
    best, best_v = 0.0, -1.0
    for t in cands:
        f = figures(score(docs, probs, t))
        if f["tp"] < floor:
            continue
        v = f["f1"] if objective == "f1" else f["precision"] or 0.0
        if v > best_v + 1e-12:
            best, best_v = t, v
    return best


def train(docs: list[Doc], objective: str = "f1") -> tuple[results_model.ResultsModel, dict[str, Any]]:
    """The nested procedure on `docs`: C by inner-CV log loss, isotonic on the inner out-of-fold
    probabilities, the threshold by inner out-of-fold F1; the model refitted on all of `docs`."""
    from sklearn.isotonic import IsotonicRegression

    inner = sorted({d.fold for d in docs})
    oof: dict[tuple[str, float], list[list[float]]] = {}
    for fam in FAMILIES:
        for c in CS:
            probs: list[list[float]] = [[] for _ in docs]
            for j in inner:
                m = fit([d for d in docs if d.fold != j], c, fam)
                for i, d in enumerate(docs):
                    if d.fold == j:
                        probs[i] = [m.raw(f) for f in d.feats]
            oof[fam, c] = probs
    losses = {k: _logloss(p, docs) for k, p in oof.items()}
    fam, c = min(oof, key=lambda k: (losses[k], k[1]))
    raw = np.array([x for row in oof[fam, c] for x in row])
    y = np.array([v for d in docs for v in d.labels])
    iso = IsotonicRegression(y_min=0.0, y_max=1.0, increasing=True, out_of_bounds="clip").fit(raw, y)
    iso_x, iso_y = np.asarray(iso.X_thresholds_, float), np.asarray(iso.y_thresholds_, float)
    cal = [[float(np.interp(x, iso_x, iso_y)) for x in row] for row in oof[fam, c]]
    t = best_threshold(docs, cal, objective)
    m = fit(docs, c, fam)
    model = results_model.ResultsModel(m.names, m.weights, iso_x, iso_y, t)
    return model, {
        "features": fam,
        "C": c,
        "inner_logloss": {f"{k[0]} C={k[1]}": round(v, 4) for k, v in losses.items()},
        "threshold": round(t, 4),
    }


def _summary(per_fold: dict[int, dict[str, int]]) -> dict[str, Any]:
    figs = {k: figures(v) for k, v in sorted(per_fold.items())}
    pooled: dict[str, int] = {}
    for v in per_fold.values():
        pooled = _add(pooled, v)
    return {
        "mean_sd_over_folds": mean_sd(figs.values()),
        "pooled": figures(pooled),
        "folds": {str(k): v for k, v in figs.items()},
    }


def brier(pairs: list[tuple[float, int]]) -> float:
    """The mean squared error of the confidences as probabilities of being right (lower is better)."""
    return round(sum((p - y) ** 2 for p, y in pairs) / len(pairs), 4) if pairs else 0.0


def _bands(pairs: list[tuple[float, int]]) -> list[dict[str, Any]]:
    out = []
    for lo, hi in zip(BANDS, BANDS[1:], strict=False):
        xs = [(p, y) for p, y in pairs if lo <= p < hi]
        if xs:
            out.append(
                {
                    "band": f"[{lo:.2f}, {min(hi, 1.0):.2f}{']' if hi > 1 else ')'}",
                    "results": len(xs),
                    "right": sum(y for _, y in xs),
                    "precision": round(sum(y for _, y in xs) / len(xs), 4),
                    "mean_confidence": round(sum(p for p, _ in xs) / len(xs), 4),
                }
            )
    return out


def rules_only(docs: list[Doc]) -> list[Doc]:
    """The same documents with only the candidates the rules emit by default (no `result-loose`)."""
    out = []
    for d in docs:
        keep = [i for i, f in enumerate(d.feats) if "rule=result-loose" not in f]
        preds = [d.preds[i] for i in keep]
        hit = {pi for _, pi in _pair(preds, d.golds, matches)}  # matched again without the refused ones
        out.append(
            Doc(
                d.fold,
                d.golds,
                preds,
                [d.feats[i] for i in keep],
                [int(i in hit) for i in range(len(preds))],
                d.proposals,
            )
        )
    return out


def _confidences(docs: list[Doc]) -> list[list[float]]:
    return [[float(p["confidence"]) for p in d.preds] for d in docs]


def evaluate(
    docs: list[Doc], learned: bool, objective: str = "f1"
) -> tuple[dict[int, dict[str, int]], list[tuple[float, int]], dict[str, Any]]:
    """Per outer fold: the learned re-scorer (nested), or the rules' confidence with a threshold chosen on
    the other folds (`learned=False`)."""
    per_fold: dict[int, dict[str, int]] = {}
    pairs: list[tuple[float, int]] = []
    chosen: dict[str, Any] = {}
    for k in sorted({d.fold for d in docs}):
        test = [d for d in docs if d.fold == k]
        train_docs = [d for d in docs if d.fold != k]
        if learned:
            model, info = train(train_docs, objective)
            probs = [[model.probability(f) for f in d.feats] for d in test]
            t = model.threshold
        else:
            t = best_threshold(train_docs, _confidences(train_docs), objective)
            probs, info = _confidences(test), {"threshold": t}
        per_fold[k] = score(test, probs, t)
        chosen[str(k)] = info
        pairs += [
            (p, y) for d, ps in zip(test, probs, strict=True) for p, y in zip(ps, d.labels, strict=True)
        ]
        print(f"  fold {k}: {info} F1 {figures(per_fold[k])['f1']}", flush=True)
    return per_fold, pairs, chosen


def run(out: Path, write: bool) -> dict[str, Any]:
    t0 = time.perf_counter()
    every = candidates()
    base = rules_only(every)
    runs: dict[str, Any] = {}
    calibration: dict[str, Any] = {}
    chosen: dict[str, Any] = {}

    def plain(docs: list[Doc]) -> dict[int, dict[str, int]]:
        return {
            k: score([d for d in docs if d.fold == k], _confidences([d for d in docs if d.fold == k]), 0.0)
            for k in sorted({d.fold for d in docs})
        }

    runs["rules"] = _summary(plain(base))
    runs["rules + refused candidates, unfiltered"] = _summary(plain(every))

    def oracle(docs: list[Doc]) -> dict[int, dict[str, int]]:
        """The ceiling of any re-scorer: exactly the right candidates kept."""
        return {
            k: score(
                [d for d in docs if d.fold == k],
                [[float(y) for y in d.labels] for d in docs if d.fold == k],
                0.5,
            )
            for k in sorted({d.fold for d in docs})
        }

    runs["ceiling: a perfect re-scorer of the rules' results"] = _summary(oracle(base))
    runs["ceiling: a perfect re-scorer of the rules' results + refused candidates"] = _summary(oracle(every))
    variants = {
        "rules, own-confidence threshold": (base, False, "f1"),
        "rules + refused candidates, own-confidence threshold": (every, False, "f1"),
        "learned re-scorer on the rules' results": (base, True, "f1"),
        "learned re-scorer on the rules' results + refused candidates": (every, True, "f1"),
        "rules, own-confidence threshold for precision at similar recall": (base, False, "precision"),
        "learned re-scorer on the rules' results, threshold for precision at similar recall": (
            base,
            True,
            "precision",
        ),
        "learned re-scorer on the rules' results + refused candidates, threshold for precision at similar "
        "recall": (every, True, "precision"),
    }
    for name, (docs, learned, objective) in variants.items():
        print(name, flush=True)
        per_fold, pairs, ch = evaluate(docs, learned, objective)
        runs[name + " (nested CV)"] = _summary(per_fold)
        chosen[name] = ch
        calibration[name] = {"brier": brier(pairs), "bands": _bands(pairs)}
    own = [(float(p["confidence"]), y) for d in base for p, y in zip(d.preds, d.labels, strict=True)]
    calibration["rules (their own confidence)"] = {"brier": brier(own), "bands": _bands(own)}
    report: dict[str, Any] = {
        "about": (
            "bench/results_train.py: the learned re-scorer of the results rules against the rules alone, "
            "nested 5-fold CV over all visible results gold (data/cv_folds.json); value, metric, dataset"
        ),
        "abstracts": len(every),
        "candidates": {
            "rules": sum(len(d.preds) for d in base),
            "rules_right": sum(sum(d.labels) for d in base),
            "with_refused": sum(len(d.preds) for d in every),
            "with_refused_right": sum(sum(d.labels) for d in every),
        },
        "runs": runs,
        "chosen_per_fold": chosen,
        "calibration_out_of_fold": calibration,
    }
    ship = every if results_model.LOOSE else base
    final, info = train(ship)
    report["shipped"] = {
        **info,
        "candidates": "rules + refused" if results_model.LOOSE else "rules",
        "feature_count": len(final.names),
        "file": str(results_model.MODEL_FILE.relative_to(ROOT)),
        "default_on": results_model.DEFAULT_ON,
    }
    report["seconds"] = round(time.perf_counter() - t0, 1)
    if write:
        results_model.MODEL_FILE.parent.mkdir(parents=True, exist_ok=True)
        final.save(results_model.MODEL_FILE)
    out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    _print(report)
    return report


def _print(report: dict[str, Any]) -> None:
    print(f"{report['abstracts']} abstracts, candidates {report['candidates']}")
    print(
        f"{'run':62} "
        + " ".join(
            f"{k:>15}"
            for k in ("precision", "recall", "f1", "precision_abs", "recall_abs", "method_accuracy")
        )
    )
    for name, r in report["runs"].items():
        s = r["mean_sd_over_folds"]
        cells = " ".join(
            f"{s[k]['mean']:.2f} ± {s[k]['sd']:.2f}".rjust(15)
            for k in ("precision", "recall", "f1", "precision_abs", "recall_abs", "method_accuracy")
        )
        print(f"{name:62} {cells}")
    for name, bands in report["calibration_out_of_fold"].items():
        print(f"calibration ({name}, out of fold; Brier {bands['brier']}):")
        for b in bands["bands"]:
            print(
                f"  {b['band']:14} {b['right']:>4}/{b['results']:<4} precision {b['precision']:.2f} "
                f"(mean confidence {b['mean_confidence']:.2f})"
            )
    print(f"shipped: {report['shipped']}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--no-write", action="store_true", help="do not write the shipped weights")
    a = ap.parse_args(argv)
    run(a.out, not a.no_write)


if __name__ == "__main__":
    main()
