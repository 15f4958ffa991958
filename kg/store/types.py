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


class Store(Protocol):
    """An RDF dataset with named graphs, read with SPARQL, written a paper graph at a time."""

    location: str

    def select(self, query: str, bindings: Mapping[str, Term] | None = None,
               timeout_s: float | None = None) -> list[Row]:
        """Run a SELECT; `bindings` are values for variables (never pasted into the text)."""
        ...

    def ask(self, query: str, bindings: Mapping[str, Term] | None = None) -> bool: ...

    def construct(self, query: str, bindings: Mapping[str, Term] | None = None) -> list[Triple]: ...

    def replace_graphs(self, graphs: Mapping[str, Sequence[Quad]]) -> None:
        """Atomically drop each named graph and insert its new quads: all of them land or none does."""
        ...

    def drop_graphs(self, graph_iris: Iterable[str]) -> None:
        """Atomically remove whole named graphs."""
        ...

    def named_graphs(self) -> list[str]: ...

    def triple_count(self) -> int: ...

    def dump(self, out: BinaryIO, fmt: str, graph: str | None = None) -> None:
        """Serialise the dataset (or one graph) in one of: turtle, nt, nquads, trig, jsonld, xml."""
        ...

    def load(self, path: str, fmt: str = "nquads") -> None:
        """Bulk-load a file (N-Quads shards from `kg build --out`)."""
        ...

    def generation(self) -> str:
        """A token that changes whenever the data changes (for cache invalidation across processes)."""
        ...

    def close(self) -> None: ...
