# ruff: noqa: E501  (table rows read better unwrapped)
"""A build of the whole shared corpus and the API on it (issue 15 parts 2 and 4): what a user who runs
`kg build` on every real abstract meets.

    nice -n 10 .venv/bin/python bench/corpus_build.py [--store DIR] [--workers 2] [--calls 30] [--keep]
    nice -n 10 .venv/bin/python bench/corpus_build.py --phase serve --store DIR    # re-measure an existing store

Build: the real CLI, `kg build $KG_CORPUS/*.jsonl.gz --store DIR --workers N` into a fresh directory
outside the project (the corpus is read in place): wall time and the CLI's own figure, abstracts/s, peak RSS
of the process tree, disk and quads per paper once the build has returned; then `kg stats` on the closed store.
Serve: `kg serve` on the store (a fresh server process per "first call after start"), GraphQL over HTTP on
127.0.0.1: `{ stats }`, the first page of `entities(type: TASK)`, `papers(dataset:)` of the most popular
dataset, `neighborhood` of that dataset (depth 1 and 2) — each the first call after start, the first call
after a one-paper `addPapers`, and warm (p50/p99 over `--calls` calls); 16 concurrent `{ stats { papers } }`
after a write and warm (5 s client timeout = the server's limit). Results: bench/results/corpus_build.json
and .md. The store is deleted at the end unless --keep.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # noqa: E402  (bench/run.py: corpus location, RSS sampler, helpers)

ROOT = run.ROOT
RESULTS = run.RESULTS
ENV = {**os.environ, "COLUMNS": "200", "PYTHONPATH": str(ROOT), "KG_BASE_IRI": run.BASE}
TOKEN = "corpus-bench-token"

Q: dict[str, str] = {
    "stats": "{ stats { papers triples links { relation count } entities { type count } } }",
    "entities(type: TASK)": "{ entities(type: TASK, first: 20) { totalCount edges { node { id name paperCount } } } }",
    "papers(dataset: top)": "query($a: String!) { papers(dataset: $a, first: 20) { totalCount edges { node { id title year } } pageInfo { hasNextPage endCursor } } }",
    "neighborhood(top, depth 1)": "query($a: ID!) { neighborhood(id: $a, depth: 1, limit: 50) { truncated nodes { id label type } edges { source target relation } } }",
    "neighborhood(top, depth 2)": "query($a: ID!) { neighborhood(id: $a, depth: 2, limit: 50) { truncated nodes { id label type } edges { source target relation } } }",
}
ADD = "mutation($p: [PaperInput!]!) { addPapers(papers: $p) { id } }"
NEW_PAPER = {
    "title": "Robust semantic segmentation on Cityscapes with a light transformer decoder",
    "abstract": ("We study semantic segmentation under distribution shift. We propose LiteSegFormer, a light "
                 "transformer decoder, and evaluate it on Cityscapes and ADE20K, where it outperforms SegFormer "
                 "and DeepLabv3+ by 1.2 mIoU. Code is available."),
    "authors": ["A. Author"], "venue": "bench", "year": 2026,
}


def log(msg: str) -> None:
    run.log(msg)


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


# ---------------------------------------------------------------------------------------------------
# build
# ---------------------------------------------------------------------------------------------------
def build(store: Path, workers: int) -> dict[str, Any]:
    files = run.corpus_files()
    if not files:
        raise SystemExit(f"no corpus at {run.CORPUS} (set KG_CORPUS)")
    if store.exists() or list(store.parent.glob(store.name + ".search.sqlite*")):
        raise SystemExit(f"{store} (or its .search.sqlite) exists: a build needs a fresh directory (or use --phase serve)")
    records = sum(run.count_lines(f) for f in files)
    cmd = [run.KG, "build", *map(str, files), "--store", str(store), "--workers", str(workers)]
    log(f"kg build: {len(files)} files, {records:,} records, --workers {workers} -> {store}")
    load0 = load()
    t0 = time.perf_counter()
    cpu0 = os.times()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=ENV)
    rss = run.RssSampler(proc.pid)
    loads: list[float] = []
    stop = threading.Event()

    def sample_load() -> None:
        while not stop.wait(30):
            loads.append(os.getloadavg()[0])

    threading.Thread(target=sample_load, daemon=True).start()
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    cpu1 = os.times()
    stop.set()
    peak = rss.stop()
    if proc.returncode != 0:
        raise RuntimeError(f"kg build failed ({proc.returncode}): {err[-3000:]}")
    m = re.search(r"built\s+(\d+)\s+papers\s+into.*?\sin\s+([\d.]+)\s+s", out + err, re.S)
    papers, inner = (int(m.group(1)), float(m.group(2))) if m else (0, wall)
    disk = run.du_mb(store)
    return {"files": len(files), "records": records, "workers": workers, "papers": papers, "wall_s": wall,
            "build_s": inner, "abstracts_per_s": papers / wall if papers else None,
            "abstracts_per_s_after_load": papers / inner if papers else None,
            "child_cpu_s": (cpu1.children_user + cpu1.children_system) - (cpu0.children_user + cpu0.children_system),
            "peak_rss_mb": peak, "disk_mb": disk, "disk_kb_per_paper": disk * 1e3 / papers if papers else None,
            "load_avg_start": load0, "load_avg_during": [round(x, 2) for x in loads], "load_avg_end": load(),
            "cli_tail": (out + err).strip().splitlines()[-3:]}


def kg_stats(store: Path, timeout: float = 600) -> dict[str, Any]:
    """`kg stats --json` on the closed store: time and the counts (quads = the store's own count)."""
    t0 = time.perf_counter()
    try:
        out = subprocess.run([run.KG, "stats", "--store", str(store), "--json"], capture_output=True, text=True,
                             cwd=ROOT, env=ENV, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"seconds": None, "timed_out_after_s": timeout}
    secs = time.perf_counter() - t0
    if out.returncode != 0:
        return {"seconds": secs, "error": out.stderr.strip()[-500:]}
    return {"seconds": secs, "stats": json.loads(out.stdout)}


def quads(store: Path) -> int:
    """Every quad of the store, all graphs (a fresh interpreter: the store is closed again after)."""
    code = ("import sys; from kg.store.embedded import EmbeddedStore; s = EmbeddedStore(sys.argv[1], "
            f"base_iri={run.BASE!r}); print(s.triple_count()); s.close()")
    out = subprocess.run([run.PY, "-c", code, str(store)], capture_output=True, text=True, cwd=ROOT, env=ENV,
                         timeout=1800)
    return int(out.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------------------------
# serve
# ---------------------------------------------------------------------------------------------------
class Server:
    """`kg serve` on the store in its own process; peak RSS sampled; stopped on exit."""

    def __init__(self, store: Path) -> None:
        self.port = run.free_port()
        self.url = f"http://127.0.0.1:{self.port}/graphql"
        self.store = store
        self._local = threading.local()

    def __enter__(self) -> Server:
        import httpx

        env = {**ENV, "KG_API_TOKEN": TOKEN}
        t0 = time.perf_counter()
        self.proc = subprocess.Popen([run.KG, "serve", "--store", str(self.store), "--port", str(self.port),
                                      "--no-sample"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        self.rss = run.RssSampler(self.proc.pid)
        with httpx.Client(timeout=5) as cli:
            while time.perf_counter() - t0 < 180:
                if self.proc.poll() is not None:
                    tail = self.proc.stderr.read().decode(errors="replace")[-2000:] if self.proc.stderr else ""
                    raise RuntimeError(f"kg serve exited: {tail}")
                try:
                    cli.get(f"http://127.0.0.1:{self.port}/graphql?query=%7B__typename%7D")
                    break
                except httpx.HTTPError:
                    time.sleep(0.05)
        self.startup_s = time.perf_counter() - t0
        return self

    def __exit__(self, *exc: Any) -> None:
        self.peak_rss_mb = self.rss.stop()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def client(self) -> Any:
        """This thread's keep-alive client (a new httpx client costs ~10-50 ms: its SSL context)."""
        import httpx

        if getattr(self._local, "cli", None) is None:
            self._local.cli = httpx.Client()
        return self._local.cli

    def call(self, query: str, variables: dict[str, Any] | None = None, timeout: float = 60.0,
             token: bool = False) -> tuple[float, int, Any]:
        """(ms, HTTP status, JSON body or None) of one GraphQL POST."""
        import httpx

        headers = {"Authorization": f"Bearer {TOKEN}"} if token else {}
        cli = self.client()
        t = time.perf_counter()
        try:
            r = cli.post(self.url, json={"query": query, "variables": variables or {}}, headers=headers,
                         timeout=timeout)
            ms = (time.perf_counter() - t) * 1000
            try:
                body = r.json()
            except ValueError:
                body = None
            return ms, r.status_code, body
        except httpx.HTTPError as e:
            return (time.perf_counter() - t) * 1000, 0, {"error": type(e).__name__}


def ok(status: int, body: Any) -> bool:
    return status == 200 and isinstance(body, dict) and not body.get("errors")


def timed(srv: Server, name: str, args: dict[str, Any]) -> dict[str, Any]:
    ms, status, body = srv.call(Q[name], args.get(name))
    return {"ms": round(ms, 1), "ok": ok(status, body), "status": status,
            **({} if ok(status, body) else {"body": str(body)[:300]})}


def warm(srv: Server, name: str, args: dict[str, Any], calls: int) -> dict[str, Any]:
    lat, bad = [], 0
    for _ in range(calls):
        ms, status, body = srv.call(Q[name], args.get(name))
        lat.append(ms)
        bad += not ok(status, body)
    return {"calls": calls, "p50_ms": round(run.median(lat), 2), "p99_ms": round(run.pct(lat, 99), 2),
            "max_ms": round(max(lat), 1), "errors": bad}


def concurrent_stats(srv: Server, n: int = 16) -> dict[str, Any]:
    """`n` simultaneous `{ stats { papers } }`, 5 s client timeout (the server's own limit)."""
    res: list[tuple[float, int]] = []
    lock = threading.Lock()
    go = threading.Event()

    def one() -> None:
        srv.client()  # connect-ready before the start signal
        go.wait()
        ms, status, body = srv.call("{ stats { papers } }", timeout=5.0)
        with lock:
            res.append((ms, status if ok(status, body) or status != 200 else -1))

    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    t0 = time.perf_counter()
    go.set()
    for t in threads:
        t.join()
    lat = [r[0] for r in res]
    return {"clients": n, "ok": sum(r[1] == 200 for r in res), "statuses": sorted({r[1] for r in res}),
            "all_done_ms": round((time.perf_counter() - t0) * 1000, 1), "p50_ms": round(run.median(lat), 1),
            "max_ms": round(max(lat), 1)}


def serve(store: Path, calls: int) -> dict[str, Any]:
    out: dict[str, Any] = {"load_avg_start": load(), "first_after_start": {}, "first_after_write": {},
                           "warm": {}, "warm_after_write": {}}
    args: dict[str, Any] = {}
    with Server(store) as srv:  # find the arguments: the most popular dataset (by paper count)
        _, st, body = srv.call("{ entities(type: DATASET, first: 1) { edges { node { id name paperCount } } } }",
                               timeout=300)
        if not ok(st, body):
            raise RuntimeError(f"entities(type: DATASET) failed: {st} {str(body)[:500]}")
        top = body["data"]["entities"]["edges"][0]["node"]
        out["top_dataset"] = top
        args["papers(dataset: top)"] = {"a": top["name"]}
        args["neighborhood(top, depth 1)"] = {"a": top["id"]}
        args["neighborhood(top, depth 2)"] = {"a": top["id"]}
        out["startup_s"] = srv.startup_s
    for name in Q:  # a fresh server per query: its first call after start (the store's pages may be cached)
        with Server(store) as srv:
            log(f"  first after start: {name}")
            out["first_after_start"][name] = {**timed(srv, name, args), "startup_s": round(srv.startup_s, 2)}
    with Server(store) as srv:
        log("  16 concurrent stats, fresh server")
        out["concurrent_stats_first"] = concurrent_stats(srv)
        for name in Q:
            log(f"  warm: {name}")
            timed(srv, name, args)
            out["warm"][name] = warm(srv, name, args, calls)
        out["concurrent_stats_warm"] = concurrent_stats(srv)
        # the server loads the extractor on its first mutation (seconds): that request may hit the 5 s limit
        # (503, nothing written); the loading goes on, so it is retried and reported, not counted below
        first = []
        for _ in range(5):
            ms, st, body = srv.call(ADD, {"p": [{**NEW_PAPER, "id": f"bench-corpus-{os.getpid()}-w"}]},
                                    timeout=120, token=True)
            first.append({"ms": round(ms, 1), "status": st, "ok": ok(st, body)})
            if ok(st, body):
                break
            time.sleep(5)
        out["first_add_papers"] = first
        for i, name in enumerate(Q):  # one-paper addPapers (a new id each time), then the query's first call
            paper = {**NEW_PAPER, "id": f"bench-corpus-{os.getpid()}-{i}"}
            ms, st, body = srv.call(ADD, {"p": [paper]}, timeout=120, token=True)
            out.setdefault("add_papers_ms", []).append(round(ms, 1))
            if not ok(st, body):
                raise RuntimeError(f"addPapers failed: {st} {str(body)[:500]}")
            out["first_after_write"][name] = timed(srv, name, args)
        paper = {**NEW_PAPER, "id": f"bench-corpus-{os.getpid()}-c"}
        srv.call(ADD, {"p": [paper]}, timeout=120, token=True)
        log("  16 concurrent stats right after a write")
        out["concurrent_stats_after_write"] = concurrent_stats(srv)
        for name in Q:
            out["warm_after_write"][name] = warm(srv, name, args, max(5, calls // 3))
        for i in range(len(Q)):  # leave the store as built (ids are unique to this run)
            srv.call("mutation($id: ID!) { deletePaper(id: $id) }", {"id": f"bench-corpus-{os.getpid()}-{i}"},
                     timeout=120, token=True)
        for suffix in ("c", "w"):
            srv.call("mutation($id: ID!) { deletePaper(id: $id) }", {"id": f"bench-corpus-{os.getpid()}-{suffix}"},
                     timeout=120, token=True)
    out["server_peak_rss_mb"] = srv.peak_rss_mb
    out["load_avg_end"] = load()
    return out


# ---------------------------------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------------------------------
def report(r: dict[str, Any]) -> str:
    b = r.get("build")
    lines = [f"# Whole-corpus build (`bench/corpus_build.py`), commit {r['commit']}, measured {r['measured_at']}", ""]
    if b:
        lines += [
            f"`kg build` of {b['records']:,} records in {b['files']} files, `--workers {b['workers']}`, under nice -n 10; "
            f"load average {b['load_avg_start'][0]} at the start, {b['load_avg_end'][0]} at the end "
            f"(during: {min(b['load_avg_during'] or [0]):.1f}–{max(b['load_avg_during'] or [0]):.1f}).", "",
            "| figure | value |", "| --- | --- |",
            f"| papers built | {b['papers']:,} |",
            f"| wall time (model load included) / the CLI's own figure | {b['wall_s']:,.0f} s / {b['build_s']:,.0f} s |",
            f"| abstracts/s (wall) | {b['abstracts_per_s']:.1f} |",
            f"| peak RSS, process tree | {b['peak_rss_mb']:,.0f} MB |",
            f"| disk after the build returned | {b['disk_mb']:,.0f} MB ({b['disk_kb_per_paper']:.1f} KB a paper) |",
        ]
        if r.get("quads"):
            lines.append(f"| quads (all graphs) | {r['quads']:,} ({r['quads'] / b['papers']:.1f} a paper) |")
    ks = r.get("kg_stats") or {}
    if ks:
        lines.append(f"| `kg stats` on the closed store | {ks['seconds']:.2f} s |" if ks.get("seconds") is not None
                     else f"| `kg stats` | not finished after {ks.get('timed_out_after_s')} s |")
    s = r.get("serve")
    if s:
        top = s["top_dataset"]
        lines += ["", f"`kg serve` on the store, GraphQL over HTTP on 127.0.0.1 (load average {s['load_avg_start'][0]} → "
                  f"{s['load_avg_end'][0]}); most popular dataset: {top['name']} ({top['paperCount']:,} papers); "
                  f"server start to first answer {s['startup_s']:.1f} s; server peak RSS {s['server_peak_rss_mb']:,.0f} MB; "
                  f"one-paper addPapers (extraction + write) {run.median(s['add_papers_ms']):.0f} ms median; the server's first "
                  f"addPapers (loads the extractor): " + ", ".join(f"{d['status']} in {d['ms']:,.0f} ms" for d in s.get('first_add_papers', [])) + ".", "",
                  "| query | first call after start, ms | first call after a 1-paper addPapers, ms | warm p50 / p99 ms | warm after writes p50 / p99 ms |",
                  "| --- | --- | --- | --- | --- |"]
        for name in Q:
            f, w, ww, fa = (s["first_after_start"][name], s["warm"][name], s["warm_after_write"][name],
                            s["first_after_write"][name])
            lines.append(f"| `{name}` | {f['ms']:,.0f}{mark(f)} | {fa['ms']:,.0f}{mark(fa)} | {w['p50_ms']:.1f} / {w['p99_ms']:.1f}"
                         f"{' (' + str(w['errors']) + ' errors)' if w['errors'] else ''} | {ww['p50_ms']:.1f} / {ww['p99_ms']:.1f} |")
        lines += ["", "| 16 concurrent `{ stats { papers } }` (5 s timeout) | answered | all done, ms | max ms |", "| --- | --- | --- | --- |"]
        for key, label in (("concurrent_stats_first", "first requests of a fresh server"),
                           ("concurrent_stats_warm", "warm"), ("concurrent_stats_after_write", "right after a write")):
            c = s[key]
            lines.append(f"| {label} | {c['ok']} / {c['clients']} | {c['all_done_ms']:,.0f} | {c['max_ms']:,.0f} |")
    return "\n".join(lines) + "\n"


def mark(d: dict[str, Any]) -> str:
    return "" if d["ok"] else f" (failed: {d['status']})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", type=Path, default=run.WORK / "corpus-store")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--phase", choices=("all", "build", "serve"), default="all")
    ap.add_argument("--keep", action="store_true", help="keep the store (default: delete it at the end)")
    ap.add_argument("--results", type=Path, default=RESULTS, help="where corpus_build.json/.md go")
    a = ap.parse_args()
    dest = a.results / "corpus_build.json"
    r: dict[str, Any] = json.loads(dest.read_text()) if dest.exists() and a.phase == "serve" else {}
    r.update(commit=run.git_commit(), measured_at=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
             machine=run.machine())
    if a.phase in ("all", "build"):
        r["build"] = build(a.store, a.workers)
        log(f"built {r['build']['papers']:,} papers in {r['build']['wall_s']:.0f} s; quads and kg stats")
        r["quads"] = quads(a.store)
        r["kg_stats"] = kg_stats(a.store)
        dest.write_text(json.dumps(r, indent=1))
    if a.phase in ("all", "serve"):
        r["serve"] = serve(a.store, a.calls)
        r["serve"]["commit"] = run.git_commit()
    dest.write_text(json.dumps(r, indent=1))
    (a.results / "corpus_build.md").write_text(report(r))
    print(report(r))
    if not a.keep:  # the store and the full-text index kept beside it (<store>.search.sqlite, -wal, -shm)
        shutil.rmtree(a.store, ignore_errors=True)
        for f in a.store.parent.glob(a.store.name + ".search.sqlite*"):
            f.unlink()


if __name__ == "__main__":
    main()
