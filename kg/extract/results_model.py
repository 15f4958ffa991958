"""The learned re-scorer of the results rules (issue 28): a logistic regression over general features of each
result the rules read, its output calibrated by isotonic regression fitted out of fold, so that a result's
confidence is the cross-validated probability that it is right (value, metric and dataset all as the gold
states them). Results below the threshold chosen by cross-validation are dropped.

Trained by `bench/results_train.py` (scikit-learn, the `train` extra); at run time numpy only: the weights,
the feature names, the isotonic breakpoints and the threshold are one small file,
`kg/extract/models/results.npz`, loaded offline. Features are general in form (which rule, the kind, the
unit, the metric and whether the curated vocabulary holds it, whether a dataset is named, the words around
the number, cue words of the sentence, the value's magnitude, the sentence's position, the rules' own
confidence…); no name is taken from any gold.
"""

from __future__ import annotations

import functools
import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kg.extract.measures import EXTRA_NAMES
from kg.names import match_key

MODEL_FILE = Path(__file__).resolve().parent / "models" / "results.npz"
FEATURES_VERSION = "1"
# whether the learned re-scorer decides by default; KG_RESULTS_MODEL=1 / =0 overrides
DEFAULT_ON = False
# whether the rules also emit the candidates they refuse (`kg.extract.results._loose`) for the model to
# decide on: cross-validation says no (more recall, less precision, no better F1; README)
LOOSE = False

_WORD = re.compile(r"[a-z]+|\d+(?:\.\d+)?|%|[^\sa-z\d]", re.I)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")
_CUES = {
    "outperform": r"\boutperform",
    "improve": r"\bimprov",
    "respectively": r"\brespectively\b",
    "achieve": r"\bachiev",
    "by": r"\bby\b",
    "over": r"\bover\b",
    "relative": r"\brelative",
    "than": r"\bthan\b",
    "compared": r"\bcompared\b",
    "average": r"\b(?:average|mean|across)\b",
    "from_to": r"\bfrom\b[^.]{0,40}\bto\b",
    "reduce": r"\b(?:reduc|decreas|lower)",
    "sota": r"\bstate[- ]of[- ]the[- ]art\b",
    "up_to": r"\bup to\b",
    "only": r"\bonly\b",
}
_CUE_RES = {k: re.compile(p, re.I) for k, p in _CUES.items()}
_OWN = re.compile(r"\b(?:we|our|ours)\b", re.I)


def mode() -> str:
    """Who decides the results, by KG_RESULTS_MODEL (1, 0, candidates) or the default: "learned" (the
    re-scorer), "rules" (the rules alone) or "candidates" (the rules' results and the candidates they refuse,
    unscored: what `bench/results_train.py` trains on)."""
    flag = os.environ.get("KG_RESULTS_MODEL")
    if flag == "candidates":
        return "candidates"
    on = DEFAULT_ON if flag is None else flag == "1"
    return "learned" if on else "rules"


@functools.cache
def _vocab_metric(name: str) -> bool:
    from kg.vocab import load_vocabulary

    return any(e.ref.type == "Metric" for e in load_vocabulary(mined=False).lookup(name))


def _words(s: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(s)]


def _bucket(x: float, edges: Iterable[float]) -> int:
    return sum(1 for e in edges if x >= e)


def features(text: str, r: dict[str, Any], abstract_start: int, abstract_end: int) -> list[str]:
    """The named binary features of one result of `kg.extract.results.find_results` (doc offsets)."""
    s0, s1 = int(r["sentence"][0]), int(r["sentence"][1])
    start, end = int(r["start"]), int(r["end"])
    sent = text[s0:s1]
    metric = str(r["metric"][1])
    unit = str(r["unit"]) or "bare"
    out = [
        "bias",
        f"rule={r['rule']}",
        f"kind={r['kind']}",
        f"unit={unit}",
        f"kind_unit={r['kind']}_{unit}",
        f"conf={float(r['confidence']):.2f}",
        f"metric={match_key(metric)}",
        "metric_src="
        + (
            "performance"
            if metric == "performance"
            else "at_k"
            if "@" in metric
            else "extra"
            if metric in EXTRA_NAMES
            else "entity"
        ),
        f"metric_vocab={_vocab_metric(metric)}",
        f"dataset={r['dataset'] is not None}",
        f"split={r.get('split') is not None}",
        f"method={r['method'] is not None}",
        f"baseline={r['baseline'] is not None}",
        f"own={bool(_OWN.search(sent))}",
        f"magnitude={_bucket(abs(float(r['value'])), (1, 10, 50, 100, 1000))}",
        f"numbers={min(_bucket(len(_NUMBER.findall(sent)), (2, 3, 5, 8)), 4)}",
    ]
    if r["dataset"] is not None:
        # where the dataset's name sits: after the value in the sentence, before it, or not in the sentence
        name = str(r["dataset"][1]).lower()
        at = sent.lower().find(name)
        out.append("dataset_at=" + ("elsewhere" if at < 0 else "after" if s0 + at > start else "before"))
    for k, rx in _CUE_RES.items():
        if rx.search(sent):
            out.append(f"cue={k}")
    before, after = _words(text[max(s0, start - 60) : start])[-3:], _words(text[end : min(s1, end + 60)])[:3]
    for i, w in enumerate(reversed(before)):
        out.append(f"b{i + 1}={w}")
        out.append(f"b={w}")
    for i, w in enumerate(after):
        out.append(f"a{i + 1}={w}")
        out.append(f"a={w}")
    span = max(1, abstract_end - abstract_start)
    pos = (s0 - abstract_start) / span
    out.append(f"sent_pos={min(int(pos * 3), 2)}")
    out.append(f"last_sent={s1 >= abstract_end - 1}")
    return out


@dataclass(frozen=True)
class ResultsModel:
    names: tuple[str, ...]
    weights: npt.NDArray[np.float64]
    iso_x: npt.NDArray[np.float64]
    iso_y: npt.NDArray[np.float64]
    threshold: float

    @functools.cached_property
    def index(self) -> dict[str, int]:
        return {n: i for i, n in enumerate(self.names)}

    def raw(self, feats: list[str]) -> float:
        """The logistic regression's probability (the intercept is the feature "bias")."""
        z = float(sum(self.weights[i] for f in set(feats) if (i := self.index.get(f)) is not None))
        return 1.0 / (1.0 + math.exp(-z))

    def calibrate(self, raw: float) -> float:
        return float(np.interp(raw, self.iso_x, self.iso_y))

    def probability(self, feats: list[str]) -> float:
        return self.calibrate(self.raw(feats))

    def save(self, path: Path) -> None:
        np.savez_compressed(
            path,
            names=np.array(self.names, dtype=str),
            weights=self.weights,
            iso_x=self.iso_x,
            iso_y=self.iso_y,
            threshold=np.array(self.threshold),
            features_version=np.array(FEATURES_VERSION),
        )


def load(path: Path = MODEL_FILE) -> ResultsModel:
    with np.load(path, allow_pickle=False) as d:
        if str(d["features_version"]) != FEATURES_VERSION:
            raise ValueError(f"{path}: features version {d['features_version']}, expected {FEATURES_VERSION}")
        return ResultsModel(
            names=tuple(str(n) for n in d["names"]),
            weights=np.asarray(d["weights"], dtype=np.float64),
            iso_x=np.asarray(d["iso_x"], dtype=np.float64),
            iso_y=np.asarray(d["iso_y"], dtype=np.float64),
            threshold=float(d["threshold"]),
        )


@functools.cache
def shipped() -> ResultsModel:
    return load(MODEL_FILE)


def rescore(
    text: str, results: list[dict[str, Any]], abstract_start: int, model: ResultsModel
) -> list[dict[str, Any]]:
    """The rules' results with the model's calibrated probability as their confidence; those below the
    model's threshold dropped."""
    out = []
    end = len(text.rstrip())
    for r in results:
        p = model.probability(features(text, r, abstract_start, end))
        if p >= model.threshold:
            out.append({**r, "confidence": round(p, 3)})
    return out
