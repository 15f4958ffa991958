"""k-hop neighbourhood around a paper or entity, one query per level, best-connected nodes first."""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pyoxigraph import NamedNode

from kg.query.context import QueryContext
from kg.query.entities import entities_by_iris, paper_counts
from kg.query.links import link_records
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
    extra = [ctx.term(r) for r in ("defendsAgainst", "realizesThreat", "attacksDomain", "variantOf")]
    extra.append(NamedNode(SKOS + "broader"))
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
    """Each node's degree: a paper's links; an entity's papers (the count kept at write time, so a popular
    entity costs a lookup right after a write, not a count of its thousands of edges) plus its edges to
    other entities (variants, broader concepts, threats it defends against). Cached per store generation."""
    extra = rels[len(ctx.relations):]

    def compute(missing: list[str]) -> dict[str, int]:
        entities: list[str] = []
        others: list[str] = []
        for i in missing:
            (entities if ctx.iris.entity_id_of(i) else others).append(i)
        out = _edge_counts(ctx, others, rels)
        if entities:
            nodes = [NamedNode(i) for i in entities]
            papers = paper_counts(ctx, nodes)
            linked = _edge_counts(ctx, entities, extra)
            out.update({i: papers.get(i, 0) + linked.get(i, 0) for i in entities})
        return out

    return ctx.memo.counts(ctx.store, iris, compute, kind="degree")


def _edge_counts(ctx: QueryContext, iris: Sequence[str], rels: Sequence[NamedNode]) -> dict[str, int]:
    """Edges in and out of each node over these relations."""
    if not iris or not rels:
        return {}
    branches = " UNION ".join(f"{{ ?n {r} ?x }} UNION {{ ?x {r} ?n }}" for r in rels)  # not FILTER IN
    scope = values("n", [NamedNode(i) for i in iris])
    rows = ctx.select(f"SELECT ?n (COUNT(*) AS ?d) WHERE {{ {scope} {branches} }} GROUP BY ?n")
    return {text(r, "n") or "": integer(r, "d") for r in rows}


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


@dataclass(frozen=True, slots=True)
class Ring:
    """An entity's co-occurrence neighbourhood: entities sharing papers with it, strongest first.

    `nodes[0]` is the centre. An entity node's `degree` is its paper count; `edges` carry `weight` =
    papers shared (for paper nodes, 1 per link). Papers are drawn only when the centre has few
    (`papers_drawn`); `more` counts co-occurring entities left out by `first`."""

    nodes: tuple[Node, ...]
    edges: tuple[WeightedEdge, ...]
    shared: dict[str, int]  # node id -> papers shared with the centre
    more: int
    paper_count: int
    papers_drawn: bool
    counted: int = 0  # papers whose links were counted (fewer than paper_count: shared counts are estimates)


@dataclass(frozen=True, slots=True)
class WeightedEdge:
    source: str
    target: str
    relation: str
    weight: int


def ring(
    ctx: QueryContext,
    node_id: str,
    first: int = 30,
    types: Sequence[str] | None = None,
    max_papers: int = 12,
    links_each: int = 2,
    min_confidence: float = 0.0,
) -> Ring | None:
    """The `first` entities (of `types`, if given) co-occurring most with `node_id` in papers, with each
    one's `links_each` strongest links to the others inside the centre's papers (a readable map at any
    corpus size instead of every paper); the centre's papers too when it has at most `max_papers`.
    For a paper, its linked entities. With `min_confidence`, links whose extraction confidence is below it
    are left out before anything is counted (a link without a confidence is kept). Cached per generation."""
    key = ("ring", node_id, first, tuple(sorted(types or ())), max_papers, links_each, min_confidence)
    found = ctx.memo.get(
        ctx.store,
        key,
        lambda: (_ring(ctx, node_id, first, set(types or ()), max_papers, links_each, min_confidence),),
        lambda f: 0 if f[0] is None else len(f[0].nodes) + len(f[0].edges),
    )
    return found[0]


def _ring(
    ctx: QueryContext, node_id: str, first: int, types: set[str], max_papers: int, links_each: int,
    min_confidence: float = 0.0,
) -> Ring | None:
    center = node_iri(ctx, node_id)
    if center is None:
        return None
    cid = _id(ctx, center)
    if ctx.iris.paper_id(center) is not None:
        rels = {r.value for r in ctx.relations}
        rows = ctx.select(f"SELECT ?r ?o WHERE {{ {values('p', [NamedNode(center)])} ?p ?r ?o }}")
        pairs = [(text(r, "r") or "", text(r, "o") or "") for r in rows]
        pairs = [(r, o) for r, o in pairs if r in rels and ctx.iris.entity_id_of(o)]
        if min_confidence > 0:
            ok = _confident(ctx, [center], min_confidence)
            pairs = [(r, o) for r, o in pairs if (center, r, o) in ok]
        info = entities_by_iris(ctx, {o for _, o in pairs})
        kept = [(r, o) for r, o in pairs if o in info and (not types or info[o].type in types)]
        labels = _labels(ctx, [center])
        nodes = [_node(ctx, center, labels.get(center, ""), 0)]
        nodes += [Node(info[o].id, o, info[o].name, info[o].type, info[o].paper_count)
                  for o in dict.fromkeys(o for _, o in kept)]
        edges = tuple(WeightedEdge(cid, info[o].id, _local(ctx, r), 1) for r, o in kept)
        return Ring(tuple(nodes), edges, {n.id: 1 for n in nodes[1:]}, 0, 1, True)
    papers, shared, by_paper = _cooccurring(ctx, center, min_confidence)
    scale = len(papers) / len(by_paper) if by_paper else 1.0  # inner links of a sampled centre: estimates

    def wanted(o: str) -> bool:
        etype = ctx.iris.type_of_entity_id(ctx.iris.entity_id_of(o) or "")
        return etype is not None and (not types or etype in types)

    candidates = sorted((o for o in shared if wanted(o)), key=lambda o: (-shared[o], o))
    info = entities_by_iris(ctx, [*candidates[: first + 10], center])  # described: only what is drawn
    ranked = sorted(
        (o for o in candidates[: first + 10] if o in info),
        key=lambda o: (-shared[o], -info[o].paper_count, info[o].name.lower()),
    )
    top = ranked[:first]
    inner = [(ab, round(w * scale)) for ab, w in _inner_links(by_paper, set(top), links_each)]
    c = info.get(center)
    nodes = [Node(c.id, center, c.name, c.type, c.paper_count) if c else _node(ctx, center, "", 0)]
    nodes += [Node(info[o].id, o, info[o].name, info[o].type, info[o].paper_count) for o in top]
    ring_edges = [WeightedEdge(cid, info[o].id, "cooccurs", shared[o]) for o in top]
    ring_edges += [WeightedEdge(info[a].id, info[b].id, "cooccurs", w) for (a, b), w in inner]
    drawn = len(papers) <= max_papers
    if drawn:
        labels = _labels(ctx, by_paper)
        for p, links in sorted(by_paper.items()):
            pid = _id(ctx, p)
            nodes.append(_node(ctx, p, labels.get(p, ""), len(links)))
            ring_edges += [WeightedEdge(pid, info[o].id if o in info else _id(ctx, o), _local(ctx, r), 1)
                      for r, o in sorted(links) if o == center or o in top]
    ids = {n.id: shared[n.iri] for n in nodes[1:] if n.iri in shared}
    return Ring(tuple(nodes), tuple(ring_edges), ids, len(candidates) - len(top), len(papers), drawn,
                len(by_paper))


def _inner_links(
    by_paper: dict[str, set[tuple[str, str]]], top: set[str], links_each: int
) -> list[tuple[tuple[str, str], int]]:
    """Each top entity's `links_each` strongest co-occurrences with other top entities (papers shared,
    counted inside the centre's papers), so the ring shows its structure without becoming a hairball."""
    pairs: Counter[tuple[str, str]] = Counter()
    for links in by_paper.values():
        present = sorted({o for _, o in links} & top)
        pairs.update((a, b) for i, a in enumerate(present) for b in present[i + 1:])
    best: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
    for (a, b), w in pairs.items():
        if w >= 2:
            best[a].append((-w, a, b))
            best[b].append((-w, a, b))
    keep: dict[tuple[str, str], int] = {}
    for cands in best.values():
        for negw, a, b in sorted(cands)[:links_each]:
            keep[(a, b)] = -negw
    return sorted(keep.items(), key=lambda kv: (-kv[1], kv[0]))


SAMPLE = 600  # papers whose links are read for one centre; beyond, a sample of them


def _confident(ctx: QueryContext, papers: Sequence[str], least: float) -> set[tuple[str, str, str]]:
    """(paper, relation IRI, entity) of these papers' links with a confidence of at least `least` or none."""
    ns = ctx.iris.ns
    return {(p, ns + rel, e) for p, found in link_records(ctx, papers).items() for rel, e, _, conf in found
            if conf is None or conf >= least}


def _cooccurring(
    ctx: QueryContext, center: str, min_confidence: float = 0.0
) -> tuple[list[str], dict[str, int], dict[str, set[tuple[str, str]]]]:
    """The centre's papers, the papers it shares with every co-occurring entity, and the links of its papers:
    all of them up to SAMPLE papers; beyond, a fixed pseudo-random SAMPLE of them, and the shared counts are
    estimated from it (scaled to all its papers; `Ring.counted` says so). Reading every link of a popular
    entity's thousands of papers took seconds; the strongest neighbours come out the same. Cached per store
    generation, whatever `first` and `types` ask for."""

    def compute() -> tuple[list[str], dict[str, int], dict[str, set[tuple[str, str]]]]:
        rv = " ".join(str(r) for r in ctx.relations)  # VALUES, not FILTER: Oxigraph reads only link triples
        c = values("c", [NamedNode(center)])
        rows = ctx.select(f"SELECT DISTINCT ?p WHERE {{ {c} VALUES ?rc {{ {rv} }} ?p ?rc ?c }}")
        papers = sorted(text(r, "p") or "" for r in rows)
        sample = papers
        if len(papers) > SAMPLE:
            sample = sorted(papers, key=lambda p: hashlib.sha1(p.encode()).digest())[:SAMPLE]
        by_paper: dict[str, set[tuple[str, str]]] = defaultdict(set)
        rels = {r.value for r in ctx.relations}
        for i in range(0, len(sample), 500):  # every triple of the papers, filtered here: a VALUES on ?r
            chunk = values("p", [NamedNode(p) for p in sample[i:i + 500]])  # makes Oxigraph 10x slower
            for row in ctx.select(f"SELECT ?p ?r ?o WHERE {{ {chunk} ?p ?r ?o }}"):
                if (r := text(row, "r") or "") in rels:
                    by_paper[text(row, "p") or ""].add((r, text(row, "o") or ""))
        if min_confidence > 0:  # the centre's papers and their links above the threshold only
            ok = _confident(ctx, sample, min_confidence)
            kept = {p: {(r, o) for r, o in links if (p, r, o) in ok} for p, links in by_paper.items()}
            by_paper = defaultdict(set, {p: ls for p, ls in kept.items() if any(o == center for _, o in ls)})
            if len(sample) == len(papers):
                papers = sorted(by_paper)
            else:  # a sample: the share of its papers still linked confidently, on the scale of all
                papers = papers[: round(len(papers) * len(by_paper) / len(sample))]
            sample = sorted(by_paper)
        shared: Counter[str] = Counter()
        for links in by_paper.values():
            shared.update({o for _, o in links} - {center})
        if len(sample) < len(papers):  # estimates from the sample, on the scale of all its papers
            scale = len(papers) / len(sample)
            shared = Counter({o: max(1, round(n * scale)) for o, n in shared.items()})
        return papers, dict(shared), dict(by_paper)

    def weight(f: tuple[list[str], dict[str, int], dict[str, set[tuple[str, str]]]]) -> int:
        return len(f[0]) + len(f[1]) + sum(len(v) for v in f[2].values())

    return ctx.memo.get(ctx.store, ("cooccurring", center, min_confidence), compute, weight)
