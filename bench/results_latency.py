"""Leaderboard latency: `results(dataset: "ImageNet")` in-process over a store of real corpus abstracts.

    python bench/results_latency.py make-input --n 10000 -o /tmp/results10k.jsonl   # held-out ids left out
    nice -n 10 kg build /tmp/results10k.jsonl --store /tmp/results10k-store --workers 2
    python bench/results_latency.py measure --store /tmp/results10k-store [--json FILE]

`measure` times kg.query.results.leaderboard(ctx, "ImageNet", first=20) two ways: cold (a fresh per-generation
memo each run: the SPARQL queries and ranking run every time) and warm (the memo the API keeps between
requests), and reports p50/p90 of each, with the store's paper and result counts.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "data" / "corpus"
HELD_OUT = ROOT / "tests" / "data" / "heldout_corpus_ids.txt"
# venues where ImageNet-style leaderboards are common, plus the rest of the corpus for realism
VENUES = ("cvpr", "iccv", "eccv", "wacv", "iclr", "nips", "icml", "aaai", "ijcai", "acl", "naacl", "coling")


def make_input(n: int, out: Path, seed: int) -> None:
    held = set(HELD_OUT.read_text(encoding="utf-8").split())
    files = sorted(p for p in CORPUS.glob("*.jsonl.gz") if p.name.split("_")[0] in VENUES)
    records: list[dict[str, object]] = []
    for path in files:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for i, line in enumerate(fh, 1):
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                rid = str(r.get("id") or "")
                if rid in held or not r.get("abstract"):
                    continue
                if not rid or rid.endswith("None"):
                    rid = f"{path.name.split('.')[0]}-{i}"  # some corpus files give every record the same id
                records.append({"id": rid, "title": r.get("title"), "abstract": r["abstract"],
                                "year": r.get("year"), "venue": r.get("venue")})
    random.Random(seed).shuffle(records)
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records[:n]), encoding="utf-8")
    print(f"{min(n, len(records))} records from {len(files)} files -> {out}")


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def measure(store_dir: str, runs: int, dataset: str, out: Path | None) -> None:
    from kg.query import QueryContext
    from kg.query.memo import GenerationCache
    from kg.query.results import leaderboard, result_count
    from kg.query.stats import stats
    from kg.settings import DEFAULT_BASE_IRI
    from kg.store import open_store

    store = open_store(store_dir, base_iri=DEFAULT_BASE_IRI, read_only=True, create=False)
    ctx = QueryContext.open(store)
    papers, results = stats(ctx).papers, result_count(ctx)
    page = leaderboard(ctx, dataset, first=20)
    cold: list[float] = []
    for _ in range(runs):
        ctx.memo = GenerationCache()
        t = time.perf_counter()
        leaderboard(ctx, dataset, first=20)
        cold.append((time.perf_counter() - t) * 1000)
    warm: list[float] = []
    for _ in range(runs):
        t = time.perf_counter()
        leaderboard(ctx, dataset, first=20)
        warm.append((time.perf_counter() - t) * 1000)
    report = {
        "store": store_dir,
        "papers": papers,
        "results": results,
        "dataset": dataset,
        "rows_on_board": page.total,
        "runs": runs,
        "load_average_1m": round(os.getloadavg()[0], 2),  # the machine is shared: timings scale with it
        "cpus": os.cpu_count(),
        "cold_ms": {"p50": round(statistics.median(cold), 2), "p90": round(_pct(cold, 0.9), 2)},
        "warm_ms": {"p50": round(statistics.median(warm), 3), "p90": round(_pct(warm, 0.9), 3)},
        "top": [
            {"rank": r.rank, "value": r.value, "unit": r.unit, "metric": r.metric.name, "paper": r.paper.id}
            for r in page.items[:5]
        ],
    }
    print(json.dumps(report, indent=1))
    if out is not None:
        out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    store.close()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    mk = sub.add_parser("make-input")
    mk.add_argument("--n", type=int, default=10_000)
    mk.add_argument("-o", "--out", type=Path, required=True)
    mk.add_argument("--seed", type=int, default=14)
    me = sub.add_parser("measure")
    me.add_argument("--store", required=True)
    me.add_argument("--runs", type=int, default=50)
    me.add_argument("--dataset", default="ImageNet")
    me.add_argument("--json", type=Path, default=None)
    a = ap.parse_args(argv)
    if a.cmd == "make-input":
        make_input(a.n, a.out, a.seed)
    else:
        measure(a.store, a.runs, a.dataset, a.json)


if __name__ == "__main__":
    sys.exit(main())
