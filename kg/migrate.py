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

from pyoxigraph import Literal, NamedNode, Quad

from kg.query.sparql import prefixes, values
from kg.rdf.iris import RDFS, Iris
from kg.store.types import Store
from kg.store.version import CHANGES, FORMAT_VERSION

ProgressSink = Callable[[int, int, int], None]  # (to version, papers done, papers in the step)
AGENT_LABEL = "paperkg extractor "  # rdfs:label of the prov:SoftwareAgent, followed by the version


@dataclass(frozen=True, slots=True)
class Pending:
    """One paper still in the old layout: its graph, its node and what the step needs to know."""

    graph: str
    paper: str
    value: str


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
        " OPTIONAL { { ?a a prov:SoftwareAgent } UNION { ?x prov:wasGeneratedBy ?a } } } } GROUP BY ?g ?p"
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


def _v3_finish(store: Store, iris: Iris) -> None:
    """Compute the aggregates (kg.query.counts) from the graph and store them, in one transaction."""
    from kg.write import rebuild_aggregates

    rebuild_aggregates(store, iris)


def _nothing(store: Store, iris: Iris) -> list[Pending]:
    return []


def _no_batch(store: Store, iris: Iris, batch: Sequence[Pending]) -> None:
    return None


STEPS: dict[int, Step] = {1: Step(1, _v2_pending, _v2_apply), 2: Step(2, _nothing, _no_batch, _v3_finish)}


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
        if step.pending is not _nothing:
            summary.papers[version + 1] = done
        if step.finish is not None:
            step.finish(store, iris)
            summary.aggregates_computed = True
    if summary.from_version < FORMAT_VERSION:
        summary.schema_rewritten = ensure_schema(store, base_iri)
        store.set_format_version(FORMAT_VERSION)
    summary.seconds = time.perf_counter() - started
    return summary
