"""The build pipeline: input files → papers → extractions → paper graphs → store, in atomic batches.

Each batch of papers is written with one `replace_graphs` call, which the stores run as one transaction,
so a build interrupted at any moment leaves every paper either fully stored (with all its links) or absent.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TypeVar

from pyoxigraph import Literal, NamedNode, Quad

from kg.rdf.iris import Iris
from kg.rdf.mapping import GraphMapper
from kg.rdf.nquads import nquads_records
from kg.store import local_directory
from kg.store.types import Store
from kg.summary import BuildSummary
from kg.types import Extraction, Paper, ReadProblem
from kg.write import write_extractions, write_graphs

if TYPE_CHECKING:
    from distributed import Client

    from kg.extract import Extractor
    from kg.query.search import SearchIndex

# the batch write lives in kg.write (one write path), the summary in kg.summary; both kept here by name
__all__ = ["BuildSummary", "write_extractions"]

ProblemSink = Callable[[ReadProblem], None]
ProgressSink = Callable[[int], None]


def read_all(inputs: Sequence[str | Path], on_problem: ProblemSink) -> Iterator[Paper]:
    """Papers from every input in order, reporting bad records and keeping the good ones."""
    from kg.io import read_inputs

    for item in read_inputs(inputs):
        if isinstance(item, ReadProblem):
            on_problem(item)
        else:
            yield item


def unique_last(papers: Iterable[Paper]) -> list[Paper]:
    """One record per id, the last one read winning (a re-ingested paper replaces its old version)."""
    by_id: dict[str, Paper] = {}
    for p in papers:
        by_id.pop(p.id, None)
        by_id[p.id] = p
    return list(by_id.values())


T = TypeVar("T")


def _on_cluster(cluster: str | Client, run: Callable[[Client, Sequence[Paper], str], Iterator[T]],
                papers: Sequence[Paper], base_iri: str) -> Iterator[T]:
    """`run` over the papers on the cluster at `cluster` (an address, `local:N` or a client)."""
    from kg.cluster import connect

    with connect(cluster) as client:
        yield from run(client, papers, base_iri)


def _loaded(extractor: Extractor | None, base_iri: str) -> Extractor:
    """The extractor given, or one loaded for `base_iri`."""
    if extractor is not None:
        return extractor
    from kg.extract import Extractor

    return Extractor(base_iri)


def extractions(
    papers: Sequence[Paper],
    base_iri: str,
    workers: int = 1,
    *,
    cluster: str | Client | None = None,
    extractor: Extractor | None = None,
) -> Iterator[Extraction]:
    """Run the extractor over papers in input order, on `workers` local processes or, given `cluster`
    (`local:N` or a Dask scheduler address), on that cluster's workers (kg/cluster.py). An `extractor`
    already loaded (for `base_iri`) is used instead of loading one."""
    if cluster is not None:
        from kg.cluster import extract_on_cluster

        yield from _on_cluster(cluster, extract_on_cluster, papers, base_iri)
        return
    yield from _loaded(extractor, base_iri).extract(papers, n_process=max(1, workers))


def mapped_extractions(
    papers: Sequence[Paper],
    base_iri: str,
    workers: int = 1,
    *,
    cluster: str | Client | None = None,
    extractor: Extractor | None = None,
) -> Iterator[tuple[Extraction, str, int]]:
    """(extraction, N-Quads text, quad count) per paper in input order, mapped where it was extracted:
    in the worker processes or on the cluster's workers, so the parent only appends text."""
    if cluster is not None:
        from kg.cluster import shard_on_cluster

        yield from _on_cluster(cluster, shard_on_cluster, papers, base_iri)
        return
    extractor = _loaded(extractor, base_iri)
    if workers <= 1:
        for ex in extractor.extract(papers):
            yield from nquads_records([ex], base_iri)
        return
    from kg.extract.parallel import map_in_workers

    factory = functools.partial(type(extractor), base_iri, with_recogniser=extractor.with_recogniser)
    then = functools.partial(nquads_records, base_iri=base_iri)
    yield from map_in_workers(extractor, papers, workers, then, factory=factory)


def schema_fingerprint(base_iri: str) -> str:
    """A hash of the ontology and vocabulary sources as loaded for `base_iri`."""
    from kg.vocab import vocab_files
    from ontology import ONTOLOGY_FILE

    digest = hashlib.sha1(base_iri.encode())
    for path in [ONTOLOGY_FILE, *vocab_files(mined=False)]:  # what the store's schema graphs hold
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def schema_graphs(base_iri: str) -> dict[str, list[Quad]]:
    """The ontology and vocabulary graphs every store carries, stamped with their source fingerprint."""
    from kg.vocab import load_vocabulary

    iris = Iris(base_iri)
    graphs: dict[str, list[Quad]] = {}
    for q in load_vocabulary(base_iri, mined=False).quads(base_iri):
        if isinstance(q.graph_name, NamedNode):  # the vocabulary's quads are all in named graphs
            graphs.setdefault(q.graph_name.value, []).append(q)
    stamp = NamedNode(iris.ontology_graph)
    graphs.setdefault(iris.ontology_graph, []).append(
        Quad(stamp, NamedNode(iris.term("sourceHash")), Literal(schema_fingerprint(base_iri)), stamp)
    )
    return graphs


def ensure_schema(store: Store, base_iri: str) -> bool:
    """Write the ontology and vocabulary graphs unless the store already holds this exact version.

    Skipping unchanged schema keeps rebuilds byte-identical (the ontology has blank nodes) and keeps
    small incremental builds cheap.
    """
    iris = Iris(base_iri)
    stamp = NamedNode(iris.ontology_graph)
    current: dict[str, NamedNode | Literal] = {"g": stamp, "h": Literal(schema_fingerprint(base_iri))}
    if store.ask(f"ASK {{ GRAPH ?g {{ ?g <{iris.term('sourceHash')}> ?h }} }}", current):
        return False
    store.replace_graphs(schema_graphs(base_iri))
    return True


def build_into_store(
    store: Store,
    papers: Sequence[Paper],
    base_iri: str,
    *,
    workers: int = 1,
    batch_size: int = 200,
    progress: ProgressSink | None = None,
    summary: BuildSummary | None = None,
    cluster: str | Client | None = None,
    extractor: Extractor | None = None,
) -> BuildSummary:
    """Extract `papers` (locally or on `cluster`) and replace their graphs in `store`, one transaction
    per batch."""
    summary = summary or BuildSummary()
    started = time.perf_counter()
    mapper = GraphMapper(Iris(base_iri))
    ensure_schema(store, base_iri)
    index = local_search_index(store, mapper.iris)
    write_extractions(
        store,
        _ticking(extractions(papers, base_iri, workers, cluster=cluster, extractor=extractor), progress),
        mapper,
        batch_size=batch_size,
        progress=None,  # ticked per extracted paper (_ticking), not per written batch of 200
        summary=summary,
        index=index,
    )
    if index is not None:
        index.close()
    summary.seconds += time.perf_counter() - started
    return summary


def is_fresh(location: str) -> bool:
    """Whether `location` is a local store directory that is yet to be made (absent, or an empty
    directory): what `build_fresh` builds."""
    path = local_directory(location)
    return path is not None and (not os.path.exists(path) or (os.path.isdir(path) and not os.listdir(path)))


def build_fresh(
    location: str,
    papers: Sequence[Paper],
    base_iri: str,
    *,
    workers: int = 1,
    progress: ProgressSink | None = None,
    summary: BuildSummary | None = None,
    cluster: str | Client | None = None,
    extractor: Extractor | None = None,
) -> BuildSummary:
    """Build a new store at `location` (absent or an empty directory): made beside it in
    `<location>.building`, renamed into place when complete, so an interrupted build leaves no store.

    Its content equals `build_into_store` into an empty store (tested), made more cheaply: the workers map
    each paper to N-Quads, the parent spools them with the schema graphs, the entity descriptions (once,
    none the schema holds) and the aggregates tallied from the papers to a file beside the store, filling the
    full-text index as it goes, bulk-loads the file once and closes the store (kg.write).
    """
    from kg.query.search import SearchIndex
    from kg.store.embedded import EmbeddedStore
    from kg.write import write_new_store

    summary = summary or BuildSummary()
    started = time.perf_counter()
    final = Path(local_directory(location) or location).resolve()
    tmp = final.with_name(final.name + ".building")
    _remove(tmp)  # what an earlier killed build left
    iris = Iris(base_iri)
    store = EmbeddedStore(str(tmp), base_iri=base_iri)
    index = SearchIndex(str(_index_of(tmp)), iris)
    try:

        def tick(ex: Extraction, quads: int) -> None:
            summary.add(ex, quads)
            if progress:
                progress(1)

        records = mapped_extractions(unique_last(papers), base_iri, workers, cluster=cluster,
                                     extractor=extractor)
        write_new_store(store, iris, records, tick, spool=_spool_of(tmp), schema=schema_graphs(base_iri),
                        index=index)
        store.close()  # right after the load: no background compaction of the fresh files
        index.close()
    except BaseException:  # a failed or interrupted build leaves nothing behind
        store.close()
        index.close()
        _remove(tmp)
        raise
    if final.is_dir():
        final.rmdir()  # empty (is_fresh): the finished store takes its place
    _index_of(tmp).replace(_index_of(final))
    tmp.rename(final)  # the commit point: before it, no store at `location`
    summary.seconds += time.perf_counter() - started
    return summary


def _remove(store_dir: Path) -> None:
    """Delete a store directory and the index file beside it, if present."""
    shutil.rmtree(store_dir, ignore_errors=True)
    _spool_of(store_dir).unlink(missing_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(str(_index_of(store_dir)) + suffix).unlink(missing_ok=True)


def _spool_of(store_dir: Path) -> Path:
    """The N-Quads file a fresh build collects before its one bulk load (deleted after it)."""
    return store_dir.with_name(store_dir.name + ".nq")


def _index_of(store_dir: Path) -> Path:
    """The full-text index file beside a store directory (as `SearchIndex.for_store` names it)."""
    return store_dir.with_name(store_dir.name + ".search.sqlite")


def _ticking(items: Iterable[Extraction], progress: ProgressSink | None) -> Iterator[Extraction]:
    """`items`, calling `progress(1)` as each arrives: `kg build`'s progress moves per paper."""
    for item in items:
        yield item
        if progress:
            progress(1)


def local_search_index(store: Store, iris: Iris) -> SearchIndex | None:
    """The full-text index file beside a local store directory (kept up to date by builds), else None."""
    from kg.query.search import SearchIndex

    index = SearchIndex.for_store(store, iris)
    if index.path == ":memory:":
        index.close()
        return None
    return index


def load_shards(store: Store, paths: Sequence[str | Path], base_iri: str, *, batch_size: int = 500) -> int:
    """Load N-Quads shards from `kg build --out` through the one write path: each paper graph replaces its
    older version, in batches of whole papers (one transaction each), the full-text index beside a local
    store kept in step; returns the number of paper graphs loaded."""
    import pyoxigraph as ox

    iris = Iris(base_iri)
    paper_prefix = iris.base + "graph/paper/"
    ensure_schema(store, base_iri)
    index = local_search_index(store, iris)
    loaded = 0
    for path in paths:
        graphs: dict[str, list[Quad]] = {}
        shared: list[Quad] = []
        for q in ox.parse(path=str(path), format=ox.RdfFormat.N_QUADS):
            g = q.graph_name
            if isinstance(g, ox.NamedNode) and g.value.startswith(paper_prefix):
                graphs.setdefault(g.value, []).append(q)
            elif isinstance(g, ox.NamedNode):
                shared.append(q)
            else:
                raise ValueError(f"{path}: a quad outside any named graph; shards hold paper graphs only")
        names = list(graphs)
        for i in range(0, max(len(names), 1), batch_size):
            part = {g: graphs[g] for g in names[i : i + batch_size]}
            write_graphs(store, iris, part, shared if i == 0 else (), index=index)
        loaded += len(names)
    if index is not None:
        index.close()
    return loaded


def write_shard(
    out: BinaryIO,
    papers: Sequence[Paper],
    base_iri: str,
    *,
    workers: int = 1,
    progress: ProgressSink | None = None,
    summary: BuildSummary | None = None,
    cluster: str | Client | None = None,
) -> BuildSummary:
    """Write papers' graphs as N-Quads without a store, for `kg load` elsewhere (one graph per paper);
    the workers (local or on a `cluster`) map and serialise too, and the parent only appends their text."""
    summary = summary or BuildSummary()
    started = time.perf_counter()
    for ex, text, n in mapped_extractions(papers, base_iri, workers, cluster=cluster):
        out.write(text.encode("utf-8"))
        summary.add(ex, n)
        if progress:
            progress(1)
    summary.seconds += time.perf_counter() - started
    return summary
