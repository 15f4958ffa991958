# ruff: noqa: E501  (long table rows and query strings read better unwrapped)
"""All paperkg benchmarks with one command: results in bench/results/*.json and bench/results/summary.md.

    .venv/bin/python bench/run.py            # full run (about 30 min on 2 cores), every figure measured twice
    .venv/bin/python bench/run.py --quick    # about 3 min: one conference, 10k graph, short loads, one run

Real corpora first (../shared/data/corpus/*.jsonl.gz beside the repository, or $KG_CORPUS; read in place, never copied into the project):
build throughput with `kg build --workers 1|2` on the largest recent conference, 10k papers and all of
them. The 10k/100k query graphs come from `bench/synth.py` Extractions mapped by GraphMapper and written
with `store.replace_graphs` (no spaCy: a 100k real build would take ~15 min). Each measurement runs in a
fresh process (`run.py --step NAME`) so RSS and start-up are honest; HTTP loads go to 127.0.0.1 only and
are bounded in time. Stores live under $KG_BENCH_DIR (default /tmp/paperkg-bench), not in the project.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

RESULTS = ROOT / "bench" / "results"
CORPUS = Path(os.environ.get("KG_CORPUS", Path(__file__).resolve().parents[2] / "shared" / "data" / "corpus"))
WORK = Path(os.environ.get("KG_BENCH_DIR", "/tmp/paperkg-bench"))
PY = sys.executable
KG = str(Path(PY).with_name("kg"))
BASE = "https://w3id.org/paperkg/"
SEED = 7

GQL: dict[str, str] = {
    "papers(dataset)": "query($a: String!) { papers(dataset: $a, first: 20) { totalCount "
                       "edges { node { id title year } } pageInfo { hasNextPage endCursor } } }",
    "paper(id)+links": "query($a: ID!) { paper(id: $a) { id title venue year "
                       "links { relation confidence entity { id name type } } } }",
    "entity(name)": "query($a: String!) { entity(name: $a, type: DATASET) { id name paperCount aliases } }",
    "entities(type)": "query($a: EntityType!) { entities(type: $a, first: 20) { totalCount "
                      "edges { node { id name paperCount } } } }",
    "defenses(target)": "query($a: String!) { defenses(target: $a) { id name paperCount } }",
    "neighborhood(id)": "query($a: ID!) { neighborhood(id: $a, depth: 1, limit: 50) { truncated "
                        "nodes { id label type } edges { source target relation } } }",
    "search(text)": "query($a: String!) { search(text: $a, first: 10) { score paper { id title } entity { id name } } }",
}

# The same questions, hand-written as one SPARQL query each (the FTS index answers `search` directly).
PRE = ("PREFIX kg: <https://w3id.org/paperkg/ontology#> PREFIX dcterms: <http://purl.org/dc/terms/> "
       "PREFIX skos: <http://www.w3.org/2004/02/skos/core#> ")
RELS = ("kg:proposes kg:addressesTask kg:usesDataset kg:introducesDataset kg:usesMethod kg:comparesWith "
        "kg:reportsMetric kg:evaluatesModel kg:targetsDomain kg:studiesThreat")
RDF = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#"
# Entity descriptions live once, in the shared entities graph, so plain triple patterns need no DISTINCT.
RAW: dict[str, str] = {
    # the page of ids only: asking for titles and years in the same query (directly or around a LIMIT
    # subquery) makes Oxigraph 0.5 read them for every paper before joining (seconds at 100k)
    "papers(dataset)": PRE + "SELECT ?p ?id WHERE { ?e kg:key %s . ?p kg:usesDataset ?e . "
                       "?p dcterms:identifier ?id } ORDER BY ?id LIMIT 21",
    # store format 5: a paper's link node is named by its plain link, its confidence on the shared rule node
    "paper(id)+links": PRE + "SELECT ?t ?r ?e ?n ?c WHERE { VALUES ?p { %s } VALUES ?r { " + RELS + " } "
                       "?p dcterms:title ?t ; ?r ?e . ?e skos:prefLabel ?n . BIND(IRI(CONCAT(STR(?p), '/link/', "
                       "SUBSTR(SHA1(CONCAT(STRAFTER(STR(?r), '#'), ' ', STR(?e))), 1, 12))) AS ?l) "
                       "?l kg:by/kg:confidence ?c }",
    "entity(name)": PRE + "SELECT ?e ?l (COUNT(?p) AS ?n) WHERE { ?e kg:key %s ; skos:prefLabel ?l . "
                    "OPTIONAL { ?p kg:usesDataset ?e } } GROUP BY ?e ?l",
    "entities(type)": PRE + "SELECT ?e (COUNT(?p) AS ?n) WHERE { ?p %s ?e } GROUP BY ?e ORDER BY DESC(?n) ?e "
                      "LIMIT 20",
    "defenses(target)": PRE + "SELECT DISTINCT ?d WHERE { ?dom kg:key %s . ?x skos:broader* ?dom . "
                        "?d kg:kind \"Defense\" ; kg:targetsDomain ?x }",
    "neighborhood(id)": PRE + "SELECT ?n ?r WHERE { VALUES ?c { %s } VALUES ?r { " + RELS + " } ?c ?r ?n } "
                        "LIMIT 50",
    "search(text)": "(FTS5 index: SearchIndex.search)",
}
_TYPE_REL = {"DATASET": "kg:usesDataset", "METHOD": "kg:comparesWith", "TASK": "kg:addressesTask"}
HTTP_QUERIES = ("papers(dataset)",)  # the throughput target; --http-all measures every query


# ---------------------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------------------
def pct(xs: Sequence[float], p: float) -> float:
    """The p-th percentile (nearest rank) of `xs`."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s) + 0.5) - 1))] if s else float("nan")


def median(xs: Sequence[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def du_mb(path: Path) -> float:
    """Disk use of a directory (or file) in MB."""
    if path.is_file():
        return path.stat().st_size / 1e6
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


class RssSampler:
    """Peak RSS (MB) of a process and its children, sampled every 50 ms in a thread."""

    def __init__(self, pid: int) -> None:
        import psutil

        self.proc = psutil.Process(pid)
        self.peak = 0.0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self) -> None:
        import psutil

        while not self._stop.is_set():
            try:
                procs = [self.proc, *self.proc.children(recursive=True)]
                total = 0
                for p in procs:
                    with contextlib.suppress(psutil.Error):
                        total += p.memory_info().rss
                self.peak = max(self.peak, total / 1e6)
            except psutil.Error:
                pass
            self._stop.wait(0.05)

    def stop(self) -> float:
        self._stop.set()
        self._t.join()
        return self.peak


def git_commit() -> str:
    """HEAD's short hash, with "+dirty" when the store-shaping files differ from it in the work tree."""
    def git(*a: str) -> str:
        return subprocess.run(["git", *a], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    dirty = git("status", "--porcelain", "--", "kg/rdf", "kg/write.py", "kg/store", "bench/synth.py")
    return git("rev-parse", "--short", "HEAD") + ("+dirty" if dirty else "")


def step(name: str, timeout: float = 3600, **params: Any) -> dict[str, Any]:
    """Run one measurement in a fresh interpreter (`run.py --step`) and return its JSON result."""
    cmd = [PY, str(Path(__file__)), "--step", name, "--params", json.dumps(params)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"step {name} failed:\n{out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------------------------------
def corpus_files() -> list[Path]:
    return sorted(CORPUS.glob("*.jsonl.gz")) if CORPUS.is_dir() else []


def count_lines(path: Path) -> int:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return sum(1 for _ in fh)


def largest_recent(files: Sequence[Path], since: int = 2020) -> Path:
    """The conference file with most papers among years >= `since` (names like `eccv_eccv2022`)."""
    recent = [f for f in files if (m := re.search(r"(\d{4})\.jsonl\.gz$", f.name)) and int(m.group(1)) >= since]
    return max(recent or files, key=count_lines)


def first_n(files: Sequence[Path], n: int, dest: Path) -> Path:
    """The first `n` corpus records (files in name order) as one temporary .jsonl.gz outside the project."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.exists():
        return dest
    left = n
    with gzip.open(dest, "wt", encoding="utf-8") as out:
        for f in files:
            with gzip.open(f, "rt", encoding="utf-8") as fh:
                for line in fh:
                    if left <= 0:
                        return dest
                    out.write(line)
                    left -= 1
    return dest


def synth_input(n: int, dest: Path) -> Path:
    """Synthetic abstracts as JSONL (for machines without the corpus)."""
    from synth import synth_papers

    if not dest.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        with open(dest, "w", encoding="utf-8") as out:
            for p in synth_papers(n, SEED):
                out.write(json.dumps({"id": p.id, "title": p.title, "abstract": p.abstract, "venue": p.venue,
                                      "year": p.year, "authors": list(p.authors)}) + "\n")
    return dest


# ---------------------------------------------------------------------------------------------------
# build benchmark: the real CLI, `kg build --workers N`
# ---------------------------------------------------------------------------------------------------
def bench_build(label: str, inputs: Sequence[Path], workers: int) -> dict[str, Any]:
    """Wall time, papers, peak RSS (process tree) and store size of one `kg build` into a fresh store."""
    store = Path(tempfile.mkdtemp(prefix="build-", dir=WORK)) / "kg"
    cmd = [KG, "build", *map(str, inputs), "--store", str(store), "--workers", str(workers)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "COLUMNS": "200"})
    rss = RssSampler(proc.pid)
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    peak = rss.stop()
    if proc.returncode != 0:
        raise RuntimeError(f"kg build failed: {err[-2000:]}")
    m = re.search(r"built\s+(\d+)\s+papers\s+into.*?\sin\s+([\d.]+)\s+s", out, re.S)
    papers, inner = (int(m.group(1)), float(m.group(2))) if m else (0, wall)
    size = du_mb(store)
    shutil.rmtree(store.parent, ignore_errors=True)
    return {"label": label, "workers": workers, "papers": papers, "wall_s": wall, "build_s": inner,
            "abstracts_per_s": papers / wall, "abstracts_per_s_after_load": papers / inner,
            "peak_rss_mb": peak, "store_mb": size}


# ---------------------------------------------------------------------------------------------------
# synthetic graphs for the query benchmarks (steps run in a fresh process)
# ---------------------------------------------------------------------------------------------------
def synth_store_path(n: int) -> Path:
    return WORK / f"synth-{n}-s{SEED}" / "kg"


def step_make_store(n: int) -> dict[str, Any]:
    """Write `n` synthetic papers (+ schema graphs): up to 10k through the build's own write path
    (`kg.build.write_extractions`: GraphMapper + `store.replace_graphs`, 1,000 papers per transaction);
    beyond, GraphMapper + pyoxigraph `bulk_extend` (replace_graphs writes ~100 papers/s on this disk)."""
    from synth import bulk_load, synth_extractions

    from kg.build import ensure_schema, write_extractions
    from kg.rdf.iris import Iris
    from kg.rdf.mapping import GraphMapper
    from kg.store.embedded import EmbeddedStore

    path = synth_store_path(n)
    done = path.parent / "done.json"
    if done.exists():
        return dict(json.loads(done.read_text()), cached=True)
    shutil.rmtree(path.parent, ignore_errors=True)
    path.parent.mkdir(parents=True)
    store = EmbeddedStore(str(path), base_iri=BASE)
    ensure_schema(store, BASE)
    mapper = GraphMapper(Iris(BASE))
    bulk = n > 10_000
    t0 = time.perf_counter()
    if bulk:
        one_shared = bulk_load(store, mapper, n, SEED)
        store.replace_graphs({}, [one_shared])  # re-adds one existing quad: bumps the generation
    else:
        write_extractions(store, synth_extractions(n, SEED), mapper, batch_size=1000)
    secs = time.perf_counter() - t0
    agg_s = 0.0
    if bulk:  # a bulk load bypasses kg.write: compute the write-time aggregates once, as kg migrate does
        from kg.write import rebuild_aggregates

        t1 = time.perf_counter()
        rebuild_aggregates(store, mapper.iris)
        agg_s = time.perf_counter() - t1
    total = store.triple_count()
    store.close()
    import resource

    res = {"papers": n, "quads": total, "ingest_s": secs, "papers_per_s": n / secs, "store_mb": du_mb(path),
           "method": "bulk_extend" if bulk else "replace_graphs", "aggregates_s": agg_s,
           "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3, "commit": git_commit()}
    done.write_text(json.dumps(res))
    return res


def _args(n: int, iters: int) -> dict[str, list[Any]]:
    """Arguments per contract query, drawn like user traffic (popular datasets more often)."""
    import random

    from synth import entity_pool

    rng = random.Random(SEED + 1)
    pool = entity_pool(SEED)
    ids = [f"synth-{rng.randint(1, n):06d}" for _ in range(iters)]
    words = ("graph", "diffusion", "robust", "transformer", "segmentation", "reinforcement", "language")
    return {
        "papers(dataset)": [pool.pick(rng, "Dataset") for _ in range(iters)],
        "paper(id)+links": ids,
        "entity(name)": [pool.pick(rng, "Dataset") for _ in range(iters)],
        "entities(type)": [rng.choice(("DATASET", "METHOD", "TASK")) for _ in range(iters)],
        "defenses(target)": [rng.choice(pool.names["Domain"]) for _ in range(iters)],
        "neighborhood(id)": ids[::-1],
        "search(text)": [f"{rng.choice(words)} {rng.choice(words)}" for _ in range(iters)],
    }


def _cold_args(n: int, name: str, count: int) -> list[Any]:
    """`count` distinct arguments for a query (or as many as exist), in random order: each is first seen by
    the server, so wrk measures requests nobody's cache has answered yet."""
    import random

    from synth import entity_pool

    rng = random.Random(SEED + 2)
    if name in ("papers(dataset)", "entity(name)"):
        found: list[Any] = list(entity_pool(SEED).names["Dataset"])
    elif name in ("paper(id)+links", "neighborhood(id)"):
        found = [f"synth-{i:06d}" for i in rng.sample(range(1, n + 1), min(count, n))]
    else:
        return []
    rng.shuffle(found)
    return found[:count]


def step_inproc(n: int, iters: int, budget_s: float = 30.0, store_url: str | None = None) -> dict[str, Any]:
    """Start-up, then p50/p99 of each GraphQL contract query in-process and of its raw SPARQL twin
    (over the embedded store, or over SPARQL to the server at `store_url`)."""
    import gc

    import psutil

    t_start = time.perf_counter()
    from pyoxigraph import Literal, NamedNode

    from api.context import ApiContext
    from api.schema import build_schema
    from api.writer import PaperWriter
    from kg.names import match_key
    from kg.query import QueryContext
    from kg.settings import Settings
    from kg.store.embedded import EmbeddedStore

    t_import = time.perf_counter() - t_start
    if store_url:
        from kg.store import open_store

        store: Any = open_store(store_url, base_iri=BASE)
    else:
        store = EmbeddedStore(str(synth_store_path(n)), base_iri=BASE, read_only=True)
    ctx = QueryContext.open(store, BASE, timeout_s=30)
    settings = Settings(store=str(store.location), base_iri=BASE)
    schema = build_schema(settings)
    writer = PaperWriter(ctx)
    loop = asyncio.new_event_loop()

    def gql(name: str, arg: Any) -> float:
        c = ApiContext(None, None, ctx, settings, writer)  # type: ignore[arg-type]
        t = time.perf_counter()
        res = loop.run_until_complete(schema.execute(GQL[name], variable_values={"a": arg}, context_value=c))
        dt = (time.perf_counter() - t) * 1000
        if res.errors:
            raise RuntimeError(f"{name}: {res.errors}")
        return dt

    t0 = time.perf_counter()
    gql("papers(dataset)", "ImageNet")
    first_query_ms = (time.perf_counter() - t0) * 1000
    t_ready = time.perf_counter() - t_start
    t0 = time.perf_counter()
    ctx.index.sync(store, force=True)  # the FTS index: built on first use, persisted beside the store
    index_sync_s = time.perf_counter() - t0

    def raw(name: str, arg: Any) -> float:
        t = time.perf_counter()
        if name == "search(text)":
            ctx.index.search(store, arg, 10)
        else:
            if name == "entities(type)":
                term = _TYPE_REL[arg]
            elif name in ("paper(id)+links", "neighborhood(id)"):
                term = str(NamedNode(ctx.iris.paper(arg)))
            else:
                term = str(Literal(match_key(arg)))
            store.select(RAW[name] % term)
        return (time.perf_counter() - t) * 1000

    args = _args(n, iters)
    gc.collect()
    gc.freeze()  # what a server does after start-up: old objects leave the GC's scans
    out: dict[str, Any] = {}
    for name in GQL:
        for a in args[name][:3]:  # warm-up (parser/validation caches, RocksDB blocks)
            gql(name, a)
            raw(name, a)
        g, r = [], []
        stop = time.perf_counter() + budget_s  # bounded: slow queries get fewer calls (count reported)
        for a in args[name]:  # interleaved, so both see the same machine noise
            g.append(gql(name, a))
            r.append(raw(name, a))
            if time.perf_counter() > stop:
                break
        out[name] = {"calls": len(g), "gql_p50": median(g), "gql_p99": pct(g, 99), "raw_p50": median(r), "raw_p99": pct(r, 99),
                     "ratio_p50": median(g) / max(median(r), 1e-6)}
    rss = psutil.Process().memory_info().rss / 1e6
    return {"papers": n, "iters": iters, "store": store_url or "embedded", "import_s": t_import, "first_query_ms": first_query_ms,
            "ready_s": t_ready, "index_sync_s": index_sync_s, "rss_mb": rss, "queries": out}


def step_cold_after_write(n: int, rounds: int = 5, store_url: str | None = None) -> dict[str, Any]:
    """Each contract query once right after a one-paper write through kg.write (the one write path),
    `rounds` times: what the first user after an `addPapers` waits (ms, median and worst)."""
    from synth import synth_extractions

    from api.context import ApiContext
    from api.schema import build_schema
    from api.writer import PaperWriter
    from kg.query import QueryContext
    from kg.rdf.iris import Iris
    from kg.rdf.mapping import GraphMapper
    from kg.settings import Settings
    from kg.store import open_store
    from kg.write import write_extractions

    store = open_store(store_url or str(synth_store_path(n)), base_iri=BASE)
    ctx = QueryContext.open(store, BASE, timeout_s=30)
    settings = Settings(store=str(store.location), base_iri=BASE)
    schema = build_schema(settings)
    writer = PaperWriter(ctx)
    loop = asyncio.new_event_loop()
    mapper = GraphMapper(Iris(BASE))
    args = _args(n, 50)
    extra = list(synth_extractions(rounds, SEED + 7))
    times: dict[str, list[float]] = {name: [] for name in GQL}
    write_ms: list[float] = []
    try:
        for r in range(rounds):
            for name in GQL:  # warm first, so what follows is the cost of the write alone
                loop.run_until_complete(schema.execute(GQL[name], variable_values={"a": args[name][r]},
                                                       context_value=ApiContext(None, None, ctx, settings, writer)))  # type: ignore[arg-type]
            t = time.perf_counter()
            write_extractions(store, [_renamed(extra[r], "caw-")], mapper, index=ctx.index)
            write_ms.append((time.perf_counter() - t) * 1000)
            for name in GQL:
                c = ApiContext(None, None, ctx, settings, writer)  # type: ignore[arg-type]
                t = time.perf_counter()
                res = loop.run_until_complete(schema.execute(GQL[name], variable_values={"a": args[name][r]},
                                                             context_value=c))
                times[name].append((time.perf_counter() - t) * 1000)
                if res.errors:
                    raise RuntimeError(f"{name}: {res.errors}")
    finally:
        from kg.write import delete_papers

        delete_papers(store, mapper.iris, [_renamed(e, "caw-").paper.id for e in extra], index=ctx.index)
        store.close()
    return {"papers": n, "store": store_url or "embedded", "rounds": rounds, "write_1_paper_ms": median(write_ms),
            "queries": {k: {"p50_ms": median(v), "max_ms": max(v)} for k, v in times.items()}}


def step_export(n: int) -> dict[str, Any]:
    """Seconds and MB for Turtle and N-Quads dumps of the whole graph."""
    from kg.store.embedded import EmbeddedStore

    store = EmbeddedStore(str(synth_store_path(n)), base_iri=BASE, read_only=True)
    out: dict[str, Any] = {"papers": n}
    for fmt in ("turtle", "nquads"):
        dest = WORK / f"export-{n}.{fmt}"
        t0 = time.perf_counter()
        with open(dest, "wb") as fh:
            store.dump(fh, fmt)
        out[fmt] = {"s": time.perf_counter() - t0, "mb": dest.stat().st_size / 1e6}
        dest.unlink()
    return out


def step_incremental(n: int) -> dict[str, Any]:
    """Add 100 new papers to the n-paper store (replace_graphs), sync the search index, then remove them."""
    from synth import synth_extractions

    from kg.query import QueryContext
    from kg.rdf.iris import Iris
    from kg.rdf.mapping import GraphMapper
    from kg.store.embedded import EmbeddedStore

    store = EmbeddedStore(str(synth_store_path(n)), base_iri=BASE)
    ctx = QueryContext.open(store, BASE)
    ctx.index.sync(store, force=True)
    mapper = GraphMapper(Iris(BASE))
    extra = list(synth_extractions(100, SEED + 99))
    graphs = {mapper.iris.paper_graph("inc-" + ex.paper.id): mapper.paper_quads(_renamed(ex)) for ex in extra}
    t0 = time.perf_counter()
    store.replace_graphs(graphs)
    add_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    ctx.index.refresh(store, "unknown", [], [])  # what another process sees: a generation it did not write
    ctx.index.sync(store, force=True)
    sync_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    store.drop_graphs(graphs)
    drop_s = time.perf_counter() - t0
    ctx.index.sync(store, force=True)
    store.close()
    return {"papers": n, "add_100_s": add_s, "index_sync_after_add_s": sync_s, "drop_100_s": drop_s}


def _renamed(ex: Any, prefix: str = "inc-") -> Any:
    from dataclasses import replace

    return replace(ex, paper=replace(ex.paper, id=prefix + ex.paper.id))


def step_serve_app() -> Any:
    """The ASGI app for uvicorn (`--factory`): the API over $KG_STORE."""
    import gc

    from api import create_app
    from kg.settings import Settings

    app = create_app(Settings.from_env())
    gc.collect()
    gc.freeze()
    return app


# ---------------------------------------------------------------------------------------------------
# HTTP benchmark: uvicorn in its own process, wrk (or a bounded Python client) on 127.0.0.1
# ---------------------------------------------------------------------------------------------------
@contextlib.contextmanager
def oxigraph_server(location: Path) -> Any:
    """`oxigraph serve` over an existing store directory on a free 127.0.0.1 port: (URL, peak RSS sampler)."""
    exe = shutil.which("oxigraph") or str(Path(PY).with_name("oxigraph"))
    port = free_port()
    proc = subprocess.Popen([exe, "serve", "--location", str(location), "--bind", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rss = RssSampler(proc.pid)
    try:
        for _ in range(1200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}", rss
    finally:
        rss.stop()
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def bench_http(n: int, seconds: float, names: Sequence[str], conns: int = 16,
               store_url: str | None = None) -> dict[str, Any]:
    """Server start-up to first answer, req/s and latency per query with `conns` clients, server RSS."""
    import httpx

    port = free_port()
    env = {**os.environ, "KG_STORE": store_url or str(synth_store_path(n)), "KG_BASE_IRI": BASE,
           "PYTHONPATH": str(ROOT)}
    cmd = [PY, "-m", "uvicorn", "run:step_serve_app", "--factory", "--app-dir", str(ROOT / "bench"),
           "--host", "127.0.0.1", "--port", str(port), "--workers", "1", "--no-access-log", "--log-level",
           "warning"]
    t0 = time.perf_counter()
    server = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    rss = RssSampler(server.pid)
    url = f"http://127.0.0.1:{port}/graphql"
    body = {"query": GQL["papers(dataset)"], "variables": {"a": "ImageNet"}}
    startup = None
    try:
        with httpx.Client(timeout=30) as cli:
            while time.perf_counter() - t0 < 120:
                try:
                    if cli.post(url, json=body).status_code == 200:
                        startup = time.perf_counter() - t0
                        break
                except httpx.HTTPError:
                    time.sleep(0.05)
        if startup is None:
            raise RuntimeError("server did not answer within 120 s")
        args = _args(n, 300)
        out: dict[str, Any] = {"papers": n, "startup_to_first_answer_s": startup, "conns": conns,
                               "seconds": seconds, "queries": {}}
        for name in names:
            bodies = [{"query": GQL[name], "variables": {"a": a}} for a in args[name]]
            fresh = [{"query": GQL[name], "variables": {"a": a}} for a in _cold_args(n, name, 20_000)]
            if shutil.which("wrk") and fresh:  # distinct first-seen arguments, as many as wrk sends
                cold = _wrk(url, fresh, conns, seconds)
                cold["distinct_arguments"] = len(fresh)
                cold["all_first_seen"] = cold["req_s"] * seconds <= len(fresh)
            else:
                cold = _pyload(url, bodies, conns, seconds)  # first sight of each argument: caches cold
            t1 = time.perf_counter()
            with httpx.Client(timeout=60) as cli:  # one pass over every argument: a server that has run a while
                for b in bodies:
                    cli.post(url, json=b)
            warm = (_wrk if shutil.which("wrk") else _pyload)(url, bodies, conns, seconds)
            out["queries"][name] = {**warm, "warmup_pass_s": time.perf_counter() - t1,
                                    "cold_req_s": cold["req_s"], "cold_p50_ms": cold["p50_ms"],
                                    "cold_p99_ms": cold["p99_ms"], "cold_errors": cold["errors"],
                                    "cold_tool": cold["tool"],
                                    "cold_all_first_seen": cold.get("all_first_seen")}
        out["server_peak_rss_mb"] = rss.stop()
        return out
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


_LUA = """
local bodies = {%s}
local i = 0
request = function()
  i = i %% #bodies + 1
  return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, bodies[i])
end
done = function(summary, latency, requests)
  io.write(string.format("JSON {\\"requests\\": %%d, \\"errors\\": %%d, \\"non2xx\\": %%d, \\"p50\\": %%f, \\"p99\\": %%f}\\n",
    summary.requests, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
"""


def _wrk(url: str, bodies: list[dict[str, Any]], conns: int, seconds: float) -> dict[str, Any]:
    script = WORK / "post.lua"
    script.write_text(_LUA % ", ".join(_lua_string(json.dumps(b)) for b in bodies))
    out = subprocess.run(["wrk", "-t1", f"-c{conns}", f"-d{seconds:g}s", "--timeout", "5s", "-s", str(script),
                          url], capture_output=True, text=True, timeout=seconds + 60)
    m = re.search(r"^JSON (.*)$", out.stdout, re.M)
    if not m:
        raise RuntimeError(f"wrk: {out.stdout[-500:]} {out.stderr[-500:]}")
    r = json.loads(m.group(1))
    return {"tool": "wrk 1 thread", "req_s": r["requests"] / seconds, "p50_ms": r["p50"], "p99_ms": r["p99"],
            "errors": r["errors"], "non2xx": r["non2xx"]}


def _lua_string(s: str) -> str:
    return "[==[" + s + "]==]"


def _pyload(url: str, bodies: list[dict[str, Any]], conns: int, seconds: float) -> dict[str, Any]:
    """Fallback without wrk: `conns` threads with keep-alive httpx clients (the client shares the cores)."""
    import httpx

    lat: list[float] = []
    errors = 0
    stop = time.perf_counter() + seconds
    lock = threading.Lock()

    def worker(k: int) -> None:
        nonlocal errors
        with httpx.Client(timeout=5) as cli:
            i = k
            while time.perf_counter() < stop:
                t = time.perf_counter()
                try:
                    ok = cli.post(url, json=bodies[i % len(bodies)]).status_code == 200
                except httpx.HTTPError:  # a 5 s timeout counts as an error; the client goes on
                    ok = False
                with lock:
                    lat.append((time.perf_counter() - t) * 1000)
                    errors += not ok
                i += conns

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"tool": "python threads", "req_s": len(lat) / seconds, "p50_ms": median(lat), "p99_ms": pct(lat, 99),
            "errors": errors, "non2xx": errors}


# ---------------------------------------------------------------------------------------------------
# machine info, summary
# ---------------------------------------------------------------------------------------------------
def machine() -> dict[str, Any]:
    import psutil

    cpu = platform.processor()
    with contextlib.suppress(OSError, StopIteration):
        cpu = next(ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                   if ln.startswith("model name"))
    versions = {}
    for pkg in ("pyoxigraph", "spacy", "strawberry-graphql", "uvicorn", "starlette", "uvloop", "httptools"):
        try:
            from importlib.metadata import version

            versions[pkg] = version(pkg)
        except Exception:  # noqa: BLE001
            versions[pkg] = "?"
    wrk = subprocess.run(["wrk", "--version"], capture_output=True, text=True).stdout.split(" [")[0] \
        if shutil.which("wrk") else "not installed"
    return {"cpu": cpu, "cores": os.cpu_count(), "ram_gb": round(psutil.virtual_memory().total / 2**30, 1),
            "python": platform.python_version(), "os": f"{platform.system()} {platform.release()}",
            "load_avg_at_start": os.getloadavg(), "date": time.strftime("%Y-%m-%d %H:%M"), "versions": versions,
            "wrk": wrk.strip()}


def med_of(runs: list[dict[str, Any]], *path: str) -> float:
    vals = []
    for r in runs:
        v: Any = r
        for k in path:
            v = v[k]
        vals.append(float(v))
    return median(vals)


def rng_of(runs: list[dict[str, Any]], *path: str, fmt: str = "{:.2f}") -> str:
    vals = []
    for r in runs:
        v: Any = r
        for k in path:
            v = v[k]
        vals.append(float(v))
    m = fmt.format(median(vals))
    return m if len(vals) < 2 else f"{m} [{fmt.format(min(vals))}–{fmt.format(max(vals))}]"


def summary(res: dict[str, Any]) -> str:
    """The markdown table the README shows."""
    m = res["machine"]
    lines = [
        "# paperkg benchmarks",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['ram_gb']} GB RAM, {m['os']}, Python {m['python']}; "
        f"{m['date']}; mode {'quick' if res['quick'] else 'full'}, {res['runs']} run(s) per figure, "
        "figures are medians [min–max]. Versions: "
        + ", ".join(f"{k} {v}" for k, v in m["versions"].items()) + f"; load generator: {m['wrk']}.",
        "",
        "## Build (`kg build --workers N`, real extractor, fresh store; wall time includes model load)",
        "",
        "| input | papers | workers | abstracts/s (wall) | abstracts/s (after load) | peak RSS MB (tree) "
        "| store MB |",
        "|---|---|---|---|---|---|---|",
    ]
    groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for b in res["build"]:
        groups.setdefault((b["label"], b["workers"]), []).append(b)
    for (label, w), runs in groups.items():
        lines.append(f"| {label} | {runs[0]['papers']:,} | {w} | {rng_of(runs, 'abstracts_per_s', fmt='{:.0f}')} | "
                     f"{rng_of(runs, 'abstracts_per_s_after_load', fmt='{:.0f}')} | "
                     f"{rng_of(runs, 'peak_rss_mb', fmt='{:.0f}')} | {med_of(runs, 'store_mb'):.0f} |")
    lines += ["", "## Synthetic graphs for the query benchmarks (GraphMapper + `store.replace_graphs`, "
              "no spaCy: `bench/synth.py` Extractions)", "",
              "| papers | quads | written with | ingest s (incl. mapping) | papers/s | store MB on disk |",
              "|---|---|---|---|---|---|"]
    for s in res["stores"]:
        lines.append(f"| {s['papers']:,} | {s['quads']:,} | {s.get('method', 'replace_graphs')} | "
                     f"{s['ingest_s']:.0f} | {s['papers_per_s']:.0f} | {s['store_mb']:.0f} |")
    for n, runs in res["inproc"].items():
        lines += ["", f"## Queries in-process, {int(n):,} papers (GraphQL `schema.execute` vs one hand-written "
                  f"SPARQL query on the store; up to {runs[0]['iters']} calls each with varied arguments, "
                  "bounded in time per query)", "",
                  "| query | GraphQL p50 ms | GraphQL p99 ms | raw store p50 ms | raw p99 ms | API / raw (p50) |",
                  "|---|---|---|---|---|---|"]
        for q in GQL:
            lines.append(f"| {q} ({int(med_of(runs, 'queries', q, 'calls'))} calls) | {rng_of(runs, 'queries', q, 'gql_p50')} | {rng_of(runs, 'queries', q, 'gql_p99')}"
                         f" | {rng_of(runs, 'queries', q, 'raw_p50')} | {rng_of(runs, 'queries', q, 'raw_p99')} | "
                         f"{med_of(runs, 'queries', q, 'ratio_p50'):.1f}× |")
        lines.append("")
        lines.append(f"Start-up (fresh process, store already built): imports {rng_of(runs, 'import_s')} s; "
                     f"ready after the first query {rng_of(runs, 'ready_s')} s (first query "
                     f"{rng_of(runs, 'first_query_ms', fmt='{:.0f}')} ms); full-text index check/sync "
                     f"{rng_of(runs, 'index_sync_s')} s; RSS after the run {rng_of(runs, 'rss_mb', fmt='{:.0f}')} MB.")
    for n, runs in res["http"].items():
        lines += ["", f"## Over HTTP, {int(n):,} papers (uvicorn, 1 worker, its automatic choice: uvloop + httptools when installed; {runs[0]['conns']} concurrent "
                  f"clients on 127.0.0.1, {runs[0]['seconds']:g} s per query)", "",
                  "| query | caches | req/s | p50 ms | p99 ms | errors |", "|---|---|---|---|---|---|"]
        for q in runs[0]["queries"]:
            if "cold_req_s" in runs[0]["queries"][q]:
                lines.append(f"| {q} | cold (each argument's first requests; Python client threads) | "
                             f"{rng_of(runs, 'queries', q, 'cold_req_s', fmt='{:.0f}')} | "
                             f"{rng_of(runs, 'queries', q, 'cold_p50_ms')} | {rng_of(runs, 'queries', q, 'cold_p99_ms')}"
                             f" | {int(max(r['queries'][q]['cold_errors'] for r in runs))} |")
            lines.append(f"| {q} | warm (after one pass over the {len(_args(10, 300)[q])} arguments: "
                         f"{rng_of(runs, 'queries', q, 'warmup_pass_s', fmt='{:.0f}') if 'warmup_pass_s' in runs[0]['queries'][q] else '?'} s) | "
                         f"{rng_of(runs, 'queries', q, 'req_s', fmt='{:.0f}')} | "
                         f"{rng_of(runs, 'queries', q, 'p50_ms')} | {rng_of(runs, 'queries', q, 'p99_ms')} | "
                         f"{int(max(r['queries'][q]['errors'] + r['queries'][q]['non2xx'] for r in runs))} |")
        lines.append("")
        lines.append(f"Server: process start to first GraphQL answer {rng_of(runs, 'startup_to_first_answer_s')} s;"
                     f" peak RSS {rng_of(runs, 'server_peak_rss_mb', fmt='{:.0f}')} MB.")
    if res["export"]:
        lines += ["", "## Export (whole graph, `store.dump`)", "", "| papers | format | seconds | MB |",
                  "|---|---|---|---|"]
        by_n: dict[int, list[dict[str, Any]]] = {}
        for e in res["export"]:
            by_n.setdefault(e["papers"], []).append(e)
        for n, runs in by_n.items():
            for fmt in ("turtle", "nquads"):
                lines.append(f"| {n:,} | {fmt} | {rng_of(runs, fmt, 's')} | {med_of(runs, fmt, 'mb'):.0f} |")
    if res["incremental"]:
        lines += ["", "## Incremental: 100 new papers into an existing store", "",
                  "| store papers | add 100 (replace_graphs) s | search-index sync after it s | drop 100 s |",
                  "|---|---|---|---|"]
        by_n2: dict[int, list[dict[str, Any]]] = {}
        for e in res["incremental"]:
            by_n2.setdefault(e["papers"], []).append(e)
        for n, runs in by_n2.items():
            lines.append(f"| {n:,} | {rng_of(runs, 'add_100_s')} | {rng_of(runs, 'index_sync_after_add_s')} | "
                         f"{rng_of(runs, 'drop_100_s')} |")
    lines += ["", "## Targets (issue 6)", "", "| target | measured | met |", "|---|---|---|"]
    for label, value, ok in targets(res):
        lines.append(f"| {label} | {value} | {'yes' if ok else '**no**'} |")
    lines += ["", f"Load average (1/5/15 min) at start {tuple(round(x, 1) for x in m['load_avg_at_start'])}, "
              f"at end {tuple(round(x, 1) for x in res.get('load_avg_at_end', (0, 0, 0)))}: the machine is shared."]
    sb = res.get("scale_build")
    if sb:
        r = sb["rate_wall"]
        lines += ["", f"## Build throughput ratios, one run (`bench/scale_build.py`: {sb['papers']} abstracts, "
                  f"{sb['rounds']} interleaved rounds, {sb['workers']} processes, model loaded; load average "
                  f"{sb['loadavg'][0]:.1f})", "",
                  "| figure | abstracts/s | ratio | target |", "|---|---|---|---|",
                  f"| `kg extract --workers 2` | {r['extract']:.1f} | | |",
                  f"| `kg build --workers 2` | {r['build']:.1f} | build / extract {sb['build_over_extract']:.2f} | ≥ 0.95 |",
                  f"| bare model (tok2vec, tagger, parser), 2 processes | {r['spacy']:.1f} | build / model "
                  f"{sb['build_over_spacy']:.2f}, extract / model {sb['extract_over_spacy']:.2f} | ≥ 1.0 |"]
        if "write_only_rate" in sb:
            lines.append(f"| the write path alone (parent ceiling) | {sb['write_only_rate']:.0f} | | |")
        for n, c in sb.get("cluster", {}).items():
            lines.append(f"| `--cluster local:{n}` after warm-up | {c['rate']:.1f} | start + loads {c['start_s']:.0f} s | |")
    growth = RESULTS / "growth.md"
    if res.get("growth") and growth.exists():
        lines += ["", "## Store growth (`bench/scale_growth.py`, full table in growth.md, picture growth.png)", "",
                  growth.read_text()]
    return "\n".join(lines) + "\n"


def targets(res: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(target, measured, met) for the issue's targets that this run measured."""
    out: list[tuple[str, str, bool]] = []
    w2 = [b for b in res["build"] if b["workers"] == 2 and "conference" in b["label"]]
    if w2:
        v = med_of(w2, "abstracts_per_s")
        out.append(("build ≥ 150 abstracts/s with 2 workers (whole conference, wall)", f"{v:.0f}", v >= 150))
    big = max(res["inproc"], key=int) if res["inproc"] else None
    if big:
        runs = res["inproc"][big]
        for q in GQL:
            p50, p99 = med_of(runs, "queries", q, "gql_p50"), med_of(runs, "queries", q, "gql_p99")
            out.append((f"{int(big):,} papers, {q}: p50 ≤ 3 ms, p99 ≤ 20 ms in-process",
                        f"{p50:.1f} / {p99:.1f} ms", p50 <= 3 and p99 <= 20))
            ratio = med_of(runs, "queries", q, "ratio_p50")
            out.append((f"{int(big):,} papers, {q}: API ≤ 3× raw store (p50)", f"{ratio:.1f}×", ratio <= 3))
    if res["http"]:
        hb = max(res["http"], key=int)
        runs = res["http"][hb]
        v = med_of(runs, "queries", "papers(dataset)", "req_s")
        out.append((f"{int(hb):,} papers: ≥ 800 req/s for papers(dataset:), 16 clients", f"{v:.0f}", v >= 800))
        v = med_of(runs, "server_peak_rss_mb")
        out.append((f"{int(hb):,} papers: server peak RSS ≤ 2 GB", f"{v:.0f} MB", v <= 2000))
        v = med_of(runs, "startup_to_first_answer_s")
        out.append((f"{int(hb):,} papers: start-up on an existing store ≤ 3 s (to first answer)", f"{v:.1f} s",
                    v <= 3))
    if res["incremental"]:
        by = {e["papers"]: e for e in res["incremental"]}
        if len(by) >= 2:
            lo, hi = by[min(by)], by[max(by)]
            for key, what in (("add_100_s", "store write"), ("index_sync_after_add_s", "search-index sync")):
                ratio = hi[key] / max(lo[key], 1e-6)
                out.append((f"+100 papers, {what}: {max(by):,} vs {min(by):,} store (≈1× if proportional to the 100)",
                            f"{hi[key]:.2f} s vs {lo[key]:.2f} s ({ratio:.1f}×)", ratio <= 2))
    return out


# ---------------------------------------------------------------------------------------------------
def run_all(quick: bool, runs: int, http_all: bool, skip_big: bool = False) -> dict[str, Any]:
    WORK.mkdir(parents=True, exist_ok=True)
    res: dict[str, Any] = {"quick": quick, "runs": runs, "machine": machine(), "build": [], "stores": [],
                           "inproc": {}, "http": {}, "export": [], "incremental": []}
    files = corpus_files()
    # --- build on real abstracts (synthetic ones without the corpus) ---
    if files:
        conf = largest_recent(files)
        builds: list[tuple[str, list[Path], tuple[int, ...], int]] = [
            (f"{conf.name.removesuffix('.jsonl.gz')} (whole conference)", [conf], (1, 2), runs)]
        if not quick and skip_big:
            builds += [("10k real abstracts", [first_n(files, 10_000, WORK / "corpus-10k.jsonl.gz")], (2,), 1)]
        elif not quick:
            builds += [("10k real abstracts", [first_n(files, 10_000, WORK / "corpus-10k.jsonl.gz")], (1, 2), runs),
                       (f"all {len(files)} corpus files", list(files), (2,), 1)]
    else:
        n = 1000 if quick else 10_000
        builds = [(f"{n:,} synthetic abstracts", [synth_input(n, WORK / f"synth-{n}.jsonl")], (1, 2), runs)]
    for label, inputs, workers, k in builds:
        for r in range(k):
            for w in workers:  # interleaved: both worker counts see the same window of machine noise
                log(f"build {label} workers={w} run {r + 1}/{k}")
                res["build"].append(bench_build(label, inputs, w))
                log(f"  -> {res['build'][-1]['abstracts_per_s']:.0f} abstracts/s")
    # --- query graphs ---
    sizes = (10_000,) if quick else (10_000, 100_000)
    for n in sizes:
        log(f"synthetic store {n:,} papers")
        res["stores"].append(step("make_store", timeout=7200, n=n))
    iters = 100 if quick else 300
    seconds = 3.0 if quick else 10.0
    for r in range(runs):
        for n in sizes:
            log(f"in-process queries {n:,} run {r + 1}/{runs}")
            res["inproc"].setdefault(str(n), []).append(step("inproc", n=n, iters=iters,
                                                             budget_s=5.0 if quick else 15.0))
            log(f"HTTP {n:,} run {r + 1}/{runs}")
            names = list(GQL) if (http_all and not quick) else list(HTTP_QUERIES)
            res["http"].setdefault(str(n), []).append(bench_http(n, seconds, names))
    # --- issue 15: build ratios and the cluster in one run, store growth (embedded and oxigraph serve) ---
    log("build throughput ratios (bench/scale_build.py)")
    sb_json = RESULTS / "scale_build.json"
    subprocess.run([PY, str(ROOT / "bench" / "scale_build.py"), "200" if quick else "400", "1" if quick else "2",
                    "--cluster", "--json", str(sb_json)], check=True, cwd=ROOT, timeout=7200)
    res["scale_build"] = json.loads(sb_json.read_text())
    log("store growth (bench/scale_growth.py)")
    subprocess.run([PY, str(ROOT / "bench" / "scale_growth.py"), "--sizes", *map(str, sizes)], check=True,
                   cwd=ROOT, timeout=6 * 3600)
    res["growth"] = json.loads((RESULTS / "growth.json").read_text())
    big = sizes[-1]
    log(f"export {big:,} (one run: minutes of disk I/O at 100k)")
    res["export"].append(step("export", n=big))
    for r in range(runs):
        for n in sizes:
            log(f"incremental +100 into {n:,} run {r + 1}/{runs}")
            res["incremental"].append(step("incremental", n=n))
    return res


def redo_queries(quick: bool, runs: int, http_all: bool) -> dict[str, Any]:
    """The query-side figures alone (in-process, HTTP, incremental) on the cached synthetic stores."""
    sizes = (10_000,) if quick else (10_000, 100_000)
    out: dict[str, Any] = {"inproc": {}, "http": {}, "incremental": [], "stores": [],
                           "load_avg_queries_start": os.getloadavg()}
    for n in sizes:
        out["stores"].append(step("make_store", timeout=7200, n=n))
    for r in range(runs):
        for n in sizes:
            log(f"in-process queries {n:,} run {r + 1}/{runs}")
            out["inproc"].setdefault(str(n), []).append(step("inproc", n=n, iters=100 if quick else 300,
                                                             budget_s=15.0))
            log(f"HTTP {n:,} run {r + 1}/{runs}")
            names = list(GQL) if (http_all and not quick) else list(HTTP_QUERIES)
            out["http"].setdefault(str(n), []).append(bench_http(n, 5.0 if quick else 10.0, names))
    for r in range(runs):
        for n in sizes:
            log(f"incremental +100 into {n:,} run {r + 1}/{runs}")
            out["incremental"].append(step("incremental", n=n))
    return out


def scale_summary() -> str:
    """bench/results/scale.md: the issue-15 figures (build ratios, cluster, growth) from their JSON files."""
    res = {"scale_build": json.loads((RESULTS / "scale_build.json").read_text()), "growth": True,
           "machine": machine()}
    m = res["machine"]
    head = [f"# Scale-out figures\n\nMachine: {m['cpu']}, {m['cores']} cores, {m['ram_gb']} GB RAM; shared with "
            "other sessions (load averages below).\n"]
    full = summary({**res, "quick": False, "runs": 1, "build": [], "stores": [], "inproc": {}, "http": {},
                    "export": [], "incremental": []})
    return "\n".join(head) + full[full.index("## Build throughput ratios"):]


STEPS: dict[str, Callable[..., Any]] = {"make_store": step_make_store, "inproc": step_inproc,
                                        "cold_after_write": step_cold_after_write,
                                        "export": step_export, "incremental": step_incremental}


def main() -> None:
    """Run everything (or one `--step` in this fresh process) and write bench/results/."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--quick", action="store_true", help="about 3 minutes: fewer sizes, shorter loads, one run")
    ap.add_argument("--runs", type=int, default=None, help="repetitions per figure (default 2, quick 1)")
    ap.add_argument("--http-all", action="store_true", help="measure every contract query over HTTP")
    ap.add_argument("--skip-big-builds", action="store_true",
                    help="build 10k real abstracts once with 2 workers and skip the all-corpus build")
    ap.add_argument("--redo-queries", action="store_true",
                    help="re-measure in-process, HTTP and incremental figures into the last results file")
    ap.add_argument("--scale", action="store_true",
                    help="issue 15 only: build ratios, cluster 1/2 workers and store growth into results/scale.md")
    ap.add_argument("--scale-report", action="store_true", help="redraw results/scale.md from the last figures")
    ap.add_argument("--step", help=argparse.SUPPRESS)
    ap.add_argument("--params", default="{}", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.step:
        print(json.dumps(STEPS[a.step](**json.loads(a.params))))
        return
    if a.scale or a.scale_report:
        if a.scale:
            subprocess.run([PY, str(ROOT / "bench" / "scale_build.py"), "400", "2", "--cluster", "--json",
                            str(RESULTS / "scale_build.json")], check=True, cwd=ROOT)
            subprocess.run([PY, str(ROOT / "bench" / "scale_growth.py")], check=True, cwd=ROOT)
        text = scale_summary()
        (RESULTS / "scale.md").write_text(text)
        print(text)
        return
    runs = a.runs or (1 if a.quick else 2)
    t0 = time.perf_counter()
    name = "quick" if a.quick else "full"
    if a.redo_queries:  # keep the builds and exports of the last run, measure the query side again
        res = json.loads((RESULTS / f"{name}.json").read_text())
        res.update(redo_queries(a.quick, runs, a.http_all))
        res["queries_remeasured_at"] = time.strftime("%Y-%m-%d %H:%M")
    else:
        res = run_all(a.quick, runs, a.http_all, a.skip_big_builds)
    res["total_s"] = time.perf_counter() - t0
    res["load_avg_at_end"] = os.getloadavg()
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(res, indent=1))
    (RESULTS / ("summary-quick.md" if a.quick else "summary.md")).write_text(summary(res))
    log(f"done in {res['total_s']:.0f} s: {RESULTS / name}.json")
    print(summary(res))


if __name__ == "__main__":
    main()
