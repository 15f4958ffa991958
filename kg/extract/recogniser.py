"""The phrase recogniser (`paperkg_recogniser`): a multinomial logistic model over noun-phrase candidates
that finds tasks, methods, datasets and metrics whose names are in no vocabulary, from the phrase's shape
(casing, digits, head noun) and its context ("on X and Y", "we propose X", "X outperforms").

It is trained by distant supervision on corpus abstracts only (`kg train-recogniser`): the labels are what the
vocabularies and pattern rules find there. Weights ship in the package (`kg/extract/models/`), loaded offline.
"""

from __future__ import annotations

import functools
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc

from kg.extract.candidates import (
    GENERIC,
    Phrase,
    cue_before,
    doc_runs,
    list_tail,
    phrase,
    span_key,
    tokens,
    word_after,
)
from kg.extract.common import mention, mentions, name_strength
from kg.extract.terms import measured, salient
from kg.extract.words import GENERIC_TERMS

MODEL_FILE = Path(__file__).resolve().parent / "models" / "recogniser.npz"
CLASSES = ("O", "Task", "Method", "Dataset", "Metric")
DIM = 1 << 18
FEATURES_VERSION = "1"
_SHAPE = (re.compile(r"[A-Z]"), re.compile(r"[a-z]"), re.compile(r"[0-9]"))
_VERBS_BACK = 6


def word_shape(w: str) -> str:
    """ "CoSQL" → "XxX", "ImageNet-1k" → "XxX-dx": runs of character classes, collapsed."""
    out: list[str] = []
    for ch in w:
        c = "X" if ch.isupper() else "x" if ch.islower() else "d" if ch.isdigit() else ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)[:8]


def features(doc: Doc, ph: Phrase, in_title: bool, lexical: bool = True) -> list[str]:
    """Feature strings of one candidate: shape and context always, its own words when `lexical`."""
    toks = doc[ph.start : ph.end]
    ws = [t.text for t in toks]
    head = ws[-1]
    f = [
        "bias",
        f"n={min(len(ws), 4)}",
        f"shape={word_shape(ws[0])}|{word_shape(head)}",
        f"hshape={word_shape(head)}",
        f"cue={cue_before(doc, ph.start)}",
        f"after={word_after(doc, ph.end)}",
        f"tail={list_tail(doc, ph.end)}",
        f"title={in_title}",
        f"htag={toks[-1].tag_}",
        f"ftag={toks[0].tag_}",
        f"hsuf={head.lower()[-3:]}",
        f"caps={sum(1 for w in ws if w[:1].isupper())}/{len(ws)}",
        f"paren={'(' in (doc[ph.end].text if ph.end < len(doc) else '')}",
    ]
    if ph.start >= 2:
        f.append(f"cue2={doc[ph.start - 2].lower_}_{doc[ph.start - 1].lower_}")
    if ph.end + 1 < len(doc):
        f.append(f"after2={doc[ph.end].lower_}_{doc[ph.end + 1].lower_}")
    for t in doc[max(0, ph.start - _VERBS_BACK) : ph.start]:
        if t.tag_.startswith("VB"):
            f.append(f"verb={t.lower_}")
    if lexical:
        f.append(f"head={head.lower()}")
        f.extend(f"w={w.lower()}" for w in ws[:-1])
    return f


def hashed(feats: list[str]) -> np.ndarray:
    return np.fromiter((zlib.crc32(x.encode("utf-8")) % DIM for x in feats), dtype=np.int64, count=len(feats))


@dataclass(frozen=True, slots=True)
class Recogniser:
    """Weights of the trained model; `probs` gives P(class) for hashed features."""

    weights: np.ndarray  # (DIM, len(CLASSES)), float16 on disk
    bias: np.ndarray
    threshold: float

    def probs(self, idx: np.ndarray) -> np.ndarray:
        z = self.weights[idx].astype(np.float32).sum(axis=0) + self.bias
        z = z - z.max()
        e = np.exp(z)
        return np.asarray(e / e.sum())

    def save(self, path: Path, meta: dict[str, str]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(
            path,
            weights=self.weights.astype(np.float16),
            bias=self.bias.astype(np.float32),
            threshold=np.array(self.threshold, dtype=np.float32),
            classes=np.array(CLASSES),
            features_version=np.array(FEATURES_VERSION),
            meta=np.array(sorted(meta.items())),
        )


@functools.lru_cache(maxsize=2)
def load_recogniser(path: Path = MODEL_FILE) -> Recogniser | None:
    """The shipped model, or None when not installed or made for other features."""
    if not path.is_file():
        return None
    with np.load(path, allow_pickle=False) as z:
        if str(z["features_version"]) != FEATURES_VERSION or tuple(z["classes"]) != CLASSES:
            return None
        return Recogniser(z["weights"].astype(np.float32), z["bias"], float(z["threshold"]))


def candidate_spans(doc: Doc) -> list[tuple[int, int, str]]:
    """Token ranges and match keys of the maximal noun-phrase runs (a leading gerund is a verb: "performing
    X"), single generic words left out: what the recogniser classifies."""
    tk = tokens(doc)
    out = []
    for run in doc_runs(doc):
        if len(run) > 1 and run[0][2] == "VBG" and run[0][1] - run[0][0] == 1:
            run = run[1:]
        a, b = run[0][0], run[-1][1]
        key = span_key(tk, a, b)
        if key and not (b - a == 1 and tk.lower[a] in GENERIC):
            out.append((a, b, key))
    return out


def run_candidates(doc: Doc) -> list[Phrase]:
    """`candidate_spans` as phrases."""
    return [phrase(doc, a, b) for a, b, _ in candidate_spans(doc)]


@Language.factory(
    "paperkg_recogniser",
    requires=["token.tag", "doc._.kg_acronyms", "doc._.kg_title_end"],
    assigns=["doc._.kg_mentions"],
)
def make_recogniser(nlp: Language, name: str) -> RecogniserComponent:
    return RecogniserComponent(load_recogniser())


class RecogniserComponent:
    """Pipeline component: adds a mention for each uncovered candidate the model types with confidence."""

    def __init__(self, model: Recogniser | None) -> None:
        self.model = model

    def __call__(self, doc: Doc) -> Doc:
        if self.model is None:
            return doc
        out = mentions(doc)
        taken = [(m["start"], m["end"]) for m in out]
        title_end: int = doc._.kg_title_end or 0
        tk = tokens(doc)
        candidates = candidate_spans(doc)
        defined = {a.short for a in doc._.kg_acronyms or []}  # the canonicaliser types defined acronyms
        taken += [(a.long_start, a.long_end) for a in doc._.kg_acronyms or []]
        counts: dict[str, int] = {}
        for *_, key in candidates:
            counts[key] = counts.get(key, 0) + 1
        for a, b, key in candidates:
            start, end = tk.idx[a], tk.idx[b - 1] + len(tk.text[b - 1])
            if any(s < end and start < e for s, e in taken) or key in GENERIC_TERMS:
                continue
            if b - a == 1 and (name_strength(tk.text[a]) < 2 or tk.text[a] in defined):
                continue  # a single ordinary word is never an entity out of context
            ph = phrase(doc, a, b)
            is_salient = salient(doc, ph, title_end, counts, support=0)
            if not is_salient and not measured(doc, ph):
                continue  # cheap tests first: most runs are neither the paper's topic nor measured
            p = self.model.probs(hashed(features(doc, ph, start < title_end)))
            k = int(p.argmax())
            if k == 0 or p[k] < self.model.threshold:
                continue
            type_ = CLASSES[k]
            if type_ == "Metric" and not measured(doc, ph):
                continue
            if type_ != "Metric" and not is_salient:
                continue  # a name no vocabulary knows must be the paper's topic, not a passing mention
            conf = round(0.25 + 0.45 * float(p[k]), 3)
            out.append(mention(start, end, type_, ph.text, confidence=conf, rule="recogniser"))
        return doc
