"""Store format 4 -> 5: a link's confidence moves to a shared rule node; a paper's link node drops its
rdf:predicate / rdf:object.

Format 5 names one rule node per (rule, extractor version, confidence) — `{base}rule/{rule}/{version}/{c}`,
a few hundred in any store — and the link node keeps only `kg:by` it, so a confidence costs no literal of
its own per link; and a paper's link node is named by its plain link (`Iris.link`), so it no longer
repeats the relation and the entity. `kg migrate` rewrites the papers whose link nodes still carry
`kg:confidence` (whole paper graphs, one transaction per batch); the old rule nodes stay described.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pyoxigraph import BlankNode, Literal, NamedNode, Quad

from kg.migrate_step import Pending
from kg.query.sparql import prefixes, values
from kg.rdf.iris import RDF, XSD, Iris
from kg.rdf.mapping import LOW_CONFIDENCE, confidence_text

if TYPE_CHECKING:
    from kg.store.types import Store


def quad(s: object, p: object, o: object, g: NamedNode) -> Quad:
    """A stored triple (as read_graphs returns it, untyped) back in graph `g`."""
    if not isinstance(s, NamedNode | BlankNode) or not isinstance(p, NamedNode) \
            or not isinstance(o, NamedNode | BlankNode | Literal):
        raise TypeError(f"not an RDF triple: {s!r} {p!r} {o!r}")
    return Quad(s, p, o, g)


def pending(store: Store, iris: Iris) -> list[Pending]:
    """Papers with a link node that still carries its own kg:confidence next to kg:by."""
    rows = store.select(
        prefixes(iris) + "SELECT DISTINCT ?g ?p WHERE { GRAPH ?g { ?p a kg:Paper ."
        " ?l kg:by ?rule ; kg:confidence ?c } }")
    return sorted((Pending(g.value, p.value, "") for r in rows
                   if isinstance(g := r.get("g"), NamedNode) and isinstance(p := r.get("p"), NamedNode)),
                  key=lambda x: x.graph)


def apply(store: Store, iris: Iris, batch: Sequence[Pending]) -> None:
    """Rewrite these papers' graphs with each link's confidence on its (new, shared) rule node."""
    from kg.write import read_graphs

    ns = iris.ns
    by, conf, low = NamedNode(ns + "by"), NamedNode(ns + "confidence"), NamedNode(ns + "lowConfidence")
    statement = (NamedNode(RDF + "predicate"), NamedNode(RDF + "object"))
    stored = read_graphs(store, [x.graph for x in batch])
    moved: dict[str, tuple[str, str]] = {}  # new rule node -> (old rule node, confidence)
    graphs: dict[str, list[Quad]] = {}
    for x in batch:
        triples = stored.get(x.graph, [])
        props: dict[str, dict[str, object]] = {}
        for s, p, o in triples:
            props.setdefault(getattr(s, "value", ""), {})[getattr(p, "value", "")] = o
        new_by: dict[str, str] = {}
        for link, ps in props.items():
            old_by, c = ps.get(by.value), ps.get(conf.value)
            if isinstance(old_by, NamedNode) and isinstance(c, Literal) and not ps.get(ns + "rule"):
                text = confidence_text(float(c.value))
                new_by[link] = f"{old_by.value}/{text}"
                moved[new_by[link]] = (old_by.value, text)
        g = NamedNode(x.graph)
        # a paper's own link node (no rdf:subject) states no rdf:predicate / rdf:object either: its IRI is
        # named by the plain link (Iris.link)
        plain = {n for n in new_by if RDF + "subject" not in props[n]}
        out = [quad(s, p, o, g) for s, p, o in triples
               if not (getattr(s, "value", "") in new_by and p in (by, conf, low))
               and not (getattr(s, "value", "") in plain and p in statement)]
        out += [Quad(NamedNode(n), by, NamedNode(r), g) for n, r in new_by.items()]
        graphs[x.graph] = out
    shared: list[Quad] = []
    if moved:
        eg = NamedNode(iris.entities_graph)
        olds = sorted({old for old, _ in moved.values()})
        rows = store.select(f"SELECT ?r ?p ?o WHERE {{ {values('r', [NamedNode(o) for o in olds])}"
                            f" GRAPH {eg} {{ ?r ?p ?o }} }}")
        described: dict[str, list[tuple[NamedNode, NamedNode | Literal]]] = {}
        for r in rows:
            if isinstance(o := r.get("o"), NamedNode | Literal) and isinstance(p := r.get("p"), NamedNode) \
                    and isinstance(subject := r.get("r"), NamedNode):
                described.setdefault(subject.value, []).append((p, o))
        for new, (old, text) in sorted(moved.items()):
            node = NamedNode(new)
            shared += [Quad(node, p, o, eg) for p, o in described.get(old, [])]
            shared.append(Quad(node, conf, Literal(text, datatype=NamedNode(XSD + "double")), eg))
            if float(text) < LOW_CONFIDENCE:
                shared.append(Quad(node, low, Literal("true", datatype=NamedNode(XSD + "boolean")), eg))
    store.replace_graphs(graphs, shared)


def finish(store: Store, iris: Iris) -> None:
    """After every paper: drop the format-4 rule nodes no link names any more (rewriting the entities
    graph in one transaction), then recompute the aggregates (the quad counts changed)."""
    from kg.write import read_graphs, rebuild_aggregates

    eg = iris.entities_graph
    rows = store.select(prefixes(iris) + f"SELECT ?r WHERE {{ GRAPH <{eg}> {{ ?r a kg:Rule"
                        " FILTER NOT EXISTS { ?r kg:confidence ?c } } FILTER NOT EXISTS { ?l kg:by ?r } }")
    stale = {r["r"] for r in rows if isinstance(r.get("r"), NamedNode)}
    if stale:
        kept = [quad(s, p, o, NamedNode(eg)) for s, p, o in read_graphs(store, [eg]).get(eg, [])
                if s not in stale]
        store.replace_graphs({eg: kept})
    rebuild_aggregates(store, iris)
