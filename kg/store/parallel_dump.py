"""Export of an on-disk store by several processes: reading a RocksDB store costs ~15 µs a quad (every term
is a lookup), one core serialises ~50k quads a second, so `kg export` splits the paper graphs among worker
processes that open the directory read-only, and concatenates their outputs.

Only formats whose documents concatenate into one are split: N-Triples and N-Quads (lines), Turtle and
TriG (each part repeats the same @prefix lines, which the grammar allows; blank nodes occur only in the
schema graphs, written by one part). The union of a triple format is a set: triples about a paper live
in that paper's graph alone, so only the others (entity descriptions, entity–entity links several
papers state, the schema) are de-duplicated, in the parent, as `union_triples` does in one process.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

import pyoxigraph as ox

from kg.rdf.iris import Iris
from kg.store.formats import prefixes, rdf_format

SPLITTABLE = ("turtle", "nt", "nquads", "trig")


def can_split(fmt: str) -> bool:
    key = rdf_format(fmt)
    return any(rdf_format(name) == key for name in SPLITTABLE)


def dump_in_parts(directory: str, store: ox.Store, out: BinaryIO, fmt: str, base_iri: str,
                  graphs: Sequence[ox.NamedNode], workers: int) -> None:
    """Serialise these data `graphs` of the store in `directory` (open as `store` here) to `out`: the paper
    graphs by `workers` processes, in order, then the other graphs (de-duplicated for a triple format)."""
    iris = Iris(base_iri)
    papers, paper_graph = iris.paper(""), iris.paper_graph("")
    paper_graphs = [g.value for g in graphs if g.value.startswith(paper_graph)]
    others = [g for g in graphs if not g.value.startswith(paper_graph)]
    size = -(-len(paper_graphs) // workers) if paper_graphs else 1
    parts = [paper_graphs[i:i + size] for i in range(0, len(paper_graphs), size)]
    spawn = multiprocessing.get_context("spawn")  # never fork a process holding RocksDB handles
    with tempfile.TemporaryDirectory(prefix=".kg-export-", dir=Path(directory).resolve().parent) as tmp, \
            concurrent.futures.ProcessPoolExecutor(max_workers=len(parts) or 1, mp_context=spawn) as pool:
        files = [str(Path(tmp) / f"part{i}") for i in range(len(parts))]
        futures = [pool.submit(dump_part, directory, part, fmt, base_iri, papers, path)
                   for part, path in zip(parts, files, strict=True)]
        stray: list[str] = []
        for future, path in zip(futures, files, strict=True):
            stray += future.result()
            with open(path, "rb") as fh:
                shutil.copyfileobj(fh, out, 1 << 20)
        rdf, pfx = rdf_format(fmt), prefixes(base_iri)
        if rdf.supports_datasets:
            ox.serialize(_rest_quads(store, others), out, rdf, prefixes=pfx)
        else:
            ox.serialize(_rest_triples(store, others, stray), out, rdf, prefixes=pfx)


def dump_part(directory: str, graphs: Sequence[str], fmt: str, base_iri: str, papers: str,
              path: str) -> list[str]:
    """In a worker: these paper graphs serialised to `path`; for a triple format, the triples about
    anything but a paper are returned (N-Triples) for the parent to de-duplicate instead."""
    store = ox.Store.read_only(directory)
    rdf = rdf_format(fmt)
    stray: list[str] = []

    def quads() -> Iterator[ox.Quad]:
        for g in graphs:
            yield from store.quads_for_pattern(None, None, None, ox.NamedNode(g))

    def triples() -> Iterator[ox.Triple]:
        for q in quads():
            if isinstance(q.subject, ox.NamedNode) and q.subject.value.startswith(papers):
                yield q.triple
            else:
                stray.append(f"{q.triple} .\n")

    with open(path, "wb") as out:
        ox.serialize(quads() if rdf.supports_datasets else triples(), out, rdf, prefixes=prefixes(base_iri))
    return stray


def _rest_quads(store: ox.Store, graphs: Sequence[ox.NamedNode]) -> Iterator[ox.Quad]:
    """The non-paper graphs and the default graph, quad by quad."""
    for g in graphs:
        yield from store.quads_for_pattern(None, None, None, g)
    yield from store.quads_for_pattern(None, None, None, ox.DefaultGraph())


def _rest_triples(store: ox.Store, graphs: Sequence[ox.NamedNode],
                  stray: Sequence[str]) -> Iterator[ox.Triple]:
    """The non-paper graphs' triples and the workers' stray ones, each once."""
    seen: set[ox.Triple] = set()
    for g in graphs:
        for q in store.quads_for_pattern(None, None, None, g):
            if q.triple not in seen:
                seen.add(q.triple)
                yield q.triple
    for q in ox.parse("".join(stray), ox.RdfFormat.N_TRIPLES) if stray else ():
        if q.triple not in seen:
            seen.add(q.triple)
            yield q.triple
