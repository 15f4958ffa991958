"""Embedded store: a pyoxigraph Store in a directory (RocksDB), or in memory when no path is given."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import BinaryIO

import pyoxigraph as ox

from kg.settings import DEFAULT_BASE_IRI
from kg.store.formats import prefixes, rdf_format
from kg.store.limits import collect
from kg.store.parallel_dump import can_split, dump_in_parts
from kg.store.sparql import bind
from kg.store.types import BadQuery, Row, StoreError, Term
from kg.store.version import check_format
from kg.store.writes import Meta, drop_update, replace_update

COMPACT_AFTER = 8_000_000  # bytes of update text written since opening
_LOCK_HINT = ("is locked by another process (a running `kg serve`/`oxigraph serve`?); stop it to write"
              " (commands that only read, such as `kg stats`, work meanwhile)")


class EmbeddedStore:
    """Oxigraph on local disk; every write is one Oxigraph transaction that also bumps the generation."""

    in_process = True  # capability flags: see kg.store.types.Store

    def __init__(self, path: str | None = None, *, base_iri: str = DEFAULT_BASE_IRI,
                 read_only: bool = False, create: bool = True, upgrade: bool = False) -> None:
        self.location = path or "memory:"
        self.directory: str | None = path or None
        self.read_only = read_only
        self._meta = Meta(base_iri)
        self._base_iri = base_iri
        self._store = _open(path, read_only=read_only, create=create)
        self._written = 0  # bytes of update text since opening: a big write is compacted on close
        try:  # `upgrade` only for `kg migrate`: an older layout opens, a newer one never does
            self.format_version = check_format(self, self._meta, self._update, read_only=read_only,
                                               upgrade=upgrade)
        except StoreError:
            self._store = ox.Store()  # drop the directory (and its lock) now, even if the error is kept
            raise

    @property
    def oxigraph(self) -> ox.Store:
        """The pyoxigraph Store underneath, for hot paths."""
        return self._store

    # --- reads --------------------------------------------------------------------------------
    def _query(self, query: str, bindings: Mapping[str, Term] | None) -> object:
        try:
            return self._store.query(bind(query, bindings), use_default_graph_as_union=True)
        except SyntaxError as exc:
            raise BadQuery(f"bad SPARQL: {_one_line(exc)}") from None
        except OSError as exc:
            raise StoreError(f"query failed on {self.location}: {_one_line(exc)}") from None

    def select(self, query: str, bindings: Mapping[str, Term] | None = None,
               timeout_s: float | None = None, max_rows: int | None = None) -> list[Row]:
        def start() -> Iterator[ox.QuerySolution]:
            res = self._query(query, bindings)
            if not isinstance(res, ox.QuerySolutions):
                raise BadQuery("not a SELECT query")
            names.extend(v.value for v in res.variables)
            return iter(res)

        def convert(sol: ox.QuerySolution) -> Row:
            return {n: v for n in names if (v := sol[n]) is not None}

        names: list[str] = []
        return collect(start, convert, timeout_s=timeout_s, max_rows=max_rows)

    def ask(self, query: str, bindings: Mapping[str, Term] | None = None) -> bool:
        res = self._query(query, bindings)
        if not isinstance(res, ox.QueryBoolean):
            raise BadQuery("not an ASK query")
        return bool(res)

    def construct(self, query: str, bindings: Mapping[str, Term] | None = None) -> list[ox.Triple]:
        res = self._query(query, bindings)
        if not isinstance(res, ox.QueryTriples):
            raise BadQuery("not a CONSTRUCT or DESCRIBE query")
        return list(res)

    def named_graphs(self) -> list[str]:
        return sorted(g.value for g in self._store.named_graphs()
                      if isinstance(g, ox.NamedNode) and not is_meta_graph(g, self._meta))

    def triple_count(self) -> int:
        """Quads of the data graphs: a scan of the whole store (`kg stats` reads the stored count instead)."""
        meta = sum(1 for q in self._store if is_meta_graph(q.graph_name, self._meta))
        return len(self._store) - meta

    def generation(self) -> str:
        m = self._meta
        for q in self._store.quads_for_pattern(m.graph, m.predicate, None, m.graph):
            return str(getattr(q.object, "value", q.object))
        return "0"

    # --- writes -------------------------------------------------------------------------------
    def _update(self, text: str) -> None:
        if self.read_only:
            raise StoreError(f"store {self.location} is open read-only")
        try:
            self._store.update(text)
        except OSError as exc:
            raise _write_error(self.location, exc) from None
        self._written += len(text)

    def replace_graphs(self, graphs: Mapping[str, Sequence[ox.Quad]], shared: Sequence[ox.Quad] = ()) -> None:
        if graphs or shared:
            self._update(replace_update(graphs, self._meta, shared))

    def drop_graphs(self, graph_iris: Iterable[str]) -> None:
        text = drop_update(graph_iris, self._meta)
        if text:
            self._update(text)

    def set_format_version(self, version: int) -> None:
        """Stamp the layout version (kg migrate's last step), bumping the generation in the same write."""
        self._update(self._meta.stamp(version) + " ;\n" + self._meta.bump())
        self.format_version = version

    def load(self, path: str, fmt: str = "nquads", *, graph: str | None = None, bulk: bool = False) -> None:
        """Load a file in one transaction (all or nothing), then bump the generation.

        `bulk=True` uses pyoxigraph's bulk loader: about 3x faster for big Turtle on disk, but not
        transactional (a failure leaves part of the file) — only for fresh stores you can rebuild.
        Triple formats go to `graph` (default: the default graph, which queries also read).
        """
        if self.read_only:
            raise StoreError(f"store {self.location} is open read-only")
        to_graph = ox.NamedNode(graph) if graph else None
        try:
            if bulk:
                self._store.bulk_load(path=path, format=rdf_format(fmt), to_graph=to_graph)
            else:
                self._store.load(path=path, format=rdf_format(fmt), to_graph=to_graph)
        except SyntaxError as exc:
            raise StoreError(f"cannot load {path}: {_one_line(exc)}") from None
        except OSError as exc:
            raise _write_error(self.location, exc, path) from None
        self._written += os.path.getsize(path) if os.path.exists(path) else 0
        self._update(self._meta.bump())

    # --- export -------------------------------------------------------------------------------
    def dump(self, out: BinaryIO, fmt: str, graph: str | None = None, *, workers: int = 1) -> None:
        """Native Oxigraph serialisation; triple formats get one graph or the de-duplicated union. With
        `workers` > 1, an on-disk store's whole dataset in a format that concatenates (turtle, nt, nquads,
        trig) is written by that many processes (kg.store.parallel_dump)."""
        if workers > 1 and graph is None and self.directory is not None and can_split(fmt):
            graphs = [g for g in self._store.named_graphs()
                      if isinstance(g, ox.NamedNode) and not is_meta_graph(g, self._meta)]
            if not self.read_only:
                self._store.flush()  # the workers read what is on disk
            dump_in_parts(self.directory, self._store, out, fmt, self._base_iri, graphs, workers)
            return
        dump_dataset(self._store, out, fmt, graph, self._meta, self._base_iri)

    def compact(self) -> None:
        """Flush the write buffers and let Oxigraph optimize (after a big write; close() calls it). Oxigraph
        0.5's optimize() does not merge files: a fresh build loads everything in one bulk load instead."""
        if self.read_only:
            return
        try:
            self._store.flush()
            self._store.optimize()
        except OSError as exc:
            raise _write_error(self.location, exc) from None
        self._written = 0

    def close(self) -> None:
        """Flush; after writes of more than COMPACT_AFTER bytes (a build, not an addPapers), compact too,
        and open the directory once more: RocksDB deletes the write-ahead logs it no longer needs on open."""
        if not self.read_only:
            if self._written > COMPACT_AFTER and self.location != "memory:":
                self.compact()
                self._store = ox.Store()  # closes the directory (and releases its lock)
                with contextlib.suppress(OSError):
                    ox.Store(self.location).flush()  # reopened and closed at once: obsolete logs go
            else:
                self._store.flush()
        if self.location != "memory:":
            # release the directory now, not when the last reference (a cache, a view) goes away: another
            # process may open it next
            self._store = ox.Store()


def dump_dataset(store: ox.Store, out: BinaryIO, fmt: str, graph: str | None, meta: Meta,
                 base_iri: str) -> None:
    """Serialise `store` without its meta graph: the dataset, one graph, or the union of the graphs."""
    rdf, pfx = rdf_format(fmt), prefixes(base_iri)
    if graph is not None:
        store.dump(out, rdf, from_graph=ox.NamedNode(graph), prefixes=pfx)
    elif rdf.supports_datasets:  # filtered in Python: measured within 5% of Store.dump (600k quads)
        quads = store.quads_for_pattern(None, None, None, None)
        ox.serialize((q for q in quads if not is_meta_graph(q.graph_name, meta)), out, rdf, prefixes=pfx)
    else:
        ox.serialize(union_triples(store, meta, base_iri), out, rdf, prefixes=pfx)


def union_triples(store: ox.Store, meta: Meta, base_iri: str) -> Iterator[ox.Triple]:
    """The union of the data graphs as a set of triples, streamed: a triple about a paper or its link
    nodes (subject under `{base}paper/`) lives in that paper's graph alone, so only the others (entity
    descriptions, entity–entity links several papers state, the schema) are de-duplicated in memory.
    As fast as a SELECT DISTINCT over the union (0.9-1.1x on 600 papers: the serialiser dominates) but
    holding only the non-paper triples in memory."""
    papers = (base_iri if base_iri.endswith(("/", "#")) else base_iri + "/") + "paper/"
    seen: set[ox.Triple] = set()
    for q in store.quads_for_pattern(None, None, None, None):
        if is_meta_graph(q.graph_name, meta):
            continue
        t = q.triple
        if not (isinstance(q.subject, ox.NamedNode) and q.subject.value.startswith(papers)):
            if t in seen:
                continue
            seen.add(t)
        yield t


def is_meta_graph(graph: object, meta: Meta) -> bool:
    """The meta graph and the aggregate graphs under it (`{base}graph/meta/...`, kg.query.counts): ours,
    not the user's data, so left out of exports, graph lists and triple counts."""
    return isinstance(graph, ox.NamedNode) and (graph == meta.graph or graph.value.startswith(meta.iri + "/"))


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]


def _write_error(location: str, exc: OSError, path: str | None = None) -> StoreError:
    text = str(exc)
    if exc.errno == errno.ENOSPC or "No space left" in text:
        return StoreError(f"disk full writing to {location}: free space and retry")
    if path is not None and isinstance(exc, FileNotFoundError):
        return StoreError(f"cannot load {path}: no such file")
    return StoreError(f"write to {location} failed: {_one_line(exc)}")


def _open(path: str | None, *, read_only: bool, create: bool) -> ox.Store:
    """Open (or create) the RocksDB directory, turning OSErrors into one-line StoreErrors."""
    if path is None:
        return ox.Store()
    is_store = os.path.isfile(os.path.join(path, "CURRENT"))
    if os.path.exists(path) and not os.path.isdir(path):
        raise StoreError(f"{path} is a file, not a store directory")
    if os.path.isdir(path) and os.listdir(path) and not is_store:
        raise StoreError(f"{path} is not an Oxigraph store (a non-empty directory without RocksDB files)")
    if not is_store and (read_only or not create):
        raise StoreError(f"no store at {path}" + ("" if read_only else " (and create=False)"))
    try:
        return ox.Store.read_only(path) if read_only else ox.Store(path)
    except OSError as exc:
        text = str(exc)
        if "LOCK" in text or "lock" in text:
            raise StoreError(f"store {path} {_LOCK_HINT}") from None
        if isinstance(exc, PermissionError) or "Permission denied" in text:
            raise StoreError(f"permission denied opening store {path}") from None
        if exc.errno == errno.ENOSPC or "No space left" in text:
            raise StoreError(f"disk full opening store {path}") from None
        raise StoreError(f"cannot open store {path}: {_one_line(exc)}") from None
