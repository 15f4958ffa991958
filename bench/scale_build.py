# ruff: noqa: E501  (report lines read better unwrapped)
"""Build throughput ratios measured in one run (issue 15 part 5) and the cluster's throughput (part 1).

    .venv/bin/python bench/scale_build.py [N] [ROUNDS] [--cluster] [--profile] [--json OUT]

On the same N real abstracts (a seeded corpus sample, else the seed file cycled; see extract_bench.py),
rounds interleaved so the ratios hold on a shared machine, each with the model already loaded:
- `extract`: `Extractor.extract(n_process=2)` consumed, i.e. `kg extract --workers 2` without printing;
- `build`:   `build_fresh(new directory, workers=2)` — what `kg build --workers 2` runs for a new store
             (mapping to N-Quads in the workers, bulk loads, aggregates counted and the full-text index made
             once, the store renamed into place);
- `build_into`: `build_into_store(an opened empty store, workers=2)` — what `kg build` runs into an
             existing store (one write transaction per 200 papers through kg/write.py);
- `spacy`:   the bare model with the same pipes (tok2vec, tagger, parser), `nlp.pipe(n_process=2)`, as
             spaCy ships it (thinc's blis matrix products);
- `spacy_blas`: the same bare model on our matrix products (kg.extract.pipeline.use_blas), for reference.
With `--cluster`: `extract_on_cluster` on a local Dask cluster of 1 and of 2 worker processes, timed after
a warm-up batch (cluster start and extractor loads excluded; they are reported apart).
`--profile` prints where the parent spends its time during one `build` (cProfile, top functions).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from extract_bench import papers as sample  # noqa: E402

from kg.build import build_fresh, build_into_store  # noqa: E402
from kg.extract import Extractor  # noqa: E402
from kg.extract.fields import join_fields  # noqa: E402
from kg.extract.pipeline import EXCLUDED, MODEL, use_blas  # noqa: E402
from kg.settings import DEFAULT_BASE_IRI  # noqa: E402
from kg.store.embedded import EmbeddedStore  # noqa: E402


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", nargs="?", type=int, default=400)
    ap.add_argument("rounds", nargs="?", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cluster", action="store_true")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--only-cluster", action="store_true", help="measure the cluster alone into --json's file")
    a = ap.parse_args()
    import spacy

    batch, source = sample(a.n)
    if a.only_cluster:
        rates = cluster_rates(batch)
        for n, c in rates.items():
            print(f"  cluster local:{n}: {c['rate']:.1f} abstracts/s after warm-up (start {c['start_s']:.1f} s); "
                  f"{c['per_worker_cpu_s']:.1f} per worker CPU-second, workers busy {c['worker_utilisation']:.0%}")
        if a.json:
            old = json.loads(a.json.read_text()) if a.json.exists() else {}
            a.json.write_text(json.dumps({**old, "cluster": rates, "cluster_loadavg": os.getloadavg(),
                                          "cluster_papers": len(batch)}, indent=1))
        return
    texts = [join_fields(p.title, p.abstract) for p in batch]
    ex = Extractor()
    plain = spacy.load(MODEL, exclude=EXCLUDED)
    plain_blas = use_blas(spacy.load(MODEL, exclude=EXCLUDED))
    list(ex.extract(batch[:20]))
    list(plain.pipe(texts[:20]))
    list(plain_blas.pipe(texts[:20]))
    tmp = Path(tempfile.mkdtemp(prefix="scale-build-"))
    k = a.workers

    def extract() -> None:
        for _ in ex.extract(batch, n_process=k, batch_size=64):
            pass

    def clear(where: Path) -> None:
        shutil.rmtree(where, ignore_errors=True)
        Path(str(where) + ".search.sqlite").unlink(missing_ok=True)

    def build() -> None:
        where = tmp / "store"
        clear(where)
        build_fresh(str(where), batch, DEFAULT_BASE_IRI, workers=k, extractor=ex)

    def build_into() -> None:
        where = tmp / "store-into"
        clear(where)
        st = EmbeddedStore(str(where))
        try:
            build_into_store(st, batch, DEFAULT_BASE_IRI, workers=k, extractor=ex)
        finally:
            st.close()

    def bare() -> None:
        for _ in plain.pipe(texts, batch_size=64, n_process=k):
            pass

    def bare_blas() -> None:
        for _ in plain_blas.pipe(texts, batch_size=64, n_process=k):
            pass

    runs: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    for _ in range(a.rounds):
        for name, fn in (("extract", extract), ("build", build), ("spacy", bare), ("build_into", build_into),
                         ("spacy_blas", bare_blas)):
            t0, c0 = time.perf_counter(), _cpu()
            fn()
            runs.setdefault(name, []).append(len(batch) / (time.perf_counter() - t0))
            cpu.setdefault(name, []).append(len(batch) / (_cpu() - c0))
    med = {n: statistics.median(r) for n, r in runs.items()}
    out: dict[str, Any] = {
        "papers": len(batch), "source": source, "rounds": a.rounds, "workers": k,
        "rate_wall": med, "runs_wall": runs,
        "rate_cpu": {n: statistics.median(r) for n, r in cpu.items()},
        "build_over_extract": med["build"] / med["extract"],
        "build_over_spacy": med["build"] / med["spacy"],
        "extract_over_spacy": med["extract"] / med["spacy"],
        "build_into_over_extract": med["build_into"] / med["extract"],
        "build_over_spacy_blas": med["build"] / med["spacy_blas"],
        "per_round": [{"build_over_extract": runs["build"][i] / runs["extract"][i],
                       "build_over_spacy": runs["build"][i] / runs["spacy"][i]} for i in range(a.rounds)],
        "loadavg": os.getloadavg(),
    }
    print(f"{len(batch)} abstracts ({source}), {a.rounds} interleaved rounds, {k} processes; abstracts/s wall")
    for name in ("extract", "build", "spacy", "build_into", "spacy_blas"):
        r = runs[name]
        print(f"  {name:8s} {med[name]:6.1f} [{min(r):.1f}-{max(r):.1f}]   CPU-rate {out['rate_cpu'][name]:.1f}")
    print(f"  build / extract = {out['build_over_extract']:.3f}   (target >= 0.95)")
    print(f"  build / spacy   = {out['build_over_spacy']:.3f}   (target >= 1.0)")
    print(f"  extract / spacy = {out['extract_over_spacy']:.3f}")
    print(f"  build_into / extract = {out['build_into_over_extract']:.3f}   (into an existing store)")
    print(f"  build / spacy_blas = {out['build_over_spacy_blas']:.3f}   (bare model on the same matrix products)")
    for i, r in enumerate(out["per_round"]):
        print(f"  round {i + 1}: build / extract {r['build_over_extract']:.3f}, build / spacy {r['build_over_spacy']:.3f}")
    # the parent's own ceiling: the write path alone (mapping + transactions + search index), no extraction
    exs = list(ex.extract(batch, n_process=k, batch_size=64))
    from kg.build import ensure_schema, local_search_index
    from kg.rdf.iris import Iris
    from kg.rdf.mapping import GraphMapper
    from kg.write import write_extractions

    where = tmp / "write-only"
    st = EmbeddedStore(str(where))
    ensure_schema(st, DEFAULT_BASE_IRI)
    index = local_search_index(st, Iris(DEFAULT_BASE_IRI))
    t0 = time.perf_counter()
    write_extractions(st, exs, GraphMapper(Iris(DEFAULT_BASE_IRI)), index=index)
    out["write_only_rate"] = len(exs) / (time.perf_counter() - t0)
    if index is not None:
        index.close()
    st.close()
    print(f"  write path alone (parent ceiling): {out['write_only_rate']:.0f} papers/s")
    if a.profile:
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        build()
        prof.disable()
        wall = time.perf_counter() - t0
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(18)
        print(f"parent profile of one build ({wall:.1f} s wall):")
        print("\n".join(s.getvalue().splitlines()[:40]))
    if a.cluster:
        out["cluster"] = cluster_rates(batch)
        for n, c in out["cluster"].items():
            print(f"  cluster local:{n}: {c['rate']:.1f} abstracts/s after warm-up "
                  f"(start + extractor loads {c['start_s']:.1f} s)")
    shutil.rmtree(tmp, ignore_errors=True)
    if a.json:
        a.json.write_text(json.dumps(out, indent=1))


def cluster_rates(batch: list[Any]) -> dict[int, dict[str, float]]:
    """Abstracts/s through `extract_on_cluster` on local clusters of 1 and 2 worker processes."""
    from kg.cluster import connect, extract_on_cluster

    rates: dict[int, dict[str, float]] = {}
    for n in (1, 2):
        t0 = time.perf_counter()
        with connect(f"local:{n}") as client:
            for _ in extract_on_cluster(client, batch[: 8 * n], DEFAULT_BASE_IRI, batch=8):
                pass
            start = time.perf_counter() - t0
            cpu0 = sum(client.run(time.process_time).values())
            t1 = time.perf_counter()
            for _ in extract_on_cluster(client, batch, DEFAULT_BASE_IRI):
                pass
            wall = time.perf_counter() - t1
            cpu = sum(client.run(time.process_time).values()) - cpu0  # the workers' CPU seconds (a restart would reset one)
            rates[n] = {"rate": len(batch) / wall, "start_s": start, "per_worker_cpu_s": len(batch) / cpu,
                        "worker_utilisation": cpu / (wall * n)}
    return rates


if __name__ == "__main__":
    main()
