"""Remote store: a SPARQL 1.1 endpoint over one shared keep-alive httpx.Client.

Every write is ONE update request (drops, inserts and the generation bump together), which Oxigraph
applies in one transaction. Queries ask for the union default graph the dialect's way (Oxigraph: the
`union-default-graph` parameter on each request). Results come back as SPARQL JSON / N-Triples and are
parsed by pyoxigraph into the same terms the embedded store returns.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from typing import BinaryIO, cast

import httpx
import pyoxigraph as ox

from kg.settings import DEFAULT_BASE_IRI
from kg.store.dialects import DIALECTS, Dialect, guess_dialect
from kg.store.embedded import dump_dataset
from kg.store.formats import rdf_format
from kg.store.limits import collect
from kg.store.types import BadQuery, QueryTimeout, Row, StoreError, Term
from kg.store.version import check_format
from kg.store.writes import Meta

_JSON = "application/sparql-results+json"
_NT = "application/n-triples"
_NQ = "application/n-quads"


class RemoteStore:
    """A SPARQL endpoint (Oxigraph server by default) behind the Store protocol."""

    in_process = False  # capability flags: see kg.store.types.Store
    directory: str | None = None

    def __init__(self, location: str, *, base_iri: str = DEFAULT_BASE_IRI, read_only: bool = False,
                 create: bool = True, dialect: Dialect | str | None = None, timeout_s: float = 30.0,
                 upgrade: bool = False) -> None:
        self.location = location
        self.read_only = read_only
        d = DIALECTS[dialect] if isinstance(dialect, str) else dialect
        self.dialect = d or guess_dialect(location)
        self._ep = self.dialect.endpoints(location)
        self._meta = Meta(base_iri)
        self._base_iri = base_iri
        self._timeout_s = timeout_s
        self._http = httpx.Client(timeout=httpx.Timeout(timeout_s, connect=5.0),
                                  limits=httpx.Limits(max_keepalive_connections=8))
        # fail now, in one line, when nothing answers there; the Server header names the engine
        probe = self._post(self._ep.query, accept=_JSON, timeout_s=5.0, params=self.dialect.union_params,
                           data={"query": "ASK {}"})
        if d is None:
            self.dialect = guess_dialect(location, probe.headers.get("server"))
            self._ep = self.dialect.endpoints(location)
        try:  # the layout check every open makes; an empty endpoint is stamped as a new store
            self.format_version = check_format(self, self._meta, self._update, read_only=read_only,
                                               upgrade=upgrade)
        except StoreError:
            self._http.close()
            raise

    # --- HTTP ---------------------------------------------------------------------------------
    def _post(self, url: str, *, accept: str | None = None, timeout_s: float | None = None,
              params: Sequence[tuple[str, str]] = (), data: dict[str, str] | None = None,
              content: bytes | None = None, content_type: str | None = None) -> httpx.Response:
        headers = {"Accept": accept} if accept else {}
        if content_type:
            headers["Content-Type"] = content_type
        return self._send("POST", url, headers, timeout_s, params, data, content)

    def _send(self, method: str, url: str, headers: dict[str, str], timeout_s: float | None,
              params: Sequence[tuple[str, str]] = (), data: dict[str, str] | None = None,
              content: bytes | None = None) -> httpx.Response:
        timeout = httpx.Timeout(timeout_s or self._timeout_s, connect=5.0)
        try:
            resp = self._http.request(method, url, headers=headers, params=list(params), data=data,
                                      content=content, timeout=timeout)
        except httpx.TimeoutException:
            raise QueryTimeout(f"{self.location} did not answer within {timeout.read:g} s") from None
        except httpx.HTTPError as exc:
            raise StoreError(f"cannot reach SPARQL endpoint {url}: {exc}") from None
        if resp.status_code == 400:
            raise BadQuery(f"bad SPARQL: {_first_line(resp.text)}")
        if resp.status_code >= 300:
            raise StoreError(f"{url} answered HTTP {resp.status_code}: {_first_line(resp.text)}")
        return resp

    def _query(self, query: str, accept: str, timeout_s: float | None = None) -> bytes:
        resp = self._post(self._ep.query, accept=accept, timeout_s=timeout_s,
                          params=self.dialect.union_params, data={"query": query})
        return resp.content

    def _update(self, text: str) -> None:
        if self.read_only:
            raise StoreError(f"store {self.location} is open read-only")
        self._post(self._ep.update, data={"update": text})

    # --- reads --------------------------------------------------------------------------------
    def select(self, query: str, bindings: Mapping[str, Term] | None = None,
               timeout_s: float | None = None, max_rows: int | None = None) -> list[Row]:
        body = self._query(self.dialect.bind(query, bindings), _JSON, timeout_s)
        res = ox.parse_query_results(self.dialect.results(body), ox.QueryResultsFormat.JSON)
        if not isinstance(res, ox.QuerySolutions):
            raise BadQuery("not a SELECT query")
        names = [v.value for v in res.variables]
        fix = self.dialect.row

        def convert(sol: ox.QuerySolution) -> Row:
            return fix({n: v for n in names if (v := sol[n]) is not None})

        return collect(lambda: iter(res), convert, max_rows=max_rows)

    def ask(self, query: str, bindings: Mapping[str, Term] | None = None,
            timeout_s: float | None = None) -> bool:
        res = ox.parse_query_results(self._query(self.dialect.bind(query, bindings), _JSON, timeout_s),
                                     ox.QueryResultsFormat.JSON)
        if not isinstance(res, ox.QueryBoolean):
            raise BadQuery("not an ASK query")
        return bool(res)

    def construct(self, query: str, bindings: Mapping[str, Term] | None = None) -> list[ox.Triple]:
        body = self._query(self.dialect.bind(query, bindings), _NT)
        return [q.triple if isinstance(q, ox.Quad) else q for q in ox.parse(body, ox.RdfFormat.N_TRIPLES)]

    def named_graphs(self) -> list[str]:
        keep = self.dialect.graph_filter("g")  # engines with system graphs (Virtuoso) leave them out
        rows = self.select(f"SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{ ?s ?p ?o }} {keep} }}" if keep
                           else "SELECT DISTINCT ?g WHERE { GRAPH ?g { } }")
        return sorted(g.value for r in rows if isinstance(g := r.get("g"), ox.NamedNode)
                      and g != self._meta.graph)

    def triple_count(self) -> int:
        """A COUNT over the endpoint: a full scan on the server, not a metadata read."""
        meta = self._meta.graph  # our own IRI, not user input
        keep = self.dialect.graph_filter("g")
        rows = self.select("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } "
                           f"FILTER(?g != {meta}) {keep} }}")
        n = rows[0]["n"] if rows else None
        return int(n.value) if isinstance(n, ox.Literal) else 0

    def generation(self) -> str:
        rows = self.select(self._meta.query())
        token = rows[0].get("token") if rows else None
        return token.value if isinstance(token, ox.Literal) else "0"

    # --- writes -------------------------------------------------------------------------------
    def replace_graphs(self, graphs: Mapping[str, Sequence[ox.Quad]], shared: Sequence[ox.Quad] = ()) -> None:
        if graphs or shared:
            for text in self.dialect.replace_updates(graphs, self._meta, shared):
                self._update(text)

    def drop_graphs(self, graph_iris: Iterable[str]) -> None:
        for text in self.dialect.drop_updates(graph_iris, self._meta):
            self._update(text)

    def set_format_version(self, version: int) -> None:
        """Stamp the layout version (kg migrate's last step), bumping the generation in the same request."""
        self._update(self._meta.stamp(version) + " ;\n" + self._meta.bump())
        self.format_version = version

    def load(self, path: str, fmt: str = "nquads", *, graph: str | None = None) -> None:
        """One request per file: a Graph Store POST where the dialect has one, else one INSERT DATA."""
        if self.read_only:
            raise StoreError(f"store {self.location} is open read-only")
        rdf = rdf_format(fmt)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise StoreError(f"cannot load {path}: {exc.strerror}") from None
        if self._ep.store is not None:
            params = [("graph", graph)] if graph else ([] if rdf.supports_datasets else [("default", "")])
            self._post(self._ep.store, params=params, content=data, content_type=rdf.media_type)
        else:
            target: ox.NamedNode | ox.DefaultGraph = ox.NamedNode(graph) if graph else ox.DefaultGraph()
            for text in self.dialect.insert_updates(_as_insert_data(ox.parse(data, rdf), target)):
                self._update(text)
        self._update(self._meta.bump())

    # --- export -------------------------------------------------------------------------------
    def dump(self, out: BinaryIO, fmt: str, graph: str | None = None, *, workers: int = 1) -> None:
        """Fetch the data as N-Quads into an in-memory Oxigraph and serialise it like the embedded store (one
        process: the transfer, not the serialiser, is what takes the time)."""
        local = ox.Store()
        if self._ep.store is not None:
            params = [("graph", graph)] if graph else []
            resp = self._send("GET", self._ep.store, {"Accept": _NT if graph else _NQ}, None, params)
            local.load(resp.content, format=ox.RdfFormat.N_TRIPLES if graph else ox.RdfFormat.N_QUADS,
                       to_graph=ox.NamedNode(graph) if graph else None)
        else:
            keep = self.dialect.graph_filter("g")
            rows = self.select(f"SELECT ?s ?p ?o ?g WHERE {{ GRAPH ?g {{ ?s ?p ?o }} {keep} }}")
            local.extend(
                ox.Quad(
                    cast(ox.NamedNode | ox.BlankNode, r["s"]),
                    cast(ox.NamedNode, r["p"]),
                    r["o"],
                    cast(ox.NamedNode, r["g"]),
                )
                for r in rows
            )
        dump_dataset(local, out, fmt, graph, self._meta, self._base_iri)

    def close(self) -> None:
        self._http.close()


def _first_line(text: str) -> str:
    return " ".join(text.strip().splitlines()[:1])[:300]


def _as_insert_data(items: Iterable[object], target: ox.NamedNode | ox.DefaultGraph) -> str:
    """Parsed quads/triples as INSERT DATA content (`GRAPH g { s p o . }` per quad in a named graph)."""
    buf = io.StringIO()
    for q in items:
        assert isinstance(q, ox.Quad | ox.Triple)
        named = isinstance(q, ox.Quad) and not isinstance(q.graph_name, ox.DefaultGraph)
        g = q.graph_name if isinstance(q, ox.Quad) and named else target
        t = f"{q.subject} {q.predicate} {q.object} ."
        buf.write(f"{t}\n" if isinstance(g, ox.DefaultGraph) else f"GRAPH {g} {{ {t} }}\n")
    return buf.getvalue()
