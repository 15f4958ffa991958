"""Per-engine SPARQL endpoint layout and quirks, kept in one place: one Dialect object per engine.

`RemoteStore` asks its dialect for everything engine-specific: where to send requests, how to bind
values, how to write a batch of graphs (one update text, or several when the engine limits their size),
which named graphs are the engine's own (Virtuoso keeps system graphs next to ours) and how to read its
literals back. The generic behaviour is the SPARQL 1.1 standard; subclasses override only their quirks.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import pyoxigraph as ox

from kg.store.sparql import bind
from kg.store.types import Row, Term
from kg.store.writes import Meta, drop_update, replace_update


@dataclass(frozen=True, slots=True)
class Endpoints:
    """Where to send queries, updates and Graph Store Protocol requests (None: not supported)."""

    query: str
    update: str
    store: str | None


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one engine lays out its endpoints and makes the default graph the union of named graphs."""

    name: str
    query_path: str
    update_path: str
    store_path: str | None
    # extra URL parameters sent with every query (Oxigraph: `union-default-graph`)
    union_params: tuple[tuple[str, str], ...] = ()

    def endpoints(self, location: str) -> Endpoints:
        root = location.rstrip("/")
        return Endpoints(root + self.query_path, root + self.update_path,
                         root + self.store_path if self.store_path is not None else None)

    # --- hooks with standard SPARQL 1.1 behaviour; engines override their quirks -----------------
    def bind(self, query: str, bindings: Mapping[str, Term] | None) -> str:
        """The query text with `bindings` as a trailing VALUES clause."""
        return bind(query, bindings)

    def replace_updates(self, graphs: Mapping[str, Sequence[ox.Quad]], meta: Meta,
                        shared: Sequence[ox.Quad] = ()) -> list[str]:
        """Update requests replacing `graphs`, adding `shared` quads and bumping the generation (one here)."""
        return [replace_update(graphs, meta, shared)]

    def drop_updates(self, graph_iris: Iterable[str], meta: Meta) -> list[str]:
        """Update requests dropping whole graphs and bumping the generation (none when nothing to drop)."""
        text = drop_update(graph_iris, meta)
        return [text] if text else []

    def insert_updates(self, data: str) -> list[str]:
        """INSERT DATA requests for `data` (N-Quads-like content from `remote._as_insert_data`)."""
        return [f"INSERT DATA {{ {data} }}"]

    def graph_filter(self, var: str) -> str:
        """A FILTER keeping only data graphs in `?var` (engines with system graphs leave them out)."""
        return ""

    def row(self, row: Row) -> Row:
        """A result row with the engine's literal quirks undone (identity here)."""
        return row

    def results(self, body: bytes) -> bytes:
        """SPARQL JSON results as the engine sent them, made parseable (identity here)."""
        return body


# Oxigraph server (`oxigraph serve`): the union default graph is asked for per query, so a server
# started without --union-default-graph still answers like the embedded store.
OxigraphDialect = Dialect("oxigraph", "/query", "/update", "/store",
                          union_params=(("union-default-graph", ""),))

# Any SPARQL 1.1 endpoint at one URL for query and update, without Graph Store Protocol. Its default
# graph must already be the union of the named graphs (a server setting, e.g. Fuseki unionDefaultGraph).
GenericDialect = Dialect("generic", "", "", None)

_NODE_ID = re.compile(rb'("type":\s*"bnode",\s*"value":\s*")nodeID://')
_XSD_BOOLEAN = ox.NamedNode("http://www.w3.org/2001/XMLSchema#boolean")
_TRUE = ox.Literal("true", datatype=_XSD_BOOLEAN)
_FALSE = ox.Literal("false", datatype=_XSD_BOOLEAN)


@dataclass(frozen=True, slots=True)
class VirtuosoDialect(Dialect):
    """OpenLink Virtuoso 7.2 at `http://host:8890/sparql` (SPARQL_UPDATE granted to user SPARQL).

    Quirks handled here (all measured on Debian's 7.2.5):
    - its default graph is already the union of all graphs, but it keeps system graphs (virtrdf#, ldp#,
      the URIQA host graph) beside ours: `graph_filter` leaves them out of listings, counts and dumps;
    - a trailing VALUES over a variable the SELECT does not project fails ("SQ200: No column"), so bound
      values go inside the WHERE group;
    - one INSERT DATA of ~5,000 triples exhausts its parser ("SP030: memory exhausted"), thousands of
      operations in one request fail ("SQ200: Query too large"): inserts are chunked by `chunk_triples`
      and requests carry at most `ops_per_request` operations;
    - INSERT DATA refuses blank nodes and an INSERT template refuses one GRAPH block per triple, so blank
      node triples go into one INSERT {…} WHERE {} with a GRAPH block per graph;
    - graphs are emptied with CLEAR SILENT GRAPH (DROP of a never-created graph fails without SILENT);
    - JSON results carry booleans as "1"/"0" and blank nodes as "nodeID://b1": both are undone;
    - a multi-operation update is NOT one transaction (an operation that fails leaves the earlier ones
      applied), so a batch is not atomic there; the generation token is bumped by the last request.
    """

    chunk_triples: int = 1000
    ops_per_request: int = 50
    system_graph_prefixes: tuple[str, ...] = (
        "http://www.openlinksw.com/", "http://www.w3.org/ns/ldp#", "http://localuriqaserver/",
        "http://www.w3.org/2002/07/owl#", "http://localhost:8890/", "urn:activitystreams-owl:map",
        "urn:core:services:sparql", "virtrdf-label", "http://www.w3.org/ns/oa#",
    )

    def bind(self, query: str, bindings: Mapping[str, Term] | None) -> str:
        if not bindings:
            return query
        trailing = bind("", bindings).strip()  # validated names, pyoxigraph-serialised values
        at = _where_brace(query)
        if at < 0:
            return bind(query, bindings)
        return f"{query[:at + 1]} {trailing} {query[at + 1:]}"

    def replace_updates(self, graphs: Mapping[str, Sequence[ox.Quad]], meta: Meta,
                        shared: Sequence[ox.Quad] = ()) -> list[str]:
        ops = [f"CLEAR SILENT GRAPH {ox.NamedNode(g)}" for g in graphs]
        ops += self._inserts([(str(ox.NamedNode(g)), f"{q.triple} .") for g, quads in graphs.items()
                              for q in quads]
                             + [(str(q.graph_name), f"{q.triple} .") for q in shared])
        return self._requests([*ops, meta.bump()])

    def drop_updates(self, graph_iris: Iterable[str], meta: Meta) -> list[str]:
        ops = [f"CLEAR SILENT GRAPH {ox.NamedNode(g)}" for g in graph_iris]
        return self._requests([*ops, meta.bump()]) if ops else []

    def insert_updates(self, data: str) -> list[str]:
        items: list[tuple[str | None, str]] = []
        for line in data.splitlines():  # "s p o ." or "GRAPH <g> { s p o . }" (remote._as_insert_data)
            if line.startswith("GRAPH <"):
                g, _, rest = line[len("GRAPH "):].partition(" { ")
                items.append((g, rest.removesuffix(" }")))
            elif line.strip():
                items.append((None, line))
        return self._requests(self._inserts(items))

    def _requests(self, ops: Sequence[str]) -> list[str]:
        """Operations joined into requests of at most `ops_per_request` (a few thousand CLEARs in one
        request fail with "SQ200: Query too large, variables in state over the limit")."""
        n = self.ops_per_request
        return [" ;\n".join(ops[i:i + n]) for i in range(0, len(ops), n)]

    def _inserts(self, items: Sequence[tuple[str | None, str]]) -> list[str]:
        """INSERT DATA operations of at most `chunk_triples` (graph, triple) items, one GRAPH block per graph;
        triples with blank nodes (refused in INSERT DATA: "SP031 … not allowed in a constant clause") go
        together into one INSERT {…} WHERE {} so that each blank node stays one node."""
        plain = [it for it in items if "_:" not in it[1]]
        blank = [it for it in items if "_:" in it[1]]
        ops = [f"INSERT DATA {{\n{_blocks(plain[i:i + self.chunk_triples])}}}"
               for i in range(0, len(plain), self.chunk_triples)]
        if blank:
            ops.append(f"INSERT {{\n{_blocks(blank)}}} WHERE {{ }}")
        return ops

    def graph_filter(self, var: str) -> str:
        tests = " || ".join(f"STRSTARTS(STR(?{var}), {ox.Literal(p)})" for p in self.system_graph_prefixes)
        return f"FILTER(!({tests}))"

    def results(self, body: bytes) -> bytes:
        # blank nodes come as "nodeID://b10000", which is no valid blank node label
        return _NODE_ID.sub(rb"\1", body)

    def row(self, row: Row) -> Row:
        for k, v in row.items():
            if isinstance(v, ox.Literal) and v.datatype == _XSD_BOOLEAN and v.value in ("1", "0"):
                row[k] = _TRUE if v.value == "1" else _FALSE
        return row


def _blocks(items: Sequence[tuple[str | None, str]]) -> str:
    """Triples grouped into one `GRAPH <g> { … }` block per graph (Virtuoso refuses a GRAPH block per
    triple in an INSERT template: "SR002 string_output_string"); None is the default graph."""
    by_graph: dict[str | None, list[str]] = {}
    for g, triple in items:
        by_graph.setdefault(g, []).append(triple)
    return "".join(("\n".join(ts) + "\n") if g is None else f"GRAPH {g} {{\n" + "\n".join(ts) + "\n}\n"
                   for g, ts in by_graph.items())


def _where_brace(query: str) -> int:
    """Index of the `{` opening the outermost WHERE group (skipping IRIs, strings, comments), else -1."""
    i, n, seen_where, depth = 0, len(query), False, 0
    while i < n:
        c = query[i]
        if c == "#":
            i = query.find("\n", i)
            i = n if i < 0 else i
        elif c == "<" and i + 1 < n and not query[i + 1].isspace() and query[i + 1] not in "=<":
            end = query.find(">", i)
            i = n if end < 0 else end
        elif c in "\"'":
            triple = query.startswith(c * 3, i)
            quote = c * 3 if triple else c
            j = i + len(quote)
            while j < n and not query.startswith(quote, j):
                j += 2 if query[j] == "\\" else 1
            i = j + len(quote) - 1
        elif c == "{":
            if depth == 0 and (seen_where or _is_ask_or_select_star(query[:i])):
                return i
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth == 0 and query[i:i + 5].upper() == "WHERE" and not query[i - 1:i].isalnum():
            seen_where = True
        i += 1
    return -1


def _is_ask_or_select_star(head: str) -> bool:
    """`ASK {` and `SELECT … {` (WHERE keyword omitted) open their WHERE group with the first brace."""
    words = head.upper().split()
    return any(w in ("ASK", "SELECT") for w in words) and "CONSTRUCT" not in words


VirtuosoDefault = VirtuosoDialect("virtuoso", "", "", None)

DIALECTS: dict[str, Dialect] = {d.name: d for d in (OxigraphDialect, GenericDialect, VirtuosoDefault)}


def guess_dialect(location: str, server: str | None = None) -> Dialect:
    """$KG_STORE_DIALECT if set; Virtuoso when its `Server:` header says so; else Oxigraph for a bare
    `http://host:port` and generic for an explicit endpoint path (`/sparql`)."""
    from urllib.parse import urlsplit

    named = os.environ.get("KG_STORE_DIALECT", "").strip().lower()
    if named in DIALECTS:
        return DIALECTS[named]
    if server and server.lower().startswith("virtuoso"):
        return VirtuosoDefault
    return OxigraphDialect if urlsplit(location).path in ("", "/") else GenericDialect
