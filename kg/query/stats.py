"""Counts that describe a graph: papers, links per relation, entities per type, triples."""

from __future__ import annotations

from kg.query.context import QueryContext
from kg.query.model import Stats
from kg.query.sparql import integer, text, values
from kg.types import ENTITY_TYPES


def stats(ctx: QueryContext) -> Stats:
    """Papers, links per relation, entities linked to at least one paper per type, and triples.

    Vocabulary concepts no paper links to are not counted as entities of the graph.
    """
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
