"""Counts that describe a graph: papers, links per relation, entities per type, triples.

A lookup of the aggregates kept at write time (kg.query.counts) plus the size of the schema graphs
(remembered per schema version); computed from the graph only for a store without aggregates.
"""

from __future__ import annotations

import threading

from pyoxigraph import NamedNode

from kg.query.context import QueryContext
from kg.query.counts import globals_of, layout_of, stored_entity_quads
from kg.query.model import Stats
from kg.query.sparql import integer, text, values
from kg.types import ENTITY_TYPES

_SCHEMA_SIZES: dict[tuple[str, str], int] = {}  # (store location, schema fingerprint) -> quads
_LOCK = threading.Lock()


def schema_quads(ctx: QueryContext) -> int:
    """Quads of the ontology and vocabulary graphs, counted once per schema version (their fingerprint)."""
    og, vg = NamedNode(ctx.iris.ontology_graph), NamedNode(ctx.iris.vocab_graph)
    rows = ctx.select(f"SELECT ?h WHERE {{ GRAPH {og} {{ {og} kg:sourceHash ?h }} }}")
    key = (ctx.store.location, text(rows[0], "h") or "" if rows else "")
    with _LOCK:
        found = _SCHEMA_SIZES.get(key)
    if found is None or not key[1]:
        graphs = values("g", [og, vg])
        rows = ctx.select(f"SELECT (COUNT(*) AS ?n) WHERE {{ {graphs} GRAPH ?g {{ ?s ?p ?o }} }}")
        found = integer(rows[0], "n") if rows else 0
        with _LOCK:
            _SCHEMA_SIZES[key] = found
    return found


def stats(ctx: QueryContext) -> Stats:
    """Papers, links per relation, entities linked to at least one paper per type, and triples (of the
    paper graphs, the entities graph and the schema graphs).

    Vocabulary concepts no paper links to are not counted as entities of the graph.
    """
    agg = globals_of(ctx)
    if agg is not None:
        triples = agg.paper_quads + stored_entity_quads(ctx.store, layout_of(ctx)) + schema_quads(ctx)
        return Stats(agg.papers, triples, dict(sorted(agg.links.items())), dict(sorted(agg.entities.items())),
                     dict(sorted(agg.extractors.items())))
    return stats_from_graph(ctx)


def stats_from_graph(ctx: QueryContext) -> Stats:
    """The same figures computed from the graph (a store without aggregates; tests compare the two)."""
    papers = integer(ctx.select("SELECT (COUNT(DISTINCT ?p) AS ?n) WHERE { ?p a kg:Paper }")[0], "n")
    links = {
        (text(r, "r") or "").removeprefix(ctx.iris.ns): integer(r, "n")
        for r in ctx.select(
            f"SELECT ?r (COUNT(*) AS ?n) WHERE {{ {values('r', ctx.relations)} "
            "?p ?r ?e . ?p a kg:Paper } GROUP BY ?r"
        )
    }
    types = {
        (text(r, "t") or "").removeprefix(ctx.iris.ns): integer(r, "n")
        for r in ctx.select(
            f"SELECT ?t (COUNT(DISTINCT ?e) AS ?n) WHERE {{ "
            f"{values('t', (ctx.term(t) for t in ENTITY_TYPES))} ?e a ?t . "
            f"FILTER EXISTS {{ {values('r', ctx.relations)} ?p ?r ?e . ?p a kg:Paper }} }} GROUP BY ?t"
        )
    }
    versions = {  # which extractor version wrote how many papers ("none": a paper without the stamp)
        text(r, "v") or "none": integer(r, "n")
        for r in ctx.select(
            "SELECT ?v (COUNT(DISTINCT ?p) AS ?n) WHERE { ?p a kg:Paper ."
            " OPTIONAL { ?p kg:extractorVersion ?version }"
            ' BIND(COALESCE(?version, "none") AS ?v) } GROUP BY ?v'
        )
    }
    return Stats(papers, ctx.store.triple_count(), dict(sorted(links.items())), dict(sorted(types.items())),
                 dict(sorted(versions.items())))
