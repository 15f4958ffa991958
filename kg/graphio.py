"""The store as a networkx graph, written for graph tools: GraphML (yEd), GEXF (Gephi), cyjs (Cytoscape).

Nodes are papers (id "seed-01") and entities (id "dataset/imagenet") with `label` and `type` attributes;
edges are paper→entity links and entity→entity relations with `relation` and, when known, `confidence`.
Only entities some paper links appear (relations between them included), unless `unlinked=True` asks for
the vocabulary concepts the relations reach too. Cytoscape JSON carries the graph's `data` as an object.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx
from pyoxigraph import NamedNode

from kg.query import QueryContext, entities_by_iris, links_by_paper, papers
from kg.query.graph import Ring
from kg.query.model import EntityInfo, Subgraph
from kg.query.sparql import number, text, values
from kg.rdf.iris import SKOS
from kg.types import ENTITY_RELATIONS as ENTITY_RELATION_NAMES

FORMATS = ("graphml", "gexf", "cyjs")
ENTITY_RELATIONS = tuple(r for r in ENTITY_RELATION_NAMES if r != "broader")  # skos:broader apart
_PAGE = 100


def project(ctx: QueryContext, *, unlinked: bool = False) -> nx.MultiDiGraph:
    """Every paper and linked entity as nodes, every link and entity relation between them as an edge keyed
    by relation; `unlinked` adds the entities relations reach that no paper links (vocabulary concepts)."""
    g = nx.MultiDiGraph(name="paperkg")
    paper_iris: list[str] = []
    after: str | None = None
    while True:
        page = papers(ctx, first=_PAGE, after=after)
        for p in page.items:
            attrs: dict[str, Any] = {"label": p.title or p.id, "type": "Paper", "iri": p.iri}
            if p.year is not None:
                attrs["year"] = p.year
            if p.venue:
                attrs["venue"] = p.venue
            g.add_node(p.id, **attrs)
            paper_iris.append(p.iri)
        if not page.has_next or page.end_cursor is None:
            break
        after = page.end_cursor
    for i in range(0, len(paper_iris), _PAGE):
        for paper_iri, links in links_by_paper(ctx, paper_iris[i: i + _PAGE]).items():
            source = ctx.iris.paper_id(paper_iri) or paper_iri
            for link in links:
                _add_entity(g, link.entity)
                _add_edge(g, source, link.entity.id, link.relation, link.confidence)
    _add_entity_relations(ctx, g, unlinked)
    return g


def _add_entity(g: nx.MultiDiGraph, e: EntityInfo) -> None:
    if e.id in g:
        return
    attrs: dict[str, Any] = {"label": e.name, "type": e.type, "iri": e.iri, "paper_count": e.paper_count}
    if e.kind:
        attrs["kind"] = e.kind
    if e.aliases:
        attrs["aliases"] = "; ".join(e.aliases)
    g.add_node(e.id, **attrs)


def _add_edge(g: nx.MultiDiGraph, source: str, target: str, relation: str, confidence: float | None) -> None:
    attrs: dict[str, Any] = {"relation": relation}
    if confidence is not None:
        attrs["confidence"] = float(confidence)
    g.add_edge(source, target, key=relation, **attrs)


def _add_entity_relations(ctx: QueryContext, g: nx.MultiDiGraph, unlinked: bool = False) -> None:
    """entity→entity edges (kg.types.ENTITY_RELATIONS: roles, variantOf, broader), best confidence per triple;
    only between entities already in `g` (linked by papers) unless `unlinked`."""
    rels = [ctx.term(r) for r in ENTITY_RELATIONS] + [NamedNode(SKOS + "broader")]
    rows = ctx.select(
        f"SELECT ?s ?r ?o (MAX(?c) AS ?conf) WHERE {{ {values('r', rels)} ?s ?r ?o . "
        f"?s skos:prefLabel ?sl . ?o skos:prefLabel ?ol . "
        f"OPTIONAL {{ ?l rdf:subject ?s ; rdf:predicate ?r ; rdf:object ?o ; kg:by/kg:confidence ?c }} }} "
        f"GROUP BY ?s ?r ?o"
    )
    triples = [(text(r, "s") or "", text(r, "r") or "", text(r, "o") or "", number(r, "conf")) for r in rows]
    infos = entities_by_iris(ctx, {t[0] for t in triples} | {t[2] for t in triples})
    for s, r, o, conf in sorted(triples, key=lambda t: t[:3]):
        if s not in infos or o not in infos:
            continue
        if not unlinked and (infos[s].id not in g or infos[o].id not in g):
            continue
        _add_entity(g, infos[s])
        _add_entity(g, infos[o])
        relation = "broader" if r == SKOS + "broader" else r.removeprefix(ctx.iris.ns)
        _add_edge(g, infos[s].id, infos[o].id, relation, conf)


def from_subgraph(sub: Subgraph) -> nx.MultiDiGraph:
    """A neighbourhood as networkx: nodes by id with label, type, iri and degree; edges keyed by relation."""
    g = nx.MultiDiGraph(truncated=sub.truncated)
    for n in sub.nodes:
        g.add_node(n.id, label=n.label, type=n.type, iri=n.iri, degree=n.degree)
    for e in sub.edges:
        g.add_edge(e.source, e.target, key=e.relation, relation=e.relation)
    return g


def from_ring(ring: Ring) -> nx.Graph:
    """A co-occurrence map as an undirected networkx graph. Entity nodes carry `papers` (their paper count)
    and `shared` (papers shared with the centre, `graph["center"]`); when the centre has few papers they are
    nodes too (type "Paper", `shared` None, `graph["papers_drawn"]`). Edge `weight` = papers shared."""
    center = ring.nodes[0].id if ring.nodes else None
    g = nx.Graph(center=center, more=ring.more, paper_count=ring.paper_count, papers_drawn=ring.papers_drawn,
                 counted=ring.counted)
    for n in ring.nodes:
        g.add_node(n.id, label=n.label, type=n.type, papers=n.degree, shared=ring.shared.get(n.id))
    for e in ring.edges:
        g.add_edge(e.source, e.target, relation=e.relation, weight=e.weight)
    return g


def write(g: nx.MultiDiGraph, fmt: str, out: str | Path) -> Path:
    """Write `g` to `out` as graphml, gexf or cyjs (Cytoscape JSON, node `name` = label)."""
    path = Path(out)
    if fmt == "graphml":
        nx.write_graphml(g, path, encoding="utf-8", prettyprint=True)
    elif fmt == "gexf":
        nx.write_gexf(g, path, encoding="utf-8", prettyprint=True)
    elif fmt == "cyjs":
        data = nx.cytoscape_data(g, name="label")
        data["data"] = dict(g.graph)  # cytoscape.js reads the graph's data as an object, not pairs
        for edge in data["elements"]["edges"]:  # cy.json() needs an id on every element
            e = edge["data"]
            e.setdefault("id", f"{e['source']} {e.get('key', e.get('relation', ''))} {e['target']}")
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    else:
        raise ValueError(f"unknown graph format {fmt!r}: use one of {', '.join(FORMATS)}")
    return path


def read(fmt: str, path: str | Path) -> nx.Graph:
    """Read a file written by `write` back into networkx (for checks and round trips)."""
    if fmt == "graphml":
        return nx.read_graphml(path)
    if fmt == "gexf":
        return nx.read_gexf(path)
    if fmt == "cyjs":
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        for edge in data.get("elements", {}).get("edges", []):
            edge.get("data", {}).pop("id", None)  # an element id for cytoscape.js, not an edge attribute
        return nx.cytoscape_graph(data, name="label")
    raise ValueError(f"unknown graph format {fmt!r}: use one of {', '.join(FORMATS)}")


def export(ctx: QueryContext, fmt: str, out: str | Path, *, unlinked: bool = False) -> nx.MultiDiGraph:
    """`kg export --format graphml|gexf|cyjs`: project the store and write it; returns the graph written."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown graph format {fmt!r}: use one of {', '.join(FORMATS)}")
    g = project(ctx, unlinked=unlinked)
    write(g, fmt, out)
    return g
