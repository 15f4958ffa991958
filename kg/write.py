"""The one write path: `kg build`, `kg load` and the API's mutations all store papers through `write_graphs`.

A write replaces (or, given no quads, deletes) whole paper graphs and adds the entity descriptions they
bring, in one store transaction; then it removes the descriptions of entities that no paper links any
more (an idempotent clean-up that re-checks the store, so an interruption between the two only delays it
to the next write touching that entity), and refreshes the full-text index for exactly the papers and
entities it touched. Vocabulary concepts keep their `graph/vocab` description either way.

The aggregates (`kg.query.counts`: paper counts per entity and year, the graph's statistics) change in
the same transactions: the write reads the old versions of its paper graphs and the counters it touches,
and replaces those counters' graphs along with the papers. Writes in one process take turns (a lock), so
counters are never updated from a stale read; two processes writing one remote store at the same time
could, and `rebuild_aggregates` (or `kg migrate`) recomputes them from the graph.
"""

from __future__ import annotations

import bisect
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pyoxigraph import BlankNode, Literal, NamedNode, Quad

from kg.query.counts import (
    SHARDS,
    EntityCounts,
    Globals,
    Layout,
    PaperFacts,
    TableRow,
    decode_table,
    encode_buckets,
    encode_table,
    encode_venue_years,
    encode_years,
    paper_facts,
    shard_of,
    stored_buckets,
    stored_entities,
    stored_entity_quads,
    stored_globals,
    stored_tables,
    year_of,
)
from kg.query.memo import Change, carry_over
from kg.query.paperlists import block_graph, block_quads, cut, index_quad, stored_blocks, stored_indexes
from kg.query.paperlists import update as update_blocks
from kg.query.sparql import integer, paper_relations, prefixes, text, values
from kg.rdf.descriptions import OneDescription, one_description, single_valued
from kg.rdf.iris import Iris
from kg.rdf.mapping import GraphMapper
from kg.store.types import Store
from kg.store.writes import Meta
from kg.types import ENTITY_TYPES, Extraction

if TYPE_CHECKING:
    from kg.query.search import SearchIndex
    from kg.summary import BuildSummary

ProgressSink = Callable[[int], None]
Triple3 = tuple[object, object, object]
_WRITING = threading.Lock()  # one write at a time per process: counters are read, updated, written back
_XSD_INT = NamedNode("http://www.w3.org/2001/XMLSchema#integer")


@dataclass(frozen=True, slots=True)
class Written:
    """What one write stored: the papers written or deleted and the entities it removed from the graph."""

    papers: tuple[str, ...]
    removed_entities: tuple[str, ...]


@runtime_checkable
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
    (as subject or object) and no still-linked entity points at (variantOf, broader); the stored count of
    the entities graph's quads goes down by as many, in the same update."""
    eg = NamedNode(iris.entities_graph)
    scope = values("e", [NamedNode(iris.entity_from_id(c)) for c in candidates])
    papers = Literal(iris.base + "graph/paper/")
    where = (
        f"{scope} GRAPH {eg} {{ ?e ?p ?o }} "
        f"FILTER NOT EXISTS {{ GRAPH ?g {{ {{ ?x ?r ?e }} UNION {{ ?e ?r ?x }} }} "
        f"FILTER(STRSTARTS(STR(?g), {papers})) }} "
        f"FILTER NOT EXISTS {{ GRAPH {eg} {{ ?k ?r2 ?e }} GRAPH ?g2 {{ ?y ?r3 ?k }} "
        f"FILTER(?k != ?e && STRSTARTS(STR(?g2), {papers})) }}"
    )
    layout = Layout(iris)
    qg, meta, pred = NamedNode(layout.entity_quads_graph), NamedNode(layout.meta), layout.term("entityQuads")
    return (
        f"DELETE {{ GRAPH {qg} {{ {meta} {pred} ?old }} }} INSERT {{ GRAPH {qg} {{ {meta} {pred} ?new }} }} "
        f"WHERE {{ GRAPH {qg} {{ {meta} {pred} ?old }} {{ SELECT (COUNT(*) AS ?gone) WHERE {{ {where} }} }} "
        f"BIND(?old - ?gone AS ?new) }} ;\n"
        f"DELETE {{ GRAPH {eg} {{ ?e ?p ?o }} }} WHERE {{ {where} }}"
    )


def _described(store: Store, iris: Iris, candidates: Sequence[str]) -> set[str]:
    """Which of these entity ids still have a description in `graph/entities`."""
    if not candidates:
        return set()
    scope = values("e", [NamedNode(iris.entity_from_id(c)) for c in candidates])
    eg = NamedNode(iris.entities_graph)
    rows = store.select(f"SELECT DISTINCT ?e WHERE {{ {scope} GRAPH {eg} {{ ?e ?p ?o }} }}")
    return {eid for r in rows if (eid := iris.entity_id_of(text(r, "e") or ""))}


def _settled(store: Store, iris: Iris, shared: Sequence[Quad], *, entities: bool = True) -> list[Quad]:
    """`shared` entity descriptions as a write adds them, read from the store in one query: without the
    triples the vocabulary or ontology graph holds (no triple is stored in two graphs, so the union default
    graph SPARQL clients read is a set), and with one name and kind per entity — the vocabulary's, else (with
    `entities`) the one the entities graph already gives it (kg.rdf.descriptions)."""
    subjects = sorted({q.subject for q in shared if isinstance(q.subject, NamedNode)}, key=str)
    if not subjects:
        return one_description(iris, shared)
    schema = [iris.vocab_graph, iris.ontology_graph]
    graphs = [NamedNode(g) for g in (*schema, *([iris.entities_graph] if entities else []))]
    scope = f"{values('s', subjects)} {values('g', graphs)}"
    rows = store.select(f"SELECT ?g ?s ?p ?o WHERE {{ {scope} GRAPH ?g {{ ?s ?p ?o }} }}")
    in_schema = [r for r in rows if text(r, "g") in schema]
    held = {(r["s"], r["p"], r["o"]) for r in in_schema}
    single = single_valued(iris)
    names: dict[tuple[NamedNode | BlankNode, NamedNode], object] = {}
    for r in in_schema + [r for r in rows if text(r, "g") not in schema]:  # the vocabulary's value first
        s, p = r["s"], r["p"]
        if isinstance(s, NamedNode) and isinstance(p, NamedNode) and p in single:
            names.setdefault((s, p), r["o"])
    return one_description(iris, [q for q in shared if (q.subject, q.predicate, q.object) not in held], names)


def write_new_store(store: Store, iris: Iris, records: Iterable[tuple[Extraction, str, int]],
                    on_paper: Callable[[Extraction, int], None], *, spool: Path,
                    schema: Mapping[str, Sequence[Quad]], index: SearchIndex) -> int:
    """The write path for a store nobody reads yet (`kg build` into a new store, renamed into place when
    complete). Everything the store will hold — the `schema` graphs, each paper's N-Quads as the workers
    mapped them, each entity description once (none the schema graphs hold), the aggregates tallied from
    the papers' facts — goes to the file `spool`, bulk-loaded once: a single load writes every string and
    index entry once, compressed (loads every few hundred papers plus transactions left ~1.5x the disk,
    Oxigraph's optimize() does not shrink it, and even a second small load of the aggregates alone left
    17.5 KB a paper at 3,000 papers against 14.5). The full-text `index` is filled as the spool is written
    (no read of the whole store after the load) and gets its entities while the load runs in a thread (it
    releases the GIL). Close the store right after (RocksDB's background compaction of fresh files would
    rewrite them uncompressed, +55 % within seconds). Returns the bytes loaded; `spool` is deleted whatever
    happens."""
    from pyoxigraph import RdfFormat, parse

    from kg.query.search import NewDocs

    bulk = getattr(store, "oxigraph", None)  # an in-process Oxigraph store: what a new local store is
    if bulk is None:
        raise TypeError("write_new_store needs an embedded store")
    held = {q.triple for g in (iris.vocab_graph, iris.ontology_graph) for q in schema.get(g, ())
            if isinstance(q.subject, NamedNode)}
    entities = NamedNode(iris.entities_graph)
    described: dict[str, None] = {}  # entity-description lines, once each
    one = OneDescription(iris)  # one name and kind per entity, the vocabulary's first
    facts: list[tuple[str, PaperFacts]] = []
    docs, pending = NewDocs(iris), dict[tuple[str, str], tuple[str, str]]()
    indexed = docs.predicates
    try:
        with spool.open("w", encoding="utf-8") as out:  # no lock: nobody else can see this store yet
            for quads in schema.values():
                out.writelines(f"{q} .\n" for q in quads)
                for q in quads:
                    docs.see(q)
                    one.hold(q)
            for ex, text_, n in records:
                by_graph: dict[str, list[Triple3]] = defaultdict(list)
                # one quad a line, "\n"-terminated (kg.rdf.nquads): the workers' lines are written as they are
                lines = text_.split("\n")[:-1]  # not splitlines(): a literal may hold a raw U+2028
                for line, q in zip(lines, parse(text_, RdfFormat.N_QUADS), strict=True):
                    if q.graph_name == entities:
                        kept = None if q.triple in held else one.admit(q)
                        if kept is not None and kept.triple not in held:
                            if kept.predicate in indexed:
                                docs.see(kept)
                            described.setdefault(line + "\n" if kept is q else f"{kept} .\n")
                    else:
                        if q.predicate in indexed:
                            docs.see(q)
                        graph = getattr(q.graph_name, "value", "")
                        by_graph[graph].append((q.subject, q.predicate, q.object))
                        out.write(line + "\n")
                for name, triples in by_graph.items():
                    if (pid := paper_id_of_graph(iris, name)) is not None:
                        facts.append((iris.paper(pid), paper_facts(iris, iris.paper(pid), triples)))
                on_paper(ex, n)
                pending.update(docs.take_papers())
                if len(pending) >= _INDEX_BATCH:
                    index.fill(pending)
                    pending = {}
            out.writelines(described)
            counted = tally(iris, facts, entity_quads=len(described))
            for quads in _counter_graphs(store, iris, {}, {}, (), counted=counted)[0].values():
                out.writelines(f"{q} .\n" for q in quads)
        with ThreadPoolExecutor(1, thread_name_prefix="bulk-load") as loader:  # waits for the load on exit
            loading = loader.submit(bulk.bulk_load, path=str(spool), format=RdfFormat.N_QUADS)
            index.fill({**pending, **docs.entities()})
            loading.result()
        index.stamp(store.generation())
        return spool.stat().st_size
    finally:
        spool.unlink(missing_ok=True)


_INDEX_BATCH = 500  # papers a full-text index transaction adds during a fresh build


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
    with _WRITING:
        names = list(graphs)
        ids = [pid for g in names if (pid := paper_id_of_graph(iris, g)) is not None]
        before = store.generation()
        new = _entities_in(iris, (q for quads in graphs.values() for q in quads)) | _entities_in(iris, shared)
        stored = read_graphs(store, names)
        old = {eid for triples in stored.values() for t in triples for term in (t[0], t[2])
               if isinstance(term, NamedNode) and (eid := iris.entity_id_of(term.value))}
        old |= _pointed_at(store, iris, sorted(old - new))
        shared = _settled(store, iris, shared)
        counters, change = _counter_graphs(store, iris, graphs, stored, shared)
        store.replace_graphs({**graphs, **counters}, shared)
        candidates = sorted(old - new)
        removed: list[str] = []
        if candidates and isinstance(store, _Updatable):  # every backend we ship; a foreign one keeps orphans
            had = _described(store, iris, candidates)
            store._update(_cleanup_text(iris, candidates) + " ;\n" + Meta(iris.base).bump())
            removed = sorted(had - _described(store, iris, candidates))
        if index is not None:
            index.refresh(store, before, ids, new | old)
        if getattr(store, "oxigraph", None) is not None and not getattr(store, "read_only", True):
            # an embedded store is this process's alone (RocksDB's lock): the caches may keep what holds
            touched = frozenset(iris.entity_from_id(e) for e in new | old)
            carry_over(store, before, store.generation(), replace(change, entities=touched))
        return Written(tuple(ids), tuple(removed))


# --- aggregates --------------------------------------------------------------------------------------
def read_graphs(store: Store, graphs: Sequence[str]) -> dict[str, list[Triple3]]:
    """The stored triples of these named graphs (an absent graph has none)."""
    out: dict[str, list[Triple3]] = {}
    ox_store = getattr(store, "oxigraph", None)
    if ox_store is not None:  # embedded: read the index directly
        for g in graphs:
            found = [(q.subject, q.predicate, q.object)
                     for q in ox_store.quads_for_pattern(None, None, None, NamedNode(g))]
            if found:
                out[g] = found
        return out
    for i in range(0, len(graphs), 500):
        part = [NamedNode(g) for g in graphs[i : i + 500]]
        for r in store.select(f"SELECT ?g ?s ?p ?o WHERE {{ {values('g', part)} GRAPH ?g {{ ?s ?p ?o }} }}"):
            out.setdefault(text(r, "g") or "", []).append((r["s"], r["p"], r["o"]))
    return out


def _present(store: Store, quads: Sequence[Quad]) -> int:
    """How many of these (distinct) quads the store already holds."""
    if not quads:
        return 0
    ox_store = getattr(store, "oxigraph", None)
    if ox_store is not None:
        return sum(1 for q in quads if q in ox_store)
    found = 0
    for i in range(0, len(quads), 500):
        part = quads[i : i + 500]
        rows = " ".join(f"({q.subject} {q.predicate} {q.object} {q.graph_name})" for q in part)
        found += len(store.select(
            f"SELECT * WHERE {{ VALUES (?s ?p ?o ?g) {{ {rows} }} GRAPH ?g {{ ?s ?p ?o }} }}"))
    return found


@dataclass(slots=True)
class Aggregates:
    """The counters one write reads, updates and writes back."""

    globals: Globals
    entity_quads: int
    entities: dict[str, EntityCounts]  # entity IRI -> counts (those the write touches, or all)
    buckets: dict[str, dict[int, int]]  # type -> paper count -> entities (the types the write touches)
    lists: dict[str, dict[str, str]] = field(default_factory=dict)  # entity IRI -> paper id -> relations


def _facts(iris: Iris, graph: str, triples: Iterable[Triple3]) -> PaperFacts:
    pid = paper_id_of_graph(iris, graph)
    return paper_facts(iris, iris.paper(pid) if pid is not None else "", triples)


def _counter_graphs(store: Store, iris: Iris, graphs: Mapping[str, Sequence[Quad]],
                    stored: Mapping[str, Sequence[Triple3]], shared: Sequence[Quad],
                    *, from_graph: bool = False, counted: Aggregates | None = None,
                    ) -> tuple[dict[str, list[Quad]], Change]:
    """The aggregate graphs this write changes, with their new content (`from_graph`: all of them,
    recomputed from the graph rather than updated; `counted`: all of them, from these counts)."""
    layout = Layout(iris)
    before = {g: _facts(iris, g, stored.get(g, ())) for g in graphs}
    after = {g: _facts(iris, g, [(q.subject, q.predicate, q.object) for q in quads])
             for g, quads in graphs.items()}
    eg = iris.entities_graph
    fresh = list(dict.fromkeys(q for q in shared
                               if isinstance(q.graph_name, NamedNode) and q.graph_name.value == eg))
    added_entity_quads = len(fresh) - _present(store, fresh)
    current = None if from_graph or counted else stored_globals(store, layout)
    if current is None:  # never written (an empty store, or one filled another way): start from the graph
        agg = counted or recount(store, iris)
        every = True
    else:
        agg = Aggregates(current, stored_entity_quads(store, layout), {}, {})
        every = False
    papers: dict[str, int] = defaultdict(int)
    years: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    g_ = agg.globals
    # entity -> venue -> year -> change (not kept in aggregates written before venues were counted)
    venue_years: dict[str, dict[str, dict[int, int]]] = defaultdict(dict)
    by_venue = g_.venues
    listed: dict[str, dict[str, str | None]] = _list_changes(iris, graphs, before, after)
    for g in graphs:
        for facts, sign in ((before[g], -1), (after[g], 1)):
            if not facts.paper:
                continue
            g_.papers += sign
            g_.paper_quads += sign * facts.quads
            version = facts.version or "none"
            g_.extractors[version] = g_.extractors.get(version, 0) + sign
            if facts.year is not None:
                g_.years[facts.year] = g_.years.get(facts.year, 0) + sign
            venue = facts.venue if facts.year is not None and by_venue is not None else None
            if venue and by_venue is not None and facts.year is not None:
                vy = by_venue.setdefault(venue, {})
                vy[facts.year] = vy.get(facts.year, 0) + sign
            for rel, _ in facts.links:
                g_.links[rel] = g_.links.get(rel, 0) + sign
            for e in {e for _, e in facts.links}:
                papers[e] += sign
                if facts.year is not None:
                    years[e][facts.year] += sign
                    if venue:
                        vy = venue_years[e].setdefault(venue, {})
                        vy[facts.year] = vy.get(facts.year, 0) + sign
    touched = sorted({e for e in set(papers) | set(years)
                      if papers.get(e, 0) or any(years[e].values())
                      or any(any(d.values()) for d in venue_years.get(e, {}).values())} | set(listed))
    touched = [e for e in touched if (eid := iris.entity_id_of(e)) and iris.type_of_entity_id(eid)]
    if not every:
        agg.entities = stored_entities(store, layout, touched)
        types = sorted({iris.type_of_entity_id(iris.entity_id_of(e) or "") or "" for e in touched} - {""})
        agg.buckets = stored_buckets(store, layout, types)
        indexes = stored_indexes(store, layout, [iris.entity_id_of(e) or "" for e in touched])
        reached = {(eid, k) for e in touched if (eid := iris.entity_id_of(e) or "") in indexes
                   for k in _blocks_reached(indexes[eid], listed.get(e, {}))}
        entries = stored_blocks(store, layout, reached)
    out: dict[str, list[Quad]] = {}
    changed_types: set[str] = set()
    tables: dict[tuple[str, int], dict[str, TableRow | None]] = defaultdict(dict)  # None: row removed
    for e in sorted(set(agg.entities) | set(touched)) if every else touched:
        eid = iris.entity_id_of(e) or ""
        etype = iris.type_of_entity_id(eid) or ""
        was = agg.entities.get(e, EntityCounts(0, {}))
        n = was.papers + papers.get(e, 0)
        ys = dict(was.years)
        for y, d in years.get(e, {}).items():
            ys[y] = ys.get(y, 0) + d
        vys = {v: dict(c) for v, c in was.venues.items()}
        for v, delta in venue_years.get(e, {}).items():
            for y, d in delta.items():
                vys.setdefault(v, {})[y] = vys.get(v, {}).get(y, 0) + d
        sizes = agg.buckets.setdefault(etype, {})
        if was.papers > 0 and not every:
            sizes[was.papers] = sizes.get(was.papers, 0) - 1
        if n > 0:
            sizes[n] = sizes.get(n, 0) + 1
        g_.entities[etype] = g_.entities.get(etype, 0) + (n > 0) - (was.papers > 0 and not every)
        changed_types.add(etype)
        graph = NamedNode(layout.entity_graph(eid))
        quads = []
        if n > 0:
            bucket = NamedNode(layout.bucket(etype, n))
            quads.append(Quad(bucket, layout.term("member"), NamedNode(layout.years_node(eid)), graph))
            node = NamedNode(layout.years_node(eid))
            if encoded := encode_years(ys):
                quads.append(Quad(node, layout.term("years"), Literal(encoded), graph))
            if by_venue is not None and (encoded := encode_venue_years(vys)) != "{}":
                quads.append(Quad(node, layout.term("venueYears"), Literal(encoded), graph))
        if by_venue is not None:
            row = (encode_years(ys), encode_venue_years(vys))
            tables[etype, shard_of(eid)][eid] = row if n > 0 and row[0] else None
        if every:
            kept = dict(agg.lists.get(e, {}))
            for paper, rels in listed.get(e, {}).items():
                if rels is None:
                    kept.pop(paper, None)
                else:
                    kept[paper] = rels
            index, parts = cut(sorted(kept.items()))
            rewritten = dict(zip((k for k, _, _ in index), parts, strict=True))
        else:
            was_index = indexes.get(eid, [])
            stored_entries = {k: entries.get((eid, k), []) for k, _, _ in was_index}
            index, rewritten = update_blocks(was_index, stored_entries, listed.get(e, {}))
            if n <= 0:
                rewritten = {k: [] for k, _, _ in was_index}
        if n > 0:
            quads.append(index_quad(layout, eid, index))
        for k, part in rewritten.items():
            out[block_graph(layout, eid, k)] = block_quads(layout, eid, k, part)
        out[graph.value] = quads
    if by_venue is not None:
        out.update(_table_graphs(store, layout, tables, every))
    for t in changed_types:
        graph = NamedNode(layout.type_graph(t))
        out[graph.value] = [Quad(NamedNode(layout.type_node(t)), layout.term("buckets"),
                                 Literal(encode_buckets(agg.buckets.get(t, {}))), graph)]
    _tidy(g_)
    meta = NamedNode(layout.meta)
    sg, qg = NamedNode(layout.stats_graph), NamedNode(layout.entity_quads_graph)
    out[sg.value] = [Quad(meta, layout.term("stats"), Literal(g_.to_json()), sg)]
    out[qg.value] = [Quad(meta, layout.term("entityQuads"),
                          Literal(str(agg.entity_quads + added_entity_quads), datatype=_XSD_INT), qg)]
    changed = {}
    for g in graphs:
        if (pid := paper_id_of_graph(iris, g)) is not None:
            changed[pid] = (before[g].links if before[g].paper else None,
                            after[g].links if after[g].paper else None)
    iris_of = frozenset(iris.paper(pid) for pid in changed)
    return out, Change(changed, frozenset(touched), iris_of)


def _table_graphs(store: Store, layout: Layout,
                  changes: Mapping[tuple[str, int], Mapping[str, TableRow | None]],
                  every: bool) -> dict[str, list[Quad]]:
    """The year-table shards with these rows changed (`every`: all shards of every type, from `changes`
    alone)."""
    keys = [(t, k) for t in ENTITY_TYPES for k in range(SHARDS)] if every else list(changes)
    held = {} if every else stored_tables(store, layout, keys)
    out: dict[str, list[Quad]] = {}
    for t, k in keys:
        rows = decode_table(held.get((t, k), ""))
        for eid, row in changes.get((t, k), {}).items():
            if row is None:
                rows.pop(eid, None)
            else:
                rows[eid] = row
        graph = NamedNode(layout.table_graph(t, k))
        out[graph.value] = [Quad(NamedNode(layout.table_node(t, k)), layout.term("yearTable"),
                                 Literal(encode_table(rows)), graph)] if rows else []
    return out


def _list_changes(iris: Iris, graphs: Mapping[str, Sequence[Quad]], before: Mapping[str, PaperFacts],
                  after: Mapping[str, PaperFacts]) -> dict[str, dict[str, str | None]]:
    """Per entity IRI, the papers whose relations to it change: paper id -> relations (None: unlinked)."""
    out: dict[str, dict[str, str | None]] = defaultdict(dict)
    for g in graphs:
        pid = paper_id_of_graph(iris, g)
        if pid is None:
            continue
        was: dict[str, set[str]] = defaultdict(set)
        now: dict[str, set[str]] = defaultdict(set)
        for facts, side in ((before[g], was), (after[g], now)):
            if facts.paper:
                for rel, e in facts.links:
                    side[e].add(rel)
        for e in set(was) | set(now):
            if was.get(e) != now.get(e):
                out[e][pid] = " ".join(sorted(now[e])) if now.get(e) else None
    return out


def _blocks_reached(index: Sequence[tuple[int, str, int]], delta: Mapping[str, str | None]) -> set[int]:
    """The blocks of an entity's index that these paper ids fall in."""
    froms = [f for _, f, _ in index]
    return {index[max(bisect.bisect_right(froms, pid) - 1, 0)][0] for pid in delta} if index else set()


def _tidy(g: Globals) -> None:
    """Drop zero entries (a relation no paper uses any more is not listed, as before)."""
    g.links = {k: v for k, v in sorted(g.links.items()) if v}
    g.entities = {k: v for k, v in sorted(g.entities.items()) if v}
    g.extractors = {k: v for k, v in sorted(g.extractors.items()) if v}
    g.years = {k: v for k, v in sorted(g.years.items()) if v}
    if g.venues is not None:
        g.venues = {v: ys for v, c in sorted(g.venues.items())
                    if (ys := {y: n for y, n in sorted(c.items()) if n})}


def recount(store: Store, iris: Iris) -> Aggregates:
    """Every aggregate computed from the graph (a full scan: for migration and stores filled otherwise)."""
    pfx = prefixes(iris)
    found: dict[str, tuple[int | None, str | None, str | None]] = {}
    for r in store.select(pfx + "SELECT ?p (SAMPLE(?y0) AS ?y) (SAMPLE(?v0) AS ?v) (SAMPLE(?w0) AS ?w) "
                          "WHERE { ?p a kg:Paper OPTIONAL { ?p dcterms:issued ?y0 } "
                          "OPTIONAL { ?p kg:extractorVersion ?v0 } OPTIONAL { ?p kg:venue ?w0 } } "
                          "GROUP BY ?p"):
        found[text(r, "p") or ""] = (year_of(text(r, "y")), text(r, "v"), text(r, "w") or None)
    branches = " UNION ".join(f"{{ ?p {r} ?e BIND({r} AS ?r) }}" for r in paper_relations(iris))
    links: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for r in store.select(pfx + f"SELECT DISTINCT ?p ?r ?e WHERE {{ ?p a kg:Paper . {branches} "
                          "FILTER(isIRI(?e)) }"):
        links[text(r, "p") or ""].add(((text(r, "r") or "").removeprefix(iris.ns), text(r, "e") or ""))
    prefix = Literal(iris.base + "graph/paper/")
    rows = store.select(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH ?g {{ ?s ?p ?o }} "
                        f"FILTER(STRSTARTS(STR(?g), {prefix})) }}")
    paper_quads = integer(rows[0], "n") if rows else 0
    eg = NamedNode(iris.entities_graph)
    rows = store.select(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH {eg} {{ ?s ?p ?o }} }}")
    facts = [(p, PaperFacts(True, year, version, frozenset(links.get(p, ())), 0, venue))
             for p, (year, version, venue) in found.items()]
    agg = tally(iris, facts, entity_quads=integer(rows[0], "n") if rows else 0)
    agg.globals.paper_quads = paper_quads
    return agg


def tally(iris: Iris, facts: Iterable[tuple[str, PaperFacts]], *, entity_quads: int) -> Aggregates:
    """Every aggregate from the facts of each paper graph (paper IRI, its facts) and the number of
    entity-description quads: what `recount` reads from a store, or a fresh build from its papers."""
    g = Globals()
    year_of_paper: dict[str, int | None] = {}
    venue_of_paper: dict[str, str] = {}
    by_entity: dict[str, set[str]] = defaultdict(set)
    rels_of: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for p, f in facts:
        if not f.paper:
            continue
        year_of_paper[p] = f.year
        if f.venue and f.year is not None and g.venues is not None:
            venue_of_paper[p] = f.venue
            g.venues.setdefault(f.venue, {})[f.year] = g.venues.get(f.venue, {}).get(f.year, 0) + 1
        g.papers += 1
        g.paper_quads += f.quads
        version = f.version or "none"
        g.extractors[version] = g.extractors.get(version, 0) + 1
        if f.year is not None:
            g.years[f.year] = g.years.get(f.year, 0) + 1
        pid = iris.paper_id(p)
        for rel, e in f.links:
            g.links[rel] = g.links.get(rel, 0) + 1
            by_entity[e].add(p)
            if pid is not None:
                rels_of[e][pid].add(rel)
    entities: dict[str, EntityCounts] = {}
    for e, ps in by_entity.items():
        eid = iris.entity_id_of(e)
        if eid is None or iris.type_of_entity_id(eid) is None:
            continue
        ys: dict[int, int] = defaultdict(int)
        vys: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
        for p in ps:
            if (y := year_of_paper.get(p)) is not None:
                ys[y] += 1
                if (v := venue_of_paper.get(p)) is not None:
                    vys[v][y] += 1
        entities[e] = EntityCounts(len(ps), dict(ys), {v: dict(c) for v, c in vys.items()})
    lists = {e: {pid: " ".join(sorted(rs)) for pid, rs in rels_of[e].items()} for e in entities}
    return Aggregates(g, entity_quads, entities, {}, lists)


def rebuild_aggregates(store: Store, iris: Iris) -> Globals:
    """Recompute every aggregate from the graph and replace the stored ones, in one transaction (for
    `kg migrate` and stores filled without `write_graphs`, e.g. a bulk load)."""
    with _WRITING:
        layout = Layout(iris)
        member, listed = layout.term("member"), layout.term("papers")
        stale = store.select(f"SELECT DISTINCT ?g WHERE {{ {{ GRAPH ?g {{ ?b {member} ?e }} }} "
                             f"UNION {{ GRAPH ?g {{ ?b {listed} ?v }} }} }}")
        graphs: dict[str, list[Quad]] = {g: [] for r in stale if (g := text(r, "g"))}
        graphs.update({layout.type_graph(t): [] for t in ENTITY_TYPES})
        graphs.update(_counter_graphs(store, iris, {}, {}, (), from_graph=True)[0])
        store.replace_graphs(graphs)
        found = stored_globals(store, layout)
        assert found is not None
        return found


def replace_entities_graph(store: Store, iris: Iris, quads: Sequence[Quad]) -> None:
    """Replace the whole entities graph (`kg reextract` over every paper) in one transaction, leaving out
    what the schema graphs hold (as every write does) and keeping the stored count of its quads exact."""
    with _WRITING:
        eg = NamedNode(iris.entities_graph)
        moved = [Quad(q.subject, q.predicate, q.object, eg) for q in quads]
        kept = _settled(store, iris, moved, entities=False)
        graphs: dict[str, list[Quad]] = {eg.value: kept}
        if stored_globals(store, Layout(iris)) is not None:
            layout = Layout(iris)
            qg, meta = NamedNode(layout.entity_quads_graph), NamedNode(layout.meta)
            count = Literal(str(len(kept)), datatype=_XSD_INT)
            graphs[qg.value] = [Quad(meta, layout.term("entityQuads"), count, qg)]
        store.replace_graphs(graphs)


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
