"""Entities: by id or name, ranked lists, broader/narrower, co-occurrence, roles (defenses, attacks)."""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable, Sequence

from pyoxigraph import Literal, NamedNode

from kg.names import match_key
from kg.query import cursor
from kg.query.context import QueryContext
from kg.query.counts import bucket_members, globals_of, layout_of, paper_counts_of, stored_buckets
from kg.query.model import EntityInfo, Page
from kg.query.sparql import chunks, integer, iri_or_none, one_of, text, values
from kg.types import ENTITY_TYPES, EntityType

_EXPAND_PLUS = (
    "(kg:variantOf|skos:broader)+"  # joined with the zero step by UNION: Oxigraph's `*` scans all nodes
)


def type_values(ctx: QueryContext, type_: EntityType | None) -> str:
    types = [type_] if type_ else list(ENTITY_TYPES)
    return one_of("t", (ctx.term(t) for t in types))


def resolve(ctx: QueryContext, name: str, type_: EntityType | None = None, expand: bool = False) -> list[str]:
    """IRIs of entities named or aliased `name`; with `expand`, also their variants and narrower ones."""
    key = match_key(name)
    if not key:
        return []

    def compute() -> list[str]:
        rows = ctx.select(
            f"SELECT DISTINCT ?e WHERE {{ {values('k', [Literal(key)])} ?e kg:key ?k . "
            f"?e a ?t . {type_values(ctx, type_)} }}"
        )
        found = sorted({text(r, "e") or "" for r in rows} - {""})
        return sorted({n.value for n in _closure(ctx, _EXPAND_PLUS, found)}) if expand and found else found

    return ctx.memo.get(ctx.store, ("resolve", key, type_, expand), compute, len)


def entities_by_iris(ctx: QueryContext, iris: Iterable[str]) -> dict[str, EntityInfo]:
    """EntityInfo for each IRI that names a declared entity (cached per store generation; on a miss, two
    queries whatever the count)."""
    nodes = [n for n in {iri_or_none(i) for i in iris} if n is not None and ctx.iris.entity_id_of(n.value)]
    if not nodes:
        return {}
    wanted = (n.value for n in nodes)
    found = ctx.memo.per_node(ctx.store, "entity", wanted, lambda m: _describe(ctx, m), None)
    return {iri: info for iri, info in found.items() if info is not None}


def _describe(ctx: QueryContext, iris: Sequence[str]) -> dict[str, EntityInfo | None]:
    nodes = [NamedNode(i) for i in iris]
    labels: dict[str, str] = {}
    alts: dict[str, set[str]] = defaultdict(set)
    kinds: dict[str, str] = {}
    # predicates filtered below: a FILTER here makes Oxigraph scan every label
    query = "SELECT ?e ?p ?v WHERE {{ {} ?e ?p ?v }}"
    rows = (r for part in chunks(nodes) for r in ctx.select(query.format(values("e", part))))
    for row in rows:
        e, p, v = text(row, "e") or "", text(row, "p") or "", text(row, "v") or ""
        if p.endswith("prefLabel"):
            labels.setdefault(e, v)
        elif p.endswith("altLabel"):
            alts[e].add(v)
        elif p == ctx.iris.term("kind"):
            kinds.setdefault(e, v)
    counts = paper_counts(ctx, nodes)
    out: dict[str, EntityInfo | None] = {}
    for iri, name in labels.items():
        eid = ctx.iris.entity_id_of(iri) or ""
        etype = ctx.iris.type_of_entity_id(eid)
        if etype is None:
            continue
        out[iri] = EntityInfo(
            eid, iri, name, etype, kinds.get(iri), tuple(sorted(alts[iri] - {name})), counts.get(iri, 0)
        )
    return out


def paper_counts(ctx: QueryContext, nodes: Sequence[NamedNode]) -> dict[str, int]:
    """How many papers link to each entity: a lookup of the stored aggregates (computed from the graph for
    a store without them); cached per store generation."""

    def compute(iris: list[str]) -> dict[str, int]:
        found = paper_counts_of(ctx, iris)
        return found if found is not None else _count(ctx, iris)

    return ctx.memo.counts(ctx.store, (n.value for n in nodes), compute)


_EVERY = 2_000  # beyond this many entities one aggregate over every link is cheaper than a VALUES block


def _count(ctx: QueryContext, iris: Sequence[str]) -> dict[str, int]:
    """Distinct papers per entity over the direct link triples: one UNION branch per relation (a VALUES or
    FILTER on ?r makes Oxigraph evaluate the relations as a cross product), `?e` bound first."""
    branches = " UNION ".join(f"{{ ?p {r} ?e }}" for r in ctx.relations)
    scope = "" if len(iris) > _EVERY else values("e", [NamedNode(i) for i in iris])
    rows = ctx.select(f"SELECT ?e (COUNT(DISTINCT ?p) AS ?n) WHERE {{ {scope} {branches} ?p a kg:Paper }} "
                      "GROUP BY ?e")
    return {text(r, "e") or "": integer(r, "n") for r in rows}


def entity(
    ctx: QueryContext, id: str | None = None, name: str | None = None, type_: EntityType | None = None
) -> EntityInfo | None:
    """The entity with this public id, or the best match for `name` (own name, then most papers, then id)."""
    if id is not None:
        eid_type = ctx.iris.type_of_entity_id(id)
        if eid_type is None or (type_ and eid_type != type_):
            return None
        iri = ctx.iris.entity_from_id(id)
        if ctx.iris.entity_id_of(iri) != id:
            return None
        return entities_by_iris(ctx, [iri]).get(iri)
    if not name:
        return None
    found = entities_by_iris(ctx, resolve(ctx, name, type_)).values()
    key = match_key(name)
    # an exact canonical-name match beats an alias match; then the most linked entity; then the id
    ranked = sorted(found, key=lambda e: (match_key(e.name) != key, -e.paper_count, e.id))
    return ranked[0] if ranked else None


def entities(
    ctx: QueryContext,
    type_: EntityType | None = None,
    search: str | None = None,
    first: int = 20,
    after: str | None = None,
) -> Page[EntityInfo]:
    """Entities linked from at least one paper, ranked by paper count (then IRI); `search` keeps those
    matching the full-text index. With stored aggregates a page reads only the count buckets it needs."""
    if search is None and globals_of(ctx) is not None:
        return _page_from_buckets(ctx, type_, first, after)
    if search is not None:
        keep = [iri for i in ctx.index.entity_ids(ctx.store, search)
                if (type_ is None or ctx.iris.type_of_entity_id(i) == type_)
                and (iri := ctx.iris.entity_from_id(i))]
        counts = paper_counts(ctx, [n for n in (iri_or_none(i) for i in keep) if n is not None])
        ranked = sorted((-n, iri) for iri, n in counts.items() if n > 0)
    else:
        ranked = _ranking(ctx, type_)
    start = 0
    if after:
        n, iri = cursor.decode("e", after, (int, str))
        start = bisect.bisect_right(ranked, (-n, iri))
    chosen = ranked[start : start + first]
    infos = entities_by_iris(ctx, [iri for _, iri in chosen])
    items = tuple(infos[iri] for _, iri in chosen if iri in infos)
    cursors = tuple(cursor.encode("e", [-n, iri]) for n, iri in chosen if iri in infos)
    return Page(items, len(ranked), start + first < len(ranked), cursors[-1] if cursors else None, cursors)


def _ranking(ctx: QueryContext, type_: EntityType | None) -> list[tuple[int, str]]:
    """(-paper count, IRI) of every entity of a type, sorted; computed once per store generation."""

    def compute() -> list[tuple[int, str]]:
        types = [type_] if type_ else list(ENTITY_TYPES)  # a branch per type: FILTER IN reads every rdf:type
        branches = " UNION ".join(f"{{ ?e a {ctx.term(t)} }}" for t in types)
        rows = ctx.select(f"SELECT DISTINCT ?e WHERE {{ {branches} }}")
        iris = [iri for r in rows if (iri := text(r, "e") or "")]
        counts = ctx.memo.counts(ctx.store, iris, lambda missing: _count(ctx, missing))
        return sorted((-n, iri) for iri in iris if (n := counts.get(iri, 0)) > 0)

    return ctx.memo.get(ctx.store, ("ranking", type_ or "*"), compute, len)


def _page_from_buckets(ctx: QueryContext, type_: EntityType | None, first: int,
                       after: str | None) -> Page[EntityInfo]:
    """One page of the ranking read from the stored count buckets, best-linked first: only the buckets
    the page reaches are read (the popular entities' buckets are small)."""
    layout = layout_of(ctx)
    types = [type_] if type_ else list(ENTITY_TYPES)
    sizes_by_type = ctx.memo.get(ctx.store, ("agg-buckets", tuple(types)),
                                 lambda: stored_buckets(ctx.store, layout, types), len)
    by_count: dict[int, list[str]] = defaultdict(list)
    sizes: dict[int, int] = defaultdict(int)
    for t, found in sizes_by_type.items():
        for n, k in found.items():
            by_count[n].append(layout.bucket(t, n))
            sizes[n] += k
    total = sum(sizes.values())
    queue = sorted(by_count, reverse=True)
    position, last = 0, None
    if after:
        count, iri0 = cursor.decode("e", after, (int, str))
        last = (count, iri0)
        position = sum(sizes[n] for n in queue if n > last[0])
        queue = [n for n in queue if n <= last[0]]
    chosen: list[tuple[int, str]] = []
    while queue and len(chosen) < first:
        batch, reach = [], 0
        while queue and reach <= first - len(chosen):
            n = queue.pop(0)
            batch.append(n)
            reach += sizes[n]
        members = bucket_members(ctx.store, layout, [b for n in batch for b in by_count[n]])
        for n in batch:
            inside = sorted(m for b in by_count[n] for m in members.get(b, ()))
            if last is not None and n == last[0]:
                skip = bisect.bisect_right(inside, last[1])
                position += skip
                inside = inside[skip:]
            chosen.extend((n, m) for m in inside)
    chosen = chosen[:first]
    infos = entities_by_iris(ctx, [iri for _, iri in chosen])
    items = tuple(infos[iri] for _, iri in chosen if iri in infos)
    # the same cursor as the graph path below ([paper count, IRI]): a cursor outlives a migration or a backend
    cursors = tuple(cursor.encode("e", [n, iri]) for n, iri in chosen if iri in infos)
    return Page(items, total, position + first < total, cursors[-1] if cursors else None, cursors)


def broader(ctx: QueryContext, iris: Iterable[str], narrower: bool = False) -> dict[str, list[EntityInfo]]:
    """For each entity, its skos:broader entities (or, with `narrower`, the ones broader than it)."""
    nodes = [n for n in (iri_or_none(i) for i in iris) if n is not None]
    if not nodes:
        return {}
    pattern = "?o skos:broader ?e" if narrower else "?e skos:broader ?o"
    rows = ctx.select(f"SELECT DISTINCT ?e ?o WHERE {{ {values('e', nodes)} {pattern} }}")
    return _group(ctx, [(text(r, "e") or "", text(r, "o") or "") for r in rows])


def related(ctx: QueryContext, iris: Iterable[str], first: int = 10) -> dict[str, list[EntityInfo]]:
    """For each entity, the entities that share the most papers with it (ties by id); cached per store
    generation (a popular entity co-occurs with most of the graph)."""
    nodes = [n.value for n in (iri_or_none(i) for i in iris) if n is not None]
    none: list[EntityInfo] = []
    found = ctx.memo.per_node(ctx.store, f"related/{first}", nodes, lambda m: _related(ctx, m, first), none)
    return {e: list(infos) for e, infos in found.items() if infos}


def _related(ctx: QueryContext, iris: list[str], first: int) -> dict[str, list[EntityInfo]]:
    nodes = [NamedNode(i) for i in iris]
    if not nodes:
        return {}
    rows = ctx.select(
        f"SELECT ?e ?o (COUNT(DISTINCT ?p) AS ?n) WHERE {{ {values('e', nodes)} "
        f"?p ?r ?e . ?p a kg:Paper . ?p ?r2 ?o . FILTER(?o != ?e) }} "
        "GROUP BY ?e ?o"
    )
    best: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for r in rows:
        if ctx.iris.entity_id_of(o := text(r, "o") or ""):  # links only: titles, types etc. are not entities
            best[text(r, "e") or ""].append((-integer(r, "n"), o))
    pairs = [(e, o) for e, cands in best.items() for _, o in sorted(cands)[:first]]
    return _group(ctx, pairs)


def defenses(ctx: QueryContext, target: str | None = None, against: str | None = None) -> list[EntityInfo]:
    """Defenses by role: entities some paper proposes to defend against a threat or for a domain
    (`kg:defendsAgainst`, `kg:targetsDomain`, whatever their kind), that target `target` (or a narrower
    domain) and defend against `against` (cached per store generation)."""
    return _by_role(ctx, _DEFENSE, target, against)


def attacks(ctx: QueryContext, target: str | None = None, against: str | None = None) -> list[EntityInfo]:
    """Attacks by role: entities some paper proposes to attack with, realising a threat or aimed at a domain
    (`kg:realizesThreat`, `kg:attacksDomain`, whatever their kind), that attack `target` (or a narrower
    domain) and realise `against` (the threat, or a narrower one or variant; cached per store generation)."""
    return _by_role(ctx, _ATTACK, target, against)


# A role (written by kg.extract.canon._relations): its name, the pattern an entity with it matches, its
# relation to the threat and to the domain. A kind alone makes no defense ("a stealthy backdoor that evades
# existing defenses" is not one).
_Role = tuple[str, str, str, str]
_DEFENSE: _Role = ("defenses", '{ ?d kg:defendsAgainst ?threat } UNION { ?d kg:kind "Defense" ; '
                   'kg:targetsDomain ?domain }', "kg:defendsAgainst", "kg:targetsDomain")
_ATTACK: _Role = ("attacks", "{ ?d kg:realizesThreat ?threat } UNION { ?d kg:attacksDomain ?domain }",
                  "kg:realizesThreat", "kg:attacksDomain")


def _by_role(ctx: QueryContext, role: _Role, target: str | None, against: str | None) -> list[EntityInfo]:
    key = (role[0], target, against)
    found = ctx.memo.get(ctx.store, key, lambda: tuple(_role_players(ctx, role, target, against)),
                         lambda f: len(f) + 1)
    return list(found)


def _role_players(ctx: QueryContext, role: _Role, target: str | None,
                  against: str | None) -> list[EntityInfo]:
    _, has_role, to_threat, to_domain = role
    parts = [has_role]
    # The narrower closures are resolved first, in their own query: Virtuoso 7.2 drops rows when a `*`
    # path is joined with the UNION below in one query (tests/test_store_virtuoso.py).
    if target is not None:
        domains = _closure(ctx, "skos:broader+", resolve(ctx, target))
        vx = values("x", domains)  # inside each branch: after the UNION, Oxigraph reads every proposal
        parts.append(f"{{ ?d {to_domain} ?x {vx} }} UNION "
                     f"{{ ?pt kg:proposes ?d ; kg:targetsDomain ?x {vx} }}")
    if against is not None:
        threats = _closure(ctx, _EXPAND_PLUS, resolve(ctx, against))
        vy = values("y", threats)
        parts.append(f"{{ ?d {to_threat} ?y {vy} }} UNION "
                     f"{{ ?pa kg:proposes ?d ; kg:studiesThreat ?y {vy} }}")
    rows = ctx.select(f"SELECT DISTINCT ?d WHERE {{ {' '.join(parts)} }}")
    found = entities_by_iris(ctx, [text(r, "d") or "" for r in rows]).values()
    return sorted(found, key=lambda e: (-e.paper_count, e.name.lower(), e.id))


def with_narrower(ctx: QueryContext, iris: Sequence[str]) -> list[str]:
    """`iris` and every entity narrower than or a variant of one of them, at any depth (skos:broader+,
    kg:variantOf+), sorted."""
    return [n.value for n in _closure(ctx, _EXPAND_PLUS, iris)]


def _closure(ctx: QueryContext, path: str, iris: Sequence[str]) -> list[NamedNode]:
    """The nodes reaching one of `iris` through the `+` path `path`, and `iris` themselves, in one query."""
    if not iris:
        return []
    nodes = values("o", [NamedNode(i) for i in iris])
    rows = ctx.select(f"SELECT DISTINCT ?x WHERE {{ {nodes} ?x {path} ?o }}")
    return [NamedNode(v) for v in sorted({*iris, *(text(r, "x") or "" for r in rows)} - {""})]


def _group(ctx: QueryContext, pairs: list[tuple[str, str]]) -> dict[str, list[EntityInfo]]:
    infos = entities_by_iris(ctx, {o for _, o in pairs})
    out: dict[str, list[EntityInfo]] = defaultdict(list)
    for e, o in pairs:
        if o in infos:
            out[e].append(infos[o])
    return dict(out)
