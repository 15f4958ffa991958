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
                                <{base}stats/{id}> kg:venueYears "{json}"  venue -> "2024:3 2025:9"
    graph/meta/years/{Type}/{k} <{base}stats/{type}/years{k}> kg:yearTable "{id}\t{years}\t{json}\n..."
                                the same two counts of the type's entities whose id hashes to shard k
(`{base}stats/{id}` stands for the entity `{base}{id}`: no aggregate triple names an entity, so questions
about an entity's triples never meet them.)

An entity is counted once it is linked from a paper (`<paper> kg:<relation> <entity>`); paper counts are
distinct papers. The year tables let `trending` read a type's per-year counts in `SHARDS` literals
instead of one node per entity (a write rewrites only the shards of the entities it touches). The bucket
layout lets `entities(type:)` read the best-linked entities first without
reading the others. A store whose aggregates were never written (one filled by `replace_graphs` directly,
by another tool, or an older format) is answered from the graph instead (the same numbers, computed on
demand and cached per generation); its next write through `kg.write` computes them.
"""

from __future__ import annotations

import json
import zlib
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from pyoxigraph import Literal, NamedNode, Quad

from kg.query.context import QueryContext
from kg.query.sparql import integer, text, values
from kg.rdf.iris import Iris
from kg.store.types import Store
from kg.types import ENTITY_TYPES, PAPER_RELATIONS, EntityType

YearCounts = dict[int, int]
T = TypeVar("T")
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

    def table_graph(self, t: str, k: int) -> str:
        return f"{self.meta}/years/{t}/{k}"

    def table_node(self, t: str, k: int) -> str:
        return f"{self.iris.base}stats/{t.lower()}/years{k}"

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
    # venue -> year -> papers; None in aggregates written before venues were counted
    venues: dict[str, YearCounts] | None = field(default_factory=dict)

    def to_json(self) -> str:
        d: dict[str, object] = {
            "papers": self.papers, "paperQuads": self.paper_quads, "links": self.links,
            "entities": self.entities, "extractors": self.extractors,
            "years": {str(y): n for y, n in sorted(self.years.items())}}
        if self.venues is not None:
            d["venues"] = {v: encode_years(ys) for v, ys in sorted(self.venues.items()) if encode_years(ys)}
        return json.dumps(d, sort_keys=True)

    @classmethod
    def from_json(cls, raw: str) -> Globals:
        d = json.loads(raw)
        venues = {str(v): decode_years(str(ys)) for v, ys in d["venues"].items()} if "venues" in d else None
        return cls(int(d["papers"]), int(d["paperQuads"]), dict(d["links"]), dict(d["entities"]),
                   dict(d["extractors"]), {int(y): int(n) for y, n in d["years"].items()}, venues)


def encode_years(years: YearCounts) -> str:
    return " ".join(f"{y}:{n}" for y, n in sorted(years.items()) if n)


def decode_years(raw: str) -> YearCounts:
    out: YearCounts = {}
    for part in raw.split():
        y, _, n = part.partition(":")
        if y.lstrip("-").isdigit() and n.isdigit():
            out[int(y)] = int(n)
    return out


def encode_venue_years(venues: dict[str, YearCounts]) -> str:
    """Papers per venue and year as one JSON literal: {"NeurIPS": "2024:3 2025:9", ...}."""
    return json.dumps({v: e for v, ys in sorted(venues.items()) if (e := encode_years(ys))},
                      ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def decode_venue_years(raw: str) -> dict[str, YearCounts]:
    try:
        found = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return {str(v): decode_years(str(ys)) for v, ys in found.items()} if isinstance(found, dict) else {}


SHARDS = 64  # year-table literals per entity type
TableRow = tuple[str, str]  # (encoded years, encoded venue years) of one entity


def shard_of(eid: str) -> int:
    return zlib.crc32(eid.encode("utf-8")) % SHARDS


def encode_table(rows: dict[str, TableRow]) -> str:
    return "\n".join(f"{eid}\t{ys}\t{vys}" for eid, (ys, vys) in sorted(rows.items()))


def decode_table(raw: str) -> dict[str, TableRow]:
    out: dict[str, TableRow] = {}
    for line in raw.split("\n"):
        eid, _, rest = line.partition("\t")
        ys, _, vys = rest.partition("\t")
        if eid:
            out[eid] = (ys, vys)
    return out


def stored_tables(store: Store, layout: Layout,
                  keys: Iterable[tuple[str, int]]) -> dict[tuple[str, int], str]:
    """The raw year-table literal of each (type, shard) that has one."""
    by_node = {layout.table_node(t, k): (t, k) for t, k in keys}
    if not by_node:
        return {}
    rows = store.select(f"SELECT ?n ?v WHERE {{ {values('n', [NamedNode(n) for n in by_node])} "
                        f"?n {layout.term('yearTable')} ?v }}")
    return {by_node[n]: text(r, "v") or "" for r in rows if (n := text(r, "n") or "") in by_node}


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
    venues: dict[str, YearCounts] = field(default_factory=dict)  # venue -> year -> papers


def stored_entities(store: Store, layout: Layout, iris: Sequence[str]) -> dict[str, EntityCounts]:
    """Paper and per-year counts of these entity IRIs (entities linked from no paper are left out)."""
    out: dict[str, EntityCounts] = {}
    for chunk in _chunks(list(dict.fromkeys(iris)), 2_000):
        eids = {i: eid for i in chunk if (eid := layout.iris.entity_id_of(i)) is not None}
        if not eids:
            continue
        pairs = " ".join(f"({NamedNode(i)} {NamedNode(layout.years_node(e))})" for i, e in eids.items())
        rows = store.select(
            f"SELECT ?e ?b ?y ?w WHERE {{ VALUES (?e ?c) {{ {pairs} }} ?b {layout.term('member')} ?c "
            f"OPTIONAL {{ ?c {layout.term('years')} ?y }} "
            f"OPTIONAL {{ ?c {layout.term('venueYears')} ?w }} }}")
        for r in rows:
            n = layout.count_of_bucket(text(r, "b") or "")
            if n is not None:
                out[text(r, "e") or ""] = EntityCounts(n, decode_years(text(r, "y") or ""),
                                                       decode_venue_years(text(r, "w") or ""))
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


def _scan(ctx: QueryContext, type_: EntityType | None, predicate: str) -> dict[str, str]:
    """Entity IRI -> the stored `predicate` literal of every linked entity (of `type_`): one pass over
    that predicate's triples (aggregates written before the year tables)."""
    nodes = ctx.iris.base + "stats/"
    prefix = Literal(nodes + (f"{type_.lower()}/" if type_ else ""))
    rows = ctx.store.select(f"SELECT ?c ?v WHERE {{ ?c {layout_of(ctx).term(predicate)} ?v "
                            f"FILTER(STRSTARTS(STR(?c), {prefix})) }}", timeout_s=ctx.timeout_s)
    out: dict[str, str] = {}
    for r in rows:
        eid = (text(r, "c") or "").removeprefix(nodes)
        if (iri := ctx.iris.base + eid) and ctx.iris.entity_id_of(iri) is not None:
            out[iri] = text(r, "v") or ""
    return out


def _tables(ctx: QueryContext, type_: EntityType | None) -> dict[str, TableRow]:
    """Entity IRI -> its year-table row, for every linked entity (of `type_`): `SHARDS` literals a type."""
    types = [type_] if type_ else list(ENTITY_TYPES)
    found = stored_tables(ctx.store, layout_of(ctx), [(t, k) for t in types for k in range(SHARDS)])
    base = ctx.iris.base
    return {base + eid: row for raw in found.values() for eid, row in decode_table(raw).items()}


def _of_type(ctx: QueryContext, found: dict[str, T], type_: EntityType | None) -> dict[str, T]:
    return {iri: v for iri, v in found.items() if (eid := ctx.iris.entity_id_of(iri)) is not None
            and (type_ is None or ctx.iris.type_of_entity_id(eid) == type_)}


def type_year_counts(ctx: QueryContext, type_: EntityType | None) -> dict[str, YearCounts]:
    """Papers per year of every linked entity (of `type_`, if given): reads them all (for `trending`)."""

    def compute() -> dict[str, YearCounts]:
        if _venues_stored(ctx):
            return {i: ys for i, (raw, _) in _tables(ctx, type_).items() if (ys := decode_years(raw))}
        if globals_of(ctx) is not None:
            return {i: ys for i, raw in _scan(ctx, type_, "years").items() if (ys := decode_years(raw))}
        return _of_type(ctx, _by_year(ctx, ""), type_)

    return ctx.memo.get(ctx.store, ("type_years", type_ or "*"), compute, len)


# --- per venue (trends within comparable venues) --------------------------------------------------
VenueYears = dict[str, YearCounts]  # venue -> year -> papers


def _venues_stored(ctx: QueryContext) -> bool:
    """Whether the stored aggregates count papers per venue (those written before did not)."""
    g = globals_of(ctx)
    return g is not None and g.venues is not None


def venue_year_totals(ctx: QueryContext) -> VenueYears:
    """Papers per venue and year of the whole graph (papers without a venue or a year left out)."""
    stored = globals_of(ctx)
    if stored is not None and stored.venues is not None:
        return {v: dict(ys) for v, ys in stored.venues.items()}

    def compute() -> VenueYears:
        return _by_venue_year(ctx, "", "").get("", {})

    return ctx.memo.get(ctx.store, ("venue_year_totals",), compute, len)


def _by_venue_year(ctx: QueryContext, scope: str, link: str | None = None) -> dict[str, VenueYears]:
    """Per entity (or "" for all papers when `link` is ""), papers per venue and year, from the graph."""
    if link is None:
        link = " UNION ".join(f"{{ ?p {r} ?e }}" for r in ctx.relations)
    head = "?e " if link else ""
    rows = ctx.select(f"SELECT {head}?v ?y (COUNT(DISTINCT ?p) AS ?n) WHERE {{ {scope} {link} "
                      f"?p a kg:Paper ; dcterms:issued ?y ; kg:venue ?v }} GROUP BY {head}?v ?y")
    out: dict[str, VenueYears] = defaultdict(dict)
    for r in rows:
        if (y := year_of(text(r, "y"))) is not None and (v := text(r, "v")):
            years = out[text(r, "e") or ""].setdefault(v, {})
            years[y] = years.get(y, 0) + integer(r, "n")
    return dict(out)


def entity_venue_year_counts(ctx: QueryContext, iris: Sequence[str]) -> dict[str, VenueYears]:
    """Papers per venue and year linked to each entity IRI (cached per store generation)."""
    empty: VenueYears = {}

    def compute(missing: list[str]) -> dict[str, VenueYears]:
        if _venues_stored(ctx):
            return {i: c.venues for i, c in stored_entities(ctx.store, layout_of(ctx), missing).items()}
        return _by_venue_year(ctx, values("e", [NamedNode(i) for i in missing]))

    return ctx.memo.per_node(ctx.store, "venue-years", iris, compute, empty)


def type_venue_year_counts(ctx: QueryContext, type_: EntityType | None) -> dict[str, VenueYears]:
    """Papers per venue and year of every linked entity (of `type_`, if given), for `trending`."""

    def compute() -> dict[str, VenueYears]:
        if _venues_stored(ctx):
            return {i: vy for i, (_, raw) in _tables(ctx, type_).items() if (vy := decode_venue_years(raw))}
        return _of_type(ctx, _by_venue_year(ctx, ""), type_)

    return ctx.memo.get(ctx.store, ("type_venue_years", type_ or "*"), compute, len)


# --- computing them from the graph (migration, a store without aggregates, tests) ------------------
@dataclass(frozen=True, slots=True)
class PaperFacts:
    """What one paper graph contributes to the aggregates."""

    paper: bool
    year: int | None
    version: str | None
    links: frozenset[tuple[str, str]]  # (relation local name, entity IRI)
    quads: int
    venue: str | None = None


def paper_facts(iris: Iris, paper_iri: str, triples: Iterable[tuple[object, object, object]]) -> PaperFacts:
    """The facts of one paper graph from its triples (pyoxigraph terms)."""
    ns, rdf_type = iris.ns, "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
    issued, version_p, venue_p = "http://purl.org/dc/terms/issued", ns + "extractorVersion", ns + "venue"
    relations = {ns + r: r for r in PAPER_RELATIONS}
    is_paper, year, version, venue = False, None, None, None
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
        elif p == venue_p and o:
            venue = o
        elif p in relations and isinstance(t[2], NamedNode):
            links.add((relations[p], o))
    return PaperFacts(is_paper, year, version, frozenset(links), len(seen), venue)


def quads_as_triples(quads: Iterable[Quad]) -> list[tuple[object, object, object]]:
    return [(q.subject, q.predicate, q.object) for q in quads]
