"""`kg train-recogniser`: distant supervision for the phrase recogniser, from corpus abstracts only.

Silver labels are what the rest of the extractor (curated and mined vocabularies, pattern rules) finds in
each abstract: a noun-phrase run whose last word ends a mention of type T is an example of T, a run that no
mention touches is an example of "nothing". Lexical features are dropped from half of the examples so the
model learns shape and context, the only evidence it has for names no vocabulary holds. Documents are split
90/10 (by a hash of their id) and the held-out tenth gives the silver span precision and recall.
"""

from __future__ import annotations

import json
import random
import time
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kg.extract.recogniser import CLASSES, DIM, FEATURES_VERSION, MODEL_FILE, Recogniser, features, hashed

LABEL_OF_TYPE = {
    "Task": "Task",
    "Method": "Method",
    "Model": "Method",
    "Dataset": "Dataset",
    "Metric": "Metric",
}
SEED = 20261201

Example = tuple[list[int], int, bool]  # hashed features, class index, held out


@dataclass(frozen=True, slots=True)
class TrainReport:
    documents: int
    examples: dict[str, int]
    seconds: float
    threshold: float
    heldout: dict[str, dict[str, float]]  # class → precision/recall/support, silver, non-lexical

    def as_json(self) -> dict[str, Any]:
        return {
            "documents": self.documents,
            "examples": self.examples,
            "seconds": round(self.seconds, 1),
            "threshold": self.threshold,
            "heldout_silver": self.heldout,
        }


_NLP: Any = None


def _examples(chunk: list[dict[str, Any]]) -> list[Example]:
    """Silver-labelled candidates of a chunk of records (runs in a worker with its own pipeline)."""
    global _NLP
    from kg.extract.fields import join_fields
    from kg.extract.recogniser import run_candidates

    if _NLP is None:
        from kg.extract.pipeline import build_nlp
        from kg.settings import DEFAULT_BASE_IRI

        _NLP = build_nlp(DEFAULT_BASE_IRI, with_recogniser=False)
    rng = random.Random(SEED)
    out: list[Example] = []
    texts = [join_fields(r["title"] or "", r["abstract"]) for r in chunk]
    for rec, doc in zip(chunk, _NLP.pipe(texts, batch_size=32), strict=True):
        held = zlib.crc32(str(rec["id"]).encode()) % 10 == 0
        title_end = doc._.kg_title_end or 0
        spans = [
            (m["start"], m["end"], LABEL_OF_TYPE.get(m["type"]))
            for m in doc._.kg_mentions or []
            if m["confidence"] >= 0.5
        ]
        for ph in run_candidates(doc):
            start, end = doc[ph.start].idx, doc[ph.end - 1].idx + len(doc[ph.end - 1].text)
            touching = [s for s in spans if s[0] < end and start < s[1]]
            label = 0
            if touching:
                ending = [s for s in touching if s[1] == end and s[0] >= start and s[2]]
                if not ending or any(s[0] < start or s[1] > end for s in touching):
                    continue  # partly covered or of a type the recogniser does not give
                label = CLASSES.index(str(ending[0][2]))
            lexical = held is False and rng.random() < 0.5
            feats = features(doc, ph, start < title_end, lexical=lexical)
            out.append((hashed(feats).tolist(), label, held))
    return out


def _chunks(records: Sequence[dict[str, Any]], size: int = 200) -> Iterator[list[dict[str, Any]]]:
    for i in range(0, len(records), size):
        yield list(records[i : i + size])


def silver_examples(records: Sequence[dict[str, Any]], workers: int = 2) -> list[Example]:
    if workers <= 1:
        return [e for c in _chunks(records) for e in _examples(c)]
    with ProcessPoolExecutor(workers) as pool:
        return [e for part in pool.map(_examples, _chunks(records)) for e in part]


def fit(examples: list[Example], epochs: int = 4, lr: float = 0.2, l2: float = 1e-6) -> Recogniser:
    """Multinomial logistic regression by AdaGrad over hashed sparse features (deterministic)."""
    k = len(CLASSES)
    w = np.zeros((DIM, k), dtype=np.float32)
    g2 = np.full((DIM, k), 1e-6, dtype=np.float32)
    b = np.zeros(k, dtype=np.float32)
    order = list(range(len(examples)))
    rng = random.Random(SEED)
    for _ in range(epochs):
        rng.shuffle(order)
        for i in order:
            idx_list, y, _ = examples[i]
            idx = np.asarray(idx_list, dtype=np.int64)
            z = w[idx].sum(axis=0) + b
            z -= z.max()
            p = np.exp(z)
            p /= p.sum()
            p[y] -= 1.0
            grad = p[None, :] + l2 * w[idx]
            g2[idx] += grad * grad
            w[idx] -= lr * grad / np.sqrt(g2[idx])
            b -= 0.01 * p
    return Recogniser(w, b, 0.5)


def evaluate(model: Recogniser, examples: list[Example], threshold: float) -> dict[str, dict[str, float]]:
    tp: Counter[int] = Counter()
    fp: Counter[int] = Counter()
    gold: Counter[int] = Counter()
    for idx_list, y, _ in examples:
        p = model.probs(np.asarray(idx_list, dtype=np.int64))
        k = int(p.argmax())
        pred = k if k != 0 and p[k] >= threshold else 0
        if y:
            gold[y] += 1
        if pred:
            (tp if pred == y else fp)[pred] += 1
    out = {}
    for c in range(1, len(CLASSES)):
        prec = tp[c] / max(tp[c] + fp[c], 1)
        rec = tp[c] / max(gold[c], 1)
        out[CLASSES[c]] = {"precision": round(prec, 3), "recall": round(rec, 3), "support": gold[c]}
    all_tp, all_fp, all_g = sum(tp.values()), sum(fp.values()), sum(gold.values())
    out["all"] = {
        "precision": round(all_tp / max(all_tp + all_fp, 1), 3),
        "recall": round(all_tp / max(all_g, 1), 3),
        "support": all_g,
    }
    return out


def train(
    records: Sequence[dict[str, Any]],
    out: Path = MODEL_FILE,
    *,
    workers: int = 2,
    target_precision: float = 0.8,
) -> TrainReport:
    """Silver examples → model → threshold for `target_precision` on held-out silver → weights file."""
    t0 = time.perf_counter()
    examples = silver_examples(records, workers)
    train_set = [e for e in examples if not e[2]]
    held = [e for e in examples if e[2]]
    model = fit(train_set)
    threshold = 0.5
    for t in (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9):
        threshold = t
        if evaluate(model, held, t)["all"]["precision"] >= target_precision:
            break
    model = Recogniser(model.weights, model.bias, threshold)
    report = TrainReport(
        documents=len(records),
        examples={CLASSES[c]: n for c, n in sorted(Counter(e[1] for e in examples).items())},
        seconds=time.perf_counter() - t0,
        threshold=threshold,
        heldout=evaluate(model, held, threshold),
    )
    model.save(out, {"features": FEATURES_VERSION, "report": json.dumps(report.as_json(), sort_keys=True)})
    return report
