"""k-hop neighbourhood around a paper or entity, one query per level, best-connected nodes first."""

from __future__ import annotations

from collections.abc import Iterable

from pyoxigraph import NamedNode

from kg.query.context import QueryContext
from kg.query.model import Edge, Node, Subgraph
from kg.query.sparql import integer, iri_or_none, text, values
from kg.rdf.iris import SKOS


def node_iri(ctx: QueryContext, node_id: str) -> str | None:
    """The IRI of an entity id ("dataset/imagenet") or paper id that exists in the store."""
    candidates = []
    if ctx.iris.type_of_entity_id(node_id):
        candidates.append(ctx.iris.entity_from_id(node_id))
    candidates.append(ctx.iris.paper(node_id))
    nodes = [n for n in (iri_or_none(c) for c in candidates) if n is not None]
    rows = ctx.select(f"SELECT ?n WHERE {{ {values('n', nodes)} FILTER EXISTS {{ ?n ?p ?o }} }}")
    found = {text(r, "n") for r in rows}
    return next((n.value for n in nodes if n.value in found), None)


def neighborhood(ctx: QueryContext, node_id: str, depth: int = 1, limit: int = 50) -> Subgraph | None:
    """Nodes within `depth` hops of `node_id`; each level ranks new nodes by degree, `limit` nodes in all.
    Cached per store generation (a popular entity's second level reads thousands of edges)."""
    key = ("neighborhood", node_id, depth, limit)
    found = ctx.memo.get(ctx.store, key, lambda: (_neighborhood(ctx, node_id, depth, limit),), _weight)
    return found[0]


def _weight(found: tuple[Subgraph | None]) -> int:
    return 0 if found[0] is None else len(found[0].nodes) + len(found[0].edges)


def _neighborhood(ctx: QueryContext, node_id: str, depth: int, limit: int) -> Subgraph | None:
    center = node_iri(ctx, node_id)
    if center is None:
        return None
    rels = _relations(ctx)
    included: dict[str, int] = {center: 0}
    left_out: set[str] = set()
    edges: set[tuple[str, str, str]] = set()
    frontier = [center]
    for _ in range(max(depth, 0)):
        if not frontier:
            break
        found: set[str] = set()
        for s, r, o in _edges(ctx, frontier, rels):
            edges.add((s, r, o))
            found.update((s, o))
        new = found - included.keys()
        degrees = _degrees(ctx, new, rels)
        ranked = sorted(new, key=lambda n: (-degrees.get(n, 0), n))
        room = max(limit - len(included), 0)
        included.update((n, degrees.get(n, 0)) for n in ranked[:room])
        left_out.update(ranked[room:])
        frontier = ranked[:room]
    left_out -= included.keys()
    labels = _labels(ctx, included)
    nodes = tuple(_node(ctx, iri, labels.get(iri, ""), deg) for iri, deg in included.items())
    kept = tuple(
        Edge(_id(ctx, s), _id(ctx, o), r) for s, r, o in sorted(edges) if s in included and o in included
    )
    return Subgraph(nodes, kept, len(left_out))


def _relations(ctx: QueryContext) -> list[NamedNode]:
    extra = [ctx.term("defendsAgainst"), ctx.term("variantOf"), NamedNode(SKOS + "broader")]
    return [*ctx.relations, *extra]


def _edges(ctx: QueryContext, frontier: list[str], rels: list[NamedNode]) -> list[tuple[str, str, str]]:
    out_in = " UNION ".join(  # one branch per relation and direction: a FILTER IN on ?r reads every edge
        f"{{ ?n {r} ?o BIND(?n AS ?s) BIND({r} AS ?r) }} UNION {{ ?s {r} ?n BIND(?n AS ?o) BIND({r} AS ?r) }}"
        for r in rels
    )
    rows = ctx.select(
        f"SELECT DISTINCT ?s ?r ?o WHERE {{ {values('n', [NamedNode(n) for n in frontier])} {out_in} }}"
    )
    return [(text(r, "s") or "", _local(ctx, text(r, "r") or ""), text(r, "o") or "") for r in rows]


def _degrees(ctx: QueryContext, iris: Iterable[str], rels: list[NamedNode]) -> dict[str, int]:
    """Edges in and out of each node (cached per store generation: popular entities have thousands)."""

    def compute(missing: list[str]) -> dict[str, int]:
        branches = " UNION ".join(f"{{ ?n {r} ?x }} UNION {{ ?x {r} ?n }}" for r in rels)  # not FILTER IN
        rows = ctx.select(
            f"SELECT ?n (COUNT(*) AS ?d) WHERE {{ {values('n', [NamedNode(i) for i in missing])} "
            f"{branches} }} GROUP BY ?n"
        )
        return {text(r, "n") or "": integer(r, "d") for r in rows}

    return ctx.memo.counts(ctx.store, iris, compute, kind="degree")


def _labels(ctx: QueryContext, iris: Iterable[str]) -> dict[str, str]:
    rows = ctx.select(
        f"SELECT ?n ?l WHERE {{ {values('n', [NamedNode(i) for i in iris])} "
        f"{{ ?n dcterms:title ?l }} UNION {{ ?n skos:prefLabel ?l }} }}"
    )
    return {text(r, "n") or "": text(r, "l") or "" for r in rows}


def _node(ctx: QueryContext, iri: str, label: str, degree: int) -> Node:
    pid = ctx.iris.paper_id(iri)
    if pid is not None:
        return Node(pid, iri, label or pid, "Paper", degree)
    eid = ctx.iris.entity_id_of(iri) or iri
    return Node(eid, iri, label or eid, ctx.iris.type_of_entity_id(eid) or "Entity", degree)


def _id(ctx: QueryContext, iri: str) -> str:
    return ctx.iris.paper_id(iri) or ctx.iris.entity_id_of(iri) or iri


def _local(ctx: QueryContext, rel: str) -> str:
    return "broader" if rel == SKOS + "broader" else rel.removeprefix(ctx.iris.ns)
