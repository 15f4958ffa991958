"""`kg reextract`: run the current extractor again over the papers already in a store, and report the diff.

Papers are rebuilt from what the store holds (title, abstract and metadata of each paper graph; no input
files), extracted with the same workers as `kg build`, and written through the build's batch write
(`kg.build.write_extractions`: one transaction per batch, full-text index kept in step). Papers whose
`kg:extractorVersion` is already the current one are skipped unless `force`. The old links of each batch
are read just before it is written, so the diff (links added/removed per relation and entity type,
entities that gained or lost most papers, papers that changed most) is exact, also under `dry_run`,
which writes nothing.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pyoxigraph import Literal, NamedNode, Quad

from kg.query.sparql import prefixes, values
from kg.rdf.iris import DCTERMS, RDF, SCHEMA, SKOS, Iris
from kg.rdf.mapping import BIBO, GraphMapper
from kg.store.types import Store
from kg.types import ENTITY_RELATIONS, PAPER_RELATIONS, Extraction, Paper
from kg.write import replace_entities_graph

ProgressSink = Callable[[int], None]
LinkTriple = tuple[str, str, str]  # (subject IRI, relation local name, object IRI)
WHERE_KEYS = ("id", "venue", "year", "extractor", "source", "title")
_READ_CHUNK = 500  # graphs per metadata / old-link query


@dataclass(frozen=True, slots=True)
class StoredPaper:
    """What the listing query knows of a stored paper: enough to filter and to skip current ones."""

    graph: str
    id: str
    version: str  # kg:extractorVersion, "" when the paper has none
    title: str
    venue: str
    year: str
    source: str

    def field(self, key: str) -> str:
        return {"id": self.id, "venue": self.venue, "year": self.year, "extractor": self.version,
                "source": self.source, "title": self.title}[key]


@dataclass(frozen=True, slots=True)
class Where:
    """One `--where` condition: `key=value` (exact) or `key~text` (case-insensitive substring)."""

    key: str
    op: str
    value: str

    def matches(self, p: StoredPaper) -> bool:
        have = p.field(self.key)
        return have == self.value if self.op == "=" else self.value.casefold() in have.casefold()


def parse_where(text: str) -> Where:
    """`venue=ICML 2025`, `year=2024`, `extractor=0.1.0`, `source~icml`, `id=seed-3`, `title~diffusion`."""
    cut = min((i for i in (text.find("="), text.find("~")) if i > 0), default=-1)
    key = text[:cut].strip() if cut > 0 else ""
    if key not in WHERE_KEYS:
        keys = ", ".join(WHERE_KEYS)
        raise ValueError(f"--where {text!r}: expected KEY=VALUE or KEY~TEXT, KEY one of {keys}")
    return Where(key, text[cut], text[cut + 1 :].strip())


@dataclass(frozen=True, slots=True)
class PaperChange:
    """One re-extracted paper whose links changed."""

    id: str
    title: str
    added: int
    removed: int


@dataclass(frozen=True, slots=True)
class EntityChange:
    """An entity and how many papers gained (or lost) a link to it."""

    id: str
    name: str
    papers: int


@dataclass(frozen=True, slots=True)
class ReextractReport:
    """What `kg reextract` did (or, with `dry_run`, would do)."""

    extractor_version: str
    in_store: int
    selected: int
    skipped_current: int
    reextracted: int
    changed: int
    versions_before: dict[str, int]
    by_relation: list[tuple[str, str, int, int]]  # (relation, entity type, added, removed)
    entities_gained: list[EntityChange]
    entities_lost: list[EntityChange]
    papers_changed: list[PaperChange]
    dry_run: bool
    entities_graph_rebuilt: bool
    seconds: float

    @property
    def added(self) -> int:
        return sum(r[2] for r in self.by_relation)

    @property
    def removed(self) -> int:
        return sum(r[3] for r in self.by_relation)

    def to_json(self) -> dict[str, Any]:
        return {
            "extractor_version": self.extractor_version, "dry_run": self.dry_run,
            "papers": {"in_store": self.in_store, "selected": self.selected,
                       "skipped_current": self.skipped_current, "reextracted": self.reextracted,
                       "changed": self.changed, "unchanged": self.reextracted - self.changed},
            "versions_before": self.versions_before,
            "links": {"added": self.added, "removed": self.removed},
            "by_relation": [{"relation": r, "type": t, "added": a, "removed": d}
                            for r, t, a, d in self.by_relation],
            "entities_gained": [_entity_json(e) for e in self.entities_gained],
            "entities_lost": [_entity_json(e) for e in self.entities_lost],
            "papers_changed": [{"id": p.id, "title": p.title, "added": p.added, "removed": p.removed}
                               for p in self.papers_changed],
            "entities_graph_rebuilt": self.entities_graph_rebuilt,
            "seconds": round(self.seconds, 3),
        }


def _entity_json(e: EntityChange) -> dict[str, Any]:
    return {"id": e.id, "name": e.name, "papers": e.papers}


class _Diff:
    """Accumulates per-paper link changes into the report's counters."""

    def __init__(self, iris: Iris) -> None:
        self.iris = iris
        self.added: Counter[tuple[str, str]] = Counter()
        self.removed: Counter[tuple[str, str]] = Counter()
        self.gained: Counter[str] = Counter()
        self.lost: Counter[str] = Counter()
        self.names: dict[str, str] = {}
        self.changes: list[PaperChange] = []
        self.reextracted = 0

    def _type(self, iri: str) -> str:
        eid = self.iris.entity_id_of(iri)
        return (self.iris.type_of_entity_id(eid) or "other") if eid else "other"

    def add(self, ex: Extraction, old: set[LinkTriple], new: set[LinkTriple]) -> None:
        self.reextracted += 1
        paper = self.iris.paper(ex.paper.id)
        plus, minus = new - old, old - new
        for _, r, o in plus:
            self.added[(r, self._type(o))] += 1
        for _, r, o in minus:
            self.removed[(r, self._type(o))] += 1
        before = {o for s, _, o in old if s == paper}
        after = {o for s, _, o in new if s == paper}
        self.gained.update(after - before)
        self.lost.update(before - after)
        for link in ex.links:
            self.names.setdefault(self.iris.entity(link.entity), link.entity.name)
        for rel in ex.relations:
            self.names.setdefault(self.iris.entity(rel.subject), rel.subject.name)
            self.names.setdefault(self.iris.entity(rel.object), rel.object.name)
        if plus or minus:
            self.changes.append(PaperChange(ex.paper.id, ex.paper.title or "", len(plus), len(minus)))

    def top(self, counts: Counter[str], n: int) -> list[EntityChange]:
        best = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
        return [EntityChange(self.iris.entity_id_of(e) or e, self.names.get(e, e), k) for e, k in best]


def link_predicates(iris: Iris) -> dict[str, str]:
    """Predicate IRI -> relation name of every link a paper graph holds (paper and entity relations)."""
    out = {iris.term(r): r for r in (*PAPER_RELATIONS, *ENTITY_RELATIONS) if r != "broader"}
    out[SKOS + "broader"] = "broader"
    return out


def link_triples(quads: Iterable[Quad], predicates: dict[str, str]) -> set[LinkTriple]:
    """The plain link triples among a paper graph's quads."""
    return {(q.subject.value, predicates[q.predicate.value], q.object.value) for q in quads
            if q.predicate.value in predicates and isinstance(q.object, NamedNode)
            and isinstance(q.subject, NamedNode)}


def list_papers(store: Store, iris: Iris) -> list[StoredPaper]:
    """Every paper graph with its id, extractor version and the fields `--where` can test, by graph IRI."""
    rows = store.select(
        prefixes(iris)
        + "SELECT ?g ?id ?version ?title ?venue ?year ?source WHERE { GRAPH ?g { ?p a kg:Paper ;"
        " dcterms:identifier ?id . OPTIONAL { ?p kg:extractorVersion ?version }"
        " OPTIONAL { ?p dcterms:title ?title } OPTIONAL { ?p kg:venue ?venue }"
        " OPTIONAL { ?p dcterms:issued ?year } OPTIONAL { ?p dcterms:source ?source } } }"
    )
    seen: dict[str, StoredPaper] = {}
    for r in rows:
        g = r.get("g")
        if isinstance(g, NamedNode) and g.value not in seen:
            seen[g.value] = StoredPaper(g.value, *(r[k].value if k in r else "" for k in
                                                   ("id", "version", "title", "venue", "year", "source")))
    return [seen[g] for g in sorted(seen)]


_META = {DCTERMS + "identifier": "id", DCTERMS + "title": "title", DCTERMS + "abstract": "abstract",
         DCTERMS + "creator": "authors", DCTERMS + "issued": "year", DCTERMS + "source": "source",
         SCHEMA + "url": "url"}


def read_papers(store: Store, iris: Iris, graphs: Sequence[str]) -> dict[str, Paper]:
    """Paper records rebuilt from stored metadata, by graph IRI (authors in their stored order; a store
    from before format 3 kept no order, and its authors come back sorted)."""
    meta = {**_META, iris.term("venue"): "venue", iris.term("doi"): "doi"}
    rows = store.select(
        prefixes(iris) + f"SELECT ?g ?k ?v WHERE {{ {values('g', (NamedNode(g) for g in graphs))}"
        f" GRAPH ?g {{ ?p a kg:Paper ; ?k ?v . {values('k', (NamedNode(k) for k in meta))} }} }}"
    )
    fields: dict[str, dict[str, list[str]]] = {}
    for r in rows:
        g, k, v = r.get("g"), r.get("k"), r.get("v")
        if isinstance(g, NamedNode) and isinstance(k, NamedNode) and v is not None:
            fields.setdefault(g.value, {}).setdefault(meta[k.value], []).append(v.value)
    ordered: dict[str, list[tuple[int, str]]] = {}  # format 3: authors in order, in a bibo:authorList rdf:Seq
    for r in store.select(
        prefixes(iris) + f"SELECT ?g ?k ?v WHERE {{ {values('g', (NamedNode(g) for g in graphs))}"
        f" GRAPH ?g {{ ?p a kg:Paper ; <{BIBO}authorList> ?seq . ?seq ?k ?v }} }}"
    ):
        g, k, v = r.get("g"), r.get("k"), r.get("v")
        if isinstance(g, NamedNode) and isinstance(k, NamedNode) and v is not None \
                and k.value.removeprefix(RDF + "_").isdigit():
            ordered.setdefault(g.value, []).append((int(k.value.removeprefix(RDF + "_")), v.value))
    out: dict[str, Paper] = {}
    for graph, f in fields.items():
        def one(key: str, f: dict[str, list[str]] = f) -> str | None:
            return min(f[key]) if key in f else None

        year = one("year")
        out[graph] = Paper(id=one("id") or "", abstract=one("abstract") or "", title=one("title"),
                       authors=tuple(v for _, v in sorted(ordered.get(graph, [])))
                       or tuple(sorted(f.get("authors", []))), venue=one("venue"),
                       year=int(year) if year and year.lstrip("-").isdigit() else None,
                       url=one("url"), doi=one("doi"), source=one("source"))
    return out


def read_links(store: Store, iris: Iris, graphs: Sequence[str], predicates: dict[str, str]
               ) -> dict[str, set[LinkTriple]]:
    """The link triples stored in each graph, by graph IRI."""
    rows = store.select(
        f"SELECT ?g ?s ?r ?o WHERE {{ {values('g', (NamedNode(g) for g in graphs))}"
        f" GRAPH ?g {{ ?s ?r ?o . {values('r', (NamedNode(p) for p in predicates))} }} }}"
    )
    out: dict[str, set[LinkTriple]] = {g: set() for g in graphs}
    for r in rows:
        g, s, p, o = r.get("g"), r.get("s"), r.get("r"), r.get("o")
        if isinstance(g, NamedNode) and isinstance(s, NamedNode) and isinstance(p, NamedNode) \
                and isinstance(o, NamedNode):
            out[g.value].add((s.value, predicates[p.value], o.value))
    return out


def read_labels(store: Store, iris: Iris, entities: Iterable[str]) -> dict[str, str]:
    """skos:prefLabel of each entity IRI (from the entities and vocabulary graphs)."""
    wanted = sorted(set(entities))
    out: dict[str, str] = {}
    for i in range(0, len(wanted), _READ_CHUNK):
        rows = store.select(
            f"SELECT ?e ?l WHERE {{ {values('e', (NamedNode(e) for e in wanted[i : i + _READ_CHUNK]))}"
            f" ?e <{SKOS}prefLabel> ?l }}"
        )
        for r in sorted(rows, key=lambda r: r["l"].value if "l" in r else ""):
            e, label = r.get("e"), r.get("l")
            if isinstance(e, NamedNode) and isinstance(label, Literal):
                out.setdefault(e.value, label.value)
    return out


def reextract(
    store: Store,
    base_iri: str,
    *,
    where: Sequence[Where] = (),
    force: bool = False,
    dry_run: bool = False,
    workers: int = 1,
    batch_size: int = 200,
    top: int = 10,
    progress: ProgressSink | None = None,
) -> ReextractReport:
    """Re-extract the selected papers from their stored text; write them batch by batch unless `dry_run`.

    When every paper of the store is re-extracted (and written), the shared entities graph is rebuilt
    from the new extractions in one more transaction, so aliases only the old extractor produced go too
    and the store equals a fresh build of the same papers.
    """
    from kg.build import ensure_schema, local_search_index, write_extractions
    from kg.extract import Extractor

    extractor = Extractor(base_iri)
    started = time.perf_counter()
    iris = Iris(base_iri)
    mapper = GraphMapper(iris)
    predicates = link_predicates(iris)
    stored = list_papers(store, iris)
    selected = [p for p in stored if all(w.matches(p) for w in where)]
    todo = [p for p in selected if force or p.version != extractor.version]
    diff = _Diff(iris)
    covers_all = not dry_run and bool(todo) and len(todo) == len(stored)
    shared: dict[Quad, None] = {}
    old: dict[str, set[LinkTriple]] = {}  # paper id -> its stored links, read a chunk ahead of its write
    step = max(1, batch_size)

    def feed() -> Iterator[Paper]:
        for i in range(0, len(todo), _READ_CHUNK):
            graphs = [p.graph for p in todo[i : i + _READ_CHUNK]]
            papers = read_papers(store, iris, graphs)
            links = read_links(store, iris, graphs, predicates)
            for g in graphs:
                if g in papers:
                    old[papers[g].id] = links[g]
                    yield papers[g]

    def tapped() -> Iterator[Extraction]:
        for done, ex in enumerate(extractor.extract(feed(), n_process=max(1, workers)), 1):
            mapped = mapper.map(ex)
            diff.add(ex, old.pop(ex.paper.id, set()), link_triples(mapped.quads, predicates))
            if covers_all:
                shared.update(dict.fromkeys(mapped.shared))
            yield ex
            if dry_run and progress is not None and done % step == 0:
                progress(step)

    rebuilt = False
    if todo and dry_run:
        for _ in tapped():
            pass
        if progress is not None and diff.reextracted % step:
            progress(diff.reextracted % step)
    elif todo:
        ensure_schema(store, base_iri)
        index = local_search_index(store, iris)
        try:
            write_extractions(store, tapped(), mapper, batch_size=step, progress=progress, index=index)
            if covers_all and diff.reextracted == len(stored):
                rebuilt = _rebuild_entities(store, iris, list(shared), index)
        finally:
            if index is not None:
                index.close()
    missing = [e for e in (*diff.gained, *diff.lost) if e not in diff.names]
    diff.names.update(read_labels(store, iris, missing))
    by_relation = sorted((r, t, diff.added[(r, t)], diff.removed[(r, t)])
                         for r, t in set(diff.added) | set(diff.removed))
    return ReextractReport(
        extractor_version=extractor.version,
        in_store=len(stored),
        selected=len(selected),
        skipped_current=len(selected) - len(todo),
        reextracted=diff.reextracted,
        changed=len(diff.changes),
        versions_before=dict(sorted(Counter(p.version or "none" for p in todo).items())),
        by_relation=by_relation,
        entities_gained=diff.top(diff.gained, top),
        entities_lost=diff.top(diff.lost, top),
        papers_changed=sorted(diff.changes, key=lambda c: (-(c.added + c.removed), c.id))[:top],
        dry_run=dry_run,
        entities_graph_rebuilt=rebuilt,
        seconds=time.perf_counter() - started,
    )


def _rebuild_entities(store: Store, iris: Iris, shared: list[Quad], index: Any) -> bool:
    """Replace the shared entities graph with the descriptions the new extractions give (one transaction)."""
    eg = NamedNode(iris.entities_graph)
    rows = store.select(f"SELECT DISTINCT ?e WHERE {{ GRAPH {eg} {{ ?e ?p ?o }} }}")
    touched = {r["e"].value for r in rows if isinstance(r.get("e"), NamedNode)}
    touched |= {q.subject.value for q in shared if isinstance(q.subject, NamedNode)}
    before = store.generation()
    replace_entities_graph(store, iris, shared)  # kg.write: schema-held triples left out, counts kept
    if index is not None:
        ids = [i for e in sorted(touched) if (i := iris.entity_id_of(e)) is not None]
        index.refresh(store, before, [], ids)
    return True


def format_report(report: ReextractReport) -> str:
    """The diff as plain text a curator can read."""
    lines = []
    verb = "would change" if report.dry_run else "changed"
    lines.append(
        f"extractor {report.extractor_version}: {report.in_store} papers in the store,"
        f" {report.selected} selected,"
        f" {report.skipped_current} already current (skipped), {report.reextracted} re-extracted"
        + (" (dry run: nothing written)" if report.dry_run else "")
    )
    if report.versions_before:
        lines.append("versions before: " + ", ".join(f"{v} × {n}" for v, n in report.versions_before.items()))
    lines.append(f"{report.changed} papers {verb}: {report.added} links added, {report.removed} removed")
    if report.by_relation:
        lines.append("")
        lines.append(f"{'relation':<20} {'entity type':<12} {'added':>7} {'removed':>8}")
        for r, t, a, d in report.by_relation:
            lines.append(f"{r:<20} {t:<12} {a:>+7} {-d:>8}")
    for title, items, sign in (("entities that gained most papers", report.entities_gained, "+"),
                               ("entities that lost most papers", report.entities_lost, "-")):
        if items:
            lines.append("")
            lines.append(title + ":")
            lines.extend(f"  {sign}{e.papers:<5} {e.name} ({e.id})" for e in items)
    if report.papers_changed:
        lines.append("")
        lines.append("papers whose links changed most:")
        lines.extend(f"  +{p.added} -{p.removed}  {p.id}  {p.title[:80]}" for p in report.papers_changed)
    if report.entities_graph_rebuilt:
        lines.append("")
        lines.append("entities graph rebuilt from the new extractions (every paper was re-extracted)")
    lines.append(f"{report.seconds:.1f} s")
    return "\n".join(lines)
