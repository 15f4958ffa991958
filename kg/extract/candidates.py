"""Candidate term phrases of a tagged doc: runs of noun-phrase words ending in a noun, and the contexts
around them.

The same candidates feed corpus mining (`kg.mine`), the training data of the phrase recogniser and the
recogniser at run time, so what was counted in the corpus is exactly what is looked up in a new abstract.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, cast

from spacy.tokens import Doc

from kg.extract.common import doc_text
from kg.extract.words import STOP_MODS, words
from kg.names import fold, singular

MAX_WORDS = 6
_KEY_PART = re.compile(r"[a-z0-9]+")
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


@dataclass(slots=True)
class Tokens:
    """A doc's token attributes as plain lists, read once (Token objects are costly to make in bulk)."""

    text: list[str]
    lower: list[str]
    tag: list[str]
    ws: list[bool]
    idx: list[int]
    parts: list[list[str]]  # the match-key pieces of each token (kg.names.match_key without the plural rule)
    sent: list[int]  # sentence number of each token
    numeric_sents: set[int]  # sentences holding a number or a percent sign


# spaCy keeps `doc._.name` in user_data under this key; hot paths read it directly (the Underscore
# wrapper costs ~10 µs per access, and these are read tens of thousands of times per hundred abstracts)
_TOKS = ("._.", "kg_toks", None, None)
_RUNS = ("._.", "kg_runs", None, None)


def _user_data(doc: Doc) -> dict[Any, Any]:
    return cast(dict[Any, Any], doc.user_data)


def tokens(doc: Doc) -> Tokens:
    """The token table of a doc, computed once."""
    data = _user_data(doc)
    out: Tokens | None = data.get(_TOKS)  # doc._.kg_toks, read without the extension machinery
    if out is None:
        text, lower, tag, ws, idx, parts, sent = [], [], [], [], [], [], []
        numeric: set[int] = set()
        n_sent = -1
        starts = doc.has_annotation("SENT_START")
        for t in doc:
            if n_sent < 0 or (starts and t.is_sent_start):
                n_sent += 1
            text.append(t.text)
            lower.append(t.lower_)
            tag.append(t.tag_)
            ws.append(bool(t.whitespace_))
            idx.append(t.idx)
            low = t.lower_
            parts.append(_KEY_PART.findall(low if low.isascii() else fold(t.text)))
            sent.append(n_sent)
            if t.like_num or t.text == "%":
                numeric.add(n_sent)
        out = data[_TOKS] = Tokens(text, lower, tag, ws, idx, parts, sent, numeric)
    return out


def _units(tk: Tokens) -> list[Unit]:
    """Tokens with hyphen/slash compounds joined ("in-context", "sim-to-real"): (start, end, tag of last)."""
    out: list[Unit] = []
    i, n = 0, len(tk.text)
    while i < n:
        j = i
        while (
            j + 2 < n
            and tk.text[j + 1] in ("-", "–", "/")
            and not tk.ws[j]
            and not tk.ws[j + 1]
            and any(c.isalnum() for c in tk.text[j + 2])
        ):
            j += 2
        out.append((i, j + 1, tk.tag[j]))
        i = j + 1
    return out


def _usable(tk: Tokens, start: int, end: int, tag: str) -> bool:
    if end - start > 1:  # a compound: any word with letters that is not an evaluative compound
        text = "".join(tk.text[start:end])
        return any(c.isalpha() for c in text) and text.lower() not in BREAK
    return tag in _INSIDE and tag != "HYPH" and tk.lower[start] not in BREAK and len(tk.text[start]) < 40


def _head_ok(unit: Unit, n_units: int, tk: Tokens) -> bool:
    """A unit that can end a term: a noun, a compound, or a term gerund after another word."""
    start, end, tag = unit
    if tag in _NOUN or end - start > 1:
        return True
    return tag == "VBG" and n_units >= 2 and tk.lower[start] in GERUND_HEADS


def runs(doc: Doc) -> list[list[Unit]]:
    """Maximal runs of noun-phrase units (words or compounds) ending in a noun or a compound."""
    tk = tokens(doc)
    out: list[list[Unit]] = []
    current: list[Unit] = []

    def close() -> None:
        while current and not _head_ok(current[-1], len(current), tk):
            current.pop()
        while current and current[0][2] == "CD":
            current.pop(0)
        if current:
            out.append(list(current))
        current.clear()

    for start, end, tag in _units(tk):
        if _usable(tk, start, end, tag) and not any("\n" in t for t in tk.text[start:end]):
            current.append((start, end, tag))
            if len(current) > MAX_WORDS:
                current.pop(0)
        else:
            close()
    close()
    return out


def doc_runs(doc: Doc) -> list[list[Unit]]:
    """`runs(doc)`, computed once per doc (the term finder and the recogniser both read them)."""
    data = _user_data(doc)
    out: list[list[Unit]] | None = data.get(_RUNS)
    if out is None:
        out = data[_RUNS] = runs(doc)
    return out


def span_key(tk: Tokens, start: int, end: int) -> str:
    """`match_key` of the text of tokens [start, end), from the per-token pieces."""
    pieces = [p for parts in tk.parts[start:end] for p in parts]
    if pieces and pieces[-1].isalpha():
        pieces[-1] = singular(pieces[-1])
    return "".join(pieces)


def phrase(doc: Doc, start: int, end: int) -> Phrase:
    tk = tokens(doc)
    text = doc_text(doc)[tk.idx[start] : tk.idx[end - 1] + len(tk.text[end - 1])]
    return Phrase(start, end, text, span_key(tk, start, end), tk.lower[end - 1])


def sub_spans(doc: Doc, run: list[Unit]) -> list[tuple[int, int]]:
    """Token ranges of every contiguous part of a run that ends in a noun (the term and those inside it)."""
    tk = tokens(doc)
    out: list[tuple[int, int]] = []
    for a in range(len(run)):
        if run[a][2] == "CD" and run[a][1] - run[a][0] == 1:
            continue
        for b in range(a, len(run)):
            if _head_ok(run[b], b - a + 1, tk):
                out.append((run[a][0], run[b][1]))
    return out


def sub_phrases(doc: Doc, run: list[Unit]) -> list[Phrase]:
    """Every contiguous part of a run that ends in a noun: the term and the terms nested in it."""
    return [phrase(doc, a, b) for a, b in sub_spans(doc, run)]


def cue_before(doc: Doc, start: int) -> str:
    """The word that governs a phrase from the left ("using", "for", "study"), skipping determiners."""
    tk = tokens(doc)
    i = start - 1
    while i >= 0 and (tk.lower[i] in _SKIPPED_BEFORE or tk.tag[i] in ("DT", "PRP$")):
        i -= 1
    if i < 0:
        return "<s>"
    low = tk.lower[i]
    if low in ("on", "to", "of", "in") and i >= 1 and tk.lower[i - 1] in ("based", "applied", "due"):
        return tk.lower[i - 1] + "_" + low
    return low


_SKIPPED_BEFORE = STOP_MODS - words("using via resulting")


def word_after(doc: Doc, end: int) -> str:
    tk = tokens(doc)
    return tk.lower[end] if end < len(tk.lower) else "</s>"


def list_tail(doc: Doc, end: int, limit: int = 14) -> str:
    """The word after a coordinated list that continues past `end` ("X, Y and Z datasets" → "datasets")."""
    tk = tokens(doc)
    i, n = end, len(tk.text)
    while i < n and i - end < limit and (tk.text[i] in (",", "and", "or", "&") or tk.tag[i] in _INSIDE):
        i += 1
    return tk.lower[i - 1] if i > end and tk.tag[i - 1] in _NOUN else ""
