# ruff: noqa: E501  (GraphQL texts and result lines read better unwrapped)
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
        if res.errors:  # the API's time budget: counted, and timed as what the user waited
            if not all("time budget" in str(e) for e in res.errors):
                raise RuntimeError(f"{name}: {res.errors}")
            failed[name] = failed.get(name, 0) + 1
        return (time.perf_counter() - t) * 1000

    out: dict[str, Any] = {}
    failed: dict[str, int] = {}  # refused by the time budget (503 over HTTP)
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
                     "warm_p50": pct(warm, 50), "warm_p99": pct(warm, 99), "over_budget": failed.get(name, 0)}
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


def write_cost(store: Any, n: int, papers: int) -> dict[str, float]:
    """CPU and wall ms per paper of `n` new papers written through kg.write in batches of 200 (as `kg build`
    writes them; the full-text index left out), then deleted again (not timed)."""
    from kg.rdf.iris import Iris
    from kg.rdf.mapping import GraphMapper
    from kg.write import delete_papers, write_extractions

    exs = list(synth_extractions(papers + n, SEED + 3))[-n:]
    exs = [type(ex)(type(ex.paper)(**{**{f: getattr(ex.paper, f) for f in ex.paper.__slots__},
                                      "id": f"wc-{i:05d}"}), ex.links, ex.relations, ex.code_urls,
                    ex.extractor_version) for i, ex in enumerate(exs)]
    mapper = GraphMapper(Iris(BASE))
    cpu, wall = time.process_time(), time.perf_counter()
    write_extractions(store, exs, mapper, batch_size=200)
    out = {"papers": n, "cpu_ms_per_paper": (time.process_time() - cpu) * 1000 / n,
           "wall_ms_per_paper": (time.perf_counter() - wall) * 1000 / n}
    delete_papers(store, Iris(BASE), [ex.paper.id for ex in exs])
    print(f"write path: {out['cpu_ms_per_paper']:.2f} CPU-ms / {out['wall_ms_per_paper']:.2f} wall-ms per paper "
          f"({n} papers, batches of 200)", flush=True)
    return out


def popular_bodies(path: Path, per_type: int) -> list[dict[str, Any]]:
    """`papers(dataset:|method:|task:)` of the `per_type` most linked entities of each type: each a new
    argument for a server that just started."""
    from kg import query as q
    from kg.store.embedded import EmbeddedStore

    store = EmbeddedStore(str(path), base_iri=BASE, read_only=True)
    ctx = q.QueryContext.open(store, BASE)
    bodies = []
    for t, arg in (("Dataset", "dataset"), ("Method", "method"), ("Task", "task")):
        text = (f"query($a: String!) {{ papers({arg}: $a, first: 20) {{ totalCount edges {{ node {{ id title year }} }}"
                " pageInfo { hasNextPage endCursor } } }")
        bodies += [{"query": text, "variables": {"a": e.name}} for e in q.entities(ctx, t, first=per_type).items]
    ctx.index.close()
    store.close()
    return bodies


def http_cold(path: Path, per_type: int, conns: int) -> dict[str, Any]:
    """Requests/s over HTTP (one uvicorn worker, `conns` client threads) for new arguments of popular
    entities right after the server starts (every cache cold, each body sent once), then the same again
    (warm)."""
    import subprocess
    import threading

    import httpx
    from run import free_port  # type: ignore[import-not-found]

    bodies = popular_bodies(path, per_type)
    root = Path(__file__).resolve().parents[1]
    port = free_port()
    env = {**os.environ, "KG_STORE": str(path), "KG_BASE_IRI": BASE, "PYTHONPATH": str(root)}
    cmd = [sys.executable, "-m", "uvicorn", "run:step_serve_app", "--factory", "--app-dir", str(root / "bench"),
           "--host", "127.0.0.1", "--port", str(port), "--workers", "1", "--no-access-log", "--log-level", "warning"]
    server = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if httpx.get(url + "/healthz", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("server did not start")
            time.sleep(0.2)

        def load() -> dict[str, Any]:
            lat: list[float] = []
            errors = 0
            lock = threading.Lock()

            def worker(k: int) -> None:
                nonlocal errors
                with httpx.Client(timeout=60) as cli:
                    for body in bodies[k::conns]:
                        t = time.perf_counter()
                        r = cli.post(url + "/graphql", json=body)
                        ok = r.status_code == 200 and "errors" not in r.json()
                        with lock:
                            lat.append((time.perf_counter() - t) * 1000)
                            errors += not ok

            threads = [threading.Thread(target=worker, args=(k,)) for k in range(conns)]
            t0 = time.perf_counter()
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            wall = time.perf_counter() - t0
            return {"requests": len(lat), "req_s": len(lat) / wall, "p50_ms": pct(lat, 50), "p99_ms": pct(lat, 99),
                    "errors": errors}

        cold, warm = load(), load()
    finally:
        server.terminate()
        server.wait(30)
    print(f"HTTP papers(popular entity), {len(bodies)} new arguments, {conns} clients: cold {cold['req_s']:.0f} "
          f"req/s (p99 {cold['p99_ms']:.0f} ms), warm {warm['req_s']:.0f} req/s", flush=True)
    return {"arguments": len(bodies), "conns": conns, "cold": cold, "warm": warm}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=20)
    results = Path(__file__).resolve().parent / "results"
    ap.add_argument("--out", default=str(results / "aggregates_bench.json"),
                    help="results (JSON, one entry per store size)")
    ap.add_argument("--no-computed", action="store_true", help="skip the rounds without the aggregates")
    ap.add_argument("--write-cost", type=int, default=0, metavar="N",
                    help="also time N new papers through kg.write (CPU-ms per paper)")
    ap.add_argument("--http", type=int, default=0, metavar="K",
                    help="also measure HTTP req/s for the K most linked entities of 3 types, cold then warm")
    ap.add_argument("--label", default="", help="key suffix in the results file (e.g. before/after)")
    a = ap.parse_args()
    made = make_store(a.papers)
    print(f"store: {made}", flush=True)
    from kg.store.embedded import EmbeddedStore

    store = EmbeddedStore(str(store_path(a.papers)), base_iri=BASE)  # one store for both modes
    res: dict[str, Any] = {"papers": a.papers, "rounds": a.rounds, "store": made,
                           "load_avg_at_start": list(os.getloadavg())}
    if a.write_cost:
        res["write_cost"] = write_cost(store, a.write_cost, a.papers)
    res["aggregates"] = measure(a.papers, a.rounds, True, store)
    if not a.no_computed:
        res["computed"] = measure(a.papers, a.rounds, False, store)
        res["ratio_cold_p50"] = {q: res["computed"][q]["cold_p50"] / max(res["aggregates"][q]["cold_p50"], 1e-9)
                                 for q in QUERIES}
    store.close()
    if a.http:
        import gc

        del store
        gc.collect()  # the RocksDB lock goes with the store object; the server opens it next
        res["http"] = http_cold(store_path(a.papers), a.http, 16)
    res["load_avg_at_end"] = list(os.getloadavg())
    out = Path(a.out)
    old = json.loads(out.read_text()) if out.exists() else {}
    old[str(a.papers) + (f"-{a.label}" if a.label else "")] = res
    out.write_text(json.dumps(old, indent=1))
    print(json.dumps(res.get("ratio_cold_p50", {}), indent=1))


if __name__ == "__main__":
    main()
