"""What an acronym means: the senses the vocabulary and the corpus know for a short form, and the one a paper
means, chosen from its own definition or its own words.

An acronym with several senses whose long forms share no content word ("ASR": attack success rate, speech
recognition; "MAE": masked autoencoder, mean absolute error) is never a plain alias of one of them. The
canonicaliser links a paper's bare "ASR" to the sense its definition names, else to the sense whose long
forms' words the paper uses (and only a sense that wins outright), else to nothing.

    table = load_senses()
    [g[0].name for g in table.groups("ASR")]          # ['attack success rate', 'speech recognition']
    table.choose("ASR", content_words(abstract))       # the Sense the abstract's words point to, or None
"""

from __future__ import annotations

import functools
import gzip
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kg.extract.acronyms import best_long_form, is_short_form
from kg.extract.lexicon import load_lexicon
from kg.extract.words import words
from kg.names import fold, singular
from kg.settings import DEFAULT_BASE_IRI
from kg.types import ENTITY_TYPES, EntityRef

TIER_FILE = Path(__file__).resolve().parents[2] / "ontology" / "vocab" / "mined.ttl.gz"
_SKOS = "http://www.w3.org/2004/02/skos/core#"
_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
# Words too common in long forms to tell two senses apart ("causal representation learning" and
# "constrained reinforcement learning" are two senses of CRL) or to confirm a definition.
GENERIC_WORDS = words(
    "a an and as at by for from in of on or the to with via learning model network neural deep method "
    "methods system based data task approach algorithm machine"
)


def content_words(text: str) -> frozenset[str]:
    """The lower-case, singular content words of `text`; a hyphenated word counts whole and by its parts
    ("auto-encoders" → auto, encoder, autoencoder)."""
    out: set[str] = set()
    for w in _WORD.findall(fold(text)):
        parts = w.split("-")
        for p in (*parts, "".join(parts)) if len(parts) > 1 else parts:
            if p and not p.isdigit():
                out.add(singular(p))
    return frozenset(out - GENERIC_WORDS)


def share_content_word(a: str, b: str) -> bool:
    """Whether two long forms share a content word ("Masked Autoencoders" and "masked autoencoder" do;
    "Attack Success Rate" and "speech recognition" do not)."""
    return bool(content_words(a) & content_words(b))


def _first_word(text: str) -> str | None:
    for w in _WORD.findall(fold(text)):
        p = singular(w.split("-")[0])
        if p not in GENERIC_WORDS and not p.isdigit():
            return p
    return None


def same_sense(name: str, long: str) -> bool:
    """Whether an entity's name can be what a definition's long form names: one's content words hold the
    other's ("speech recognition" and "automatic speech recognition"), or they share a content word and start
    with the same one ("Masked Autoencoders", "masked autoencoder"); "sparse fine-tuning" is not "supervised
    fine-tuning", nor "Attack Success Rate" speech recognition."""
    a, b = content_words(name), content_words(long)
    if not a or not b:
        return False
    return a <= b or b <= a or bool(a & b and _first_word(name) == _first_word(long))


def acronym_shaped(label: str) -> bool:
    """A label that reads as an abbreviation: one word, two or more capitals, at most 10 characters ("ASR",
    "ViT", "cGAN")."""
    return (
        " " not in label
        and len(label) <= 10
        and is_short_form(label)
        and sum(ch.isupper() for ch in label) >= 2
    )


@dataclass(frozen=True, slots=True)
class Sense:
    """One entity an acronym can name, with the words of its long forms (and broader concepts)."""

    ref: EntityRef
    words: frozenset[str]
    curated: bool
    broader: tuple[EntityRef, ...] = ()

    @property
    def name(self) -> str:
        return self.ref.name


@dataclass(frozen=True, slots=True)
class SenseTable:
    """Short form (exactly as written) → its senses, grouped: senses whose long forms share a content word
    are one group ("mean square error", "mean squared error"); an acronym is ambiguous with two groups."""

    by_short: dict[str, tuple[tuple[Sense, ...], ...]]

    def groups(self, short: str) -> tuple[tuple[Sense, ...], ...]:
        found = self.by_short.get(short)
        if found is None and short.endswith("s") and len(short) > 2:
            found = self.by_short.get(short[:-1])  # "MAEs"
        return found or ()

    def ambiguous(self, short: str) -> bool:
        return len(self.groups(short)) > 1

    def choose(self, short: str, context: frozenset[str]) -> Sense | None:
        """The sense of `short` whose group's words the context uses most, when one group wins outright;
        None when no word of any group is there or two groups tie."""
        groups = self.groups(short)
        if len(groups) < 2:
            return groups[0][0] if groups else None
        shared = frozenset.intersection(*(_group_words(g) for g in groups))
        scores = sorted(
            ((len((_group_words(g) - shared) & context), i) for i, g in enumerate(groups)), reverse=True
        )
        (best, i), (second, _) = scores[0], scores[1]
        if best == 0 or best == second:
            return None
        return groups[i][0]


def _group_words(group: tuple[Sense, ...]) -> frozenset[str]:
    return frozenset().union(*(s.words for s in group))


def _long_labels(short: str, labels: Iterable[str]) -> list[str]:
    """The labels `short` abbreviates ("automatic speech recognition" for "ASR")."""
    return [
        lab
        for lab in labels
        if (" " in lab or "-" in lab) and not acronym_shaped(lab) and best_long_form(short, lab, False)
    ]


@functools.lru_cache(maxsize=2)
def load_senses(base_iri: str = DEFAULT_BASE_IRI, tier: Path = TIER_FILE) -> SenseTable:
    """Senses of every acronym label of the curated vocabulary and of the mined tier (curated first)."""
    found: dict[str, list[Sense]] = defaultdict(list)
    for e in load_lexicon(base_iri).entries:
        labels = (*e.labels, *e.hidden)
        for short in {lab for lab in labels if acronym_shaped(lab)}:
            longs = _long_labels(short, labels)
            if longs:
                said = content_words(" ".join(longs)) | content_words(" ".join(b.name for b in e.broader))
                found[short].append(Sense(e.ref, said, True, e.broader))
    for ref, tier_labels in _tier_labels(base_iri, tier):
        for short in {lab for lab in tier_labels if acronym_shaped(lab)}:
            longs = _long_labels(short, tier_labels)
            if longs and not any(s.ref.name == ref.name for s in found[short]):
                found[short].append(Sense(ref, content_words(" ".join(longs)), False))
    table: dict[str, tuple[tuple[Sense, ...], ...]] = {}
    for short, senses in found.items():
        table[short] = _grouped(senses)
    return SenseTable(table)


def _grouped(senses: list[Sense]) -> tuple[tuple[Sense, ...], ...]:
    """Senses joined when their words overlap (transitively), curated senses first within a group."""
    groups: list[list[Sense]] = []
    for s in senses:
        joined = [g for g in groups if any(o.words & s.words for o in g)]
        merged = [x for g in joined for x in g] + [s]
        groups = [g for g in groups if g not in joined] + [merged]
    return tuple(tuple(sorted(g, key=lambda s: not s.curated)) for g in groups)


def _tier_labels(base_iri: str, path: Path) -> list[tuple[EntityRef, list[str]]]:
    """(concept, its labels) of the mined tier; empty when it is not installed."""
    if not path.is_file():
        return []
    import pyoxigraph as ox

    ns = base_iri + "ontology#"
    info: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for q in ox.parse(gzip.decompress(path.read_bytes()), format=ox.RdfFormat.TURTLE, base_iri=base_iri):
        p, o = q.predicate.value, q.object.value
        if p == _SKOS + "prefLabel":
            info[q.subject.value]["pref"].append(o)
        elif p == _SKOS + "altLabel":
            info[q.subject.value]["alt"].append(o)
        elif p.endswith("#type") and o.startswith(ns):
            info[q.subject.value]["type"].append(o[len(ns):])
    out = []
    for d in info.values():
        if d["pref"] and d["type"] and d["alt"]:
            t = d["type"][0]
            if t in ENTITY_TYPES:
                out.append((EntityRef(t, d["pref"][0], None), [d["pref"][0], *d["alt"]]))
    return out


__all__ = ["GENERIC_WORDS", "Sense", "SenseTable", "acronym_shaped", "content_words", "load_senses",
           "same_sense", "share_content_word"]
