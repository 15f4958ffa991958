"""Papers: by id, filtered by entity names / free text, with keyset pagination in identifier order."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from pyoxigraph import Literal, NamedNode

from kg.query import cursor
from kg.query.context import QueryContext
from kg.query.entities import resolve
from kg.query.model import Page, PaperInfo
from kg.query.sparql import integer, iri_or_none, text, values
from kg.types import EntityType


def paper(ctx: QueryContext, paper_id: str) -> PaperInfo | None:
    iri = ctx.iris.paper(paper_id)
    return papers_by_iris(ctx, [iri]).get(iri)


def papers_by_iris(ctx: QueryContext, iris: Iterable[str]) -> dict[str, PaperInfo]:
    """PaperInfo for each IRI that names a paper, in one query."""
    nodes = [n for n in {iri_or_none(i) for i in iris} if n is not None]
    if not nodes:
        return {}
    props: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for row in ctx.select(
        f"SELECT ?p ?k ?v WHERE {{ {values('p', nodes)} ?p ?k ?v }}"  # fields picked below
    ):
        key = (text(row, "k") or "").rpartition("/")[2].rpartition("#")[2]
        props[text(row, "p") or ""][key].append(text(row, "v") or "")
    out: dict[str, PaperInfo] = {}
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
            authors=tuple(f.get("creator", ())),
            code_urls=tuple(sorted(f.get("hasCode", ()))),
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
) -> Page[PaperInfo]:
    """Papers matching every given filter, in identifier order.

    A name filter matches the canonical name or any alias (case-insensitive), takes every entity it matches,
    and includes their variants and narrower entities. `entity_iris` (+ `relation`) restricts to papers
    linked to those entities.
    """
    patterns: list[str] = []
    names: list[tuple[str | None, EntityType]] = [
        (dataset, "Dataset"),
        (task, "Task"),
        (method, "Method"),
        (model, "Model"),
        (domain, "Domain"),
    ]
    for i, (name, etype) in enumerate(names):
        if name is not None:
            found = [NamedNode(e) for e in resolve(ctx, name, etype, expand=True)]
            patterns.append(f"{values(f'e{i}', found)} ?p ?r{i} ?e{i} .")
    if entity_iris is not None:
        nodes = [n for n in (iri_or_none(e) for e in entity_iris) if n is not None]
        patterns.append(f"{values('ex', nodes)} ?p {_pred(ctx, relation)} ?ex .")
    if search is not None:
        ids = ctx.index.paper_ids(ctx.store, search)
        patterns.insert(0, values("p", [NamedNode(ctx.iris.paper(i)) for i in ids]))
    where = " ".join(patterns) + " ?p a kg:Paper ; dcterms:identifier ?id ."
    total = integer(ctx.select(f"SELECT (COUNT(DISTINCT ?p) AS ?n) WHERE {{ {where} }}")[0], "n")
    if after:
        (last,) = cursor.decode("p", after, (str,))
        where += f" FILTER(STR(?id) > {Literal(last)})"
    rows = ctx.select(f"SELECT DISTINCT ?p ?id WHERE {{ {where} }} ORDER BY STR(?id) LIMIT {first + 1}")
    page = [text(r, "p") or "" for r in rows[:first]]
    infos = papers_by_iris(ctx, page)
    items = tuple(infos[i] for i in page if i in infos)
    cursors = tuple(cursor.encode("p", [p.id]) for p in items)
    return Page(items, total, len(rows) > first, cursors[-1] if cursors else None, cursors)


def _pred(ctx: QueryContext, relation: str | None) -> str:
    """The predicate of a paper→entity pattern: one relation, or any (`?p a kg:Paper` keeps it to links)."""
    return "?r" if relation is None else str(NamedNode(ctx.iris.term(relation)))


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
    """For each entity, the page of papers linked to it (by `relation` if given): two queries in all."""
    nodes = [n for n in {iri_or_none(e) for e in entity_iris} if n is not None]
    if not nodes:
        return {}
    last = cursor.decode("p", after, (str,))[0] if after else None
    rows = ctx.select(
        f"SELECT DISTINCT ?e ?p ?id WHERE {{ {values('e', nodes)} ?p {_pred(ctx, relation)} ?e . "
        "?p a kg:Paper ; dcterms:identifier ?id . } ORDER BY ?e STR(?id)"
    )
    by_entity: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for r in rows:
        by_entity[text(r, "e") or ""].append((text(r, "id") or "", text(r, "p") or ""))
    slices = {}
    for e, found in by_entity.items():
        rest = [x for x in found if last is None or x[0] > last]
        slices[e] = (len(found), rest[:first], len(rest) > first)
    infos = papers_by_iris(ctx, [p for _, chosen, _ in slices.values() for _, p in chosen])
    out: dict[str, Page[PaperInfo]] = {}
    for n in nodes:
        total, chosen, more = slices.get(n.value, (0, [], False))
        items = tuple(infos[p] for _, p in chosen if p in infos)
        cursors = tuple(cursor.encode("p", [p.id]) for p in items)
        out[n.value] = Page(items, total, more, cursors[-1] if cursors else None, cursors)
    return out
