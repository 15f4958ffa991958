"""`kg migrate`: upgrade a store's layout in place, step by step from its format version to the current one.

Each step lists the papers still in the old layout and rewrites them in batches of whole papers, one store
transaction per batch, so a migration killed at any moment leaves every paper in the old or the new
layout; rerunning lists only the papers left and finishes. The format stamp moves last, after every paper
and the ontology/vocabulary graphs are up to date, so a half-migrated store still opens only for
`kg migrate`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal as TypingLiteral

from pyoxigraph import Literal, NamedNode, Quad

from kg import migrate_links
from kg.migrate_step import Pending
from kg.query.sparql import prefixes, values
from kg.rdf.iris import DCTERMS, PROV, RDF, RDFS, SCHEMA, Iris
from kg.rdf.mapping import BIBO, GraphMapper, QuadSink
from kg.store.types import Store
from kg.store.version import CHANGES, FORMAT_VERSION
from kg.types import Evidence, Paper

ProgressSink = Callable[[int, int, int], None]  # (to version, papers done, papers in the step)
AGENT_LABEL = "paperkg extractor "  # rdfs:label of the prov:SoftwareAgent, followed by the version


@dataclass(frozen=True, slots=True)
class Step:
    """The upgrade from `source` to `source + 1`: which papers need it, and how one batch is rewritten."""

    source: int
    pending: Callable[[Store, Iris], list[Pending]]
    apply: Callable[[Store, Iris, Sequence[Pending]], None]  # one transaction, whole papers
    finish: Callable[[Store, Iris], None] | None = None  # after the papers: one transaction


@dataclass(slots=True)
class MigrationSummary:
    """What a `kg migrate` run did."""

    from_version: int
    to_version: int
    papers: dict[int, int] = field(default_factory=dict)  # target version -> papers rewritten for it
    schema_rewritten: bool = False
    aggregates_computed: bool = False
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        return self.from_version != self.to_version or any(self.papers.values()) or self.schema_rewritten


def _v2_pending(store: Store, iris: Iris) -> list[Pending]:
    """Papers without kg:extractorVersion, with the version named by their graph's extractor agent (described
    in the paper graph by older layouts, in the entities graph since; the links name it either way)."""
    rows = store.select(
        prefixes(iris)
        + "SELECT ?g ?p (MIN(STR(?a)) AS ?agent) WHERE { GRAPH ?g { ?p a kg:Paper ."
        " FILTER NOT EXISTS { ?p kg:extractorVersion ?v }"
        " OPTIONAL { { ?a a prov:SoftwareAgent } UNION { ?x prov:wasGeneratedBy ?a }"
        " UNION { ?x kg:by ?rule GRAPH ?rg { ?rule prov:wasGeneratedBy ?a } } } } } GROUP BY ?g ?p"
    )
    agents = sorted({a.value for r in rows if isinstance(a := r.get("agent"), Literal)})
    labels: dict[str, str] = {}
    if agents:
        for r in store.select(f"SELECT ?a (MIN(?label) AS ?l) WHERE {{ {values('a', map(NamedNode, agents))}"
                              f" ?a <{RDFS}label> ?label }} GROUP BY ?a"):
            if isinstance(a := r.get("a"), NamedNode) and isinstance(name := r.get("l"), Literal):
                labels[a.value] = name.value
    out = []
    for r in rows:
        g, p, agent = r.get("g"), r.get("p"), r.get("agent")
        if isinstance(g, NamedNode) and isinstance(p, NamedNode):
            label = labels.get(agent.value) if isinstance(agent, Literal) else None
            version = label.removeprefix(AGENT_LABEL) if label is not None else "unknown"
            out.append(Pending(g.value, p.value, version or "unknown"))
    return sorted(out, key=lambda x: x.graph)


def _v2_apply(store: Store, iris: Iris, batch: Sequence[Pending]) -> None:
    """Add `<paper> kg:extractorVersion "v"` inside each paper's own graph, all in one transaction."""
    pred = NamedNode(iris.term("extractorVersion"))
    store.replace_graphs({}, [Quad(NamedNode(x.paper), pred, Literal(x.value), NamedNode(x.graph))
                              for x in batch])


def _v3_pending(store: Store, iris: Iris) -> list[Pending]:
    """Papers still in the format-2 layout (typed schema:ScholarlyArticle in their graph, as only it did)."""
    rows = store.select(prefixes(iris)
                        + "SELECT ?g ?p WHERE { GRAPH ?g { ?p a kg:Paper, schema:ScholarlyArticle } }")
    out = {Pending(g.value, p.value, "") for r in rows
           if isinstance(g := r.get("g"), NamedNode) and isinstance(p := r.get("p"), NamedNode)}
    return sorted(out, key=lambda x: x.graph)


Triple3 = tuple[object, object, object]
FieldName = TypingLiteral["title", "abstract"]


def lean_paper_graph(iris: Iris, paper_iri: str, graph: str, triples: Sequence[Triple3],
                     mapper: GraphMapper) -> tuple[list[Quad], list[Quad]]:
    """A format-2 paper graph in the format-3 layout: (its quads, the shared quads it adds). Authors become
    an ordered rdf:Seq (in sorted order: format 2 kept none), link nodes lean evidence (offsets into the
    paper's text, a shared rule node), the extractor agent moves to the entities graph; everything else
    (results, plain links, metadata) stays as it is."""
    g, eg = NamedNode(graph), NamedNode(iris.entities_graph)
    ns, rdf_type = iris.ns, RDF + "type"
    by_subject: dict[str, dict[str, list[object]]] = {}
    for s, p, o in triples:
        by_subject.setdefault(getattr(s, "value", ""), {}).setdefault(getattr(p, "value", ""), []).append(o)
    paper = by_subject.get(paper_iri, {})

    def typed(cls: str) -> set[str]:
        return {k for k, props in by_subject.items()
                if any(getattr(t, "value", "") == cls for t in props.get(rdf_type, ()))}

    agents, links = typed(PROV + "SoftwareAgent"), typed(ns + "Link")

    def first(props: dict[str, list[object]], key: str) -> str:
        found = props.get(key)
        return str(getattr(found[0], "value", "")) if found else ""

    title = first(paper, DCTERMS + "title") or None
    record = Paper(paper_iri, first(paper, DCTERMS + "abstract"), title=title)
    sink = QuadSink(g, eg)
    out, shared, add, describe = sink.out, sink.shared, sink.add, sink.describe

    for s, p, o in triples:
        sv, pv, ov = getattr(s, "value", ""), getattr(p, "value", ""), getattr(o, "value", "")
        if sv in links or (sv == paper_iri and (
                pv == DCTERMS + "creator" or (pv == rdf_type and ov == SCHEMA + "ScholarlyArticle"))):
            continue
        (describe if sv in agents else add)(s, p, o)  # type: ignore[arg-type]
    authors = sorted(str(getattr(a, "value", "")) for a in paper.get(DCTERMS + "creator", ()))
    if authors:
        seq = NamedNode(paper_iri + "/authors")
        add(NamedNode(paper_iri), BIBO + "authorList", seq)
        for i, name in enumerate(authors, 1):
            add(seq, f"{RDF}_{i}", Literal(name))
    for link in sorted(links):
        props = by_subject[link]
        subject, rel, obj = (props.get(RDF + k, [None])[0] for k in ("subject", "predicate", "object"))
        agent = props.get(PROV + "wasGeneratedBy", [None])[0]
        if not (isinstance(rel, NamedNode) and isinstance(obj, NamedNode) and isinstance(agent, NamedNode)):
            continue
        label = first(by_subject.get(agent.value, {}), RDFS + "label")
        version = label.removeprefix(AGENT_LABEL) if label else first(paper, ns + "extractorVersion")
        field: FieldName = "title" if first(props, ns + "field") == "title" else "abstract"
        ev = Evidence(first(props, ns + "evidence"), first(props, ns + "mention"),
                      int(first(props, ns + "start") or 0), int(first(props, ns + "end") or 0),
                      float(first(props, ns + "confidence") or 0.0), field, first(props, ns + "rule"))
        s_node = subject if isinstance(subject, NamedNode) and subject.value != paper_iri else None
        mapper._evidence(add, describe, NamedNode(link), s_node, rel, obj, ev, record, version, agent)
    return out, shared


def _v3_apply(store: Store, iris: Iris, batch: Sequence[Pending]) -> None:
    """Rewrite whole paper graphs into the format-3 layout, one transaction for the batch."""
    from kg.write import read_graphs

    mapper = GraphMapper(iris)
    stored = read_graphs(store, [x.graph for x in batch])
    graphs: dict[str, list[Quad]] = {}
    shared: dict[Quad, None] = {}
    for x in batch:
        quads, more = lean_paper_graph(iris, x.paper, x.graph, stored.get(x.graph, []), mapper)
        graphs[x.graph] = quads
        shared.update(dict.fromkeys(more))
    store.replace_graphs(graphs, list(shared))


def _v3_finish(store: Store, iris: Iris) -> None:
    """Compute the aggregates (kg.query.counts) from the graph and store them, in one transaction."""
    from kg.write import rebuild_aggregates

    rebuild_aggregates(store, iris)


def _v4_pending(store: Store, iris: Iris) -> list[Pending]:
    """No paper changes from format 3 to 4: only the aggregates gain each entity's paper list."""
    return []


def _no_papers(store: Store, iris: Iris, batch: Sequence[Pending]) -> None:
    """Nothing to rewrite per paper."""


STEPS: dict[int, Step] = {1: Step(1, _v2_pending, _v2_apply), 2: Step(2, _v3_pending, _v3_apply, _v3_finish),
                          3: Step(3, _v4_pending, _no_papers, _v3_finish),
                          4: Step(4, migrate_links.pending, migrate_links.apply, migrate_links.finish)}


def describe(version: int) -> str:
    """One line on what the layout `version` holds (README "Upgrading" lists them all)."""
    return CHANGES.get(version, "unknown layout")


def migrate(store: Store, base_iri: str, *, batch_size: int = 500,
            progress: ProgressSink | None = None) -> MigrationSummary:
    """Upgrade `store` (opened with `upgrade=True`) to FORMAT_VERSION; safe to rerun after a kill."""
    from kg.build import ensure_schema

    started = time.perf_counter()
    iris = Iris(base_iri)
    summary = MigrationSummary(store.format_version, FORMAT_VERSION)
    for version in range(store.format_version, FORMAT_VERSION):
        step = STEPS[version]
        todo = step.pending(store, iris)
        done = 0
        for i in range(0, len(todo), max(1, batch_size)):
            part = todo[i : i + max(1, batch_size)]
            step.apply(store, iris, part)
            done += len(part)
            if progress is not None:
                progress(version + 1, done, len(todo))
        summary.papers[version + 1] = done
        if step.finish is not None:
            step.finish(store, iris)
            summary.aggregates_computed = True
    if summary.from_version < FORMAT_VERSION:
        summary.schema_rewritten = ensure_schema(store, base_iri)
        store.set_format_version(FORMAT_VERSION)
    summary.seconds = time.perf_counter() - started
    return summary
