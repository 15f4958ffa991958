"""Embedded store: a pyoxigraph Store in a directory (RocksDB), or in memory when no path is given."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import BinaryIO

import pyoxigraph as ox

from kg.store.sparql import bind
from kg.store.types import Row, StoreError, Term


class EmbeddedStore:
    """Oxigraph on local disk; every write is one Oxigraph transaction."""

    def __init__(self, path: str | None = None) -> None:
        self.location = path or ":memory:"
        try:
            self._store = ox.Store(path) if path else ox.Store()
        except OSError as exc:
            raise StoreError(f"cannot open store {path}: {exc}") from None

    @property
    def oxigraph(self) -> ox.Store:
        """The pyoxigraph Store underneath, for hot paths."""
        return self._store

    def select(self, query: str, bindings: Mapping[str, Term] | None = None,
               timeout_s: float | None = None) -> list[Row]:
        res = self._store.query(bind(query, bindings), use_default_graph_as_union=True)
        assert isinstance(res, ox.QuerySolutions)
        names = [v.value for v in res.variables]
        out: list[Row] = []
        for sol in res:
            row: Row = {}
            for n in names:
                val = sol[n]
                if val is not None:
                    row[n] = val  # type: ignore[assignment]
            out.append(row)
        return out

    def ask(self, query: str, bindings: Mapping[str, Term] | None = None) -> bool:
        return bool(self._store.query(bind(query, bindings), use_default_graph_as_union=True))

    def construct(self, query: str, bindings: Mapping[str, Term] | None = None) -> list[ox.Triple]:
        return list(self._store.query(bind(query, bindings), use_default_graph_as_union=True))  # type: ignore[arg-type]

    def replace_graphs(self, graphs: Mapping[str, Sequence[ox.Quad]]) -> None:
        if not graphs:
            return
        drops = " ".join(f"DROP SILENT GRAPH <{g}> ;" for g in graphs)
        body = " ".join(str(q) + " ." for quads in graphs.values() for q in quads)
        self._store.update(f"{drops} INSERT DATA {{ {_as_graph_blocks(graphs)} }}" if body else drops.rstrip(" ;"))

    def drop_graphs(self, graph_iris: Iterable[str]) -> None:
        drops = " ; ".join(f"DROP SILENT GRAPH <{g}>" for g in graph_iris)
        if drops:
            self._store.update(drops)

    def named_graphs(self) -> list[str]:
        return sorted(g.value for g in self._store.named_graphs() if isinstance(g, ox.NamedNode))

    def triple_count(self) -> int:
        return len(self._store)

    def dump(self, out: BinaryIO, fmt: str, graph: str | None = None) -> None:
        raise NotImplementedError

    def load(self, path: str, fmt: str = "nquads") -> None:
        raise NotImplementedError

    def generation(self) -> str:
        return str(len(self._store))

    def close(self) -> None:
        self._store.flush()


def _as_graph_blocks(graphs: Mapping[str, Sequence[ox.Quad]]) -> str:
    parts = []
    for g, quads in graphs.items():
        triples = " ".join(f"{q.subject} {q.predicate} {q.object} ." for q in quads)
        parts.append(f"GRAPH <{g}> {{ {triples} }}")
    return " ".join(parts)
