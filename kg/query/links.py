"""Links of papers to entities with the evidence and confidence of their link nodes, batched by paper."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from pyoxigraph import NamedNode

from kg.query.context import QueryContext
from kg.query.entities import entities_by_iris
from kg.query.model import LinkInfo
from kg.query.papers import papers_by_iris
from kg.query.sparql import iri_or_none, number, text, values
from kg.rdf.mapping import read_span
from kg.types import PAPER_RELATIONS, EntityType

_ORDER = {r: i for i, r in enumerate(PAPER_RELATIONS)}


Raw = tuple[tuple[str, str, str | None, float | None], ...]  # (relation, entity IRI, evidence, confidence)


def links_by_paper(
    ctx: QueryContext,
    paper_iris: Iterable[str],
    type_: EntityType | None = None,
    relation: str | None = None,
    min_confidence: float | None = None,
) -> dict[str, list[LinkInfo]]:
    """For each paper IRI, its links, optionally filtered (cached per store generation; on a miss, two
    queries for any number of papers, plus the entities not yet described)."""
    nodes = [n.value for n in {iri_or_none(i) for i in paper_iris} if n is not None]
    if not nodes:
        return {}
    raw = link_records(ctx, nodes)
    infos = entities_by_iris(ctx, {e for found in raw.values() for _, e, _, _ in found})
    out: dict[str, list[LinkInfo]] = {}
    for p, found in raw.items():
        links = [
            LinkInfo(p, rel, info, ev, conf)
            for rel, e, ev, conf in found
            if (info := infos.get(e)) is not None
            and (type_ is None or info.type == type_)
            and (relation is None or rel == relation)
            and (min_confidence is None or (conf is not None and conf >= min_confidence))
        ]
        if links:
            links.sort(
                key=lambda x: (_ORDER.get(x.relation, 99), -(x.confidence or 0.0), x.entity.name.lower())
            )
            out[p] = links
    return out


def link_records(ctx: QueryContext, paper_iris: Sequence[str]) -> dict[str, Raw]:
    """Every link of these papers as (relation, entity IRI, evidence, confidence), cached per generation."""
    return ctx.memo.per_node(ctx.store, "links", paper_iris, lambda m: _fetch(ctx, m), ())


def _fetch(ctx: QueryContext, papers: list[str]) -> dict[str, Raw]:
    """Every link of these papers with its evidence and confidence."""
    raw: dict[tuple[str, str, str], tuple[str | None, float | None]] = {}
    # One UNION branch per relation (a FILTER IN makes Oxigraph scan; `?p ?r ?e` also reads the abstract).
    branches = " UNION ".join(f"{{ ?p {r} ?e BIND({r} AS ?r) }}" for r in ctx.relations)
    for r in ctx.select(
        f"SELECT ?p ?r ?e WHERE {{ {values('p', [NamedNode(p) for p in papers])} {branches} }}"
    ):
        rel = (text(r, "r") or "").removeprefix(ctx.iris.ns)
        raw[(text(r, "p") or "", rel, text(r, "e") or "")] = (None, None)
    # Link nodes by their IRIs (kg.rdf.mapping names them from paper, relation and entity): a few lookups
    # each, where walking rdf:subject/predicate/object from the paper took five; the confidence is the
    # shared rule node's (store format 5).
    by_node = {ctx.iris.link(ctx.iris.paper_id(p) or "", rel, e): (p, rel, e) for p, rel, e in raw}
    if by_node:
        rows = ctx.select(
            f"SELECT ?l ?span ?ev ?conf WHERE {{ {values('l', [NamedNode(n) for n in by_node])} "
            "?l kg:by ?by . ?by kg:confidence ?conf"
            " OPTIONAL { ?l kg:span ?span } OPTIONAL { ?l kg:evidence ?ev } }"
        )
        texts = papers_by_iris(ctx, papers) if any(r.get("ev") is None for r in rows) else {}
        for r in rows:
            if (key := by_node.get(text(r, "l") or "")) is not None:
                ev = text(r, "ev")
                if ev is None and (span := read_span(text(r, "span") or "")) is not None:
                    field, ss, se, _, _ = span
                    info = texts.get(key[0])
                    whole = (info.title if field == "title" else info.abstract) if info else None
                    ev = whole[ss:se] if whole is not None and ss is not None and se is not None else None
                raw[key] = (ev, number(r, "conf"))
    out: dict[str, list[tuple[str, str, str | None, float | None]]] = defaultdict(list)
    for (p, rel, e), (ev, conf) in raw.items():
        out[p].append((rel, e, ev, conf))
    return {p: tuple(found) for p, found in out.items()}


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
