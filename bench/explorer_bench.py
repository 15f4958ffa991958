"""Timings of the explorer's own requests over HTTP against `kg serve` on a synthetic graph (issue 13).

    .venv/bin/python bench/explorer_bench.py [--papers 10000] [--store DIR] [--sample 60]

Builds (or reuses) a store of N synthetic papers (bench/synth.py, Zipf-popular entities), starts `kg serve`
on it and times, per entity, the two requests the explorer sends when an entity is opened: its
co-occurrence map (`cooccurrence(id, first: 30)`, the drawn neighbourhood) and its papers per year
(`entity(id) { trend }`). Entities are a seeded uniform sample of those with papers plus the 10 most
popular; each is asked once cold (the first request for it since the server started) and once warm.
Writes bench/results/explorer_bench.md and .json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from soak import start_server  # type: ignore[import-not-found]  # noqa: E402

RING = """query Ring($id: ID!) { cooccurrence(id: $id, first: 30) { center more paperCount
  nodes { id label type papers shared } edges { source target relation weight } } }"""
TREND = "query Trend($id: ID!) { entity(id: $id) { trend { year papers share } } }"


def build(store: Path, n: int) -> float:
    from synth import synth_extractions  # type: ignore[import-not-found]

    from kg.build import ensure_schema, write_extractions
    from kg.rdf.iris import Iris
    from kg.rdf.mapping import GraphMapper
    from kg.settings import DEFAULT_BASE_IRI
    from kg.store import open_store

    t = time.perf_counter()
    st = open_store(str(store), base_iri=DEFAULT_BASE_IRI)
    ensure_schema(st, DEFAULT_BASE_IRI)
    write_extractions(st, synth_extractions(n, seed=7), GraphMapper(Iris(DEFAULT_BASE_IRI)), batch_size=500)
    st.close()
    return time.perf_counter() - t


def timed(client: httpx.Client, url: str, query: str, eid: str) -> float:
    t = time.perf_counter()
    r = client.post(url + "/graphql", json={"query": query, "variables": {"id": eid}})
    dt = (time.perf_counter() - t) * 1000
    body = r.json()
    if r.status_code != 200 or body.get("errors"):
        raise RuntimeError(f"{eid}: {r.status_code} {body.get('errors')}")
    return dt


def entity_ids(client: httpx.Client, url: str) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    after = None
    while True:
        q = ("query E($after: String) { entities(first: 100, after: $after) { "
             "pageInfo { hasNextPage endCursor } edges { node { id paperCount } } } }")
        page = client.post(url + "/graphql", json={"query": q, "variables": {"after": after}}).json()
        conn = page["data"]["entities"]
        out += [(e["node"]["id"], e["node"]["paperCount"]) for e in conn["edges"] if e["node"]["paperCount"]]
        if not conn["pageInfo"]["hasNextPage"] or len(out) >= 20_000:
            return out
        after = conn["pageInfo"]["endCursor"]


def stats(xs: list[float]) -> dict[str, float]:
    xs = sorted(xs)
    p90 = xs[int(0.9 * (len(xs) - 1))]
    return {"n": len(xs), "p50": round(statistics.median(xs), 1), "p90": round(p90, 1),
            "max": round(xs[-1], 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--papers", type=int, default=10_000)
    ap.add_argument("--store", type=Path, default=Path("/tmp/paperkg-explorer-bench"))
    ap.add_argument("--sample", type=int, default=60)
    args = ap.parse_args()
    store = args.store / f"s{args.papers}"
    built = None
    if not store.exists():
        built = build(store, args.papers)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    proc, url = start_server(store)
    try:
        with httpx.Client(timeout=60) as client:
            ents = entity_ids(client, url)  # ranked by paper count
            rng = random.Random(13)
            top = [e for e, _ in ents[:10]]
            uniform = [e for e, _ in rng.sample(ents[10:], min(args.sample, len(ents) - 10))]
            res: dict[str, dict[str, list[float]]] = {}
            for name, ids in (("uniform", uniform), ("top10", top)):
                for kind, query in (("cooccurrence", RING), ("trend", TREND)):
                    cold = [timed(client, url, query, e) for e in ids]
                    warm = [timed(client, url, query, e) for e in ids]
                    res[f"{name}/{kind}/cold"] = cold
                    res[f"{name}/{kind}/warm"] = warm
    finally:
        proc.terminate()
        proc.wait(30)
    summary = {k: stats(v) for k, v in res.items()}
    counts = dict(ents)
    out = {"papers": args.papers, "load_average": load, "entities_with_papers": len(ents), "built_s": built,
           "top10_papers": [counts[e] for e in top], "timings_ms": summary}
    (ROOT / "bench" / "results").mkdir(exist_ok=True)
    (ROOT / "bench" / "results" / "explorer_bench.json").write_text(json.dumps(out, indent=1) + "\n")
    lines = [f"# Explorer requests over HTTP, {args.papers:,} synthetic papers "
             f"({len(ents):,} entities with papers)",
             "", "`bench/explorer_bench.py`; ms per request, one client on loopback, `kg serve` in its own "
             "process; load average at the start: " + load + ".",
             f"Top 10 entities' paper counts: {', '.join(str(counts[e]) for e in top)}.", "",
             "| entities | request | cache | n | p50 | p90 | max |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for k, s in summary.items():
        who, kind, cache = k.split("/")
        lines.append(f"| {who} | {kind} | {cache} | {s['n']} | {s['p50']} | {s['p90']} | {s['max']} |")
    (ROOT / "bench" / "results" / "explorer_bench.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
