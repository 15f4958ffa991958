"""The contract every store backend honours (embedded Oxigraph directory, remote SPARQL endpoint, memory).

Terms crossing this boundary are pyoxigraph terms (NamedNode, Literal, BlankNode, Quad), whatever the
backend. Queries read the union of all named graphs as their default graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import BinaryIO, Protocol

from pyoxigraph import BlankNode, Literal, NamedNode, Quad, Triple

Term = NamedNode | Literal | BlankNode
Row = dict[str, Term]


class StoreError(Exception):
    """A store could not be opened, read or written; the message is one line for the user."""


class QueryTimeout(StoreError):
    """A query ran past its time budget."""


class BadQuery(StoreError):
    """The endpoint rejected the query or update text (syntax or evaluation error)."""


class TooManyRows(StoreError):
    """A SELECT produced more rows than the caller's `max_rows` cap."""


FORMATS = ("turtle", "nt", "nquads", "trig", "jsonld", "xml")


class Store(Protocol):
    """An RDF dataset with named graphs, read with SPARQL, written a paper graph at a time."""

    location: str
    format_version: int  # the layout version read (or stamped) on open; see kg.store.version

    # Capability flags (as rdflib's Store.context_aware, transaction_aware): callers check these, never the
    # concrete class, so a new backend says what it can do in two lines.
    in_process: bool
    """Queries run in this process: a cheap call (generation(), ~15 µs) may run on the event loop, and the
    request-wide time budget bounds a query better than a per-query timeout (which costs a thread)."""
    directory: str | None
    """The local directory holding the data, which other processes may open read-only (killable SPARQL
    worker processes, a search index kept beside it); None in memory or over the network."""

    def select(self, query: str, bindings: Mapping[str, Term] | None = None,
               timeout_s: float | None = None, max_rows: int | None = None) -> list[Row]:
        """Run a SELECT; `bindings` are values for variables (never pasted into the text).

        Raises QueryTimeout past `timeout_s` and TooManyRows past `max_rows` (add a LIMIT to page)."""
        ...

    def ask(self, query: str, bindings: Mapping[str, Term] | None = None) -> bool: ...

    def construct(self, query: str, bindings: Mapping[str, Term] | None = None) -> list[Triple]: ...

    def replace_graphs(self, graphs: Mapping[str, Sequence[Quad]], shared: Sequence[Quad] = ()) -> None:
        """Atomically empty each named graph and insert its new quads, and add `shared` quads to their own
        (never emptied) graphs: all of it lands or none does."""
        ...

    def drop_graphs(self, graph_iris: Iterable[str]) -> None:
        """Atomically remove whole named graphs."""
        ...

    def set_format_version(self, version: int) -> None:
        """Stamp the store's layout version (only `kg migrate` calls this, after its last paper)."""
        ...

    def named_graphs(self) -> list[str]:
        """Sorted IRIs of the data graphs (the internal {base}graph/meta graph is left out)."""
        ...

    def triple_count(self) -> int:
        """Number of quads in the data graphs (an entity repeated in two paper graphs counts twice)."""
        ...

    def dump(self, out: BinaryIO, fmt: str, graph: str | None = None, *, workers: int = 1) -> None:
        """Serialise the dataset (or one graph) in one of: turtle, nt, nquads, trig, jsonld, xml; `workers`
        processes where the backend can split the work (an on-disk store), else one."""
        ...

    def load(self, path: str, fmt: str = "nquads") -> None:
        """Load a file (N-Quads shards from `kg build --out`) in one transaction: all of it or nothing."""
        ...

    def generation(self) -> str:
        """A token that changes whenever the data changes (for cache invalidation across processes)."""
        ...

    def close(self) -> None: ...
