"""Papers: by id, filtered by entity names / free text / year / venue, with keyset pagination in identifier
order (the default), newest first, by title or by the confidence of their link to the filtered entity; a
cursor holds the sort key of its order."""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from pyoxigraph import NamedNode

from kg.query import cursor
from kg.query.context import QueryContext
from kg.query.counts import globals_of, layout_of
from kg.query.entities import resolve
from kg.query.model import Page, PaperInfo
from kg.query.paperlists import Entry, full_lists, page_of, stored_blocks, stored_indexes
from kg.query.sparql import chunks, iri_or_none, number, text, values
from kg.rdf.mapping import BIBO
from kg.types import EntityType

_FIELDS = (  # a paper's own fields, each one UNION branch (`?p ?k ?v` would also read all its links)
    "dcterms:identifier",
    "dcterms:title",
    "dcterms:abstract",
    "dcterms:creator",
    "dcterms:issued",
    "kg:venue",
    "kg:extractorVersion",
    "schema:url",
    "kg:doi",
    "kg:hasCode",
    "kg:citationCount",
)


PaperOrder = Literal["ID", "YEAR", "TITLE", "CONFIDENCE", "CITATIONS"]  # ID: identifier order; YEAR: newest
# first, then id; TITLE: A-Z; CONFIDENCE: the strongest link to the filtered entities first, then id;
# CITATIONS: most cited first (as the source counted), then id, papers without a count last
ORDERS: tuple[PaperOrder, ...] = ("ID", "YEAR", "TITLE", "CONFIDENCE", "CITATIONS")


class BadOrder(ValueError):
    """An order the list cannot have (CONFIDENCE without an entity filter)."""


NEEDS_ENTITY = "orderBy CONFIDENCE needs an entity filter (dataset, task, method, model or domain)"
_KEYS: dict[str, tuple[Callable[[PaperInfo], list[Any]], tuple[type, ...]]] = {
    "YEAR": (lambda p: [-(p.year or 0), p.id], (int, str)),  # no year: last
    "TITLE": (lambda p: [(p.title or "").casefold(), p.id], (str, str)),
    "CITATIONS": (lambda p: [-(p.citations if p.citations is not None else -1), p.id], (int, str)),
}


def paper(ctx: QueryContext, paper_id: str) -> PaperInfo | None:
    iri = ctx.iris.paper(paper_id)
    return papers_by_iris(ctx, [iri]).get(iri)


def papers_by_iris(ctx: QueryContext, iris: Iterable[str]) -> dict[str, PaperInfo]:
    """PaperInfo for each IRI that names a paper (cached per store generation; one query on a miss)."""
    return _cached(ctx, iris, "paper", lambda missing: _fetch(ctx, missing))


def _cached(ctx: QueryContext, iris: Iterable[str], kind: str,
            fetch: Callable[[list[str]], dict[str, PaperInfo | None]]) -> dict[str, PaperInfo]:
    """The `kind` records of the IRIs that name papers, from the per-generation memo or `fetch`."""
    nodes = [n.value for n in {iri_or_none(i) for i in iris} if n is not None]
    found = ctx.memo.per_node(ctx.store, kind, nodes, fetch, None) if nodes else {}
    return {iri: info for iri, info in found.items() if info is not None}


def _fetch(ctx: QueryContext, iris: list[str], fields_read: Sequence[str] = _FIELDS,
           authors: bool = True) -> dict[str, PaperInfo | None]:
    """The papers' records from `fields_read` (and their authors), 200 papers per query; a field not read
    is left empty."""
    nodes = [NamedNode(i) for i in iris]
    props: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    fields = " UNION ".join(f"{{ ?p {k} ?v BIND({k} AS ?k) }}" for k in fields_read)  # not the paper's links
    if authors:  # rdf:_1, rdf:_2 …: authors in order
        fields += f" UNION {{ ?p <{BIBO}authorList> ?seq . ?seq ?k ?v }}"
    query = "SELECT ?p ?k ?v WHERE {{ {} {} }}"
    rows = (r for part in chunks(nodes) for r in ctx.select(query.format(values("p", part), fields)))
    for row in rows:
        key = (text(row, "k") or "").rpartition("/")[2].rpartition("#")[2]
        props[text(row, "p") or ""][key].append(text(row, "v") or "")
    out: dict[str, PaperInfo | None] = {}
    for iri, f in props.items():
        if "identifier" not in f:
            continue
        year = f.get("issued", [""])[0]
        out[iri] = PaperInfo(
            id=f["identifier"][0],
            iri=iri,
            title=_one(f, "title"),
            abstract=_one(f, "abstract"),
            venue=_one(f, "venue"),
            year=int(year) if year.isdigit() else None,
            url=_one(f, "url"),
            doi=_one(f, "doi"),
            authors=_authors(f),
            code_urls=tuple(sorted(f.get("hasCode", ()))),
            citations=int(c) if (c := f.get("citationCount", [""])[0]).isdigit() else None,
            extractor_version=_one(f, "extractorVersion"),
        )
    return out


def papers(
    ctx: QueryContext,
    *,
    dataset: str | None = None,
    task: str | None = None,
    method: str | None = None,
    model: str | None = None,
    domain: str | None = None,
    search: str | None = None,
    entity_iris: Sequence[str] | None = None,
    relation: str | None = None,
    first: int = 20,
    after: str | None = None,
    include_narrower: bool = True,
    year: int | None = None,
    venue: str | None = None,
    order: PaperOrder = "ID",
    entity: str | None = None,
) -> Page[PaperInfo]:
    """Papers matching every given filter, in `order` (default identifier order).

    A name filter matches the canonical name or any alias (case-insensitive), takes every entity it matches,
    and, unless `include_narrower` is False, their variants and narrower entities (`kg:variantOf` and
    `skos:broader`, any depth: "semantic segmentation" finds the papers on "video semantic segmentation").
    `entity_iris` (+ `relation`) restricts to papers linked to those entities, `entity` (an entity id such as
    "dataset/imagenet") to the papers linked to that one entity, as its `papers` field lists them. `year` is
    the year issued, `venue` the venue (case-insensitive, whole name). CONFIDENCE orders by each paper's most
    confident link to any filtered entity (BadOrder without an entity filter).
    """
    names: list[tuple[str | None, EntityType]] = [
        (dataset, "Dataset"),
        (task, "Task"),
        (method, "Method"),
        (model, "Model"),
        (domain, "Domain"),
    ]
    groups: list[tuple[list[str], str | None]] = []  # entity IRIs, relation
    for name, etype in names:
        if name is not None:
            groups.append((resolve(ctx, name, etype, expand=include_narrower), None))
    if entity_iris is not None:
        nodes = sorted({n.value for n in (iri_or_none(e) for e in entity_iris) if n is not None})
        groups.append((nodes, relation))
    if entity is not None:
        iri = iri_or_none(ctx.iris.entity_from_id(entity)) if ctx.iris.type_of_entity_id(entity) else None
        groups.append(([iri.value] if iri is not None else [], None))
    if order == "CONFIDENCE" and not groups:
        raise BadOrder(NEEDS_ENTITY)
    plain = order == "ID" and year is None and venue is None
    if plain and search is None and len(groups) == 1 and groups[0][1] is None:
        found = _stored_slice(ctx, groups[0][0], first, after)
        if found is not None:
            return _build(ctx, [found], first)[0]
    sets = [linked_ids(ctx, [group], rel)[0] for group, rel in groups]
    if search is not None:
        sets.append(tuple(sorted(set(ctx.index.paper_ids(ctx.store, search)))))
    ids = _intersect(sets) if sets else _all_ids(ctx)
    if plain:
        return _pages(ctx, [ids], first, after)[0]
    key, types = _KEYS.get(order, (lambda p: [p.id], (str,)))
    if order == "CONFIDENCE":
        best = link_confidences(ctx, groups)
        key, types = (lambda p: [-best.get(p.id, 0.0), p.id]), (float, str)
    return _sorted_page(ctx, ids, year, venue, (order, key, types), first, after)


SortKey = tuple[str, Callable[[PaperInfo], list[Any]], tuple[type, ...]]  # order, key, the key's types


def _sorted_page(
    ctx: QueryContext, ids: Sequence[str], year: int | None, venue: str | None, sort: SortKey,
    first: int, after: str | None,
) -> Page[PaperInfo]:
    """The page after `after` of these papers kept by year/venue, in `sort`; the cursor is the sort key.
    Filters and keys read only id, title, venue and year of every paper; whole records only for the page."""
    facts = _sort_facts(ctx, [ctx.iris.paper(i) for i in ids])
    wanted = venue.casefold() if venue is not None else None
    kept = [p for i in ids if (p := facts.get(ctx.iris.paper(i))) is not None
            and (year is None or p.year == year) and (wanted is None or (p.venue or "").casefold() == wanted)]
    order, key, types = sort
    kind = "p" if order == "ID" else f"p-{order.lower()}"
    ranked = sorted(kept, key=key)
    keys = [key(p) for p in ranked]
    start = bisect.bisect_right(keys, cursor.decode(kind, after, types)) if after else 0
    chosen = ranked[start : start + first]
    records = papers_by_iris(ctx, [p.iri for p in chosen])
    items = tuple(records[p.iri] for p in chosen if p.iri in records)
    cursors = tuple(cursor.encode(kind, key(p)) for p in chosen if p.iri in records)
    return Page(items, len(ranked), start + first < len(ranked), cursors[-1] if cursors else None, cursors)


_SORT_FIELDS = ("dcterms:identifier", "dcterms:title", "kg:venue", "dcterms:issued", "kg:citationCount")


def _sort_facts(ctx: QueryContext, iris: Sequence[str]) -> dict[str, PaperInfo]:
    """Id, title, venue, year and citations of each paper (what filters and orders read), 200 papers per
    query, cached per store generation: a list of 50,000 papers never reads their abstracts."""
    return _cached(ctx, iris, "paper-sort", lambda missing: _fetch(ctx, missing, _SORT_FIELDS, authors=False))


def link_confidences(
    ctx: QueryContext, groups: Sequence[tuple[Sequence[str], str | None]]
) -> dict[str, float]:
    """Paper id -> the highest confidence of its links to any entity of these (entity IRIs, relation) groups
    (a link without one counts 0). Cached per store generation: on a miss, one query per group and one per 500
    links."""
    key = ("link-confidence", tuple((tuple(sorted(set(g))), r) for g, r in groups))

    def compute() -> dict[str, float]:
        pairs: set[tuple[str, str, str]] = set()  # (paper IRI, relation, entity IRI)
        for group, relation in groups:
            if not group:
                continue
            preds = [ctx.term(relation)] if relation else list(ctx.relations)
            branches = " UNION ".join(f"{{ ?p {r} ?e BIND({r} AS ?r) }}" for r in preds)  # not FILTER IN
            scope = values("e", [NamedNode(e) for e in sorted(set(group))])
            for row in ctx.select(f"SELECT ?p ?r ?e WHERE {{ {scope} {branches} }}"):
                rel = (text(row, "r") or "").removeprefix(ctx.iris.ns)
                pairs.add((text(row, "p") or "", rel, text(row, "e") or ""))
        by_node = {ctx.iris.link(pid, rel, e): pid for p, rel, e in pairs
                   if (pid := ctx.iris.paper_id(p)) is not None}
        best = dict.fromkeys(by_node.values(), 0.0)
        nodes = [NamedNode(n) for n in sorted(by_node)]
        for part in chunks(nodes, 500):  # a link's confidence is its shared rule node's (kg.rdf.mapping)
            rows = ctx.select(f"SELECT ?l ?c WHERE {{ {values('l', part)} "
                              "?l kg:by ?by . ?by kg:confidence ?c }")
            for row in rows:
                pid = by_node.get(text(row, "l") or "")
                if pid is not None:
                    best[pid] = max(best[pid], number(row, "c") or 0.0)
        return best

    return ctx.memo.get(ctx.store, key, compute, len)


def _intersect(sets: list[tuple[str, ...]]) -> tuple[str, ...]:
    """The ids in every sorted tuple, still sorted."""
    if len(sets) == 1:
        return sets[0]
    smallest, *rest = sorted(sets, key=len)
    keep = [frozenset(x) for x in rest]
    return tuple(i for i in smallest if all(i in k for k in keep))


def _all_ids(ctx: QueryContext) -> tuple[str, ...]:
    def compute() -> tuple[str, ...]:
        rows = ctx.select("SELECT ?p WHERE { ?p a kg:Paper }")
        return tuple(sorted({i for r in rows if (i := ctx.iris.paper_id(text(r, "p") or "")) is not None}))

    return ctx.memo.get(ctx.store, ("papers",), compute, len)


def linked_ids(
    ctx: QueryContext, groups: Sequence[Sequence[str]], relation: str | None
) -> list[tuple[str, ...]]:
    """For each group of entity IRIs, the sorted ids of the papers linked to any of them (by `relation`
    if given). Cached per store generation; the groups not cached are read from the lists kept at write time
    (`kg.query.paperlists`), or from the graph in one query for a store without them."""
    keys = [("linked", tuple(sorted(set(g))), relation) for g in groups]
    gen = ctx.memo.generation(ctx.store)
    out: dict[tuple[str, tuple[str, ...], str | None], tuple[str, ...]] = {k: () for k in keys if not k[1]}
    for key in keys:
        hit = ctx.memo.peek(ctx.store, key)
        if hit is not None:
            out[key] = hit
    missing = [k for k in dict.fromkeys(keys) if k not in out]
    wanted = {e for _, group, _ in missing for e in group}
    by_entity: dict[str, set[str]] = defaultdict(set)
    ordered: dict[str, tuple[str, ...]] = {}  # entity IRI -> its paper ids as stored (sorted)
    if wanted and globals_of(ctx) is not None:  # the lists kept at write time: no join, no sort
        stored = {e: eid for e in wanted if (eid := _listed_id(ctx, e)) is not None}
        for e, entries in full_lists(ctx.store, layout_of(ctx), sorted(stored.values())).items():
            iri = ctx.iris.entity_from_id(e)
            ordered[iri] = tuple(pid for pid, rels in entries if relation is None or relation in rels.split())
            by_entity[iri] = set(ordered[iri])
        wanted -= set(stored)
    if wanted:
        preds = [str(NamedNode(ctx.iris.term(relation)))] if relation else [str(r) for r in ctx.relations]
        branches = " UNION ".join(f"{{ ?p {r} ?e }}" for r in preds)  # no VALUES/FILTER on ?r: see _count
        scope = values("e", [NamedNode(e) for e in sorted(wanted)])
        rows = ctx.select(f"SELECT DISTINCT ?e ?p WHERE {{ {scope} {branches} }}")
        for r in rows:
            if (pid := ctx.iris.paper_id(text(r, "p") or "")) is not None:  # not entities or link nodes
                by_entity[text(r, "e") or ""].add(pid)
    for key in missing:
        if len(key[1]) == 1 and key[1][0] in ordered:
            ids = ordered[key[1][0]]
        else:
            ids = tuple(sorted(set().union(*(by_entity.get(e, set()) for e in key[1]))))
        out[key] = ids
        ctx.memo.put(gen, key, ids, len(ids))
    return [out[k] for k in keys]


Slice = tuple[int, int, Sequence[str]]  # (ids in the list, position of the page's first, the page's ids)


def _stored_slice(ctx: QueryContext, group: Sequence[str], first: int, after: str | None) -> Slice | None:
    """The page of one entity's papers read from the list kept at write time: only the blocks the page
    reaches (None when the group is not one such entity, or its whole list is cached already)."""
    if len(group) != 1 or (eid := _listed_id(ctx, group[0])) is None or globals_of(ctx) is None:
        return None
    if ctx.memo.peek(ctx.store, ("linked", (group[0],), None)) is not None:
        return None
    layout = layout_of(ctx)
    index = ctx.memo.get(ctx.store, ("plist-index", eid),
                         lambda: tuple(stored_indexes(ctx.store, layout, [eid]).get(eid, [])), len)

    def block(k: int) -> list[Entry]:
        return ctx.memo.get(ctx.store, ("plist-block", eid, k),
                            lambda: stored_blocks(ctx.store, layout, [(eid, k)])[(eid, k)], len)

    def read(ks: list[int]) -> dict[int, list[Entry]]:
        return {k: block(k) for k in ks}

    last = cursor.decode("p", after, (str,))[0] if after else None
    return page_of(index, read, last, first)


def _listed_id(ctx: QueryContext, iri: str) -> str | None:
    """The entity id whose paper list is kept at write time (a typed entity's), else None."""
    eid = ctx.iris.entity_id_of(iri)
    typed = eid is not None and ctx.iris.type_of_entity_id(eid) is not None
    return eid if typed and eid is not None and ctx.iris.entity_from_id(eid) == iri else None


def _pages(
    ctx: QueryContext, lists: Sequence[tuple[str, ...]], first: int, after: str | None
) -> list[Page[PaperInfo]]:
    """The page after the cursor `after` of each sorted id list; one query for every page's papers."""
    last = cursor.decode("p", after, (str,))[0] if after else None
    slices = []
    for ids in lists:
        start = bisect.bisect_right(ids, last) if last is not None else 0
        slices.append((len(ids), start, ids[start : start + first]))
    return _build(ctx, slices, first)


def _build(ctx: QueryContext, slices: Sequence[Slice], first: int) -> list[Page[PaperInfo]]:
    """Pages of these slices; one query for every page's papers."""
    infos = papers_by_iris(ctx, [ctx.iris.paper(i) for _, _, chosen in slices for i in chosen])
    out = []
    for total, start, chosen in slices:
        items = tuple(p for i in chosen if (p := infos.get(ctx.iris.paper(i))) is not None)
        cursors = tuple(cursor.encode("p", [p.id]) for p in items)
        end = cursors[-1] if cursors else None
        out.append(Page(items, total, start + first < total, end, cursors))
    return out


def _authors(fields: dict[str, list[str]]) -> tuple[str, ...]:
    """Authors in their order (rdf:_n members of the bibo:authorList sequence); a store written before
    format 3 has unordered dcterms:creator values instead."""
    ordered = sorted((int(k[1:]), v) for k, vs in fields.items()
                     if k[:1] == "_" and k[1:].isdigit() for v in vs)
    return tuple(v for _, v in ordered) or tuple(fields.get("creator", ()))


def _one(fields: dict[str, list[str]], key: str) -> str | None:
    vals = fields.get(key)
    return vals[0] if vals else None


def papers_of_entities(
    ctx: QueryContext,
    entity_iris: Iterable[str],
    relation: str | None = None,
    first: int = 20,
    after: str | None = None,
) -> dict[str, Page[PaperInfo]]:
    """For each entity, the page of papers linked to it (by `relation` if given): two queries at most."""
    nodes = sorted({n.value for n in (iri_or_none(e) for e in entity_iris) if n is not None})
    if not nodes:
        return {}
    slices: dict[str, Slice] = {}
    if relation is None:  # one entity's page: only the blocks it reaches
        slices = {n: found for n in nodes if (found := _stored_slice(ctx, [n], first, after)) is not None}
    rest = [n for n in nodes if n not in slices]
    last = cursor.decode("p", after, (str,))[0] if after else None
    for n, ids in zip(rest, linked_ids(ctx, [[n] for n in rest], relation), strict=True):
        start = bisect.bisect_right(ids, last) if last is not None else 0
        slices[n] = (len(ids), start, ids[start : start + first])
    return dict(zip(nodes, _build(ctx, [slices[n] for n in nodes], first), strict=True))
