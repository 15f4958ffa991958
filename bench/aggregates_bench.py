"""Aggregates kept at write time: contract queries right after a one-paper write, with and without them.

    .venv/bin/python bench/aggregates_bench.py [--papers 3000] [--rounds 20]

Builds (once, cached under $KG_BENCH_DIR, default /tmp/paperkg-bench) a synthetic store of N papers
(`bench/synth.py`) through the one write path (up to 10k; beyond, pyoxigraph `bulk_extend` followed by
`kg.write.rebuild_aggregates`), then, in one process and one run, for each GraphQL contract query
(`bench/run.py`'s, in-process `schema.execute`): write one new paper through `kg.write` (what `addPapers`
does after extraction), time the query (cold: the first after the write), time it again (warm). The same
rounds run twice: with the stored aggregates, and with them ignored (counts computed from the graph and
cached per generation, as before format 3), so the ratio is measured on the same machine in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from run import GQL, _args, pct  # type: ignore[import-not-found]  # noqa: E402
from synth import bulk_load, synth_extractions  # type: ignore[import-not-found]  # noqa: E402

from kg.settings import DEFAULT_BASE_IRI as BASE  # noqa: E402

WORK = Path(os.environ.get("KG_BENCH_DIR", "/tmp/paperkg-bench"))
SEED = 7
QUERIES = {**GQL, "stats": "{ stats { papers triples links { relation count } entities { type count } } }"}


def store_path(n: int) -> Path:
    return WORK / f"agg-{n}-s{SEED}" / "kg"


def make_store(n: int) -> dict[str, Any]:
    from kg.build import ensure_schema, write_extractions
    from kg.rdf.iris import Iris
    from kg.rdf.mapping import GraphMapper
    from kg.store.embedded import EmbeddedStore
    from kg.write import rebuild_aggregates

    path = store_path(n)
    done = path.parent / "done.json"
    if done.exists():
        return dict(json.loads(done.read_text()), cached=True)
    shutil.rmtree(path.parent, ignore_errors=True)
    path.parent.mkdir(parents=True)
    store = EmbeddedStore(str(path), base_iri=BASE)
    ensure_schema(store, BASE)
    mapper = GraphMapper(Iris(BASE))
    t0 = time.perf_counter()
    rebuild_s = 0.0
    if n > 10_000:
        bulk_load(store, mapper, n, SEED)
        t1 = time.perf_counter()
        rebuild_aggregates(store, Iris(BASE))
        rebuild_s = time.perf_counter() - t1
    else:
        write_extractions(store, synth_extractions(n, SEED), mapper, batch_size=1000)
    res = {"papers": n, "ingest_s": time.perf_counter() - t0, "rebuild_aggregates_s": rebuild_s}
    store.close()
    done.write_text(json.dumps(res))
    return res


def measure(n: int, rounds: int, with_aggregates: bool, store: Any) -> dict[str, Any]:
    import kg.query.counts as counts
    import kg.query.entities as entities_mod
    import kg.query.stats as stats_mod
    import kg.write as write_mod
    from api.context import ApiContext
    from api.schema import build_schema
    from api.writer import PaperWriter
    from kg.query import QueryContext
    from kg.rdf.iris import Iris
    from kg.rdf.mapping import GraphMapper
    from kg.settings import Settings
    from kg.write import write_extractions

    real, real_carry = counts.globals_of, write_mod.carry_over
    off = (lambda ctx: None)  # noqa: E731  # the aggregates ignored: computed from the graph, as before
    for mod in (counts, entities_mod, stats_mod):
        mod.globals_of = real if with_aggregates else off  # type: ignore[attr-defined]
    # before: every cache dropped at each write
    write_mod.carry_over = real_carry if with_aggregates else (lambda *a: None)  # type: ignore[assignment]
    ctx = QueryContext.open(store, BASE, timeout_s=120)
    settings = Settings(store=store.location, base_iri=BASE)
    schema = build_schema(settings)
    writer = PaperWriter(ctx)
    mapper = GraphMapper(Iris(BASE))
    loop = asyncio.new_event_loop()
    args = _args(n, rounds)
    args["stats"] = [None] * rounds
    extra = list(synth_extractions(n + rounds * len(QUERIES) + 1, SEED + (1 if with_aggregates else 2)))[-(
        rounds * len(QUERIES)):]

    def gql(name: str, arg: Any) -> float:
        c = ApiContext(None, None, ctx, settings, writer)  # type: ignore[arg-type]
        t = time.perf_counter()
        variables = {"a": arg} if arg is not None else None
        run = schema.execute(QUERIES[name], variable_values=variables, context_value=c)
        res = loop.run_until_complete(run)
        if res.errors:
            raise RuntimeError(f"{name}: {res.errors}")
        return (time.perf_counter() - t) * 1000

    out: dict[str, Any] = {}
    k = 0
    write_ms: list[float] = []
    for name in QUERIES:
        cold, warm = [], []
        for i in range(rounds):
            ex = extra[k]
            k += 1
            ex = type(ex)(type(ex.paper)(**{**{f: getattr(ex.paper, f) for f in ex.paper.__slots__},
                                         "id": f"bench-{with_aggregates}-{k}"}),
                          ex.links, ex.relations, ex.code_urls, ex.extractor_version)
            t = time.perf_counter()
            write_extractions(store, [ex], mapper, index=ctx.index)  # as addPapers does
            write_ms.append((time.perf_counter() - t) * 1000)
            cold.append(gql(name, args[name][i]))
            warm.append(gql(name, args[name][i]))
        out[name] = {"cold_p50": pct(cold, 50), "cold_p99": pct(cold, 99), "cold_max": max(cold),
                     "warm_p50": pct(warm, 50), "warm_p99": pct(warm, 99)}
        print(f"{'aggregates' if with_aggregates else 'computed  '} {name:18} cold p50 {pct(cold, 50):8.1f} "
              f"p99 {pct(cold, 99):8.1f}  warm p50 {pct(warm, 50):7.1f} ms", flush=True)
    # leave the store as it was: the bench papers go again
    from kg.write import delete_papers

    bench_ids = [f"bench-{with_aggregates}-{j}" for j in range(1, k + 1)]
    delete_papers(store, Iris(BASE), bench_ids, index=ctx.index)
    out["write_ms_p50"] = pct(write_ms, 50)
    for mod in (counts, entities_mod, stats_mod):
        mod.globals_of = real  # type: ignore[attr-defined]
    write_mod.carry_over = real_carry
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=20)
    results = Path(__file__).resolve().parent / "results"
    ap.add_argument("--out", default=str(results / "aggregates_bench.json"),
                    help="results (JSON, one entry per store size)")
    a = ap.parse_args()
    made = make_store(a.papers)
    print(f"store: {made}", flush=True)
    from kg.store.embedded import EmbeddedStore

    store = EmbeddedStore(str(store_path(a.papers)), base_iri=BASE)  # one store for both modes
    res = {"papers": a.papers, "rounds": a.rounds, "store": made,
           "aggregates": measure(a.papers, a.rounds, True, store),
           "computed": measure(a.papers, a.rounds, False, store)}
    store.close()
    res["ratio_cold_p50"] = {q: res["computed"][q]["cold_p50"] / max(res["aggregates"][q]["cold_p50"], 1e-9)
                             for q in QUERIES}
    out = Path(a.out)
    old = json.loads(out.read_text()) if out.exists() else {}
    old[str(a.papers)] = res
    out.write_text(json.dumps(old, indent=1))
    print(json.dumps(res["ratio_cold_p50"], indent=1))


if __name__ == "__main__":
    main()
