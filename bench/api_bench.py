# ruff: noqa: E501  (GraphQL and SPARQL texts of the benchmark cases read better unwrapped)
"""Benchmark the contract queries on 10,000 generated papers: query layer in-process, GraphQL over HTTP
(16 concurrent httpx clients, one uvicorn worker in a subprocess) and one hand-written SPARQL query each.

    .venv/bin/python bench/api_bench.py [--papers 10000] [--seconds 4] [--clients 16] [--store DIR]

`--store DIR` keeps the generated store (loaded once, reused when it already holds that many papers).
HTTP load comes from wrk (16 connections, one thread) when it is installed, else from httpx clients.
"cold" is the first call in a fresh process (per-generation caches empty). Prints a table and writes
bench/results/api_bench.json.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kg import query as q  # noqa: E402
from kg.build import write_extractions  # noqa: E402
from kg.rdf.iris import Iris  # noqa: E402
from kg.rdf.mapping import GraphMapper  # noqa: E402
from kg.settings import DEFAULT_BASE_IRI  # noqa: E402
from kg.store.embedded import EmbeddedStore  # noqa: E402
from kg.types import EntityRef, EntityType, Evidence, Extraction, Link, Paper, Relation  # noqa: E402

BASE = DEFAULT_BASE_IRI
SYL = [
    "ra",
    "to",
    "mi",
    "ne",
    "ko",
    "lu",
    "sa",
    "vi",
    "de",
    "gan",
    "bert",
    "net",
    "former",
    "flow",
    "mix",
    "dif",
]
WORDS = (  # noqa: SIM905
    "learning graph neural robust sparse attention diffusion contrastive federated causal token vision "
    "language agent reward policy retrieval quantization pruning kernel bayesian"
).split()
PLAN: list[tuple[EntityType, str, int, int]] = [  # type, relation, vocabulary size, links per paper
    ("Task", "addressesTask", 2000, 2),
    ("Dataset", "usesDataset", 3000, 2),
    ("Method", "usesMethod", 5000, 2),
    ("Metric", "reportsMetric", 300, 1),
    ("Model", "evaluatesModel", 500, 1),
    ("Domain", "targetsDomain", 200, 1),
]


def name(rng: random.Random, t: str, i: int) -> str:
    stem = "".join(rng.choice(SYL) for _ in range(rng.randint(2, 3))).capitalize()
    return f"{stem}-{i}" if t in ("Dataset", "Model", "Method") else f"{rng.choice(WORDS)} {stem.lower()} {i}"


def generate(n: int, seed: int = 7) -> list[Extraction]:
    """Seeded synthetic extractions: Zipf-ish popularity, vocabulary-like names, a few defenses."""
    rng = random.Random(seed)
    vocab = {t: [EntityRef(t, name(rng, t, i)) for i in range(size)] for t, _, size, _ in PLAN}
    weights = {t: [1 / (r + 1) ** 1.05 for r in range(size)] for t, _, size, _ in PLAN}
    threats = [EntityRef("Threat", f"{w} attack") for w in WORDS[:10]]
    out = []
    for i in range(n):
        pid = f"syn-{i:05d}"
        words = rng.sample(WORDS, 6)
        title = " ".join(words[:4]).capitalize() + f" study {i}"
        links: list[Link] = []
        for t, rel, _, k in PLAN:
            for ref in set(rng.choices(vocab[t], weights[t], k=k)):
                ev = Evidence(
                    f"We use {ref.name}.", ref.name, 0, len(ref.name), round(rng.uniform(0.4, 1.0), 2)
                )
                links.append(Link(rel, ref, ev))
        abstract = f"We study {' '.join(words)}. " + " ".join(f"We use {x.entity.name}." for x in links)
        relations: tuple[Relation, ...] = ()
        if i % 50 == 0:
            d = EntityRef("Method", f"Shield-{i}", "Defense")
            ev = Evidence(f"We propose {d.name}.", d.name, 0, 5, 0.9)
            links.append(Link("proposes", d, ev))
            dom = next(x.entity for x in links if x.entity.type == "Domain")
            relations = (
                Relation(d, "defendsAgainst", rng.choice(threats), ev),
                Relation(d, "targetsDomain", dom, ev),
            )
        out.append(
            Extraction(Paper(pid, abstract, title, venue="SYN", year=2020 + i % 6), tuple(links), relations)
        )
    return out


def load(store: EmbeddedStore, exs: list[Extraction]) -> float:
    mapper, t0 = GraphMapper(Iris(BASE)), time.perf_counter()
    write_extractions(store, exs, mapper, batch_size=500)
    return time.perf_counter() - t0


def summary(lat: list[float], wall: float) -> dict[str, float]:
    lat = sorted(lat)
    return {
        "n": len(lat),
        "p50_ms": round(statistics.median(lat) * 1e3, 3),
        "p99_ms": round(lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1e3, 3),
        "rps": round(len(lat) / wall, 1),
    }


def timed(fn: Callable[[], Any], seconds: float, reset: Callable[[], Any] = lambda: None) -> dict[str, float]:
    reset()  # empty the per-generation caches: the first call is what a query costs after a write
    t = time.perf_counter()
    fn()
    cold = time.perf_counter() - t
    lat, start = [], time.perf_counter()
    while time.perf_counter() - start < seconds:
        t = time.perf_counter()
        fn()
        lat.append(time.perf_counter() - t)
    return {**summary(lat, time.perf_counter() - start), "cold_ms": round(cold * 1e3, 2)}


def wrk(url: str, body: dict[str, Any], clients: int, seconds: float) -> dict[str, Any]:
    """POST `body` with wrk (`clients` connections, one thread); p50/p99 from its latency distribution."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "post.lua"
        payload = json.dumps(json.dumps(body))
        script.write_text(
            'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
            f"wrk.body = {payload}\n"
        )
        first = httpx.post(url, json=body, timeout=60)
        t = time.perf_counter()
        first = httpx.post(url, json=body, timeout=60)
        first_ms = (time.perf_counter() - t) * 1e3
        if first.status_code != 200 or "errors" in first.json():
            return {"n": 0, "p50_ms": 0.0, "p99_ms": 0.0, "rps": 0.0, "errors": 1, "error": first.text[:200]}
        def run(duration: int) -> str:
            return subprocess.run(
                ["wrk", "-t1", f"-c{clients}", f"-d{duration}s", "--timeout", "10s", "--latency",
                 "-s", str(script), url],
                capture_output=True, text=True, check=True,
            ).stdout

        run(1)  # warm-up under load (thread pool, allocator, caches), not measured
        out = run(max(int(seconds), 1))
    return {**parse_wrk(out), "first_ms": round(first_ms, 1), "client": "wrk"}


def parse_wrk(text: str) -> dict[str, Any]:
    def ms(value: str) -> float:
        for unit, f in (("us", 1e-3), ("ms", 1.0), ("s", 1e3)):
            if value.endswith(unit):
                return round(float(value[: -len(unit)]) * f, 3)
        return float(value)

    pct = dict(re.findall(r"^\s+(50|99)%\s+(\S+)", text, re.M))
    n = re.search(r"(\d+) requests in", text)
    rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    errors = sum(int(x) for x in re.findall(r"(?:connect|read|write|timeout) (\d+)", text))
    return {
        "n": int(n.group(1)) if n else 0,
        "p50_ms": ms(pct.get("50", "0ms")),
        "p99_ms": ms(pct.get("99", "0ms")),
        "rps": float(rps.group(1)) if rps else 0.0,
        "errors": errors + (int(bad.group(1)) if bad else 0),
    }


async def hammer(url: str, body: dict[str, Any], clients: int, seconds: float) -> dict[str, float]:
    lat: list[float] = []
    errors = 0
    async with httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=clients)) as client:
        r = await client.post(url, json=body)
        t = time.perf_counter()
        r = await client.post(url, json=body)  # warm-up (first request after start pays caches)
        first_ms = (time.perf_counter() - t) * 1e3
        if r.status_code != 200 or "errors" in r.json():
            return {"n": 0, "p50_ms": 0.0, "p99_ms": 0.0, "rps": 0.0, "errors": 1, "first_ms": first_ms,
                    "error": r.text[:200]}
        stop = time.perf_counter() + seconds

        async def worker() -> None:
            nonlocal errors
            while time.perf_counter() < stop:
                t = time.perf_counter()
                r = await client.post(url, json=body)
                lat.append(time.perf_counter() - t)
                errors += r.status_code != 200

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        out = summary(lat, time.perf_counter() - start)
    out["errors"] = errors
    out["first_ms"] = round(first_ms, 1)
    return out


def in_process(
    path: str, exs: list[Extraction], args: argparse.Namespace
) -> tuple[dict[str, Any], dict[str, str]]:
    """Load the store, then time the query layer and the hand-written SPARQL (the store is closed on return)."""
    store = EmbeddedStore(path, base_iri=BASE)
    load_s = load(store, exs) if exs else 0.0
    ctx = q.QueryContext.open(store, BASE)
    t0 = time.perf_counter()
    ctx.index.sync(store, force=True)
    index_s = time.perf_counter() - t0
    top_ds = q.entities(ctx, "Dataset", first=1).items[0]
    mid_ds = q.entities(
        ctx, "Dataset", first=1, after=q.entities(ctx, "Dataset", first=100).end_cursor
    ).items[0]
    dom = q.defenses(ctx)[0]
    domain_link = q.links(ctx, "syn-00000", "Domain")[0].entity.name
    pre = ctx.prologue
    ds_iri = f"<{mid_ds.iri}>"
    cases: dict[str, tuple[Callable[[], Any], str, str]] = {
        "papers(dataset)": (
            lambda: q.papers(ctx, dataset=mid_ds.name, first=20),
            f'{{ papers(dataset: "{mid_ds.name}", first: 20) {{ totalCount edges {{ node {{ id title }} }} }} }}',
            f"SELECT ?p ?t WHERE {{ ?p kg:usesDataset {ds_iri} ; dcterms:title ?t }} ORDER BY ?p LIMIT 20",
        ),
        "papers(dataset)+links": (
            lambda: q.links_by_paper(
                ctx, [p.iri for p in q.papers(ctx, dataset=mid_ds.name, first=20).items]
            ),
            f'{{ papers(dataset: "{mid_ds.name}", first: 20) {{ edges {{ node {{ id links {{ relation confidence entity {{ name }} }} }} }} }} }}',
            f"SELECT ?p ?r ?e ?n WHERE {{ {{ SELECT ?p WHERE {{ ?p kg:usesDataset {ds_iri} }} ORDER BY ?p LIMIT 20 }} "
            "?p ?r ?e . ?e skos:prefLabel ?n }",
        ),
        "papers(popular dataset)": (
            lambda: q.papers(ctx, dataset=top_ds.name, first=20),
            f'{{ papers(dataset: "{top_ds.name}", first: 20) {{ totalCount edges {{ node {{ id }} }} }} }}',
            f"SELECT ?p WHERE {{ ?p kg:usesDataset <{top_ds.iri}> }} ORDER BY ?p LIMIT 20",
        ),
        "paper(id)": (
            lambda: q.paper(ctx, "syn-04242"),
            '{ paper(id: "syn-04242") { id title year codeUrls } }',
            f"SELECT ?t ?y WHERE {{ <{ctx.iris.paper('syn-04242')}> dcterms:title ?t ; dcterms:issued ?y }}",
        ),
        "entity(name)": (
            lambda: q.entity(ctx, name=mid_ds.name.lower()),
            f'{{ entity(name: "{mid_ds.name.lower()}") {{ id name aliases paperCount }} }}',
            f'SELECT ?e ?l WHERE {{ ?e kg:key "{mid_ds.name.lower().replace("-", "")}" ; skos:prefLabel ?l }}',
        ),
        "entities(type)": (
            lambda: q.entities(ctx, "Dataset", first=20),
            "{ entities(type: DATASET, first: 20) { totalCount edges { node { name paperCount } } } }",
            "SELECT ?e (COUNT(?p) AS ?n) WHERE { ?e a kg:Dataset . ?p kg:usesDataset ?e } "
            "GROUP BY ?e ORDER BY DESC(?n) LIMIT 20",
        ),
        "defenses(target)": (
            lambda: q.defenses(ctx, target=domain_link),
            f'{{ defenses(target: "{domain_link}") {{ name paperCount }} }}',
            '?d kg:kind "Defense" ; kg:targetsDomain ?x',
        ),
        "neighborhood(d=2)": (
            lambda: q.neighborhood(ctx, mid_ds.id, 2, 50),
            f'{{ neighborhood(id: "{mid_ds.id}", depth: 2, limit: 50) {{ nodes {{ id label }} edges {{ source target }} truncated }} }}',
            f"SELECT DISTINCT ?x WHERE {{ ?p kg:usesDataset {ds_iri} . ?p ?r ?x }} LIMIT 50",
        ),
        "search(text)": (
            lambda: q.search(ctx, "robust diffusion", 10),
            '{ search(text: "robust diffusion", first: 10) { score paper { id } entity { id } } }',
            "",
        ),
    }
    cases["defenses(target)"] = (
        cases["defenses(target)"][0],
        cases["defenses(target)"][1],
        'SELECT ?d WHERE { ?d kg:kind "Defense" ; kg:targetsDomain ?x . '
        f"?x skos:broader* <{ctx.iris.entity_from_id('domain/' + domain_link.lower().replace(' ', '-'))}> }}",
    )
    _ = dom
    results: dict[str, Any] = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_avg_at_start": [round(x, 2) for x in os.getloadavg()],
        },
        "papers": args.papers,
        "triples": store.triple_count(),
        "load_s": round(load_s, 2),
        "index_s": round(index_s, 2),
        "clients": args.clients,
        "queries": {},
    }
    select = store.select

    def reset() -> None:
        ctx.memo.clear()
        ctx.index.forget()

    for label, (fn, _, sparql) in cases.items():
        results["queries"][label] = {"in_process": timed(fn, args.seconds / 2, reset)}
        if sparql:
            results["queries"][label]["sparql"] = timed(lambda s=sparql: select(pre + s), args.seconds / 2)
    store.close()
    ctx.index.close()
    queries = {label: gql for label, (_, gql, _) in cases.items()}
    return results, queries


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--papers", type=int, default=10_000)
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--store", help="keep the generated store here and reuse it on later runs")
    ap.add_argument("--http", choices=("auto", "wrk", "httpx"), default="auto")
    ap.add_argument("--out", default="api_bench.json", help="file name under bench/results/")
    args = ap.parse_args()
    path = args.store or os.path.join(tempfile.mkdtemp(prefix="kg-bench-"), "kg")
    reuse = args.store is not None and _has_papers(path, args.papers)
    exs = [] if reuse else generate(args.papers)
    results, queries = in_process(path, exs, args)
    results["store_reused"] = reuse
    (ROOT / "bench" / "results" / "api_bench.partial.json").write_text(json.dumps(results, indent=2) + "\n")
    gc.collect()  # the RocksDB lock goes with the store object; the server process opens it next
    load_s, index_s = results["load_s"], results["index_s"]
    port = _free_port()
    env = {**os.environ, "KG_STORE": path, "KG_MAX_DEPTH": "8"}
    code = (
        "import uvicorn; from api import create_app; from kg.settings import Settings; "
        f"uvicorn.run(create_app(Settings.from_env()), host='127.0.0.1', port={port}, log_level='warning', "
        "access_log=False)"
    )
    use_wrk = args.http == "wrk" or (args.http == "auto" and shutil.which("wrk") is not None)
    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-c", code], env=env, cwd=str(ROOT))
    try:
        _wait(f"http://127.0.0.1:{port}/healthz")
        results["server_start_s"] = round(time.perf_counter() - started, 2)
        url = f"http://127.0.0.1:{port}/graphql"
        for label, gql in queries.items():
            body = {"query": gql}
            results["queries"][label]["graphql_http"] = (
                wrk(url, body, args.clients, args.seconds) if use_wrk
                else asyncio.run(hammer(url, body, args.clients, args.seconds))
            )
        results["server_rss_mb"] = _rss_mb(server.pid)
    finally:
        server.terminate()
        server.wait(10)
    out = ROOT / "bench" / "results" / args.out
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"{args.papers} papers, {results['triples']} triples; load {load_s:.1f} s, index {index_s:.1f} s")
    print(
        f"{'query':26} {'cold ms':>8} {'in-proc p50/p99 ms':>20} {'SPARQL p50/p99 ms':>19} {'HTTP p50/p99 ms':>17} {'HTTP req/s':>10}"
    )
    for label, r in results["queries"].items():
        ip, sp, h = r["in_process"], r.get("sparql"), r["graphql_http"]
        sp_s = f"{sp['p50_ms']:.2f}/{sp['p99_ms']:.2f}" if sp else "-"
        print(
            f"{label:26} {ip['cold_ms']:>8.1f} {ip['p50_ms']:>9.2f}/{ip['p99_ms']:<10.2f} {sp_s:>19} "
            f"{h['p50_ms']:>8.2f}/{h['p99_ms']:<8.2f} {h['rps']:>10.0f}"
        )
    print(f"wrote {out.relative_to(ROOT)}")


def _has_papers(path: str, n: int) -> bool:
    """Whether `path` is a store already holding the n generated papers."""
    if not os.path.isdir(path):
        return False
    store = EmbeddedStore(path, base_iri=BASE)
    try:
        iri = Iris(BASE).paper(f"syn-{n - 1:05d}")
        last = store.ask(f"ASK {{ <{iri}> ?p ?o }}")
        beyond = store.ask(f"ASK {{ <{Iris(BASE).paper(f'syn-{n:05d}')}> ?p ?o }}")
        return last and not beyond
    finally:
        store.close()
        del store
        gc.collect()


def _rss_mb(pid: int) -> dict[str, float]:
    """Current and peak resident memory of a process, from /proc (Linux)."""
    out: dict[str, float] = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                out["rss" if line.startswith("VmRSS") else "peak"] = round(int(line.split()[1]) / 1024, 1)
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(url: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(url).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError("server did not start")


if __name__ == "__main__":
    main()
