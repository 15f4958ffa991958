"""Aggregates kept at write time: paper counts, per-year counts and the graph's own statistics.

`kg.write` updates them in the same store transaction as the papers that change them, so reading them is a
lookup at any size (no scan of the graph) and the first query after a write costs what later ones do.
They live in small named graphs under `{base}graph/meta/` (hidden, like the meta graph, from exports and
triple counts; visible to SPARQL):

    graph/meta/stats            <{base}graph/meta> kg:stats "{json}"   papers, quads of the paper
                                graphs, links per relation, entities per type, papers per extractor, year
    graph/meta/entity-quads     <{base}graph/meta> kg:entityQuads N    quads of graph/entities
    graph/meta/type/{Type}      <{base}stats/{type}> kg:buckets "N:k ..."   k entities have N papers
    graph/meta/entity/{id}      <{base}stats/{type}/{N}> kg:member <{base}stats/{id}> .  it has N papers
                                <{base}stats/{id}> kg:years "2024:3 2025:9"      papers per year
(`{base}stats/{id}` stands for the entity `{base}{id}`: no aggregate triple names an entity, so questions
about an entity's triples never meet them.)

An entity is counted once it is linked from a paper (`<paper> kg:<relation> <entity>`); paper counts are
distinct papers. The bucket layout lets `entities(type:)` read the best-linked entities first without
reading the others. A store whose aggregates were never written (one filled by `replace_graphs` directly,
by another tool, or an older format) is answered from the graph instead (the same numbers, computed on
demand and cached per generation); its next write through `kg.write` computes them.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from pyoxigraph import Literal, NamedNode, Quad

from kg.query.context import QueryContext
from kg.query.sparql import integer, text, values
from kg.rdf.iris import Iris
from kg.store.types import Store
from kg.types import ENTITY_TYPES, PAPER_RELATIONS, EntityType

YearCounts = dict[int, int]
_XSD_INT = NamedNode("http://www.w3.org/2001/XMLSchema#integer")


@dataclass(frozen=True, slots=True)
class Layout:
    """The IRIs of the aggregate graphs for one base."""

    iris: Iris

    @property
    def meta(self) -> str:
        return self.iris.base + "graph/meta"

    @property
    def stats_graph(self) -> str:
        return self.meta + "/stats"

    @property
    def entity_quads_graph(self) -> str:
        return self.meta + "/entity-quads"

    def type_graph(self, t: str) -> str:
        return f"{self.meta}/type/{t}"

    def entity_graph(self, eid: str) -> str:
        return f"{self.meta}/entity/{eid}"

    def type_node(self, t: str) -> str:
        return f"{self.iris.base}stats/{t.lower()}"

    def bucket(self, t: str, n: int) -> str:
        return f"{self.iris.base}stats/{t.lower()}/{n}"

    def years_node(self, eid: str) -> str:
        return f"{self.iris.base}stats/{eid}"

    def count_of_bucket(self, iri: str) -> int | None:
        head, _, n = iri.rpartition("/")
        return int(n) if n.isdigit() and head.startswith(self.iris.base + "stats/") else None

    def term(self, local: str) -> NamedNode:
        return NamedNode(self.iris.term(local))


@dataclass(slots=True)
class Globals:
    """The graph's own statistics (one JSON literal)."""

    papers: int = 0
    paper_quads: int = 0  # quads of the paper graphs
    links: dict[str, int] = field(default_factory=dict)  # relation -> links
    entities: dict[str, int] = field(default_factory=dict)  # type -> entities linked from a paper
    extractors: dict[str, int] = field(default_factory=dict)  # kg:extractorVersion ("none") -> papers
    years: dict[int, int] = field(default_factory=dict)  # year -> papers

    def to_json(self) -> str:
        return json.dumps({"papers": self.papers, "paperQuads": self.paper_quads, "links": self.links,
                           "entities": self.entities, "extractors": self.extractors,
                           "years": {str(y): n for y, n in sorted(self.years.items())}}, sort_keys=True)

    @classmethod
    def from_json(cls, raw: str) -> Globals:
        d = json.loads(raw)
        return cls(int(d["papers"]), int(d["paperQuads"]), dict(d["links"]), dict(d["entities"]),
                   dict(d["extractors"]), {int(y): int(n) for y, n in d["years"].items()})


def encode_years(years: YearCounts) -> str:
    return " ".join(f"{y}:{n}" for y, n in sorted(years.items()) if n)


def decode_years(raw: str) -> YearCounts:
    out: YearCounts = {}
    for part in raw.split():
        y, _, n = part.partition(":")
        if y.lstrip("-").isdigit() and n.isdigit():
            out[int(y)] = int(n)
    return out


def encode_buckets(sizes: dict[int, int]) -> str:
    return " ".join(f"{n}:{k}" for n, k in sorted(sizes.items(), reverse=True) if k > 0 and n > 0)


def decode_buckets(raw: str) -> dict[int, int]:
    return {n: k for n, k in decode_years(raw).items()}


def year_of(raw: str | None) -> int | None:
    """The year of an xsd:gYear (or date) lexical form."""
    if not raw:
        return None
    sign = -1 if raw.startswith("-") else 1
    digits = raw.lstrip("-")[:4]
    return sign * int(digits) if len(digits) == 4 and digits.isdigit() else None


# --- reading the stored aggregates -----------------------------------------------------------------
def stored_globals(store: Store, layout: Layout) -> Globals | None:
    """The stored statistics, or None when this store's aggregates were never written."""
    g, meta = NamedNode(layout.stats_graph), NamedNode(layout.meta)
    rows = store.select(f"SELECT ?v WHERE {{ GRAPH {g} {{ {meta} {layout.term('stats')} ?v }} }}")
    for r in rows:
        try:
            return Globals.from_json(text(r, "v") or "")
        except (ValueError, KeyError, TypeError):
            return None
    return None


def stored_entity_quads(store: Store, layout: Layout) -> int:
    g, meta = NamedNode(layout.entity_quads_graph), NamedNode(layout.meta)
    rows = store.select(f"SELECT ?v WHERE {{ GRAPH {g} {{ {meta} {layout.term('entityQuads')} ?v }} }}")
    return integer(rows[0], "v") if rows else 0


@dataclass(frozen=True, slots=True)
class EntityCounts:
    papers: int
    years: YearCounts


def stored_entities(store: Store, layout: Layout, iris: Sequence[str]) -> dict[str, EntityCounts]:
    """Paper and per-year counts of these entity IRIs (entities linked from no paper are left out)."""
    out: dict[str, EntityCounts] = {}
    for chunk in _chunks(list(dict.fromkeys(iris)), 2_000):
        eids = {i: eid for i in chunk if (eid := layout.iris.entity_id_of(i)) is not None}
        if not eids:
            continue
        pairs = " ".join(f"({NamedNode(i)} {NamedNode(layout.years_node(e))})" for i, e in eids.items())
        rows = store.select(
            f"SELECT ?e ?b ?y WHERE {{ VALUES (?e ?c) {{ {pairs} }} ?b {layout.term('member')} ?c "
            f"OPTIONAL {{ ?c {layout.term('years')} ?y }} }}")
        for r in rows:
            n = layout.count_of_bucket(text(r, "b") or "")
            if n is not None:
                out[text(r, "e") or ""] = EntityCounts(n, decode_years(text(r, "y") or ""))
    return out


def stored_buckets(store: Store, layout: Layout, types: Sequence[str]) -> dict[str, dict[int, int]]:
    """For each type, paper count -> number of entities of the type with that many papers."""
    pairs = " ".join(f"({NamedNode(layout.type_node(t))} {Literal(t)})" for t in types)
    rows = store.select(
        f"SELECT ?t ?v WHERE {{ VALUES (?n ?t) {{ {pairs} }} ?n {layout.term('buckets')} ?v }}")
    out: dict[str, dict[int, int]] = {t: {} for t in types}
    for r in rows:
        out[text(r, "t") or ""] = decode_buckets(text(r, "v") or "")
    return out


def bucket_members(store: Store, layout: Layout, buckets: Sequence[str]) -> dict[str, list[str]]:
    """Entity IRIs in each bucket node, sorted."""
    rows = store.select(f"SELECT ?b ?e WHERE {{ {values('b', [NamedNode(b) for b in buckets])} "
                        f"?b {layout.term('member')} ?e }}")
    out: dict[str, list[str]] = defaultdict(list)
    nodes = layout.iris.base + "stats/"
    for r in rows:
        out[text(r, "b") or ""].append(layout.iris.base + (text(r, "e") or "").removeprefix(nodes))
    return {b: sorted(v) for b, v in out.items()}


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


# --- what the query layer asks -------------------------------------------------------------------
def layout_of(ctx: QueryContext) -> Layout:
    return Layout(ctx.iris)


def globals_of(ctx: QueryContext) -> Globals | None:
    """The stored statistics (cached per generation), or None when the store has no aggregates."""
    found = ctx.memo.get(ctx.store, ("agg-globals",), lambda: (stored_globals(ctx.store, layout_of(ctx)),),
                         lambda _: 1)
    return found[0]


def paper_counts_of(ctx: QueryContext, iris: Sequence[str]) -> dict[str, int] | None:
    """Stored paper counts of these entities (0 when unlinked), or None without aggregates."""
    if globals_of(ctx) is None:
        return None
    found = stored_entities(ctx.store, layout_of(ctx), iris)
    return {i: found[i].papers if i in found else 0 for i in iris}


def year_totals(ctx: QueryContext) -> YearCounts:
    """Papers per year of the whole graph (papers without a year left out)."""
    stored = globals_of(ctx)
    if stored is not None:
        return dict(stored.years)

    def compute() -> YearCounts:
        out: YearCounts = defaultdict(int)
        for r in ctx.select("SELECT ?y (COUNT(DISTINCT ?p) AS ?n) WHERE { ?p a kg:Paper ; dcterms:issued ?y }"
                            " GROUP BY ?y"):
            if (y := year_of(text(r, "y"))) is not None:
                out[y] += integer(r, "n")
        return dict(out)

    return ctx.memo.get(ctx.store, ("year_totals",), compute, len)


def _by_year(ctx: QueryContext, scope: str) -> dict[str, YearCounts]:
    branches = " UNION ".join(f"{{ ?p {r} ?e }}" for r in ctx.relations)
    rows = ctx.select(f"SELECT ?e ?y (COUNT(DISTINCT ?p) AS ?n) WHERE {{ {scope} {branches} "
                      "?p a kg:Paper ; dcterms:issued ?y } GROUP BY ?e ?y")
    out: dict[str, YearCounts] = defaultdict(dict)
    for r in rows:
        if (y := year_of(text(r, "y"))) is not None:
            years = out[text(r, "e") or ""]
            years[y] = years.get(y, 0) + integer(r, "n")
    return dict(out)


def entity_year_counts(ctx: QueryContext, iris: Sequence[str]) -> dict[str, YearCounts]:
    """Papers per year linked to each entity IRI (cached per store generation)."""
    empty: YearCounts = {}

    def compute(missing: list[str]) -> dict[str, YearCounts]:
        if globals_of(ctx) is not None:
            return {i: c.years for i, c in stored_entities(ctx.store, layout_of(ctx), missing).items()}
        return _by_year(ctx, values("e", [NamedNode(i) for i in missing]))

    return ctx.memo.per_node(ctx.store, "years", iris, compute, empty)


def type_year_counts(ctx: QueryContext, type_: EntityType | None) -> dict[str, YearCounts]:
    """Papers per year of every linked entity (of `type_`, if given): reads them all (for `trending`)."""

    def compute() -> dict[str, YearCounts]:
        if globals_of(ctx) is not None:
            layout = layout_of(ctx)
            types = [type_] if type_ else list(ENTITY_TYPES)
            buckets = stored_buckets(ctx.store, layout, types)
            names = [layout.bucket(t, n) for t in types for n in buckets.get(t, {})]
            members = [e for found in bucket_members(ctx.store, layout, names).values() for e in found]
            return {i: c.years for i, c in stored_entities(ctx.store, layout, members).items() if c.years}
        found = _by_year(ctx, "")
        return {iri: years for iri, years in found.items()
                if (eid := ctx.iris.entity_id_of(iri)) is not None
                and (type_ is None or ctx.iris.type_of_entity_id(eid) == type_)}

    return ctx.memo.get(ctx.store, ("type_years", type_ or "*"), compute, len)


# --- computing them from the graph (migration, a store without aggregates, tests) ------------------
@dataclass(frozen=True, slots=True)
class PaperFacts:
    """What one paper graph contributes to the aggregates."""

    paper: bool
    year: int | None
    version: str | None
    links: frozenset[tuple[str, str]]  # (relation local name, entity IRI)
    quads: int


def paper_facts(iris: Iris, paper_iri: str, triples: Iterable[tuple[object, object, object]]) -> PaperFacts:
    """The facts of one paper graph from its triples (pyoxigraph terms)."""
    ns, rdf_type = iris.ns, "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
    issued, version_p = "http://purl.org/dc/terms/issued", ns + "extractorVersion"
    relations = {ns + r: r for r in PAPER_RELATIONS}
    is_paper, year, version = False, None, None
    links: set[tuple[str, str]] = set()
    seen: set[tuple[object, object, object]] = set()
    for t in triples:
        seen.add(t)
        s, p, o = (getattr(x, "value", "") for x in t)
        if s != paper_iri:
            continue
        if p == rdf_type and o == ns + "Paper":
            is_paper = True
        elif p == issued:
            year = year_of(o)
        elif p == version_p:
            version = o
        elif p in relations and isinstance(t[2], NamedNode):
            links.add((relations[p], o))
    return PaperFacts(is_paper, year, version, frozenset(links), len(seen))


def quads_as_triples(quads: Iterable[Quad]) -> list[tuple[object, object, object]]:
    return [(q.subject, q.predicate, q.object) for q in quads]
