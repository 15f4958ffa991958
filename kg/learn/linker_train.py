"""`kg train`: the linker learned from all visible gold, chosen by 5-fold cross-validation by document.

1. Every gold abstract goes through the extractor up to the linker (rule components, acronyms, runs); its
   candidates (kg.extract.linker.candidates) are labelled by the gold with the reference scorer's matching
   rule: a candidate is positive for a category when its text matches a gold item of that category.
2. For each of the committed folds (data/cv_folds.json) the network is trained on the other four, and the
   held-out fifth is run through the real tail of the pipeline (linker, canonicaliser, results) and scored
   by kg.eval.scoring (the reference scorer's rules). Calibration (isotonic) and thresholds, per label, are
   fitted on the other folds' out-of-fold predictions, never on the fold scored.
3. The shipped model is trained on all of it with the same config, calibrated and thresholded on the
   out-of-fold predictions of step 2; training is seeded and single-threaded, so the same command
   reproduces the same weights.

Training needs the `train` extra (torch, scikit-learn, gensim); the shipped model needs numpy only.
"""

from __future__ import annotations

import hashlib
import json
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray
from spacy.tokens import Doc

from kg.eval.scoring import CATS, LOOSE, matches, score
from kg.extract.extractor import Extractor, to_json
from kg.extract.lexicon import Lexicon, load_lexicon
from kg.extract.linker import (
    FEATURES_VERSION,
    LABELS,
    MODEL_FILE,
    VECTORS_FILE,
    Candidate,
    Linker,
    LinkerModel,
    WordVectors,
    candidates,
)
from kg.extract.terms import TierTerm, load_tier
from kg.learn.folds import read_folds
from kg.learn.gold import GoldDoc, read_gold
from kg.settings import DEFAULT_BASE_IRI
from kg.types import Paper

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
GOLD_FILES = tuple(
    SHARED / f
    for f in (
        "icml2025_seed_gold.jsonl",
        "dev60_gold.jsonl",
        "train340_gold.jsonl",
        "train360_gold.jsonl",
        "train350_gold.jsonl",
    )
)
THRESHOLDS = (0.3, 0.35, 0.4, 0.45, 0.5, 0.55)


@dataclass(frozen=True, slots=True)
class TrainConfig:
    """Everything the training result depends on besides the data (written into the model file)."""

    hidden: int = 128
    epochs: int = 6
    dropout: float = 0.3
    learning_rate: float = 2e-3
    batch: int = 256
    min_feature_count: int = 5
    seeds: tuple[int, ...] = (0, 1, 2)
    init_scale: float = 0.02
    rule_types: tuple[str, ...] = ()  # entity types linked by the rules, not the network
    per_label_thresholds: bool = True
    # what makes a candidate a positive example: "exact" (a gold name or alias, written alike: the shipped
    # choice, bench/results/linker_choices_labels.json), "scorer" (the reference scorer's rule, loose for
    # tasks, domains and threats) or "whole" (loose only where no longer candidate around the phrase also
    # matches: "self-supervised" inside "self-supervised representation learning")
    labels: str = "exact"
    # decoding: a linked phrase is linked wherever the text writes it, not only where a candidate was cut
    # (CV +0.000 +- 0.001; fragments on 400 unseen corpus abstracts 4 -> 1, bench/entities_quality.py (e))
    all_occurrences: bool = True

    def model_info(self) -> dict[str, str]:
        """The choices the shipped model applies at run time (kept in its `info`)."""
        return {
            "rule_types": ",".join(self.rule_types),
            "all_occurrences": "1" if self.all_occurrences else "0",
        }


@dataclass
class Prepared:
    """One gold abstract, ready for any fold's model: its doc up to the linker and its candidates."""

    gold: GoldDoc
    doc: Doc
    mentions: list[dict[str, Any]]  # the rule components' mentions, restored before each run of the tail
    cands: list[Candidate]
    dense: NDArray[np.float32]
    labels: NDArray[np.float32]


def candidate_labels(
    cands: Sequence[Candidate], record: dict[str, Any], text: str, loose: frozenset[str] = LOOSE
) -> NDArray[np.float32]:
    """Candidates × LABELS: 1 where the candidate's text matches a gold item of that category (by the
    reference scorer's rule; `loose` names the categories where sharing content words is enough)."""
    out = np.zeros((len(cands), len(LABELS)), dtype=np.float32)
    for j, cat in enumerate(LABELS):
        items = list(record.get(cat) or []) + (list(record.get("models") or []) if cat == "methods" else [])
        if not items:
            continue
        for r, c in enumerate(cands):
            forms = list(dict.fromkeys(text[s:e] for s, e in c.occurrences))
            if any(matches(forms, it, cat in loose) for it in items):
                out[r, j] = 1.0
    return out


def whole_phrase_labels(p: Prepared) -> NDArray[np.float32]:
    """`p`'s loose labels, less those of a phrase inside a longer candidate that matches the same category
    loosely too ("self-supervised" inside "self-supervised representation learning")."""
    strict = candidate_labels(p.cands, p.gold.record, p.gold.text, frozenset())
    out = p.labels.copy()
    spans = [set(c.occurrences) for c in p.cands]
    for r, j in zip(*np.nonzero((p.labels == 1) & (strict == 0)), strict=True):
        if any(
            p.labels[r2, j] == 1
            and r2 != r
            and any(s2 <= s and e <= e2 and (s2, e2) != (s, e) for s, e in spans[r] for s2, e2 in spans[r2])
            for r2 in range(len(p.cands))
        ):
            out[r, j] = 0.0
    return out


def relabel(items: Sequence[Prepared], labels: str) -> list[Prepared]:
    """The prepared gold with the positives `TrainConfig.labels` names (`prepare` gives the scorer's)."""
    if labels == "scorer":
        return list(items)
    if labels == "exact":
        return [
            replace(p, labels=candidate_labels(p.cands, p.gold.record, p.gold.text, frozenset()))
            for p in items
        ]
    if labels == "whole":
        return [replace(p, labels=whole_phrase_labels(p)) for p in items]
    raise ValueError(f"unknown labels {labels!r}: scorer, exact or whole")


@dataclass(frozen=True)
class Resources:
    """What the linker reads besides its weights: vocabularies and word vectors."""

    lexicon: Lexicon
    tier: dict[str, TierTerm]
    vectors: WordVectors

    @classmethod
    def load(cls, base_iri: str, vectors: Path = VECTORS_FILE) -> Resources:
        return cls(load_lexicon(base_iri), load_tier(base_iri), WordVectors.load(vectors))

    def linker(self, model: LinkerModel) -> Linker:
        return Linker(model, self.vectors, self.lexicon, self.tier)


def rules_extractor(base_iri: str = DEFAULT_BASE_IRI) -> Extractor:
    """The extractor without its linker: the rule part that proposes, and the tail that names."""
    return Extractor(base_iri, with_linker=False)


def prepare(
    docs: Sequence[GoldDoc], extractor: Extractor, res: Resources, disabled: Sequence[str] = ()
) -> list[Prepared]:
    """Run the rule part of the pipeline over the gold texts (`disabled` components left out: ablation)."""
    tail = ["paperkg_canon", "paperkg_results"]
    out = []
    with extractor.nlp.select_pipes(disable=[*tail, *disabled]):
        texts = [extractor._prepare(_paper(d))[0] for d in docs]
        for d, doc in zip(docs, extractor.nlp.pipe(texts, batch_size=32), strict=True):
            saved = [dict(m) for m in doc._.kg_mentions or []]
            cands = candidates(doc, res.lexicon, res.tier)
            out.append(
                Prepared(
                    d, doc, saved, cands, res.vectors.dense(cands), candidate_labels(cands, d.record, d.text)
                )
            )
    return out


def _paper(d: GoldDoc) -> Paper:
    return Paper(id=d.id, abstract=d.abstract, title=d.title or None)


# --- the network (torch at training time only) ---------------------------------------------------------


@dataclass
class Weights:
    """A trained network as arrays (the LinkerModel fields before calibration)."""

    features: list[str]
    arrays: dict[str, NDArray[np.float32]]

    def model(
        self,
        calibration: Sequence[tuple[NDArray[np.float64], NDArray[np.float64]]] | None = None,
        thresholds: NDArray[np.float64] | None = None,
        info: dict[str, str] | None = None,
    ) -> LinkerModel:
        a = self.arrays
        cal = tuple(calibration) if calibration else tuple((np.zeros(0), np.zeros(0)) for _ in LABELS)
        th = thresholds if thresholds is not None else np.full(len(LABELS), 0.5)
        return LinkerModel(
            {f: i for i, f in enumerate(self.features)},
            a["embed"],
            a["dense_mean"],
            a["dense_scale"],
            a["dense_w"],
            a["b0"],
            a["w1"],
            a["b1"],
            a["w2"],
            a["b2"],
            cal,
            th,
            info or {},
        )


def _vocabulary(items: Sequence[Prepared], min_count: int) -> list[str]:
    counts: dict[str, int] = {}
    for p in items:
        for c in p.cands:
            for f in c.features:
                counts[f] = counts.get(f, 0) + 1
    return sorted(f for f, n in counts.items() if n >= min_count)


def fit(items: Sequence[Prepared], config: TrainConfig) -> Weights:
    """Train the network on these abstracts' candidates (averaged over `config.seeds`)."""
    import torch

    torch.set_num_threads(1)
    features = _vocabulary(items, config.min_feature_count)
    index = {f: i for i, f in enumerate(features)}
    ids = [[index[f] for f in c.features if f in index] for p in items for c in p.cands]
    dense = np.concatenate([p.dense for p in items]) if items else np.zeros((0, 0), np.float32)
    y = np.concatenate([p.labels for p in items])
    mean = dense.mean(axis=0)
    scale = dense.std(axis=0) + 1e-6
    x = ((dense - mean) / scale).astype(np.float32)
    runs = []
    for seed in config.seeds:
        torch.manual_seed(seed)
        rng = np.random.default_rng(seed)
        h = config.hidden
        embed = torch.nn.EmbeddingBag(len(features), h, mode="sum", sparse=True)
        torch.nn.init.normal_(embed.weight, std=config.init_scale)
        dense_w = torch.nn.Linear(x.shape[1], h)
        head = torch.nn.Sequential(
            torch.nn.ReLU(),
            torch.nn.Dropout(config.dropout),
            torch.nn.Linear(h, h),
            torch.nn.ReLU(),
            torch.nn.Dropout(config.dropout),
            torch.nn.Linear(h, len(LABELS)),
        )
        opt = torch.optim.Adam([*dense_w.parameters(), *head.parameters()], lr=config.learning_rate)
        opt_sparse = torch.optim.SparseAdam(list(embed.parameters()), lr=config.learning_rate)
        for _ in range(config.epochs):
            embed.train()
            head.train()
            order = rng.permutation(len(ids))
            for b in range(0, len(order), config.batch):
                rows = order[b : b + config.batch]
                flat = [i for r in rows for i in ids[r]]
                offsets = np.cumsum([0] + [len(ids[r]) for r in rows[:-1]])
                logits = head(
                    embed(torch.tensor(flat, dtype=torch.long), torch.tensor(offsets, dtype=torch.long))
                    + dense_w(torch.from_numpy(x[rows]))
                )
                loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, torch.from_numpy(y[rows]))
                opt.zero_grad()
                opt_sparse.zero_grad()
                loss.backward()  # type: ignore[no-untyped-call]
                opt.step()
                opt_sparse.step()  # type: ignore[no-untyped-call]
        lin1, lin2 = cast(torch.nn.Linear, head[2]), cast(torch.nn.Linear, head[5])
        runs.append(
            {
                "embed": embed.weight.detach().numpy(),
                "dense_w": dense_w.weight.detach().numpy().T,
                "b0": dense_w.bias.detach().numpy(),
                "w1": lin1.weight.detach().numpy().T,
                "b1": lin1.bias.detach().numpy(),
                "w2": lin2.weight.detach().numpy().T,
                "b2": lin2.bias.detach().numpy(),
            }
        )
    if len(runs) == 1:
        arrays = dict(runs[0])
    else:  # seeds are averaged in probability space by stacking: keep them as one wider network
        arrays = {
            "embed": np.concatenate([r["embed"] for r in runs], axis=1),
            "dense_w": np.concatenate([r["dense_w"] for r in runs], axis=1),
            "b0": np.concatenate([r["b0"] for r in runs]),
            "w1": _block_diagonal([r["w1"] for r in runs]),
            "b1": np.concatenate([r["b1"] for r in runs]),
            "w2": np.concatenate([r["w2"] for r in runs], axis=0) / len(runs),
            "b2": np.mean([r["b2"] for r in runs], axis=0),
        }
    arrays = {k: np.asarray(v, dtype=np.float32) for k, v in arrays.items()}
    arrays["dense_mean"] = mean.astype(np.float32)
    arrays["dense_scale"] = scale.astype(np.float32)
    return Weights(features, arrays)


def _block_diagonal(blocks: Sequence[NDArray[np.float32]]) -> NDArray[np.float32]:
    rows = sum(b.shape[0] for b in blocks)
    cols = sum(b.shape[1] for b in blocks)
    out = np.zeros((rows, cols), dtype=np.float32)
    r = c = 0
    for b in blocks:
        out[r : r + b.shape[0], c : c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    return out


# --- calibration and the pipeline tail -------------------------------------------------------------------


def fit_calibration(
    raw: NDArray[np.float64], labels: NDArray[np.float32]
) -> list[tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """Isotonic maps raw → calibrated probability, one per label, from out-of-fold predictions."""
    from sklearn.isotonic import IsotonicRegression

    out = []
    for j in range(raw.shape[1]):
        iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(raw[:, j], labels[:, j])
        out.append((np.asarray(iso.X_thresholds_, np.float64), np.asarray(iso.y_thresholds_, np.float64)))
    return out


def run_tail(
    items: Sequence[Prepared],
    model: LinkerModel,
    extractor: Extractor,
    res: Resources,
    raw: NDArray[np.float64] | None = None,
) -> dict[str, dict[str, Any]]:
    """The real linker → canonicaliser → results over prepared docs with this model: `to_json` lines.

    `raw` (all items' candidates, stacked) skips the network: only calibration and thresholds are applied.
    """
    linker = res.linker(model)
    canon = extractor.nlp.get_pipe("paperkg_canon")
    results = extractor.nlp.get_pipe("paperkg_results")
    out = {}
    at = 0
    for p in items:
        p.doc._.kg_mentions = [dict(m) for m in p.mentions]
        if raw is None:
            linker(p.doc)
        else:
            probs = model.calibrated(raw[at : at + len(p.cands)])
            at += len(p.cands)
            linker.apply(p.doc, p.cands, probs)
        doc = results(canon(p.doc))
        out[p.gold.id] = to_json(extractor._extraction(_paper(p.gold), doc, ()))
    return out


def raw_probabilities(items: Sequence[Prepared], model: LinkerModel) -> NDArray[np.float64]:
    parts = [model.raw(p.cands, p.dense) for p in items if p.cands]
    return np.concatenate(parts) if parts else np.zeros((0, len(LABELS)))


def stacked_labels(items: Sequence[Prepared]) -> NDArray[np.float32]:
    parts = [p.labels for p in items if p.cands]
    return np.concatenate(parts) if parts else np.zeros((0, len(LABELS)), np.float32)


def _gold(items: Sequence[Prepared]) -> dict[str, dict[str, Any]]:
    return {p.gold.id: p.gold.record for p in items}


# --- cross-validation -------------------------------------------------------------------------------------


@dataclass
class FoldScore:
    fold: int
    thresholds: list[float]
    rows: dict[str, dict[str, float]]


@dataclass
class CVReport:
    """Per-fold scores of one configuration, their mean ± sd, and the out-of-fold material."""

    name: str
    folds: list[FoldScore]
    seconds: float
    oof_preds: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    order: list[Prepared] = field(default_factory=list, repr=False)
    # each fold's network and its raw probabilities on the fold's own candidates (out of fold)
    trained: dict[int, tuple[Weights, NDArray[np.float64]]] = field(default_factory=dict, repr=False)

    @property
    def oof_raw(self) -> NDArray[np.float64] | None:
        """The out-of-fold raw probabilities of the candidates of `order`, stacked."""
        return np.concatenate([raw for _, raw in self.trained.values()]) if self.trained else None

    def summary(self) -> dict[str, dict[str, tuple[float, float]]]:
        out: dict[str, dict[str, tuple[float, float]]] = {}
        for cat in (*CATS, "micro"):
            out[cat] = {}
            for m in ("p", "r", "f1"):
                vals = [f.rows[cat][m] for f in self.folds]
                out[cat][m] = (statistics.fmean(vals), statistics.pstdev(vals) if len(vals) > 1 else 0.0)
        return out

    def table(self) -> str:
        s = self.summary()
        lines = [
            f"{self.name}: {len(self.folds)} folds, {self.seconds:.0f} s",
            f"{'category':9s} {'P':>13s} {'R':>13s} {'F1':>13s}",
        ]
        for cat in (*CATS, "micro"):
            cells = " ".join(f"{s[cat][m][0]:6.3f} ± {s[cat][m][1]:.3f}" for m in ("p", "r", "f1"))
            lines.append(f"{cat:9s} {cells}")
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "seconds": round(self.seconds, 1),
            "folds": [asdict(f) for f in self.folds],
            "mean_sd": {
                c: {m: [round(v[0], 4), round(v[1], 4)] for m, v in d.items()}
                for c, d in self.summary().items()
            },
        }


def _by_fold(items: Sequence[Prepared]) -> dict[int, list[Prepared]]:
    folds = read_folds()
    out: dict[int, list[Prepared]] = {}
    for p in items:
        out.setdefault(folds[p.gold.key], []).append(p)
    return dict(sorted(out.items()))


def baseline(items: Sequence[Prepared], extractor: Extractor) -> CVReport:
    """The rules alone (no linker) scored fold by fold: the row every learned figure is compared with."""
    t0 = time.perf_counter()
    canon = extractor.nlp.get_pipe("paperkg_canon")
    results = extractor.nlp.get_pipe("paperkg_results")
    folds = []
    for k, part in _by_fold(items).items():
        preds = {}
        for p in part:
            p.doc._.kg_mentions = [dict(m) for m in p.mentions]
            preds[p.gold.id] = to_json(extractor._extraction(_paper(p.gold), results(canon(p.doc)), ()))
        folds.append(FoldScore(k, [], score(_gold(part), preds).rows))
    return CVReport(
        f"rules (extractor {extractor.version} without the linker)", folds, time.perf_counter() - t0
    )


def _choose(
    model: LinkerModel,
    items: Sequence[Prepared],
    raw: NDArray[np.float64],
    extractor: Extractor,
    res: Resources,
    per_label: bool = False,
) -> NDArray[np.float64]:
    """The thresholds with the best micro F1 on these items (their out-of-fold raw probabilities): one global
    value, then (`per_label`) each decided label's own, by one pass of coordinate ascent."""

    def f1_of(th: NDArray[np.float64]) -> float:
        m = _with(model, thresholds=th)
        return float(score(_gold(items), run_tail(items, m, extractor, res, raw)).rows["micro"]["f1"])

    best, best_f1 = np.full(len(LABELS), THRESHOLDS[0]), -1.0
    for t in THRESHOLDS:
        th = np.full(len(LABELS), t)
        f1 = f1_of(th)
        if f1 > best_f1:
            best, best_f1 = th, f1
    if per_label:
        for j in range(len(LABELS) - 1):  # the last label (models) only splits methods, never thresholded
            for step in (-0.15, -0.1, -0.05, 0.05, 0.1, 0.15):
                th = best.copy()
                th[j] = round(float(best[j]) + step, 2)
                if not 0.05 <= th[j] <= 0.95:
                    continue
                f1 = f1_of(th)
                if f1 > best_f1:
                    best, best_f1 = th, f1
    return best


def _with(model: LinkerModel, **changes: Any) -> LinkerModel:
    from dataclasses import replace

    return replace(model, **changes)


def cross_validate(
    items: Sequence[Prepared],
    extractor: Extractor,
    res: Resources,
    config: TrainConfig,
    *,
    fraction: float = 1.0,
    name: str = "linker",
    log: Callable[[str], None] = lambda _: None,
    reuse: CVReport | None = None,
) -> CVReport:
    """5-fold CV: train on four folds (a `fraction` of their abstracts, seeded), score the fifth end to end;
    calibration and thresholds of each scored fold come from the other folds' out-of-fold predictions.
    `reuse` (a report of the same items and network settings) keeps its trained folds: only the choices
    applied after the network (decoding, thresholds) are measured anew."""
    t0 = time.perf_counter()
    parts = _by_fold(items)
    raw_of: dict[int, NDArray[np.float64]] = {}
    weights_of: dict[int, Weights] = {}
    for k in parts:
        if reuse is not None:
            weights_of[k], raw_of[k] = reuse.trained[k]
            continue
        train = [p for j, ps in parts.items() if j != k for p in ps]
        if fraction < 1.0:
            train = sorted(train, key=lambda p: p.gold.key)
            random.Random(k).shuffle(train)
            train = train[: max(1, round(len(train) * fraction))]
        weights_of[k] = fit(train, config)
        raw_of[k] = raw_probabilities(parts[k], weights_of[k].model())
        log(f"  fold {k}: trained on {len(train)} abstracts ({time.perf_counter() - t0:.0f} s)")
    folds = []
    all_preds: dict[str, dict[str, Any]] = {}
    for k, part in parts.items():
        others = [j for j in parts if j != k]
        o_items = [p for j in others for p in parts[j]]
        o_raw = np.concatenate([raw_of[j] for j in others])
        cal = fit_calibration(o_raw, stacked_labels(o_items))
        model = weights_of[k].model(cal, info=config.model_info())
        th = _choose(model, o_items, o_raw, extractor, res, config.per_label_thresholds)
        model = _with(model, thresholds=th)
        preds = run_tail(part, model, extractor, res, raw_of[k])
        all_preds.update(preds)
        folds.append(FoldScore(k, [round(float(x), 2) for x in th], score(_gold(part), preds).rows))
    ordered = [p for k in parts for p in parts[k]]
    trained = {k: (weights_of[k], raw_of[k]) for k in parts}
    return CVReport(name, folds, time.perf_counter() - t0, all_preds, ordered, trained)


def calibration_bands(
    preds: dict[str, dict[str, Any]], items: Sequence[Prepared]
) -> list[tuple[str, int, float]]:
    """Precision of the distinct predicted links (five main categories) per confidence band (out of fold)."""
    from kg.eval import BANDS

    judged = score(_gold(items), preds).judged
    rows = []
    for lo, hi in BANDS:
        hits = [right for *_, conf, right in judged if lo <= conf < hi]
        rows.append(
            (
                f"[{lo:.1f}, {min(hi, 1.0):.1f}{']' if hi > 1 else ')'}",
                len(hits),
                sum(hits) / len(hits) if hits else 0.0,
            )
        )
    return rows


# --- the shipped model -------------------------------------------------------------------------------------


def data_fingerprint(items: Sequence[Prepared]) -> str:
    h = hashlib.sha1()
    for p in sorted(items, key=lambda p: p.gold.key):
        h.update(p.gold.key.encode())
        h.update(p.gold.text.encode())
        h.update(json.dumps({c: p.gold.record.get(c) for c in (*CATS, "models")}, sort_keys=True).encode())
    return h.hexdigest()[:12]


def save_model(
    path: Path,
    weights: Weights,
    calibration: Sequence[tuple[NDArray[np.float64], NDArray[np.float64]]],
    thresholds: NDArray[np.float64],
    info: dict[str, str],
) -> None:
    arrays: dict[str, Any] = {
        k: v.astype(np.float16) if k in ("embed", "dense_w") else v for k, v in weights.arrays.items()
    }
    for j, (x, y) in enumerate(calibration):
        arrays[f"cal_x{j}"], arrays[f"cal_y{j}"] = x.astype(np.float32), y.astype(np.float32)
    arrays["thresholds"] = np.asarray(thresholds, np.float64)
    arrays["features"] = np.array(weights.features, dtype=str)  # one string each: a feature may hold "\n"
    arrays["info"] = np.array("\n".join(f"{k}={v}" for k, v in sorted(info.items())))
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)


def train_shipped(
    items: Sequence[Prepared],
    cv: CVReport,
    extractor: Extractor,
    res: Resources,
    config: TrainConfig,
    out: Path = MODEL_FILE,
) -> dict[str, str]:
    """Train on every gold abstract; calibrate and choose thresholds on the CV's out-of-fold predictions."""
    order = cv.order
    oof = cv.oof_raw
    assert oof is not None
    cal = fit_calibration(oof, stacked_labels(order))
    weights = fit(items, config)
    thresholds = _choose(
        weights.model(cal, info=config.model_info()),
        order,
        oof,
        extractor,
        res,
        config.per_label_thresholds,
    )
    info = {
        **config.model_info(),
        "features_version": FEATURES_VERSION,
        "config": json.dumps(asdict(config), sort_keys=True),
        "gold_abstracts": str(len(items)),
        "gold_fingerprint": data_fingerprint(items),
        "thresholds": ",".join(f"{x:.2f}" for x in thresholds),
        "cv_micro_f1": f"{cv.summary()['micro']['f1'][0]:.4f}",
    }
    save_model(out, weights, cal, thresholds, info)
    return info


# --- the command -------------------------------------------------------------------------------------------


@dataclass
class TrainRun:
    """What `kg train` measured: the rules' row, the CV rows (curve, ablations) and the shipped model."""

    baseline: CVReport
    cv: CVReport
    curve: list[CVReport]
    ablations: list[CVReport]
    bands: list[tuple[str, int, float]]
    shipped: dict[str, str] | None

    def as_json(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline.as_json(),
            "cv": self.cv.as_json(),
            "learning_curve": [r.as_json() for r in self.curve],
            "ablations": [r.as_json() for r in self.ablations],
            "calibration_out_of_fold": [
                {"band": b, "links": n, "precision": round(p, 4)} for b, n, p in self.bands
            ],
            "shipped": self.shipped,
        }


def run(
    gold_files: Sequence[Path] = GOLD_FILES,
    *,
    config: TrainConfig = TrainConfig(),
    out: Path = MODEL_FILE,
    curve: Sequence[float] = (),
    ablate: Sequence[str] = (),
    ship: bool = True,
    base_iri: str = DEFAULT_BASE_IRI,
    log: Callable[[str], None] = lambda _: None,
) -> TrainRun:
    """Prepare the gold, cross-validate (and the learning curve and ablations asked for), train the model."""
    docs = read_gold(gold_files)
    extractor = rules_extractor(base_iri)
    res = Resources.load(base_iri)
    log(f"{len(docs)} gold abstracts; the rule components over them …")
    items = relabel(prepare(docs, extractor, res), config.labels)
    base = baseline(items, extractor)
    log(base.table())
    cv = cross_validate(items, extractor, res, config, name="linker", log=log)
    log(cv.table())
    curve_reports = []
    for frac in curve:
        r = cross_validate(
            items,
            extractor,
            res,
            config,
            fraction=frac,
            name=f"linker, {frac:.0%} of training folds",
            log=log,
        )
        log(r.table())
        curve_reports.append(r)
    ablations = []
    for component in ablate:
        ab_items = relabel(prepare(docs, extractor, res, disabled=[component]), config.labels)
        r = cross_validate(ab_items, extractor, res, config, name=f"linker without {component}", log=log)
        log(r.table())
        ablations.append(r)
    bands = calibration_bands(cv.oof_preds, cv.order)
    shipped = train_shipped(items, cv, extractor, res, config, out) if ship else None
    return TrainRun(base, cv, curve_reports, ablations, bands, shipped)
