"""The curated SKOS vocabularies (`ontology/vocab/*.ttl`) as Python records, and as quads for the store.

Each vocabulary file is a skos:ConceptScheme of concepts typed with one of the seven entity classes:

    <dataset/imagenet> a skos:Concept, kg:Dataset ; skos:inScheme <vocab/datasets> ;
        skos:prefLabel "ImageNet" ; skos:altLabel "ILSVRC" ; kg:kind "Benchmark" .

The files use relative IRIs and are parsed against a base IRI, so a concept's IRI is exactly the entity
IRI `Iris(base).entity(ref)` the mapper gives the same canonical name. Every `*.ttl` file in the folder is
read, including the optional `extra.ttl`; triples about the same concept in several files are merged.

    vocab = load_vocabulary()                       # cached per base and file modification times
    [e.ref for e in vocab.by_key(match_key("ILSVRC"))]   # [EntityRef("Dataset", "ImageNet", "Benchmark")]
    store.add_quads(vocab.quads())                  # {base}graph/vocab and {base}graph/ontology
"""

from __future__ import annotations

import gzip
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pyoxigraph as ox

from kg.names import match_key, slug
from kg.rdf.iris import RDF, SKOS, Iris
from kg.settings import DEFAULT_BASE_IRI
from kg.types import ENTITY_TYPES, EntityRef, EntityType
from ontology import ONTOLOGY_FILE, VOCAB_DIR

__all__ = ["VocabEntry", "Vocabulary", "load_vocabulary", "vocab_files"]

_RDF_TYPE = RDF + "type"
_PREF, _ALT, _HIDDEN = SKOS + "prefLabel", SKOS + "altLabel", SKOS + "hiddenLabel"
_BROADER, _IN_SCHEME = SKOS + "broader", SKOS + "inScheme"


@dataclass(frozen=True, slots=True)
class VocabEntry:
    """One curated concept.

    ref: the canonical entity (type, prefLabel, kind); its IRI is the concept's IRI.
    labels: the prefLabel first, then the altLabels in file order (safe to match case-insensitively,
        unless `case_sensitive`).
    hidden: skos:hiddenLabel forms (abbreviations) that may only be matched with exact casing.
    case_sensitive: kg:caseSensitive true: every label must be matched with exact casing.
    broader: the skos:broader concepts of the vocabulary.
    scheme: IRI of the skos:ConceptScheme ("" when the concept names none).
    """

    ref: EntityRef
    labels: tuple[str, ...]
    hidden: tuple[str, ...] = ()
    case_sensitive: bool = False
    broader: tuple[EntityRef, ...] = ()
    scheme: str = ""

    @property
    def name(self) -> str:
        """The canonical name (skos:prefLabel)."""
        return self.ref.name

    @property
    def keys(self) -> tuple[str, ...]:
        """Distinct non-empty match keys of all labels, hidden ones included, in label order."""
        out: dict[str, None] = {}
        for label in self.labels + self.hidden:
            if key := match_key(label):
                out.setdefault(key)
        return tuple(out)


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """All curated concepts for one base IRI, with lookups by match key and by entity id."""

    base: str
    entries: tuple[VocabEntry, ...]
    problems: tuple[str, ...] = ()  # concepts skipped while loading (untyped, IRI not matching the label...)
    _by_key: dict[str, tuple[VocabEntry, ...]] = field(default_factory=dict, repr=False, compare=False)
    _by_id: dict[str, VocabEntry] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        groups: dict[str, list[VocabEntry]] = defaultdict(list)
        for entry in self.entries:
            self._by_id[Iris.entity_id(entry.ref)] = entry
            for key in entry.keys:
                groups[key].append(entry)
        self._by_key.update({k: tuple(v) for k, v in groups.items()})

    def __len__(self) -> int:
        return len(self.entries)

    def by_key(self, key: str) -> list[VocabEntry]:
        """Entries with a label (hidden ones included) whose `match_key` is `key`, of any type."""
        return list(self._by_key.get(key, ()))

    def lookup(self, text: str) -> list[VocabEntry]:
        """Entries one of whose labels has the same match key as `text` (case is ignored here)."""
        return self.by_key(match_key(text))

    def get(self, entity_id: str) -> VocabEntry | None:
        """The entry with public id `entity_id` ("dataset/imagenet"), if curated."""
        return self._by_id.get(entity_id)

    def of_type(self, entity_type: EntityType) -> list[VocabEntry]:
        """Entries of one entity type, in file order."""
        return [e for e in self.entries if e.ref.type == entity_type]

    def quads(self, base: str | None = None) -> list[ox.Quad]:
        """The curated vocabularies in `{base}graph/vocab` and the ontology in `{base}graph/ontology`.

        The mined tier (13k concepts, most never linked) is not copied into every store: the concepts papers
        link to are described in the entities graph like any other entity.

        The vocabulary graph holds the files' triples plus one `kg:key` per distinct label key of every
        concept, so concepts satisfy the entity shape and can be found by key in SPARQL.
        `base` defaults to the base the vocabulary was loaded for.
        """
        return list(_quads(Iris(base or self.base).base, _files_state(mined=False)))


def vocab_files(directory: Path = VOCAB_DIR, *, mined: bool = True) -> list[Path]:
    """The vocabulary files, sorted by name: the curated `*.ttl` (extra.ttl included) and, unless
    `mined=False`, the gzipped mined tier."""
    patterns = ("*.ttl", "*.ttl.gz") if mined else ("*.ttl",)
    return sorted(p for pattern in patterns for p in directory.glob(pattern) if p.is_file())


def load_vocabulary(base_iri: str = DEFAULT_BASE_IRI, *, mined: bool = True) -> Vocabulary:
    """Parse the vocabulary files against `base_iri`; cached until a file changes. `mined=False` reads the
    curated tier alone (what stores carry and the phrase matcher matches; the mined tier is 13k concepts)."""
    return _load(Iris(base_iri).base, _files_state(mined=mined))


# --- internals ------------------------------------------------------------------------------------------

_FileState = tuple[tuple[str, int], ...]


def _files_state(*, mined: bool = True) -> _FileState:
    return tuple((str(p), p.stat().st_mtime_ns) for p in vocab_files(mined=mined))


def _parse(path: Path, base: str) -> Iterable[ox.Quad]:
    if path.suffix == ".gz":
        return ox.parse(gzip.decompress(path.read_bytes()), format=ox.RdfFormat.TURTLE, base_iri=base)
    return ox.parse(path=path, format=ox.RdfFormat.TURTLE, base_iri=base)


@lru_cache(maxsize=8)
def _load(base: str, state: _FileState) -> Vocabulary:
    iris = Iris(base)
    class_of = {iris.term(t): t for t in ENTITY_TYPES}
    props: dict[str, dict[str, list[ox.NamedNode | ox.Literal]]] = defaultdict(lambda: defaultdict(list))
    order: dict[str, None] = {}
    for path, _ in state:
        for q in _parse(Path(path), base):
            if isinstance(q.subject, ox.NamedNode) and isinstance(q.object, ox.NamedNode | ox.Literal):
                order.setdefault(q.subject.value)
                props[q.subject.value][q.predicate.value].append(q.object)

    def values(subject: str, pred: str) -> list[str]:
        seen: dict[str, None] = {}
        for v in props[subject].get(pred, []):
            seen.setdefault(v.value)
        return list(seen)

    kind_pred, cs_pred = iris.term("kind"), iris.term("caseSensitive")
    refs: dict[str, EntityRef] = {}
    problems: list[str] = []
    for subject in order:
        types = [class_of[t] for t in values(subject, _RDF_TYPE) if t in class_of]
        if not types:
            continue
        if len(types) > 1:
            problems.append(f"{subject}: typed with several entity classes {types}")
            continue
        entity_type = types[0]
        prefs = values(subject, _PREF)
        segment = subject[len(base):] if subject.startswith(base) else ""
        names = [p for p in prefs if segment == f"{entity_type.lower()}/{slug(p)}"]
        if not names:
            problems.append(f"{subject}: no skos:prefLabel whose slug matches the IRI (labels {prefs})")
            continue
        kinds = values(subject, kind_pred)
        refs[subject] = EntityRef(entity_type, names[0], kinds[0] if kinds else None)

    entries: list[VocabEntry] = []
    for subject, ref in refs.items():
        labels = [ref.name] + [x for x in values(subject, _PREF) + values(subject, _ALT) if x != ref.name]
        broader = []
        for b in values(subject, _BROADER):
            if b in refs:
                broader.append(refs[b])
            else:
                problems.append(f"{subject}: skos:broader {b} is not a vocabulary concept")
        schemes = values(subject, _IN_SCHEME)
        entries.append(VocabEntry(
            ref=ref,
            labels=tuple(dict.fromkeys(labels)),
            hidden=tuple(values(subject, _HIDDEN)),
            case_sensitive="true" in values(subject, cs_pred) or "1" in values(subject, cs_pred),
            broader=tuple(broader),
            scheme=schemes[0] if schemes else "",
        ))
    return Vocabulary(base=base, entries=tuple(entries), problems=tuple(problems))


@lru_cache(maxsize=4)
def _quads(base: str, state: _FileState) -> tuple[ox.Quad, ...]:
    iris = Iris(base)
    vocab_g, onto_g = ox.NamedNode(iris.vocab_graph), ox.NamedNode(iris.ontology_graph)
    out: dict[ox.Quad, None] = {}
    for path, _ in state:
        for q in _parse(Path(path), base):
            out.setdefault(ox.Quad(q.subject, q.predicate, q.object, vocab_g))
    key_pred = ox.NamedNode(iris.term("key"))
    for entry in _load(base, state).entries:
        node = ox.NamedNode(iris.entity(entry.ref))
        for key in entry.keys:
            out.setdefault(ox.Quad(node, key_pred, ox.Literal(key), vocab_g))
    for q in _parse(ONTOLOGY_FILE, base):
        out.setdefault(ox.Quad(q.subject, q.predicate, q.object, onto_g))
    return tuple(out)
