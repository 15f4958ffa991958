"""Variants under the entity they specialise: "video semantic segmentation" skos:broader "semantic
segmentation", read from the phrase itself (its head and modifiers).

A task, method or dataset whose name ends with the name of another known entity of the same type (two words
or more: the head and at least one modifier; curated vocabulary, mined tier, or another entity of the same
paper) is narrower than each such entity; the modifiers before it must be words of a name (no function word,
no cut-off piece).

    h = Hierarchy.load()
    h.broader_of("Task", "few-shot video semantic segmentation")
    # [EntityRef("Task", "video semantic segmentation"), EntityRef("Task", "semantic segmentation")]
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kg.extract.lexicon import load_lexicon
from kg.extract.terms import load_tier
from kg.extract.words import words
from kg.names import match_key
from kg.settings import DEFAULT_BASE_IRI
from kg.types import EntityRef

HIERARCHY_TYPES = frozenset({"Task", "Method", "Dataset"})
# Words that never modify a name: a phrase holding them before the broader name is no variant of it.
_NOT_MODIFIERS = words("a an and as at by for from in of on or the to with via vs versus without than not")
_LY_NOUNS = words("anomaly family assembly supply")
_ADJECTIVE_ENDINGS = ("ed", "al", "ive", "able", "ible", "ent", "ant", "ous", "ic", "ing")


def _adverb_of(word: str, following: str) -> bool:
    """ "weakly supervised", "fully convolutional": an adverb modifying the adjective after it (but "Fully
    Test-Time Adaptation" is a kind of test-time adaptation)."""
    w, f = word.lower(), following.lower()
    return w.endswith("ly") and w not in _LY_NOUNS and f.endswith(_ADJECTIVE_ENDINGS)


def _lower_case_phrase(name: str) -> bool:
    """A mined name written in lower case but for its acronyms ("video semantic segmentation", "LiDAR
    odometry"); title-case mined names are often the tail of a longer title ("Adaptive Semantic
    Segmentation" of "Domain Adaptive …", "Eye View Semantic Segmentation" of "Bird's Eye View …")."""
    return all(w.islower() or sum(c.isupper() for c in w) >= 2 or not w.isalpha() for w in name.split())


@dataclass(frozen=True, slots=True)
class Hierarchy:
    """Known names by (type, match key): the curated vocabulary and the mined tier."""

    known: Mapping[tuple[str, str], EntityRef]

    @staticmethod
    @functools.lru_cache(maxsize=2)
    def load(base_iri: str = DEFAULT_BASE_IRI) -> Hierarchy:
        known: dict[tuple[str, str], EntityRef] = {}
        for e in load_lexicon(base_iri).entries:
            if e.ref.type in HIERARCHY_TYPES:
                for label in e.labels:
                    known.setdefault((e.ref.type, match_key(label)), e.ref)
        for key, term in load_tier(base_iri).items():
            if term.type in HIERARCHY_TYPES and _lower_case_phrase(term.name):
                known.setdefault((term.type, key), EntityRef(term.type, term.name, None))  # type: ignore[arg-type]
        return Hierarchy(known)

    def broader_of(
        self, type_: str, name: str, also: Mapping[tuple[str, str], EntityRef] | None = None
    ) -> list[EntityRef]:
        """The known entities `name` specialises, longest first (`also`: more names, the paper's own)."""
        if type_ not in HIERARCHY_TYPES:
            return []
        ws = name.split()
        own = match_key(name)
        out: list[EntityRef] = []
        for k in range(1, len(ws) - 1):
            modifiers = ws[:k]
            if any(w.lower() in _NOT_MODIFIERS or w.endswith(("-", "/")) for w in modifiers):
                break
            if _adverb_of(ws[k - 1], ws[k]):
                continue  # "weakly supervised X" is no kind of "supervised X": the adverb goes with its word
            key = match_key(" ".join(ws[k:]))
            ref = (also or {}).get((type_, key)) or self.known.get((type_, key))
            if ref is not None and match_key(ref.name) != own and ref not in out:
                out.append(ref)
        return out

    def add_broader(self, entities: Iterable[dict[str, Any]]) -> None:
        """Fill each entity's `broader` ([type, name, kind] lists) with the entities it specialises, unless
        the curated vocabulary already places it. An entity named by an acronym and its definition ("ALoRA
        (allocating low-rank adaptation)", its `long_form` given) specialises what its long form names, when
        that is known, and what the long form specialises ("low-rank adaptation")."""
        ents = list(entities)
        own = {(e["type"], match_key(e["name"])): EntityRef(e["type"], e["name"], e.get("kind"))
               for e in ents}
        for e in ents:
            if e.get("broader") or e.get("variant_of"):
                continue
            long = e.get("long_form")
            found = self.broader_of(e["type"], long or e["name"], own)
            if long and e["type"] in HIERARCHY_TYPES:
                whole = own.get((e["type"], match_key(long))) or self.known.get((e["type"], match_key(long)))
                if whole is not None and match_key(whole.name) != match_key(e["name"]):
                    found = [whole, *(r for r in found if r != whole)]
            if found:
                e["broader"] = [[r.type, r.name, r.kind] for r in found]


__all__ = ["HIERARCHY_TYPES", "Hierarchy"]
