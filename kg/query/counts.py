"""Per-year paper counts: of the whole graph and of each entity (what the trends are made of).

Computed from the graph and cached per store generation.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from pyoxigraph import NamedNode

from kg.query.context import QueryContext
from kg.query.sparql import integer, text, values
from kg.types import EntityType

YearCounts = dict[int, int]


def _year(raw: str | None) -> int | None:
    try:
        return int((raw or "")[:4]) if raw and raw[:4].isdigit() else None
    except ValueError:
        return None


def year_totals(ctx: QueryContext) -> YearCounts:
    """Papers per year of the whole graph (papers without a year left out)."""

    def compute() -> YearCounts:
        out: YearCounts = defaultdict(int)
        for r in ctx.select("SELECT ?y (COUNT(DISTINCT ?p) AS ?n) WHERE { ?p a kg:Paper ; dcterms:issued ?y }"
                            " GROUP BY ?y"):
            if (y := _year(text(r, "y"))) is not None:
                out[y] += integer(r, "n")
        return dict(out)

    return ctx.memo.get(ctx.store, ("year_totals",), compute, len)


def _by_year(ctx: QueryContext, scope: str) -> dict[str, YearCounts]:
    branches = " UNION ".join(f"{{ ?p {r} ?e }}" for r in ctx.relations)
    rows = ctx.select(f"SELECT ?e ?y (COUNT(DISTINCT ?p) AS ?n) WHERE {{ {scope} {branches} "
                      "?p dcterms:issued ?y } GROUP BY ?e ?y")
    out: dict[str, YearCounts] = defaultdict(dict)
    for r in rows:
        if (y := _year(text(r, "y"))) is not None:
            years = out[text(r, "e") or ""]
            years[y] = years.get(y, 0) + integer(r, "n")
    return dict(out)


def entity_year_counts(ctx: QueryContext, iris: Sequence[str]) -> dict[str, YearCounts]:
    """Papers per year linked to each entity IRI (cached per store generation)."""
    empty: YearCounts = {}
    return ctx.memo.per_node(ctx.store, "years", iris,
                             lambda m: _by_year(ctx, values("e", [NamedNode(i) for i in m])), empty)


def type_year_counts(ctx: QueryContext, type_: EntityType | None) -> dict[str, YearCounts]:
    """Papers per year of every linked entity (of `type_`, if given)."""

    def compute() -> dict[str, YearCounts]:
        found = _by_year(ctx, "")
        return {iri: years for iri, years in found.items()
                if (eid := ctx.iris.entity_id_of(iri)) is not None
                and (type_ is None or ctx.iris.type_of_entity_id(eid) == type_)}

    return ctx.memo.get(ctx.store, ("type_years", type_ or "*"), compute, len)
