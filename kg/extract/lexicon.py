"""The curated vocabulary as the extractor sees it: entries, lookup by match key, cached per base IRI.

Reads `kg.vocab.load_vocabulary` when that module exists, else parses `ontology/vocab/*.ttl` itself, so the
extractor works (and is testable) on its own.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg.names import match_key
from kg.types import ENTITY_TYPES, EntityRef

VOCAB_DIR = Path(__file__).resolve().parents[2] / "ontology" / "vocab"
SKOS = "http://www.w3.org/2004/02/skos/core#"


@dataclass(frozen=True, slots=True)
class LexEntry:
    """One concept: its canonical ref, labels to match (pref first), flags and broader concepts."""

    ref: EntityRef
    labels: tuple[str, ...]
    hidden: tuple[str, ...] = ()
    case_sensitive: bool = False
    broader: tuple[EntityRef, ...] = ()


@dataclass(frozen=True, slots=True)
class Lexicon:
    entries: tuple[LexEntry, ...]
    by_key: dict[str, LexEntry]  # match_key of every label → entry (first wins)
    by_exact: dict[str, LexEntry]  # hidden labels and labels of case-sensitive entries, exactly as written

    def lookup(self, text: str) -> LexEntry | None:
        """The entry `text` names: exact forms first, then by match key unless the entry is case-sensitive."""
        e = self.by_exact.get(text.strip())
        if e is not None:
            return e
        e = self.by_key.get(match_key(text))
        return None if e is None or e.case_sensitive else e


def _from_vocab(vocab: Any) -> list[LexEntry]:
    """Lexicon entries of the curated tier (the mined tier is looked up by `paperkg_terms`, not matched as
    phrases)."""
    out = []
    for e in vocab.entries:
        labels = tuple(getattr(e, "labels", ()) or ())
        if e.ref.name not in labels:
            labels = (e.ref.name, *labels)
        out.append(
            LexEntry(
                ref=e.ref,
                labels=labels,
                hidden=tuple(getattr(e, "hidden", ()) or ()),
                case_sensitive=bool(getattr(e, "case_sensitive", False)),
                broader=tuple(getattr(e, "broader", ()) or ()),
            )
        )
    return out


def _parse_ttl(base_iri: str, directory: Path) -> list[LexEntry]:
    """Fallback reader of the SKOS files (pref/alt/hidden labels, kg:kind, kg:caseSensitive, broader)."""
    from pyoxigraph import RdfFormat, Store

    store = Store()
    for path in sorted(directory.glob("*.ttl")):
        store.load(path.read_bytes(), format=RdfFormat.TURTLE, base_iri=base_iri)
    ns = base_iri + "ontology#"
    types = {ns + t: t for t in ENTITY_TYPES}
    info: dict[str, dict[str, Any]] = {}
    for q in store:
        s, p, o = q.subject.value, q.predicate.value, q.object.value
        d = info.setdefault(s, {"labels": [], "alt": [], "hidden": [], "broader": []})
        if p.endswith("#type") and o in types:
            d["type"] = types[o]
        elif p == SKOS + "prefLabel":
            d["labels"].insert(0, o)
        elif p == SKOS + "altLabel":
            d["alt"].append(o)
        elif p == SKOS + "hiddenLabel":
            d["hidden"].append(o)
        elif p == ns + "kind":
            d["kind"] = o
        elif p == ns + "caseSensitive":
            d["cs"] = o == "true"
        elif p == SKOS + "broader":
            d["broader"].append(o)
    refs: dict[str, EntityRef] = {}
    for iri, d in info.items():
        if "type" in d and d["labels"]:
            refs[iri] = EntityRef(d["type"], d["labels"][0], d.get("kind"))
    out = []
    for iri, ref in sorted(refs.items()):
        d = info[iri]
        out.append(
            LexEntry(
                ref=ref,
                labels=tuple(d["labels"][:1] + sorted(d["alt"])),
                hidden=tuple(sorted(d["hidden"])),
                case_sensitive=bool(d.get("cs", False)),
                broader=tuple(refs[b] for b in d["broader"] if b in refs),
            )
        )
    return out


@functools.lru_cache(maxsize=4)
def load_lexicon(base_iri: str) -> Lexicon:
    """The vocabulary for `base_iri`, loaded once per process."""
    try:
        from kg.vocab import load_vocabulary  # written by the vocabulary owner
    except ImportError:
        entries = _parse_ttl(base_iri, VOCAB_DIR)
    else:
        entries = _from_vocab(load_vocabulary(base_iri, mined=False))
        known = {(e.ref.type, e.ref.name) for e in entries}  # in case the loader skips extra.ttl
        entries += [e for e in _parse_ttl(base_iri, VOCAB_DIR) if (e.ref.type, e.ref.name) not in known]
    by_key: dict[str, LexEntry] = {}
    by_exact: dict[str, LexEntry] = {}
    for e in entries:
        for label in e.hidden + (e.labels if e.case_sensitive else ()):
            by_exact.setdefault(label, e)
        for label in e.labels:
            if (k := match_key(label)) and not e.case_sensitive:
                by_key.setdefault(k, e)
    for e in entries:  # case-sensitive keys only where no other entry claims the key
        for label in e.labels:
            if (k := match_key(label)) and e.case_sensitive:
                by_key.setdefault(k, e)
    return Lexicon(tuple(entries), by_key, by_exact)
