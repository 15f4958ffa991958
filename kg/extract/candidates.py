"""Candidate term phrases of a tagged doc: runs of noun-phrase words ending in a noun, and the contexts
around them.

The same candidates feed corpus mining (`kg.mine`), the training data of the phrase recogniser and the
recogniser at run time, so what was counted in the corpus is exactly what is looked up in a new abstract.
"""

from __future__ import annotations

from dataclasses import dataclass

from spacy.tokens import Doc

from kg.extract.words import STOP_MODS, words
from kg.names import match_key

MAX_WORDS = 6
_NOUN = frozenset(["NN", "NNS", "NNP", "NNPS", "FW"])
_INSIDE = _NOUN | frozenset(["JJ", "JJR", "VBG", "VBN", "CD", "HYPH", "NFP"])
# Determiners and evaluative words end a run: "a novel X", "state-of-the-art X", "Our X".
BREAK = STOP_MODS | words(
    "extensive empirical theoretical comprehensive state-of-the-art sota superior competitive promising "
    "remarkable substantial notable considerable great greater huge vast wide broad numerous massive "
    "limited certain particular whole entire e.g. i.e. etc al et w.r.t end-to-end including using following "
    "according regarding concerning involving containing considering excluding comprising given"
)
# Nouns too generic to start a term or be one alone ("method", "results", "performance").
GENERIC = words(
    "method methods approach approaches paper papers work works result results performance model models "
    "framework frameworks experiment experiments way ways lot lots kind kinds type types variety number "
    "numbers amount amounts range set sets part parts use uses problem problems task tasks technique "
    "techniques algorithm algorithms data information issue issues challenge challenges analysis study "
    "studies setting settings scenario scenarios case cases application applications system systems "
    "solution solutions baseline baselines strategy strategies process processes manner terms order "
    "effect effects impact quality capability capabilities ability abilities improvement improvements "
    "advantage advantages benefit benefits limitation limitations need needs insight insights idea ideas "
    "aspect aspects property properties feature features component components level levels step steps "
    "value values fact factor factors existence evidence goal goals purpose version versions"
)


# Gerunds that head a term after a noun ("message passing", "ray casting", "token masking").
GERUND_HEADS = words(
    "passing casting checking hashing masking smoothing sampling learning training tuning pretraining "
    "pre-training fine-tuning finetuning prompting decoding encoding embedding pooling filtering clustering "
    "ranking matching tracking modeling modelling planning reasoning understanding parsing tagging labeling "
    "labelling editing inpainting denoising forecasting mapping pruning scheduling routing testing computing "
    "programming rendering splatting processing mining answering captioning boosting bagging weighting "
    "tracing caching batching sharing shaping stacking linking grounding captioning coding searching"
)


def _head_ok(unit: Unit, n_units: int, doc: Doc) -> bool:
    """A unit that can end a term: a noun, a compound, or a term gerund after another word."""
    start, end, tag = unit
    if tag in _NOUN or end - start > 1:
        return True
    return tag == "VBG" and n_units >= 2 and doc[start].lower_ in GERUND_HEADS


@dataclass(frozen=True, slots=True)
class Phrase:
    """A candidate term: tokens [start, end) of the doc, its text, match key and head (last word)."""

    start: int
    end: int
    text: str
    key: str
    head: str

    @property
    def n_words(self) -> int:
        return len(self.text.split())


Unit = tuple[int, int, str]


def _units(doc: Doc) -> list[tuple[int, int, str]]:
    """Tokens with hyphen/slash compounds joined ("in-context", "sim-to-real"): (start, end, tag of last)."""
    out: list[tuple[int, int, str]] = []
    i, n = 0, len(doc)
    while i < n:
        j = i
        while (
            j + 2 < n
            and doc[j + 1].text in ("-", "–", "/")
            and not doc[j].whitespace_
            and not doc[j + 1].whitespace_
            and (doc[j + 2].is_alpha or doc[j + 2].like_num or any(c.isalpha() for c in doc[j + 2].text))
        ):
            j += 2
        out.append((i, j + 1, doc[j].tag_ if j > i else doc[i].tag_))
        i = j + 1
    return out


def _usable(doc: Doc, start: int, end: int, tag: str) -> bool:
    if end - start > 1:  # a compound: any word with letters that is not an evaluative compound
        text = doc[start:end].text
        return any(c.isalpha() for c in text) and text.lower() not in BREAK
    tok = doc[start]
    return tag in _INSIDE and tag != "HYPH" and tok.lower_ not in BREAK and len(tok.text) < 40


def runs(doc: Doc) -> list[list[Unit]]:
    """Maximal runs of noun-phrase units (words or compounds) ending in a noun or a compound."""
    out: list[list[Unit]] = []
    current: list[tuple[int, int, str]] = []

    def close() -> None:
        while current and not _head_ok(current[-1], len(current), doc):
            current.pop()
        while current and current[0][2] == "CD":
            current.pop(0)
        if current:
            out.append(list(current))
        current.clear()

    for start, end, tag in _units(doc):
        if _usable(doc, start, end, tag) and "\n" not in doc[start:end].text:
            current.append((start, end, tag))
            if len(current) > MAX_WORDS:
                current.pop(0)
        else:
            close()
    close()
    return out


def doc_runs(doc: Doc) -> list[list[Unit]]:
    """`runs(doc)`, computed once per doc (the term finder and the recogniser both read them)."""
    out: list[list[Unit]] | None = doc._.kg_runs
    if out is None:
        out = doc._.kg_runs = runs(doc)
    return out


def phrase(doc: Doc, start: int, end: int) -> Phrase:
    span = doc[start:end]
    text = span.text
    return Phrase(start, end, text, match_key(text), doc[end - 1].lower_)


def sub_phrases(doc: Doc, run: list[Unit]) -> list[Phrase]:
    """Every contiguous part of a run that ends in a noun: the term and the terms nested in it."""
    out: list[Phrase] = []
    for a in range(len(run)):
        if run[a][2] == "CD" and run[a][1] - run[a][0] == 1:
            continue
        for b in range(a, len(run)):
            if not _head_ok(run[b], b - a + 1, doc):
                continue
            out.append(phrase(doc, run[a][0], run[b][1]))
    return out


def cue_before(doc: Doc, start: int) -> str:
    """The word that governs a phrase from the left ("using", "for", "study"), skipping determiners."""
    i = start - 1
    while i >= 0 and (doc[i].lower_ in _SKIPPED_BEFORE or doc[i].tag_ in ("DT", "PRP$")):
        i -= 1
    if i < 0:
        return "<s>"
    low = doc[i].lower_
    if low in ("on", "to", "of", "in") and i >= 1 and doc[i - 1].lower_ in ("based", "applied", "due"):
        return doc[i - 1].lower_ + "_" + low
    return low


_SKIPPED_BEFORE = STOP_MODS - words("using via resulting")


def word_after(doc: Doc, end: int) -> str:
    return doc[end].lower_ if end < len(doc) else "</s>"


def list_tail(doc: Doc, end: int, limit: int = 14) -> str:
    """The word after a coordinated list that continues past `end` ("X, Y and Z datasets" → "datasets")."""
    i, n = end, len(doc)
    while i < n and i - end < limit and (doc[i].text in (",", "and", "or", "&") or doc[i].tag_ in _INSIDE):
        i += 1
    return doc[i - 1].lower_ if i > end and doc[i - 1].tag_ in _NOUN else ""
