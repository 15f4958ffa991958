"""A knowledge graph to ask from Python: a store on this machine or a running `kg serve`, through the same
query layer (`kg.query`) that answers the GraphQL API, so both give the same answers."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from kg import query as q
from kg.query.model import EntityInfo, LinkInfo, Page, PaperInfo, SearchHit, Stats
from kg.query.papers import BadOrder, PaperOrder
from kg.query.results import ResultInfo, board
from kg.query.trends import Normalize, TrendingEntity, TrendPoint, entity_trend, trending
from kg.settings import DEFAULT_BASE_IRI
from kg.store.types import Store, StoreError
from kg.types import EntityType
from paperkg.results import Results, SparqlResult, typed

if TYPE_CHECKING:
    import httpx
    import networkx as nx
    import rdflib
    from pyoxigraph import BlankNode, NamedNode, Triple
    from pyoxigraph import Literal as RdfLiteral

T = TypeVar("T")
P = ParamSpec("P")
PAGE = 100  # records fetched per query while collecting a list


class QueryError(ValueError):
    """A question the graph cannot answer: an unknown name or id, a refused query, an unreachable store."""


def _one_line(method: Callable[P, T]) -> Callable[P, T]:
    """A store's refusal (a timeout, a server's row cap, a lost connection) or an order the list cannot
    have, as a one-line `QueryError`."""
    @functools.wraps(method)
    def asking(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return method(*args, **kwargs)
        except (StoreError, BadOrder) as exc:
            raise QueryError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None
    return asking


def _collect(fetch: Callable[[int, str | None], Page[T]], first: int | None, record: type,
             page_size: int = PAGE) -> Results[T]:
    """Pages of `fetch(size, after)` until `first` records (None: all of them) or the last page."""
    items: list[T] = []
    after: str | None = None
    while True:
        size = page_size if first is None else min(page_size, first - len(items))
        page = fetch(size, after) if size > 0 else Page((), 0, False, None)
        items.extend(page.items)
        if size <= 0 or not page.has_next or page.end_cursor is None or not page.items:
            return Results(tuple(items), max(page.total, len(items)), record)
        if first is not None and len(items) >= first:
            return Results(tuple(items), page.total, record)
        after = page.end_cursor


def _value(term: NamedNode | BlankNode | RdfLiteral | Triple | None) -> object:
    """A SPARQL term as a Python value: IRIs as text, literals typed (`paperkg.results.typed`)."""
    from pyoxigraph import BlankNode, Literal

    if term is None:
        return None
    if isinstance(term, Literal):
        return typed(term.value, term.datatype.value)
    if isinstance(term, BlankNode):
        return f"_:{term.value}"
    return getattr(term, "value", str(term))


class Graph:
    """The questions of the GraphQL API as typed methods; lists come back as `Results` (`.to_pandas()`),
    maps as networkx graphs. Use it as a context manager, or call `close()`."""

    def __init__(self, store: Store, base_iri: str = DEFAULT_BASE_IRI, timeout_s: float | None = None,
                 endpoint: str | None = None) -> None:
        self.store = store
        self.endpoint = endpoint  # the SPARQL endpoint of a `kg serve` this graph is connected to
        self._http: httpx.Client | None = None  # one keep-alive client for its GraphQL questions
        self.base_iri = base_iri
        self.ctx = q.QueryContext.open(store, base_iri, timeout_s)
        self.page_size = PAGE  # records per query while a list is collected

    # --- papers ---------------------------------------------------------------------------------------
    @_one_line
    def papers(
        self,
        *,
        dataset: str | None = None,
        task: str | None = None,
        method: str | None = None,
        model: str | None = None,
        domain: str | None = None,
        search: str | None = None,
        year: int | None = None,
        venue: str | None = None,
        entity: str | None = None,
        order: PaperOrder = "ID",
        include_narrower: bool = True,
        first: int | None = None,
    ) -> Results[PaperInfo]:
        """Papers matching every filter (entity names or aliases, or `entity` an entity id; narrower entities
        included unless `include_narrower` is False), in `order` ("CONFIDENCE": the strongest link to the
        filtered entities first); `first` at most that many, None all of them."""
        filters: dict[str, object] = {"dataset": dataset, "task": task, "method": method, "model": model,
                                      "domain": domain, "search": search, "year": year, "venue": venue,
                                      "entity": entity}

        def fetch(size: int, after: str | None) -> Page[PaperInfo]:
            if search is not None and self.endpoint is not None:  # the full-text index is the server's
                return self._served_papers(filters, order, include_narrower, size, after)
            return q.papers(self.ctx, dataset=dataset, task=task, method=method, model=model, domain=domain,
                            search=search, year=year, venue=venue, entity=entity, order=order, first=size,
                            after=after, include_narrower=include_narrower)
        return _collect(fetch, first, PaperInfo, self.page_size)

    @_one_line
    def paper(self, id: str) -> PaperInfo | None:
        """The paper with this id, or None."""
        return q.paper(self.ctx, id)

    @_one_line
    def links(self, paper: str, *, type: EntityType | None = None,
              min_confidence: float | None = None) -> Results[LinkInfo]:
        """What a paper is linked to, each link with its relation, evidence sentence and confidence."""
        if self.paper(paper) is None:
            raise QueryError(f"no paper {paper!r}")
        found = q.links(self.ctx, paper, type, None, min_confidence)
        return Results(tuple(found), len(found), LinkInfo)

    # --- entities -------------------------------------------------------------------------------------
    @_one_line
    def entity(self, name: str | None = None, *, id: str | None = None,
               type: EntityType | None = None) -> EntityInfo | None:
        """An entity by name or alias (the best match) or by id ("dataset/imagenet"), or None."""
        return q.entity(self.ctx, id, name, type)

    @_one_line
    def entities(self, *, type: EntityType | None = None, search: str | None = None,
                 first: int | None = 20) -> Results[EntityInfo]:
        """Entities by paper count, most first (`first` None: all of them)."""
        return _collect(lambda size, after: q.entities(self.ctx, type, search, size, after), first,
                        EntityInfo, self.page_size)

    @_one_line
    def defenses(self, *, target: str | None = None, against: str | None = None) -> Results[EntityInfo]:
        """Methods proposed to defend a domain (or a narrower one) and/or against a threat, of any kind."""
        found = q.defenses(self.ctx, target, against)
        return Results(tuple(found), len(found), EntityInfo)

    @_one_line
    def attacks(self, *, target: str | None = None, against: str | None = None) -> Results[EntityInfo]:
        """Methods proposed to attack a domain (or a narrower one) and/or to realise a threat, of any kind."""
        found = q.attacks(self.ctx, target, against)
        return Results(tuple(found), len(found), EntityInfo)

    @_one_line
    def search(self, text: str, *, first: int = 10) -> Results[SearchHit]:
        """Ranked full-text hits over titles, abstracts and entity names."""
        found = q.search(self.ctx, text, first) if self.endpoint is None else self._served_search(text, first)
        return Results(tuple(found), len(found), SearchHit)

    # --- trends and results ---------------------------------------------------------------------------
    @_one_line
    def trending(self, *, type: EntityType | None = None, since: int | None = None, first: int = 10,
                 venues: Sequence[str] | None = None,
                 normalize: Normalize = "PAPERS") -> Results[TrendingEntity]:
        """Entities whose share of papers rose most from before `since` to `since` on (default: the latest
        year); `venues` compares within those venues, `normalize="VENUE"` weighs each venue alike."""
        found = trending(self.ctx, type, since, first, venues=venues, normalize=normalize)
        return Results(tuple(found), len(found), TrendingEntity)

    @_one_line
    def trend(self, name: str, *, type: EntityType | None = None, venues: Sequence[str] | None = None,
              normalize: Normalize = "PAPERS") -> Results[TrendPoint]:
        """An entity's papers per year and their share of the year's papers, oldest first (years without
        papers are absent: gaps, never interpolated)."""
        found = entity_trend(self.ctx, self._entity(name, type).iri, venues, normalize)
        return Results(tuple(found), len(found), TrendPoint)

    @_one_line
    def leaderboard(self, dataset: str | None = None, *, metric: str | None = None, task: str | None = None,
                    include_low_confidence: bool = False, first: int | None = None) -> Results[ResultInfo]:
        """Reported results, ranked per board (one metric on one dataset and split), then improvements
        (deltas, ratios) unranked; rows of low confidence are left out unless asked for, as in GraphQL, and
        counted in `.hidden`."""
        if dataset is None and metric is None and task is None:
            raise QueryError("leaderboard needs at least one of dataset, metric, task")
        hidden = 0

        def fetch(size: int, after: str | None) -> Page[ResultInfo]:
            nonlocal hidden
            found = board(self.ctx, dataset, metric, task, size, after, include_low=include_low_confidence)
            hidden = found.hidden
            return found.page
        rows = _collect(fetch, first, ResultInfo, self.page_size)
        return Results(rows.items, rows.total, ResultInfo, hidden)

    # --- maps -----------------------------------------------------------------------------------------
    @_one_line
    def neighborhood(self, node: str, *, depth: int = 1, limit: int = 50) -> nx.MultiDiGraph:
        """The k-hop subgraph around a paper or entity (an id or an entity's name) as a MultiDiGraph."""
        from kg.graphio import from_subgraph

        found = q.neighborhood(self.ctx, self._node_id(node), depth, limit)
        if found is None:
            raise QueryError(f"no paper or entity {node!r}")
        return from_subgraph(found)

    @_one_line
    def cooccurrence(self, entity: str, *, first: int = 30, types: Sequence[EntityType] = (),
                     min_confidence: float = 0.0) -> nx.Graph:
        """The entities sharing most papers with an entity (the explorer's map) as an undirected networkx
        graph: edge `weight` = papers shared, node `shared` = papers shared with `graph.graph["center"]`."""
        from kg.graphio import from_ring

        found = q.ring(self.ctx, self._node_id(entity), first, list(types) or None,
                       min_confidence=min_confidence)
        if found is None:
            raise QueryError(f"no paper or entity {entity!r}")
        return from_ring(found)

    # --- the whole graph ------------------------------------------------------------------------------
    @_one_line
    def stats(self) -> Stats:
        """Papers, links per relation, entities per type and triples."""
        return q.stats(self.ctx)

    @_one_line
    def sparql(self, query: str) -> SparqlResult:
        """A read-only SPARQL SELECT (`kg:`, `dcterms:`, `skos:`… predeclared); counts come back as int."""
        from kg.cli.sparqltext import with_prefixes
        from kg.query.guard import QueryRefused, classify

        try:
            checked = classify(with_prefixes(query, self.base_iri)[0])
        except QueryRefused as exc:
            raise QueryError(str(exc)) from None
        if checked.form != "SelectQuery":
            raise QueryError("sparql() runs SELECT queries; use .dataset for the others")
        rows = self.store.select(checked.text, None, timeout_s=self.ctx.timeout_s)
        columns = tuple(checked.variables) if checked.variables else tuple(
            dict.fromkeys(v for row in rows for v in row))
        return SparqlResult(columns, tuple({c: _value(row.get(c)) for c in columns} for row in rows))

    @property
    def dataset(self) -> rdflib.Dataset:
        """The graph as an rdflib Dataset (default graph: the union of the papers' graphs), the `kg:`,
        `dcterms:`, `skos:`… prefixes bound. Local: the store itself, no copy; connected: rdflib's
        SPARQLStore over the server's /sparql, each query sent there."""
        import rdflib
        from rdflib.plugins.stores.sparqlstore import SPARQLStore

        from kg.cli.sparqltext import predeclared
        from kg.store import as_rdflib

        if self.endpoint is not None:
            ds = rdflib.Dataset(store=SPARQLStore(self.endpoint, returnFormat="json"), default_union=True)
        else:
            ds = as_rdflib(self.store)
        for prefix, iri in predeclared(self.base_iri).items():
            ds.bind(prefix, iri, override=True)
        return ds

    def close(self) -> None:
        """Close the store (a local one is unlocked for writers again) and the connection to a server."""
        if self._http is not None:
            self._http.close()
        self.store.close()

    def __enter__(self) -> Graph:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _graphql(self, query: str, variables: dict[str, object]) -> dict[str, Any]:
        """The `data` of a GraphQL answer from the connected server; its first error as a `QueryError`."""
        import httpx

        assert self.endpoint is not None
        url = self.endpoint.removesuffix("/sparql") + "/graphql"
        if self._http is None:
            self._http = httpx.Client(timeout=self.ctx.timeout_s or 60.0)
        try:
            body = self._http.post(url, json={"query": query, "variables": variables}).json()
        except (httpx.HTTPError, ValueError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise QueryError(f"{url}: {reason}") from None
        if body.get("errors"):
            raise QueryError(f"{url}: {body['errors'][0].get('message', 'error')}")
        data: dict[str, Any] = body["data"]
        return data

    def _served_search(self, text: str, first: int) -> list[SearchHit]:
        """The server's ranked hits (its full-text index), as records read through the query layer."""
        hits = self._graphql("query($t: String!, $n: Int!) { search(text: $t, first: $n) "
                             "{ score paper { id } entity { id } } }", {"t": text, "n": first})["search"]
        iris = [(self.ctx.iris.paper(h["paper"]["id"]) if h["paper"] else None,
                 self.ctx.iris.entity_from_id(h["entity"]["id"]) if h["entity"] else None) for h in hits]
        papers = q.papers_by_iris(self.ctx, [p for p, _ in iris if p])
        entities = q.entities_by_iris(self.ctx, [e for _, e in iris if e])
        found = [(h["score"], papers.get(p or ""), entities.get(e or ""))
                 for h, (p, e) in zip(hits, iris, strict=True)]
        return [SearchHit(float(score), p, e) for score, p, e in found if p is not None or e is not None]

    def _served_papers(self, filters: dict[str, object], order: str, include_narrower: bool, first: int,
                       after: str | None) -> Page[PaperInfo]:
        """One page of `papers(search: …)` from the server (it holds the full-text index)."""
        args = {k: v for k, v in filters.items() if v is not None}
        kinds = {"year": "Int", "entity": "ID"}
        declared = "".join(f", ${k}: {kinds.get(k, 'String')}" for k in args)
        passed = "".join(f", {k}: ${k}" for k in args)
        query = (f"query($first: Int!, $after: String, $narrower: Boolean!, $order: PaperOrder!{declared}) "
                 "{ papers(first: $first, after: $after, includeNarrower: $narrower, orderBy: $order"
                 f"{passed})"
                 " { totalCount pageInfo { hasNextPage endCursor } edges { node { id } } } }")
        found = self._graphql(query, {"first": first, "after": after, "narrower": include_narrower,
                                      "order": order, **args})["papers"]
        iris = [self.ctx.iris.paper(e["node"]["id"]) for e in found["edges"]]
        infos = q.papers_by_iris(self.ctx, iris)
        return Page(tuple(infos[i] for i in iris if i in infos), int(found["totalCount"]),
                    bool(found["pageInfo"]["hasNextPage"]), found["pageInfo"]["endCursor"])

    def _entity(self, name_or_id: str, type: EntityType | None = None) -> EntityInfo:
        found = self.entity(id=name_or_id, type=type) if "/" in name_or_id else None
        found = found or self.entity(name_or_id, type=type)
        if found is None:
            raise QueryError(f"no entity named {name_or_id!r}")
        return found

    def _node_id(self, node: str) -> str:
        """A paper id or an entity id as given, else the id of the entity with that name."""
        if "/" in node and self.entity(id=node) is not None:
            return node
        if self.paper(node) is not None:
            return node
        return self._entity(node).id


def _opened(location: str, base_iri: str, timeout_s: float | None, read_only: bool,
            endpoint: str | None = None) -> Graph:
    from kg.store import open_store

    try:
        store = open_store(location, base_iri=base_iri, read_only=read_only, create=False)
    except (StoreError, OSError) as exc:
        raise QueryError(f"{location}: {str(exc).splitlines()[0]}") from None
    return Graph(store, base_iri, timeout_s, endpoint)


def open(location: str | Path = "./kg-data", *, base_iri: str = DEFAULT_BASE_IRI,
         timeout_s: float | None = None, read_only: bool = True) -> Graph:
    """The store in a directory (or a SPARQL endpoint URL). Read-only by default, so a `kg serve` may keep
    the same directory open; a read-only handle sees the store as it was when opened."""
    return _opened(str(location), base_iri, timeout_s, read_only)


def connect(url: str, *, base_iri: str = DEFAULT_BASE_IRI, timeout_s: float | None = None) -> Graph:
    """A running `kg serve` (its root URL, e.g. "http://127.0.0.1:8000") asked over HTTP through its
    read-only `/sparql` endpoint, with the server's own limits on every query."""
    endpoint = url.rstrip("/")
    if not endpoint.endswith("/sparql"):
        endpoint += "/sparql"
    return _opened(endpoint, base_iri, timeout_s, True, endpoint)
