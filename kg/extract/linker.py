"""The trained linker (`paperkg_linker`): which phrases of a paper are its entities, of which type.

The rule components before it propose; this component decides. Its candidates are every noun-phrase run of
the abstract and title (and every part of one that ends in a noun), every mention a rule component made and
every acronym definition, grouped by match form. Each candidate is described by sparse features (its words,
shape, head, the words around each occurrence, which rules proposed it and as what, the vocabularies' entry)
and dense ones (corpus word vectors of its words and context); a small network trained on the annotated gold
(`kg train`, kg/learn/linker_train.py) gives the probability of each category, calibrated on cross-validated
predictions. A candidate whose best category clears its threshold becomes a mention for the canonicaliser,
with that probability as its confidence.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from spacy.language import Language
from spacy.tokens import Doc

from kg.extract.candidates import Tokens, doc_runs, sub_spans, tokens
from kg.extract.common import Mention, doc_text, mention
from kg.extract.lexicon import Lexicon, load_lexicon
from kg.extract.recogniser import word_shape
from kg.extract.terms import TierTerm, load_tier
from kg.names import match_key

MODELS = Path(__file__).resolve().parent / "models"
MODEL_FILE = MODELS / "linker.npz"
VECTORS_FILE = MODELS / "wordvecs.npz"
# What the network predicts for a candidate: one probability each (a proposed dataset is proposed and a
# dataset; a model is a method the gold lists apart).
LABELS = ("proposed", "tasks", "datasets", "methods", "metrics", "domains", "threats", "models")
TYPE_OF_LABEL = {
    "tasks": "Task",
    "datasets": "Dataset",
    "methods": "Method",
    "metrics": "Metric",
    "domains": "Domain",
    "threats": "Threat",
}
RULE = "model:linker"  # + "/curated" or "/mined" when the linked phrase is a vocabulary entry's
FEATURES_VERSION = "1"
CONTEXT = 6  # words either side that make an occurrence's context vector
_OWN = frozenset(["we", "our", "us"])
_NUMBER = re.compile(r"^\d")
_TRAILING_DIGITS = re.compile(r"[\d.]+$")
# TeX math is no part of a name ("ImageNet256$\times$256", "l_2$-regularization"): the name inside it, if
# any, is a candidate of its own
_TEX = re.compile(r"\$|\\[a-zA-Z]")


@dataclass(frozen=True, slots=True)
class Candidate:
    """A phrase of the doc (all occurrences of one match form) and what describes it."""

    key: str
    surface: str  # the first occurrence as written
    occurrences: tuple[tuple[int, int], ...]  # doc character offsets
    features: tuple[str, ...]
    words: tuple[str, ...]  # lower-case words of the phrase, for its vectors
    before: tuple[str, ...]  # the word before each occurrence
    after: tuple[str, ...]
    context: tuple[str, ...]  # the words around every occurrence


def _rule_family(rule: str) -> str:
    return _TRAILING_DIGITS.sub("", rule).split(":")[0][:30]


def candidate_spans(doc: Doc) -> list[tuple[int, int]]:
    """Character spans of every candidate occurrence: runs and their parts, rule mentions, acronyms."""
    tk = tokens(doc)
    spans: set[tuple[int, int]] = set()
    for run in doc_runs(doc):
        for a, b in sub_spans(doc, run):
            spans.add((tk.idx[a], tk.idx[b - 1] + len(tk.text[b - 1])))
    for m in doc._.kg_mentions or []:
        spans.add((int(m["start"]), int(m["end"])))
    for a in doc._.kg_acronyms or []:
        spans.add((a.short_start, a.short_end))
        spans.add((a.long_start, a.long_end))
    return sorted(spans)


def _token_at(idx: list[int], char: int) -> int:
    """The token holding character `char` (tokens start at `idx`)."""
    return max(bisect.bisect_right(idx, char) - 1, 0)


class _Index:
    """Token positions of a doc by character offset, and per-sentence facts, computed once."""

    def __init__(self, doc: Doc, tk: Tokens) -> None:
        self.idx = tk.idx
        self.starts = {s: i for i, s in enumerate(tk.idx)}
        self.ends = {s + len(t): i for i, (s, t) in enumerate(zip(tk.idx, tk.text, strict=True))}
        self.last_sent = tk.sent[-1] if tk.sent else 0
        self.own: set[int] = set()
        for i, low in enumerate(tk.lower):
            if low in _OWN:
                self.own.add(tk.sent[i])


def candidates(doc: Doc, lexicon: Lexicon, tier: dict[str, TierTerm]) -> list[Candidate]:
    """The doc's candidates in order of first occurrence, each with its features."""
    text = doc_text(doc)
    tk = tokens(doc)
    ix = _Index(doc, tk)
    title_end = text.find("\n\n")
    by_span: dict[tuple[int, int], list[Mention]] = {}
    for m in doc._.kg_mentions or []:
        by_span.setdefault((int(m["start"]), int(m["end"])), []).append(m)
    shorts = {a.short for a in doc._.kg_acronyms or []}
    short_spans = {(a.short_start, a.short_end) for a in doc._.kg_acronyms or []}
    long_spans = {(a.long_start, a.long_end) for a in doc._.kg_acronyms or []}
    groups: dict[str, list[tuple[int, int]]] = {}
    for s, e in candidate_spans(doc):
        # a rule's mention may be part of a token ("ImageNet" of "ImageNet256$\times$256")
        if (s in ix.starts and e in ix.ends) or (s, e) in by_span:
            key = match_key(text[s:e])
            if key:
                groups.setdefault(key, []).append((s, e))
    out = []
    for key, occ in groups.items():
        surface = text[occ[0][0] : occ[0][1]]
        words = surface.split()
        low = [w.lower() for w in words]
        f = {
            "bias",
            "p=" + surface.lower(),
            "h=" + low[-1],
            "f=" + low[0],
            "hs3=" + low[-1][-3:],
            "hs4=" + low[-1][-4:],
            "sh=" + " ".join(word_shape(w) for w in words)[:20],
            "hsh=" + word_shape(words[-1]),
            f"nw={min(len(words), 6)}",
            f"cnt={min(len(occ), 4)}",
        }
        f.update("w=" + w for w in low)
        entry = lexicon.lookup(surface)
        if entry is not None:
            f.add("voc=" + entry.ref.type)
            f.add(f"vock={entry.ref.kind}")
        term = tier.get(match_key(surface))
        if term is not None:
            f.add("mt=" + term.type)
            f.add(f"ms={min(int(math.log2(1 + term.support)), 10)}")
            if term.alt_type:
                f.add("mta=" + term.alt_type)
        if surface in shorts or any(o in short_spans for o in occ):
            f.add("acr_short")
        if any(o in long_spans for o in occ):
            f.add("acr_long")
        before, after, context = [], [], []
        for s, e in occ:
            i, j = ix.starts.get(s), ix.ends.get(e)
            if i is None or j is None:
                i, j = _token_at(ix.idx, s), _token_at(ix.idx, e - 1)
            in_title = s < title_end
            f.add("title" if in_title else "abs")
            si = tk.sent[i]
            if si == 1 or (title_end < 0 and si == 0):
                f.add("firstsent")
            if si == ix.last_sent:
                f.add("lastsent")
            if in_title and all(w[:1].isupper() for w in words):
                f.add("titlecase")
            if text.startswith(" (", e):
                f.add("paren_after")
            if text[max(0, s - 1) : s] == "(":
                f.add("in_paren")
            if text[max(0, s - 1) : s] in ('"', "“"):
                f.add("quoted")
            f.add(f"sentpos={min(si, 6)}")
            b1 = tk.lower[i - 1] if i > 0 else "<s>"
            b2 = tk.lower[i - 2] if i > 1 else "<s>"
            a1 = tk.lower[j + 1] if j + 1 < len(tk.lower) else "</s>"
            a2 = tk.lower[j + 2] if j + 2 < len(tk.lower) else "</s>"
            f.update(("b1=" + b1, f"b2={b2}_{b1}", "a1=" + a1, f"a2={a1}_{a2}"))
            f.add("b1t=" + (tk.tag[i - 1] if i > 0 else "<s>"))
            f.add("a1t=" + (tk.tag[j + 1] if j + 1 < len(tk.tag) else "</s>"))
            f.update("v=" + tk.lower[q] for q in range(max(0, i - 6), i) if tk.tag[q].startswith("VB"))
            if si in ix.own:
                f.add("own")
            if si in tk.numeric_sents:
                f.add("num")
            for m in by_span.get((s, e), ()):
                f.add("rt=" + m["type"])
                f.add("rrel=" + m["relation"])
                f.add("rr=" + _rule_family(m["rule"]))
                f.add(f"rk={m['kind']}")
                f.add(f"rc={int(m['confidence'] * 10)}")
            if i > 0:
                before.append(tk.lower[i - 1])
            if j + 1 < len(tk.lower):
                after.append(tk.lower[j + 1])
            context += tk.lower[max(0, i - CONTEXT) : i] + tk.lower[j + 1 : j + 1 + CONTEXT]
        out.append(
            Candidate(
                key,
                surface,
                tuple(occ),
                tuple(sorted(f)),
                tuple(low),
                tuple(before),
                tuple(after),
                tuple(context),
            )
        )
    return out


@dataclass(frozen=True)
class WordVectors:
    """Corpus word vectors (lower-cased words), as the linker's dense features read them."""

    index: dict[str, int]
    vectors: NDArray[np.float32]

    @classmethod
    def load(cls, path: Path = VECTORS_FILE) -> WordVectors:
        with np.load(path, allow_pickle=False) as data:
            words = str(data["words"]).split("\n")
            return cls({w: i for i, w in enumerate(words)}, data["vectors"].astype(np.float32))

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    def mean(self, words: Iterable[str]) -> NDArray[np.float32]:
        rows = [self.index[w] for w in words if w in self.index]
        if not rows:
            return np.zeros(self.dim, dtype=np.float32)
        return self.vectors[rows].mean(axis=0)  # type: ignore[no-any-return]

    def dense(self, cands: Sequence[Candidate]) -> NDArray[np.float32]:
        """Each candidate's dense features: mean vector of its words, of its head, of the words before and
        after its occurrences, and of the words around them."""
        out = np.zeros((len(cands), 5 * self.dim), dtype=np.float32)
        for r, c in enumerate(cands):
            out[r] = np.concatenate(
                [
                    self.mean(c.words),
                    self.mean(c.words[-1:]),
                    self.mean(c.before),
                    self.mean(c.after),
                    self.mean(c.context),
                ]
            )
        return out


@dataclass(frozen=True)
class LinkerModel:
    """The trained network (sparse feature embeddings + dense projection → two hidden layers → one logit
    per label), its calibration and thresholds; numpy only at run time."""

    features: dict[str, int]
    embed: NDArray[np.float32]  # features × hidden
    dense_mean: NDArray[np.float32]
    dense_scale: NDArray[np.float32]
    dense_w: NDArray[np.float32]  # dense × hidden
    b0: NDArray[np.float32]
    w1: NDArray[np.float32]
    b1: NDArray[np.float32]
    w2: NDArray[np.float32]
    b2: NDArray[np.float32]
    calibration: tuple[tuple[NDArray[np.float64], NDArray[np.float64]], ...]  # per label: (x, y) isotonic
    thresholds: NDArray[np.float64]  # per label, on the calibrated probability
    info: dict[str, str]

    @classmethod
    def load(cls, path: Path = MODEL_FILE) -> LinkerModel:
        with np.load(path, allow_pickle=False) as d:
            names = [str(f) for f in d["features"].tolist()]
            n = len(LABELS)
            calibration = tuple(
                (d[f"cal_x{j}"].astype(np.float64), d[f"cal_y{j}"].astype(np.float64)) for j in range(n)
            )
            info = dict(line.split("=", 1) for line in str(d["info"]).split("\n") if "=" in line)
            return cls(
                {f: i for i, f in enumerate(names)},
                d["embed"].astype(np.float32),
                d["dense_mean"].astype(np.float32),
                d["dense_scale"].astype(np.float32),
                d["dense_w"].astype(np.float32),
                d["b0"].astype(np.float32),
                d["w1"].astype(np.float32),
                d["b1"].astype(np.float32),
                d["w2"].astype(np.float32),
                d["b2"].astype(np.float32),
                calibration,
                d["thresholds"].astype(np.float64),
                info,
            )

    def raw(self, cands: Sequence[Candidate], dense: NDArray[np.float32]) -> NDArray[np.float64]:
        """Uncalibrated probabilities, candidates × labels."""
        h = np.zeros((len(cands), self.embed.shape[1]), dtype=np.float32)
        for r, c in enumerate(cands):
            ids = [i for f in c.features if (i := self.features.get(f)) is not None]
            if ids:
                h[r] = self.embed[ids].sum(axis=0)
        x = (dense - self.dense_mean) / self.dense_scale
        h = np.maximum(h + x @ self.dense_w + self.b0, 0)
        h = np.maximum(h @ self.w1 + self.b1, 0)
        logits = (h @ self.w2 + self.b2).astype(np.float64)
        return 1.0 / (1.0 + np.exp(-logits))  # type: ignore[no-any-return]

    @property
    def all_occurrences(self) -> bool:
        """Whether a linked phrase is linked wherever the text writes it (a decoding choice, in `info`)."""
        return self.info.get("all_occurrences") == "1"

    @property
    def rule_types(self) -> frozenset[str]:
        """Entity types the rules link instead of the network (chosen by cross-validation, in `info`)."""
        return frozenset(t for t in self.info.get("rule_types", "").split(",") if t)

    def calibrated(self, raw: NDArray[np.float64]) -> NDArray[np.float64]:
        out = np.empty_like(raw)
        for j, (x, y) in enumerate(self.calibration):
            out[:, j] = np.interp(raw[:, j], x, y) if len(x) else raw[:, j]
        return out


@dataclass(frozen=True, slots=True)
class Decision:
    """What the linker says of one candidate: its category (or None), whether proposed, the confidence."""

    label: str | None
    proposed: bool
    confidence: float


def decide(probs: NDArray[np.float64], thresholds: NDArray[np.float64]) -> Decision:
    """A candidate's decision from its calibrated probabilities: proposed when that clears its threshold
    (a proposed dataset when the dataset probability is the larger half), else the type whose probability
    clears its threshold by the widest ratio; a method the models label holds more than half as strongly
    is a model."""
    p = probs
    if p[0] > thresholds[0]:
        return Decision("datasets" if p[2] > 0.5 else None, True, float(p[0]))
    best = max(range(1, 7), key=lambda j: p[j] / thresholds[j])
    if p[best] <= thresholds[best]:
        return Decision(None, False, float(p[best]))
    label = LABELS[best]
    if label == "methods" and p[7] > 0.5 * p[3]:
        label = "models"
    return Decision(label, False, float(p[best]))


class _RuleMentions:
    """The rule components' mentions of a doc by span, and the doc's token boundaries, read once."""

    def __init__(self, doc: Doc, mentions: Sequence[Mention]) -> None:
        self.text = doc_text(doc)
        tk = tokens(doc)
        self.starts = set(tk.idx)
        self.ends = {s + len(t) for s, t in zip(tk.idx, tk.text, strict=True)}
        self.vocab = [m for m in mentions if m["rule"].startswith("vocab")]
        self.at_span: dict[tuple[int, int], list[Mention]] = {}
        for m in mentions:
            self.at_span.setdefault((int(m["start"]), int(m["end"])), []).append(m)

    def at(self, span: tuple[int, int], type_: str) -> list[Mention]:
        """The rule mentions at this very span with this type (two: a coordination the rules split)."""
        return [m for m in self.at_span.get(span, ()) if m["type"] == type_]

    def carried(self, span: tuple[int, int], type_: str) -> Mention | None:
        """The rule mention at this very span with this type, whose name, kind and vocabulary links a linked
        mention keeps; else a vocabulary mention of this type inside the span when the rest of the span
        holds no letter (the size or resolution of "ImageNet256×256" is no part of ImageNet's name)."""
        exact = self.at(span, type_)
        if exact:
            return exact[0]
        for m in self.vocab:
            s, e = int(m["start"]), int(m["end"])
            if m["type"] == type_ and span[0] <= s and e <= span[1]:
                rest = self.text[span[0] : s] + self.text[e : span[1]]
                if not any(c.isalpha() for c in rest):
                    return m
        return None

    def every_occurrence(self, cand: Candidate) -> tuple[tuple[int, int], ...]:
        """A linked phrase's occurrences and every other place the text writes it (whole tokens, same match
        key), so that a piece of it elsewhere ("Adaptive Semantic Segmentation" inside the title's "Domain
        Adaptive Semantic Segmentation") is seen to be nested in it, however the candidates were cut."""
        found = set(cand.occurrences)
        for m in re.finditer(re.escape(cand.surface), self.text, re.I):
            if m.start() in self.starts and m.end() in self.ends and match_key(m.group()) == cand.key:
                found.add((m.start(), m.end()))
        return tuple(sorted(found))


def mentions_for(
    doc: Doc,
    cands: Sequence[Candidate],
    decisions: Sequence[Decision],
    kind_of: Any = None,
    rule_types: frozenset[str] = frozenset(),
    *,
    all_occurrences: bool = False,
) -> list[Mention]:
    """The mentions the linker keeps: every occurrence of every candidate it links (`all_occurrences`: and
    every other place the text writes it); for `rule_types` (types where cross-validation found the rules
    better than the model) the rule components' mentions instead."""
    rule_mentions: list[Mention] = list(doc._.kg_mentions or [])
    rules = _RuleMentions(doc, rule_mentions)
    out: list[Mention] = [m for m in rule_mentions if m["type"] in rule_types]
    for cand, dec in zip(cands, decisions, strict=True):
        if (dec.label is None and not dec.proposed) or _TEX.search(cand.surface):
            continue
        if dec.proposed:
            type_ = "Dataset" if dec.label == "datasets" else "Method"
            relation = "introducesDataset" if type_ == "Dataset" else "proposes"
        else:
            type_ = "Model" if dec.label == "models" else TYPE_OF_LABEL[dec.label or "methods"]
            relation = None
        if type_ in rule_types:
            continue
        spans = rules.every_occurrence(cand) if all_occurrences else cand.occurrences
        as_method = "Method" if type_ == "Model" else type_
        bases = {o: rules.carried(o, type_) or rules.carried(o, as_method) for o in spans}
        # what a rule said of the phrase at one place (its vocabulary name, its kind) holds where it recurs
        fallback = next((b for b in bases.values() if b is not None), None)
        for s, e in spans:
            # a coordinated phrase the rules split ("image/video generation": two tasks) keeps every part
            for part in rules.at((s, e), type_)[1:]:
                out.append(_linked(part, s, e, type_, relation, dec.confidence))
            base = bases[(s, e)] or fallback
            if base is not None:
                out.append(_linked(base, s, e, type_, relation, dec.confidence))
                continue
            kind = kind_of(cand.surface, type_) if kind_of else None
            out.append(
                mention(s, e, type_, rules.text[s:e], kind=kind, relation=relation,
                        confidence=round(dec.confidence, 3), rule=RULE)
            )
    return out


def _linked(
    base: Mention, s: int, e: int, type_: str, relation: str | None, confidence: float
) -> Mention:
    """A linked mention named, typed and placed as the rule mention `base` at this span says."""
    source = _tier_of(base["rule"])
    m = mention(
        s,
        e,
        type_,
        base["name"],
        kind=base["kind"],
        relation=relation or (base["relation"] if base["type"] == type_ else None),
        confidence=round(confidence, 3),
        rule=f"{RULE}/{source}" if source else RULE,
    )
    m["variant_of"], m["broader"], m["alias"] = base["variant_of"], base["broader"], base["alias"]
    return m


def _tier_of(rule: str) -> str | None:
    """The vocabulary tier a rule mention came from (curated, mined), which a linked mention keeps."""
    return "curated" if rule.startswith("vocab") else "mined" if rule.startswith("mined") else None


@Language.factory(
    "paperkg_linker",
    default_config={"base_iri": "https://w3id.org/paperkg/"},
    requires=["doc._.kg_mentions", "doc._.kg_acronyms", "token.tag"],
    assigns=["doc._.kg_mentions", "doc._.kg_rule_mentions"],
)
def make_linker(nlp: Language, name: str, base_iri: str) -> Linker:
    return Linker(LinkerModel.load(), WordVectors.load(), load_lexicon(base_iri), load_tier(base_iri))


class Linker:
    """Pipeline component: replaces the rule components' mentions by the mentions the model links (the
    rules' are kept in `doc._.kg_rule_mentions`, where the results extractor reads the vocabulary's)."""

    def __init__(
        self,
        model: LinkerModel,
        vectors: WordVectors,
        lexicon: Lexicon,
        tier: dict[str, TierTerm],
    ) -> None:
        self.model, self.vectors, self.lexicon, self.tier = model, vectors, lexicon, tier

    def probabilities(self, doc: Doc) -> tuple[list[Candidate], NDArray[np.float64]]:
        """The doc's candidates and their calibrated probabilities (candidates × LABELS)."""
        cands = candidates(doc, self.lexicon, self.tier)
        if not cands:
            return cands, np.zeros((0, len(LABELS)))
        raw = self.model.raw(cands, self.vectors.dense(cands))
        return cands, self.model.calibrated(raw)

    def __call__(self, doc: Doc) -> Doc:
        cands, probs = self.probabilities(doc)
        return self.apply(doc, cands, probs)

    def apply(self, doc: Doc, cands: Sequence[Candidate], probs: NDArray[np.float64]) -> Doc:
        """Link the candidates whose calibrated probabilities clear the thresholds."""
        decisions = [decide(p, self.model.thresholds) for p in probs]
        doc._.kg_rule_mentions = list(doc._.kg_mentions or [])
        doc._.kg_mentions = mentions_for(
            doc,
            cands,
            decisions,
            kind_of,
            self.model.rule_types,
            all_occurrences=self.model.all_occurrences,
        )
        return doc


def kind_of(surface: str, type_: str) -> str | None:
    """The finer kind of a linked method or dataset named by no rule: from its head noun ("… attack")."""
    from kg.extract.common import KIND_BY_HEAD

    head = surface.lower().split()[-1] if surface.split() else ""
    hit = KIND_BY_HEAD.get(head)
    if hit and hit[0] == ("Dataset" if type_ == "Dataset" else "Method") and type_ in ("Dataset", "Method"):
        return hit[1] if hit[1] not in ("Method", "Dataset") else None
    return None
