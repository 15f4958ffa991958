"""The one write path: `kg build`, `kg load` and the API's mutations all store papers through `write_graphs`.

A write replaces (or, given no quads, deletes) whole paper graphs and adds the entity descriptions they
bring, in one store transaction; then it removes the descriptions of entities that no paper links any
more (an idempotent clean-up that re-checks the store, so an interruption between the two only delays it
to the next write touching that entity), and refreshes the full-text index for exactly the papers and
entities it touched. Vocabulary concepts keep their `graph/vocab` description either way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from pyoxigraph import Literal, NamedNode, Quad

from kg.query.sparql import text, values
from kg.rdf.iris import Iris
from kg.rdf.mapping import GraphMapper
from kg.store.types import Store
from kg.store.writes import Meta
from kg.types import Extraction

if TYPE_CHECKING:
    from kg.build import BuildSummary
    from kg.query.search import SearchIndex

ProgressSink = Callable[[int], None]


@dataclass(frozen=True, slots=True)
class Written:
    """What one write stored: the papers written or deleted and the entities it removed from the graph."""

    papers: tuple[str, ...]
    removed_entities: tuple[str, ...]


class _Updatable(Protocol):
    def _update(self, text: str) -> None: ...


def paper_id_of_graph(iris: Iris, graph: str) -> str | None:
    """The paper id of a paper graph IRI (`{base}graph/paper/{slug}`), else None."""
    prefix = iris.base + "graph/paper/"
    return iris.paper_id(iris.base + "paper/" + graph[len(prefix):]) if graph.startswith(prefix) else None


def _entities_in(iris: Iris, quads: Iterable[Quad]) -> set[str]:
    """Entity ids named (as subject or object) by these quads."""
    out: set[str] = set()
    for q in quads:
        for term in (q.subject, q.object):
            if isinstance(term, NamedNode) and (eid := iris.entity_id_of(term.value)):
                out.add(eid)
    return out


def _linked_by(store: Store, iris: Iris, graphs: Sequence[str]) -> set[str]:
    """Entity ids the stored versions of these paper graphs link to or relate."""
    if not graphs:
        return set()
    scope = values("g", [NamedNode(g) for g in graphs])
    rows = store.select(
        f"SELECT DISTINCT ?e WHERE {{ {scope} GRAPH ?g {{ {{ ?x ?r ?e }} UNION {{ ?e ?r ?x }} }} "
        "FILTER(isIRI(?e)) }"
    )
    return {eid for r in rows if (eid := iris.entity_id_of(text(r, "e") or ""))}


def _pointed_at(store: Store, iris: Iris, entities: Sequence[str]) -> set[str]:
    """Entity ids the `graph/entities` descriptions of these entities point at (variantOf, broader)."""
    if not entities:
        return set()
    scope = values("e", [NamedNode(iris.entity_from_id(e)) for e in entities])
    eg = NamedNode(iris.entities_graph)
    rows = store.select(f"SELECT DISTINCT ?o WHERE {{ {scope} GRAPH {eg} {{ ?e ?p ?o }} FILTER(isIRI(?o)) }}")
    return {eid for r in rows if (eid := iris.entity_id_of(text(r, "o") or ""))}


def _cleanup_text(iris: Iris, candidates: Sequence[str]) -> str:
    """Update text dropping the `graph/entities` description of each candidate no paper graph mentions
    (as subject or object) and no still-linked entity points at (variantOf, broader)."""
    eg = NamedNode(iris.entities_graph)
    scope = values("e", [NamedNode(iris.entity_from_id(c)) for c in candidates])
    papers = Literal(iris.base + "graph/paper/")
    return (
        f"DELETE {{ GRAPH {eg} {{ ?e ?p ?o }} }} WHERE {{ {scope} GRAPH {eg} {{ ?e ?p ?o }} "
        f"FILTER NOT EXISTS {{ GRAPH ?g {{ {{ ?x ?r ?e }} UNION {{ ?e ?r ?x }} }} "
        f"FILTER(STRSTARTS(STR(?g), {papers})) }} "
        f"FILTER NOT EXISTS {{ GRAPH {eg} {{ ?k ?r2 ?e }} GRAPH ?g2 {{ ?y ?r3 ?k }} "
        f"FILTER(?k != ?e && STRSTARTS(STR(?g2), {papers})) }} }}"
    )


def _described(store: Store, iris: Iris, candidates: Sequence[str]) -> set[str]:
    """Which of these entity ids still have a description in `graph/entities`."""
    if not candidates:
        return set()
    scope = values("e", [NamedNode(iris.entity_from_id(c)) for c in candidates])
    eg = NamedNode(iris.entities_graph)
    rows = store.select(f"SELECT DISTINCT ?e WHERE {{ {scope} GRAPH {eg} {{ ?e ?p ?o }} }}")
    return {eid for r in rows if (eid := iris.entity_id_of(text(r, "e") or ""))}


def write_graphs(
    store: Store,
    iris: Iris,
    graphs: Mapping[str, Sequence[Quad]],
    shared: Sequence[Quad] = (),
    *,
    index: SearchIndex | None = None,
) -> Written:
    """Replace these paper graphs (an empty quad list deletes the paper) and add the `shared` entity
    descriptions in one transaction; then drop entities no paper links any more and refresh `index`."""
    names = list(graphs)
    ids = [pid for g in names if (pid := paper_id_of_graph(iris, g)) is not None]
    before = store.generation()
    new = _entities_in(iris, (q for quads in graphs.values() for q in quads)) | _entities_in(iris, shared)
    old = _linked_by(store, iris, names)
    old |= _pointed_at(store, iris, sorted(old - new))
    store.replace_graphs(graphs, shared)
    candidates = sorted(old - new)
    removed: list[str] = []
    if candidates and hasattr(store, "_update"):  # every backend we ship; a foreign one keeps orphans
        had = _described(store, iris, candidates)
        updatable: _Updatable = store  # type: ignore[assignment]
        updatable._update(_cleanup_text(iris, candidates) + " ;\n" + Meta(iris.base).bump())
        removed = sorted(had - _described(store, iris, candidates))
    if index is not None:
        index.refresh(store, before, ids, new | old)
    return Written(tuple(ids), tuple(removed))


def delete_papers(store: Store, iris: Iris, paper_ids: Sequence[str], *,
                  index: SearchIndex | None = None) -> Written:
    """Drop these papers' graphs (and the entities only they linked) in the one write path."""
    return write_graphs(store, iris, {iris.paper_graph(p): [] for p in paper_ids}, index=index)


def write_extractions(
    store: Store,
    exs: Iterable[Extraction],
    mapper: GraphMapper,
    *,
    batch_size: int = 200,
    progress: ProgressSink | None = None,
    summary: BuildSummary | None = None,
    index: SearchIndex | None = None,
) -> list[Written]:
    """Map extractions to paper graphs and write them through `write_graphs`, one transaction per
    `batch_size` papers (a re-written paper replaces its old graph); returns what each batch wrote."""
    batch: dict[str, list[Quad]] = {}
    shared: dict[Quad, None] = {}  # entity descriptions, de-duplicated across the batch
    done: list[Written] = []

    def flush() -> None:
        done.append(write_graphs(store, mapper.iris, batch, list(shared), index=index))
        if progress:
            progress(len(batch))

    for ex in exs:
        mapped = mapper.map(ex)
        batch[mapped.graph] = mapped.quads
        shared.update(dict.fromkeys(mapped.shared))
        if summary is not None:
            summary.add(ex, len(mapped.quads) + len(mapped.shared))
        if len(batch) >= batch_size:
            flush()
            batch, shared = {}, {}
    if batch:
        flush()
    return done
