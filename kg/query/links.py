"""Links of papers to entities with the evidence and confidence of their link nodes, batched by paper."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from pyoxigraph import NamedNode

from kg.query.context import QueryContext
from kg.query.entities import entities_by_iris
from kg.query.model import LinkInfo
from kg.query.sparql import iri_or_none, number, text, values
from kg.types import PAPER_RELATIONS, EntityType

_ORDER = {r: i for i, r in enumerate(PAPER_RELATIONS)}


def links_by_paper(
    ctx: QueryContext,
    paper_iris: Iterable[str],
    type_: EntityType | None = None,
    relation: str | None = None,
    min_confidence: float | None = None,
) -> dict[str, list[LinkInfo]]:
    """For each paper IRI, its links (three queries for any number of papers), optionally filtered."""
    nodes = [n for n in {iri_or_none(i) for i in paper_iris} if n is not None]
    if not nodes:
        return {}
    rels = [r for r in ctx.relations if relation is None or r.value == ctx.iris.term(relation)]
    wanted = {r.value for r in rels}
    raw: dict[tuple[str, str, str], tuple[str | None, float | None]] = {}
    # One UNION branch per relation (a FILTER IN makes Oxigraph scan; `?p ?r ?e` also reads the abstract).
    branches = " UNION ".join(f"{{ ?p {r} ?e BIND({r} AS ?r) }}" for r in rels)
    for r in ctx.select(f"SELECT ?p ?r ?e WHERE {{ {values('p', nodes)} {branches} }}"):
        if (rel := text(r, "r") or "") in wanted:
            raw[(text(r, "p") or "", rel.removeprefix(ctx.iris.ns), text(r, "e") or "")] = (None, None)
    # Link nodes by their IRIs (kg.rdf.mapping names them from paper, relation and entity): two lookups
    # each, where walking rdf:subject/predicate/object from the paper took five.
    by_node = {ctx.iris.link(ctx.iris.paper_id(p) or "", rel, e): (p, rel, e) for p, rel, e in raw}
    if by_node:
        for r in ctx.select(
            f"SELECT ?l ?ev ?conf WHERE {{ {values('l', [NamedNode(n) for n in by_node])} "
            "?l kg:evidence ?ev ; kg:confidence ?conf }"
        ):
            if (key := by_node.get(text(r, "l") or "")) is not None:
                raw[key] = (text(r, "ev"), number(r, "conf"))
    infos = entities_by_iris(ctx, {e for _, _, e in raw})
    out: dict[str, list[LinkInfo]] = defaultdict(list)
    for (p, rel, e), (ev, conf) in raw.items():
        info = infos.get(e)
        if info is None or (type_ is not None and info.type != type_):
            continue
        if min_confidence is not None and (conf is None or conf < min_confidence):
            continue
        out[p].append(LinkInfo(p, rel, info, ev, conf))
    for links in out.values():
        links.sort(key=lambda x: (_ORDER.get(x.relation, 99), -(x.confidence or 0.0), x.entity.name.lower()))
    return dict(out)


def links(
    ctx: QueryContext,
    paper_id: str,
    type_: EntityType | None = None,
    relation: str | None = None,
    min_confidence: float | None = None,
) -> list[LinkInfo]:
    """The links of one paper."""
    iri = ctx.iris.paper(paper_id)
    return links_by_paper(ctx, [iri], type_, relation, min_confidence).get(iri, [])
