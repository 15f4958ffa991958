"""Store size per paper: disk and quads after a build, and what the quads are, on real corpus abstracts.

    nice -n 10 .venv/bin/python bench/lean_store.py [--papers 3000] [--label now] [--synthetic]

Extracts `--papers` recent corpus abstracts (2024-25 files of ../shared/data/corpus, file order; the
extractions are cached under $KG_BENCH_DIR so layouts can be compared on identical extractions), writes
them into a fresh store as `kg build` does (schema graphs, then batches of 200 through kg.write), closes it
(flush and compaction), then reports disk KB and quads per paper, quads per graph kind and per predicate
in the paper graphs, and the Turtle export time. `--synthetic` uses bench/synth.py papers instead (no
spaCy; for 100k). Results are added to bench/results/lean_store.json under `--label`.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import pickle
import shutil
import sys
import time
from collections import Counter
from collections.abc import Iterable
from itertools import islice
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from kg.settings import DEFAULT_BASE_IRI as BASE  # noqa: E402

WORK = Path(os.environ.get("KG_BENCH_DIR", "/tmp/paperkg-bench"))
CORPUS = ROOT.parent / "shared" / "data" / "corpus"


def du_kb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1024


def extractions(n: int, synthetic: bool) -> list[Any]:
    cache = WORK / f"lean-{'synth' if synthetic else 'corpus'}-{n}.pkl.gz"
    if cache.exists():
        with gzip.open(cache, "rb") as f:
            return pickle.load(f)  # type: ignore[no-any-return]
    if synthetic:
        from synth import synth_extractions  # type: ignore[import-not-found]

        exs = list(synth_extractions(n, 7))
    else:
        from kg.build import extractions as run
        from kg.io import read_papers  # type: ignore[attr-defined]
        from kg.types import Paper

        papers: list[Paper] = []
        for f in sorted(CORPUS.glob("*202[45].jsonl.gz")):
            papers += [p for p in read_papers(str(f)) if isinstance(p, Paper)]
            if len(papers) >= n:
                break
        exs = list(run(papers[:n], BASE, workers=int(os.environ.get("KG_WORKERS", "1"))))
    WORK.mkdir(parents=True, exist_ok=True)
    with gzip.open(cache, "wb") as f:
        pickle.dump(exs, f)
    return exs


def part_of(q: Any, graph: str) -> str:
    """Which part of the layout a quad belongs to: paper metadata, authors, plain links, link-node triples,
    reported results, entity descriptions, aggregates (meta graphs) or the schema graphs."""
    if not graph.startswith(BASE + "graph/paper/"):
        name = graph.removeprefix(BASE + "graph/").split("/")[0]
        return {"entities": "entity descriptions", "meta": "meta/aggregates"}.get(name, f"schema ({name})")
    s = getattr(q.subject, "value", "")
    if "/link/" in s:
        return "link-node triples"
    if "/result/" in s:
        return "results"
    if s.endswith("/authors") or q.predicate.value.endswith("authorList"):
        return "authors"
    if s.startswith(BASE + "paper/") and q.predicate.value.startswith(BASE + "ontology#") and \
            q.predicate.value.rpartition("#")[2] not in ("venue", "doi", "hasCode", "extractorVersion"):
        return "plain links"
    return "paper metadata"


class _Counted(io.RawIOBase):
    """A binary sink that keeps only the number of bytes written (a 1M-paper export is gigabytes)."""

    size = 0

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        self.size += len(b)
        return len(b)


def measure(exs: Iterable[Any], n: int, label: str, export: bool, fresh: bool = False,
            keep: Path | None = None, export_workers: int = 1) -> dict[str, Any]:
    """`fresh`: the way `kg build` writes a new store (`kg.write.write_new_store`: mapped N-Quads bulk-loaded,
    aggregates and index made once, compacted); else batches of 200 through `write_extractions`, as a build
    into an existing store or `kg load` writes. `keep`: move the store (and its index) there afterwards,
    for the query benchmarks, instead of deleting it."""
    import pyoxigraph as ox

    from kg.build import ensure_schema, schema_graphs, write_extractions
    from kg.query.search import SearchIndex
    from kg.rdf.iris import Iris
    from kg.rdf.mapping import GraphMapper
    from kg.rdf.nquads import nquads_records
    from kg.store.embedded import EmbeddedStore
    from kg.write import write_new_store

    path = WORK / f"lean-store-{label}"
    shutil.rmtree(path, ignore_errors=True)
    path.with_name(path.name + ".search.sqlite").unlink(missing_ok=True)
    store = EmbeddedStore(str(path), base_iri=BASE)
    t0 = time.perf_counter()
    if fresh:
        stream = iter(exs)  # mapped 256 at a time, as the build's workers do
        batches = iter(lambda: list(islice(stream, 256)), [])
        records = (r for batch in batches for r in nquads_records(batch, BASE))
        index = SearchIndex(str(path.with_name(path.name + ".search.sqlite")), Iris(BASE))
        write_new_store(store, Iris(BASE), records, lambda ex, quads: None,
                        spool=path.with_name(path.name + ".nq"), schema=schema_graphs(BASE), index=index)
        index.close()
    else:
        ensure_schema(store, BASE)
        write_extractions(store, list(exs), GraphMapper(Iris(BASE)), batch_size=200)
    write_s = time.perf_counter() - t0
    disk_open = du_kb(path)
    store.close()
    del store
    raw = ox.Store.read_only(str(path))
    kinds: Counter[str] = Counter()
    preds: Counter[str] = Counter()
    parts: Counter[str] = Counter()
    for q in raw:
        g = getattr(q.graph_name, "value", "")
        kind = g.removeprefix(BASE).split("/")[0:2]
        kinds["/".join(kind) if kind[:1] == ["graph"] else "default"] += 1
        parts[part_of(q, g)] += 1
        if g.startswith(BASE + "graph/paper/"):
            preds[q.predicate.value.rpartition("/")[2].rpartition("#")[2]] += 1
    del raw
    res: dict[str, Any] = {
        "papers": n, "write_s": write_s, "disk_kb_before_close": disk_open,
        "disk_kb": du_kb(path), "disk_kb_per_paper": du_kb(path) / n,
        "quads": sum(kinds.values()), "quads_per_paper": sum(kinds.values()) / n,
        "data_quads_per_paper": sum(v for k, v in kinds.items() if k != "graph/meta") / n,
        "paper_graph_quads_per_paper": kinds["graph/paper"] / n,
        "per_paper_by_part": {k: round(v / n, 2) for k, v in parts.most_common()},
        "by_graph": dict(kinds.most_common()), "paper_graph_by_predicate": dict(preds.most_common()),
    }
    reopened = ox.Store(str(path))  # as `kg serve` opens it: does background compaction grow it?
    time.sleep(15)
    del reopened
    res["disk_kb_per_paper_after_15s_open"] = du_kb(path) / n
    if export:
        st = EmbeddedStore(str(path), base_iri=BASE, read_only=True)
        sink = _Counted()
        t = time.perf_counter()
        st.dump(sink, "turtle", workers=export_workers)
        res["turtle_s"], res["turtle_mb"] = time.perf_counter() - t, sink.size / 1e6
        res["turtle_workers"] = export_workers
        st.close()
    index = path.with_name(path.name + ".search.sqlite")
    if keep is not None:
        shutil.rmtree(keep, ignore_errors=True)
        keep.parent.mkdir(parents=True, exist_ok=True)
        path.rename(keep)
        if index.exists():
            index.rename(keep.with_name(keep.name + ".search.sqlite"))
    shutil.rmtree(path, ignore_errors=True)
    index.unlink(missing_ok=True)
    return res


def measure_bulk(n: int, label: str, export: bool) -> dict[str, Any]:
    """Synthetic papers mapped by GraphMapper and bulk-loaded (pyoxigraph `bulk_extend`; writing 100k papers
    through kg.write takes too long on this machine), aggregates rebuilt, the store closed (compacted)."""
    import pyoxigraph as ox
    from synth import bulk_load

    from kg.build import ensure_schema
    from kg.rdf.iris import Iris
    from kg.rdf.mapping import GraphMapper
    from kg.store.embedded import EmbeddedStore
    from kg.write import rebuild_aggregates

    path = WORK / f"lean-store-{label}"
    shutil.rmtree(path, ignore_errors=True)
    store = EmbeddedStore(str(path), base_iri=BASE)
    ensure_schema(store, BASE)
    mapper = GraphMapper(Iris(BASE))
    t0 = time.perf_counter()
    bulk_load(store, mapper, n, 7)
    load_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    rebuild_aggregates(store, Iris(BASE))
    agg_s = time.perf_counter() - t1
    store.compact()
    store.close()
    del store
    raw = ox.Store(str(path))  # opened once more: RocksDB drops the write-ahead logs it no longer needs
    parts: Counter[str] = Counter(part_of(q, getattr(q.graph_name, "value", "")) for q in raw)
    del raw
    quads_all = sum(parts.values())
    paper_q = quads_all - sum(v for k, v in parts.items() if k.startswith(("entity", "meta", "schema")))
    res: dict[str, Any] = {"papers": n, "load_s": load_s, "rebuild_aggregates_s": agg_s,
                           "disk_kb": du_kb(path), "disk_kb_per_paper": du_kb(path) / n,
                           "quads": quads_all, "quads_per_paper": quads_all / n,
                           "paper_graph_quads_per_paper": paper_q / n,
                           "per_paper_by_part": {k: round(v / n, 2) for k, v in parts.most_common()}}
    if export:
        st = EmbeddedStore(str(path), base_iri=BASE, read_only=True)
        t = time.perf_counter()
        with open(os.devnull, "wb") as sink:
            st.dump(sink, "turtle")
        res["turtle_s"] = time.perf_counter() - t
        st.close()
    shutil.rmtree(path, ignore_errors=True)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--papers", type=int, default=3000)
    ap.add_argument("--label", default="now")
    ap.add_argument("--synthetic", action="store_true")
    ap.add_argument("--no-export", action="store_true")
    ap.add_argument("--bulk", action="store_true", help="synthetic papers, bulk-loaded (for 100k)")
    ap.add_argument("--fresh", action="store_true",
                    help="write as `kg build` into a new store does (bulk load), not in batches of 200")
    ap.add_argument("--keep", type=Path, help="move the store here afterwards instead of deleting it")
    ap.add_argument("--export-workers", type=int, default=1, help="processes for the Turtle export")
    a = ap.parse_args()
    if a.bulk:
        a.synthetic = True
        res = measure_bulk(a.papers, a.label, not a.no_export)
    else:
        if a.synthetic and a.fresh:  # streamed: 100k extractions need not sit in memory
            from synth import synth_extractions

            res = measure(synth_extractions(a.papers, 7), a.papers, a.label, not a.no_export, a.fresh,
                          a.keep, a.export_workers)
        else:
            res = measure(extractions(a.papers, a.synthetic), a.papers, a.label, not a.no_export, a.fresh,
                          a.keep, a.export_workers)
    print(json.dumps(res, indent=1))
    out = ROOT / "bench" / "results" / "lean_store.json"
    old = json.loads(out.read_text()) if out.exists() else {}
    old[f"{'synth' if a.synthetic else 'corpus'}-{a.papers}-{a.label}"] = res
    out.write_text(json.dumps(old, indent=1))


if __name__ == "__main__":
    main()
