"""One description per entity, whichever papers mention it.

Papers name the same entity differently ("Highlight Detection" in a title, "highlight detection" in an
abstract; "GPT 3.5" for the curated "GPT-3.5") and type it differently (a curated benchmark linked as a
plain dataset). Each paper's mapping describes the entity as that paper saw it; stored side by side, the
entity would carry two skos:prefLabels (SKOS allows one per language) and two kg:kinds, and which name a
reader showed would depend on row order. So the first value of each single-valued fact stays — the
vocabulary's, else the first paper's in write order — and a later, different name is kept as a
skos:altLabel, a later, different kind is left out (with the class that goes with it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pyoxigraph import BlankNode, Literal, NamedNode, Quad

from kg.rdf.iris import RDF, SKOS, Iris
from kg.rdf.mapping import KIND_CLASSES

Subject = NamedNode | BlankNode
Held = Mapping[tuple[Subject, NamedNode], object]
PREF_LABEL = NamedNode(SKOS + "prefLabel")
ALT_LABEL = NamedNode(SKOS + "altLabel")
_TYPE = NamedNode(RDF + "type")


def single_valued(iris: Iris) -> frozenset[NamedNode]:
    """The description predicates an entity has one value of: its name and its kind."""
    return frozenset({PREF_LABEL, NamedNode(iris.term("kind"))})


class OneDescription:
    """Admits entity-description quads in write order, keeping one value of each single-valued fact."""

    def __init__(self, iris: Iris, held: Held | None = None) -> None:
        """`held`: (subject, predicate) -> the value the store holds already (vocabulary, earlier papers)."""
        self.iris = iris
        self.single = single_valued(iris)
        self.first: dict[tuple[Subject, NamedNode], object] = dict(held or {})
        self._left_out: set[tuple[Subject, NamedNode]] = set()  # (entity, class of a kind left out)

    def hold(self, q: Quad) -> None:
        """Record a quad already stored (the vocabulary's), so that later quads defer to it."""
        if q.predicate in self.single and isinstance(q.subject, NamedNode | BlankNode):
            self.first.setdefault((q.subject, q.predicate), q.object)

    def admit(self, q: Quad) -> Quad | None:
        """The quad to store for `q`: itself, its name demoted to an altLabel, or None (a kind left out)."""
        subject = q.subject
        if not isinstance(subject, NamedNode | BlankNode):
            return q
        if q.predicate in self.single:
            have = self.first.setdefault((subject, q.predicate), q.object)
            if have == q.object:
                return q
            if q.predicate == PREF_LABEL:
                return Quad(subject, ALT_LABEL, q.object, q.graph_name)
            if isinstance(q.object, Literal) and q.object.value in KIND_CLASSES:
                self._left_out.add((subject, NamedNode(self.iris.term(q.object.value))))
            return None
        if q.predicate == _TYPE and isinstance(q.object, NamedNode) and (subject, q.object) in self._left_out:
            return None
        return q


def one_description(iris: Iris, quads: Iterable[Quad], held: Held | None = None) -> list[Quad]:
    """`quads` (entity descriptions, in write order) as they may be added next to `held`, de-duplicated."""
    admit = OneDescription(iris, held).admit
    return list(dict.fromkeys(a for q in quads if (a := admit(q)) is not None))
