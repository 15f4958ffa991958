# ruff: noqa: E501  (table rows read better unwrapped)
"""Store growth (issue 15 part 4): the embedded store and an Oxigraph server at several sizes, a fitted
growth model and projections to 1M and 10M papers, and the growth curve as a picture.

    .venv/bin/python bench/scale_growth.py [--sizes 10000 100000 300000] [--http-seconds 5]

Per size (synthetic papers through the real mapping: `bench/run.py --step make_store`, bulk-loaded
beyond 10k with the write-time aggregates computed once after): load time, disk, peak RSS of the loader;
in-process contract-query p50/p99 over the embedded store and over SPARQL to `oxigraph serve` on the same
directory; HTTP req/s (16 clients, cold then warm) through `kg serve` over each; every contract query right
after a one-paper write ("cold after write"). Each measurement runs in a fresh interpreter. Results:
bench/results/growth.json, growth.md, growth.png. Stores live under $KG_BENCH_DIR (default
/tmp/paperkg-bench) and are reused between runs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # noqa: E402  (bench/run.py: steps, HTTP load, Oxigraph server)

RESULTS = run.RESULTS
QUERIES = list(run.GQL)


def measure(n: int, http_seconds: float) -> dict[str, Any]:
    run.log(f"store {n:,}")
    made = run.step("make_store", timeout=4 * 3600, n=n)
    out: dict[str, Any] = {"papers": n, "store": made, "embedded": {}, "server": {}}
    settle(out)
    run.log(f"  in-process, embedded {n:,}")
    out["embedded"]["inproc"] = run.step("inproc", n=n, iters=200, budget_s=8.0)
    run.log(f"  cold after write, embedded {n:,}")
    out["embedded"]["cold_after_write"] = run.step("cold_after_write", n=n, rounds=3)
    run.log(f"  HTTP, embedded {n:,}")
    out["embedded"]["http"] = run.bench_http(n, http_seconds, ["papers(dataset)"])
    with run.oxigraph_server(run.synth_store_path(n)) as (url, rss):
        run.log(f"  in-process over {url} {n:,}")
        out["server"]["inproc"] = run.step("inproc", n=n, iters=200, budget_s=8.0, store_url=url)
        run.log(f"  cold after write over the server {n:,}")
        out["server"]["cold_after_write"] = run.step("cold_after_write", n=n, rounds=3, store_url=url)
        run.log(f"  HTTP over the server {n:,}")
        out["server"]["http"] = run.bench_http(n, http_seconds, ["papers(dataset)"], store_url=url)
        out["server"]["oxigraph_peak_rss_mb"] = rss.peak
    return out


def settle(r: dict[str, Any]) -> None:
    """Disk after the store was closed and opened again (RocksDB flushes and compacts the write-ahead log
    the load left behind): what a served store occupies."""
    path = run.synth_store_path(r["papers"])
    if "disk_mb_settled" not in r and path.exists():
        from kg.store.embedded import EmbeddedStore

        EmbeddedStore(str(path), base_iri=run.BASE).close()
        r["disk_mb_settled"] = run.du_mb(path)


def fit(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares power law y = a * x^b on log-log axes (b ~ 1: linear, b ~ 0: flat)."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys, strict=True) if x > 0 and y > 0]
    if len(pts) < 2:
        return (ys[0] if ys else float("nan"), 0.0)
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    var = sum((p[0] - mx) ** 2 for p in pts)
    b = sum((p[0] - mx) * (p[1] - my) for p in pts) / var if var else 0.0
    return math.exp(my - b * mx), b


def series(res: list[dict[str, Any]]) -> dict[str, list[float]]:
    """The figures that grow with the store, per size, in plot/fit order."""
    s: dict[str, list[float]] = {"papers": [r["papers"] for r in res]}
    s["load s"] = [r["store"]["ingest_s"] + r["store"].get("aggregates_s", 0.0) for r in res]
    s["disk MB"] = [r["store"]["store_mb"] for r in res]
    if all("disk_mb_settled" in r for r in res):
        s["disk MB settled"] = [r["disk_mb_settled"] for r in res]
    s["quads"] = [r["store"]["quads"] for r in res]
    s["loader peak RSS MB"] = [r["store"].get("peak_rss_mb", float("nan")) for r in res]
    for where in ("embedded", "server"):
        for q in QUERIES:
            s[f"{where} {q} p50 ms"] = [r[where]["inproc"]["queries"][q]["gql_p50"] for r in res]
            s[f"{where} {q} p99 ms"] = [r[where]["inproc"]["queries"][q]["gql_p99"] for r in res]
            s[f"{where} {q} after write ms"] = [r[where]["cold_after_write"]["queries"][q]["max_ms"] for r in res]
        s[f"{where} HTTP warm req/s"] = [r[where]["http"]["queries"]["papers(dataset)"]["req_s"] for r in res]
        s[f"{where} HTTP cold req/s"] = [r[where]["http"]["queries"]["papers(dataset)"]["cold_req_s"] for r in res]
        s[f"{where} API RSS MB"] = [r[where]["http"]["server_peak_rss_mb"] for r in res]
    s["oxigraph server RSS MB"] = [r["server"]["oxigraph_peak_rss_mb"] for r in res]
    return s


def corpus_point() -> dict[str, Any] | None:
    """The last real whole-corpus build (bench/corpus_build.py), shown beside the synthetic series."""
    path = RESULTS / "corpus_build.json"
    if not path.exists():
        return None
    r = json.loads(path.read_text())
    b = r.get("build")
    if not b or not b.get("papers"):
        return None
    return {"papers": b["papers"], "disk MB": b["disk_mb"], "build s": b["wall_s"], "quads": r.get("quads"),
            "peak RSS MB": b["peak_rss_mb"], "commit": r.get("commit", "?"), "measured_at": r.get("measured_at", "?"),
            "load": b.get("load_avg_during") or b.get("load_avg_start")}


def report(res: list[dict[str, Any]]) -> str:
    s = series(res)
    sizes = s["papers"]
    head = "| figure | " + " | ".join(f"{int(n):,}" for n in sizes) + " | fit (a·n^b): b | 1M projected | 10M projected |"
    when = "; ".join(f"{r['papers']:,}: store from commit {r['store'].get('commit', '?')}, measured "
                     f"{r.get('measured_at', '?')} at load average {r.get('load_avg', [float('nan')])[0]:.1f}"
                     for r in res)
    lines = [f"Synthetic papers through the real mapping ({when}). Load average 2 = this machine's 2 cores "
             "busy; above that other sessions' work competes, and latencies grow with it.", "",
             head, "|" + " --- |" * (len(sizes) + 4)]
    for key, ys in s.items():
        if key == "papers":
            continue
        a, b = fit(sizes, ys)
        proj = [a * m**b for m in (1e6, 1e7)]
        lines.append(f"| {key} | " + " | ".join(f"{y:,.1f}" for y in ys) + f" | {b:.2f} | {proj[0]:,.0f} | {proj[1]:,.0f} |")
    c = corpus_point()
    if c:
        n = c["papers"]
        per = [f"disk {c['disk MB'] * 1e3 / n:.1f} KB a paper right after the build"]
        if c["quads"]:
            per.append(f"{c['quads'] / n:.1f} quads a paper")
        lines += ["", f"Real corpus build (`bench/corpus_build.py`, commit {c['commit']}, {c['measured_at']}): {n:,} papers, "
                  f"`kg build --workers 2` in {c['build s']:,.0f} s ({n / c['build s']:.1f} papers/s), " + ", ".join(per)
                  + f", peak RSS {c['peak RSS MB']:,.0f} MB. Linear in papers (extraction and writes are per paper): "
                  f"1M ≈ {c['build s'] * 1e6 / n / 3600:,.1f} h and {c['disk MB'] * 1e6 / n / 1e3:,.0f} GB, "
                  f"10M ≈ {c['build s'] * 1e7 / n / 3600:,.0f} h and {c['disk MB'] * 1e7 / n / 1e3:,.0f} GB on this machine at that load."]
    return "\n".join(lines) + "\n"


def picture(res: list[dict[str, Any]], dest: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = series(res)
    n = s["papers"]
    proj = [*n, 1e6, 1e7]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    for ax, keys, title in (
        (axes[0], ["disk MB settled" if "disk MB settled" in s else "disk MB", "loader peak RSS MB", "embedded API RSS MB", "oxigraph server RSS MB"], "size (MB)"),
        (axes[1], ["load s"], "load time (s)"),
        (axes[2], [f"embedded {q} p99 ms" for q in ("papers(dataset)", "paper(id)+links", "neighborhood(id)")]
         + [f"server {q} p99 ms" for q in ("papers(dataset)", "paper(id)+links")], "query p99 (ms, in-process)"),
    ):
        for k in keys:
            a, b = fit(n, s[k])
            (line,) = ax.plot(n, s[k], "o-", label=f"{k} (b={b:.2f})")
            ax.plot(proj, [a * x**b for x in proj], "--", color=line.get_color(), alpha=0.5)
        c = corpus_point()
        real = {"size (MB)": ("disk MB", "peak RSS MB"), "load time (s)": ("build s",)}.get(title, ())
        for k, mk in zip(real, ("kx", "k+"), strict=False) if c else ():
            ax.plot([c["papers"]], [c[k]], mk, ms=9, label=f"real corpus kg build: {k}")  # type: ignore[index]
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("papers")
        ax.set_title(title)
        ax.axvline(1e6, color="grey", lw=0.5)
        ax.legend(fontsize=7)
    fig.suptitle("paperkg store growth: measured (dots) and fitted power law projected to 1M and 10M (dashed)")
    fig.tight_layout()
    fig.savefig(dest, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--http-seconds", type=float, default=5.0)
    ap.add_argument("--report-only", action="store_true", help="redraw growth.md/png from growth.json")
    a = ap.parse_args()
    path = RESULTS / "growth.json"
    if a.report_only:
        data = json.loads(path.read_text())
        res = data["sizes"]
        for r in res:
            settle(r)
        path.write_text(json.dumps({**data, "sizes": res}, indent=1))
    else:
        run.WORK.mkdir(parents=True, exist_ok=True)
        old = json.loads(path.read_text()) if path.exists() else {"sizes": []}
        fresh = {n: dict(measure(n, a.http_seconds), measured_at=time.strftime("%Y-%m-%d %H:%M"),
                         load_avg=os.getloadavg()) for n in a.sizes}
        # sizes measured before (and not now) are kept, so sizes can be measured in separate runs
        res = sorted([r for r in old["sizes"] if r["papers"] not in fresh] + list(fresh.values()),
                     key=lambda r: r["papers"])
        path.write_text(json.dumps({"machine": run.machine(), "sizes": res}, indent=1))
    (RESULTS / "growth.md").write_text(report(res))
    picture(res, RESULTS / "growth.png")
    print(report(res))


if __name__ == "__main__":
    main()
