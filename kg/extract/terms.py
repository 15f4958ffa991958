"""Mined-tier terms in a doc (`paperkg_terms`): noun-phrase candidates looked up in the mined vocabulary,
typed by how the abstract uses them.

Typing policy (ontology/README.md): a phrase that can name a task or a method ("imitation learning",
"trajectory optimization") is a task where the abstract addresses it ("we study X", "for X", "the X task")
and a method where it is a means ("using X", "via X", "X-based", "an X method"); otherwise its corpus prior.
"""

from __future__ import annotations

import functools
import gzip
from dataclasses import dataclass, field, replace
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc

from kg.extract.acronyms import is_acronym
from kg.extract.candidates import (
    Phrase,
    cue_before,
    doc_runs,
    phrase,
    span_key,
    sub_spans,
    tokens,
    word_after,
)
from kg.extract.common import CONF_PATTERN, CONF_VOCAB, Mention, mention, mentions
from kg.extract.lexicon import Lexicon, load_lexicon
from kg.extract.vocab_matcher import TASK_PART_NOUNS, entry_mention, lowercase_phrase_of_name
from kg.extract.words import EXAMPLE_CUES, METHOD_CUES_BEFORE, TASK_CUES_AFTER, TASK_CUES_BEFORE, words
from kg.names import match_key

TIER_FILE = Path(__file__).resolve().parents[2] / "ontology" / "vocab" / "mined.ttl.gz"
CONF_MINED = 0.6
SKOS = "http://www.w3.org/2004/02/skos/core#"

_TASK_BEFORE, _METHOD_BEFORE, _TASK_AFTER = TASK_CUES_BEFORE, METHOD_CUES_BEFORE, TASK_CUES_AFTER
_METHOD_AFTER = words(
    "method methods algorithm algorithms approach approaches technique techniques "
    "framework module loss objective -based based baseline baselines"
)
# Part nouns after a phrase make it a modifier ("negative sampling ratio" is about the ratio).
_PART_AFTER = words("loss losses module modules layer layers head heads block blocks ratio rate")


@dataclass(frozen=True, slots=True)
class TierTerm:
    """A concept of the mined tier as the extractor uses it."""

    name: str
    type: str
    alt_type: str | None
    support: int
    # the acronym this key was read from ("CLIP"): the phrase must be written so ("clips" is no CLIP)
    written: str | None = None


@dataclass(slots=True)
class _Raw:
    name: str = ""
    type: str = ""
    alt_type: str | None = None
    support: int = 0
    alt: list[str] = field(default_factory=list)


@functools.lru_cache(maxsize=4)
def load_tier(base_iri: str, path: Path = TIER_FILE) -> dict[str, TierTerm]:
    """Match key of every label → concept; empty when the tier is not installed."""
    if not path.is_file():
        return {}
    import pyoxigraph as ox

    ns = base_iri + "ontology#"
    info: dict[str, _Raw] = {}
    for q in ox.parse(gzip.decompress(path.read_bytes()), format=ox.RdfFormat.TURTLE, base_iri=base_iri):
        d = info.setdefault(q.subject.value, _Raw())
        p, o = q.predicate.value, q.object.value
        if p.endswith("#type") and o.startswith(ns):
            d.type = o[len(ns) :]
        elif p == SKOS + "prefLabel":
            d.name = o
        elif p == SKOS + "altLabel":
            d.alt.append(o)
        elif p == ns + "altType":
            d.alt_type = o[len(ns) :]
        elif p == ns + "support":
            d.support = int(o)
    out: dict[str, TierTerm] = {}
    for d in info.values():
        if not d.name or not d.type:
            continue
        term = TierTerm(d.name, d.type, d.alt_type, d.support)
        labels = [term.name, *d.alt]
        plain = {match_key(label) for label in labels if not is_acronym(label)}
        for label in labels:
            if (key := match_key(label)) and len(key) > 3:
                out.setdefault(key, term if key in plain else replace(term, written=label))
    return out


def context_type(doc: Doc, ph: Phrase, term: TierTerm) -> tuple[str, float]:
    """The type the abstract gives the phrase, and how sure (context agreeing or not)."""
    cue, after = cue_before(doc, ph.start), word_after(doc, ph.end)
    if after == "-" and ph.end + 1 < len(doc) and doc[ph.end + 1].lower_ in ("based", "driven", "guided"):
        after = "-based"
    says_task = cue in _TASK_BEFORE or after in _TASK_AFTER
    says_method = cue in _METHOD_BEFORE or after in _METHOD_AFTER
    if term.alt_type and says_task != says_method:
        wanted = "Task" if says_task else "Method"
        if wanted in (term.type, term.alt_type):
            return wanted, 0.1
    return term.type, 0.05 if (says_task and term.type == "Task") or (
        says_method and term.type == "Method"
    ) else 0.0


_MEASURE_WORDS = words(
    "improve improves improved improving reduce reduces reduced reducing achieve achieves achieved achieving "
    "outperform outperforms outperforming higher lower better faster increase increases decrease decreases "
    "terms measured measure evaluate evaluated metric metrics score scores gain gains boost boosts speedup "
    "speed-up cut cuts lowers raises trade-off tradeoff"
)


_OWN = words("we our us")
_LIST_CUES = EXAMPLE_CUES


RARE = 8
ESTABLISHED = 20  # abstracts: a mined term this common is trusted in weaker contexts
_GENERIC_HEAD_AFTER = words(
    "algorithm algorithms method methods approach approaches model models framework frameworks technique "
    "techniques paradigm scheme strategy procedure system systems"
)


def salient(doc: Doc, ph: Phrase, title_end: int, counts: dict[str, int], support: int) -> bool:
    """A term the paper itself is about rather than background: in the title, used twice, governed by a
    task or method cue ("for X", "using X"), or in a sentence where the authors speak ("we", "our", "this
    paper") that is not an example list of the field's background. Rare terms need one of the first three."""
    if doc[ph.start].idx < title_end or counts.get(ph.key, 0) >= 2:
        return True
    cue = cue_before(doc, ph.start)
    if cue in _TASK_BEFORE or cue in _METHOD_BEFORE or word_after(doc, ph.end) in _TASK_AFTER:
        return True  # "for X", "using X", "X tasks"
    if support < RARE:
        return False
    sent = doc[ph.start].sent
    lowered = sent.text.lower()
    before = doc[sent.start : ph.start].text.lower()
    if "this paper" in lowered or "this work" in lowered:
        return True
    return any(t.lower_ in _OWN for t in sent) and not any(c in before for c in _LIST_CUES)


def measured(doc: Doc, ph: Phrase) -> bool:
    """The phrase is measured: a number in its sentence, or a measuring word right before it ("improves X",
    "in terms of X", "higher X")."""
    if cue_before(doc, ph.start) in _MEASURE_WORDS:
        return True
    tk = tokens(doc)
    return tk.sent[ph.start] in tk.numeric_sents


@Language.factory(
    "paperkg_terms",
    default_config={"base_iri": "https://w3id.org/paperkg/"},
    requires=["token.tag", "doc._.kg_acronyms", "doc._.kg_title_end"],
    assigns=["doc._.kg_mentions"],
)
def make_terms(nlp: Language, name: str, base_iri: str) -> TermFinder:
    return TermFinder(load_tier(base_iri), load_lexicon(base_iri))


class TermFinder:
    """Pipeline component: the longest mined-tier term in each noun-phrase run, unless a curated or pattern
    mention already covers it."""

    def __init__(self, tier: dict[str, TierTerm], lexicon: Lexicon | None = None) -> None:
        self.tier = tier
        self.lexicon = lexicon

    def _curated(
        self, doc: Doc, keyed: list[list[tuple[int, int, str]]], taken: list[tuple[int, int]]
    ) -> None:
        """Curated multi-word labels written with other hyphens or spaces than the phrase matcher knows
        ("click-through-rate prediction", "pre trained language model"), found by match key over the runs."""
        if self.lexicon is None:
            return
        out, tk = mentions(doc), tokens(doc)
        for spans in keyed:
            for a, b, key in spans:
                if b - a < 2 and "-" not in tk.text[a]:
                    continue  # single words are the phrase matcher's (and ambiguous out of context)
                entry = self.lexicon.by_key.get(key)
                if entry is None or entry.case_sensitive:
                    continue
                start = tk.idx[a]
                end = tk.idx[b - 1] + len(tk.text[b - 1])
                if any(s < end and start < e for s, e in taken):
                    continue
                if entry.ref.type == "Task" and word_after(doc, b) in TASK_PART_NOUNS:
                    continue  # as in the phrase matcher: "semantic parsing guidance" is not the task
                if entry.ref.type == "Dataset" and lowercase_phrase_of_name(tk.text[a:b], entry.labels):
                    continue  # as in the phrase matcher: "the natural question" is not Natural Questions
                out.append(entry_mention(start, end, entry, confidence=CONF_VOCAB, rule="vocab-key"))
                taken.append((start, end))

    def __call__(self, doc: Doc) -> Doc:
        out = mentions(doc)
        taken = [(m["start"], m["end"]) for m in out if m["confidence"] >= CONF_PATTERN - 0.15]
        tk = tokens(doc)
        # per run, its sub-spans with their match keys, longest first: read by both lookups below
        keyed = [
            sorted(
                ((a, b, span_key(tk, a, b)) for a, b in sub_spans(doc, run)),
                key=lambda s: (s[0] - s[1], s[0]),
            )
            for run in doc_runs(doc)
        ]
        self._curated(doc, keyed, taken)
        if not self.tier:
            return doc
        long_forms = [(a.long_start, a.long_end) for a in doc._.kg_acronyms or []]
        found: list[Mention] = []
        title_end: int = doc._.kg_title_end or 0
        hits: list[list[tuple[int, int, str]]] = []  # per run: the sub-spans whose key is in the tier
        counts: dict[str, int] = {}
        for run_spans in keyed:
            spans = [s for s in run_spans if s[2] in self.tier]
            for *_, key in spans:
                counts[key] = counts.get(key, 0) + 1
            if spans:
                hits.append(spans)
        for spans in hits:
            for a, b, key in spans:
                term = self.tier[key]
                ph = phrase(doc, a, b)
                if term.written is not None and ph.text not in (term.written, term.written + "s"):
                    continue  # "video clips" is not CLIP: an acronym matches only as written
                start, end = tk.idx[a], tk.idx[a] + len(ph.text)
                if any(s < end and start < e and not (start <= s and e <= end) for s, e in taken):
                    continue  # overlaps a mention it does not contain (a longer term wins over one inside it)
                if any(s <= start and end <= e and (start, end) != (s, e) for s, e in long_forms):
                    continue  # a piece of a defined name ("denoising network" in "X Denoising Network (XDN)")
                after = word_after(doc, ph.end)
                if after in _PART_AFTER and term.type != "Metric":
                    continue
                if after in _GENERIC_HEAD_AFTER and term.support < ESTABLISHED:
                    continue  # "a convex learning algorithm": a rare term modifying a generic head
                if "-" in ph.text and "-" not in term.name and b < len(doc) and tk.tag[b].startswith("NN"):
                    continue  # "test-time changes": the hyphenated term is a modifier here
                type_, bonus = context_type(doc, ph, term)
                if type_ == "Task" and tk.tag[b - 1] == "NNS" and tk.lower[b - 1].endswith("ions"):
                    continue  # "model generations", "predictions": outputs, not the task
                if type_ == "Metric" and (
                    not measured(doc, ph) or cue_before(doc, ph.start) in ("at", "during")
                ):
                    continue
                if type_ != "Metric" and not salient(doc, ph, title_end, counts, term.support):
                    continue
                found.append(
                    mention(start, end, type_, term.name, confidence=CONF_MINED + bonus, rule="mined-term")
                )
                taken.append((start, end))
        out.extend(found)
        return doc


__all__ = ["TermFinder", "TierTerm", "context_type", "load_tier"]
