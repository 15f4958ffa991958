"""Trends at scale: the first call of each trending question on a 50k-paper synthetic store, then the next.

    .venv/bin/python bench/trends_bench.py [--papers 50000] [--rebuild]

Builds (once, cached under $KG_BENCH_DIR, default /tmp/paperkg-bench) a synthetic store (`bench/synth.py`:
seven venues, 2015-2025) by bulk load and `kg.write.rebuild_aggregates` (`--rebuild` recomputes the
aggregates of a cached store, e.g. after a format change). Each question is then asked through a fresh
`QueryContext` (nothing cached: what a server's first request pays) and once more (cached), in one process.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from synth import bulk_load  # noqa: E402

from kg.settings import DEFAULT_BASE_IRI as BASE  # noqa: E402

WORK = Path(os.environ.get("KG_BENCH_DIR", "/tmp/paperkg-bench"))
SEED = 7


def make_store(n: int, rebuild: bool) -> tuple[Path, dict[str, Any]]:
    """The cached store of `n` synthetic papers (built when missing; aggregates recomputed on `rebuild`)."""
    from kg.build import ensure_schema
    from kg.rdf.iris import Iris
    from kg.rdf.mapping import GraphMapper
    from kg.store.embedded import EmbeddedStore
    from kg.write import rebuild_aggregates

    path = WORK / f"trends-{n}-s{SEED}" / "kg"
    done = path.parent / "done.json"
    if done.exists() and not rebuild:
        return path, dict(json.loads(done.read_text()), cached=True)
    fresh = not done.exists()
    if fresh:
        shutil.rmtree(path.parent, ignore_errors=True)
        path.parent.mkdir(parents=True)
    store = EmbeddedStore(str(path), base_iri=BASE)
    t0 = time.perf_counter()
    if fresh:
        ensure_schema(store, BASE)
        bulk_load(store, GraphMapper(Iris(BASE)), n, SEED)
    t1 = time.perf_counter()
    rebuild_aggregates(store, Iris(BASE))
    res = {"papers": n, "load_s": t1 - t0, "rebuild_aggregates_s": time.perf_counter() - t1}
    store.close()
    done.write_text(json.dumps(res))
    return path, res


def walk(ctx: Any, type_: Any) -> dict[str, Any]:
    """How `trending` read every entity's years before: the type's count buckets, their members, then each
    member's node (2,000 a query); kept here to measure the old first call against the new in one run."""
    from kg.query.counts import bucket_members, layout_of, stored_buckets, stored_entities
    from kg.types import ENTITY_TYPES

    layout = layout_of(ctx)
    types = [type_] if type_ else list(ENTITY_TYPES)
    buckets = stored_buckets(ctx.store, layout, types)
    names = [layout.bucket(t, n) for t in types for n in buckets.get(t, {})]
    members = [e for found in bucket_members(ctx.store, layout, names).values() for e in found]
    return {i: c.years for i, c in stored_entities(ctx.store, layout, members).items() if c.years}


def questions() -> dict[str, Callable[[Any], Any]]:
    """The trending questions the API and `kg trend` ask, by name."""
    from kg.query import trends

    two = ["ICML", "NeurIPS"]
    out: dict[str, Callable[[Any], Any]] = {
        "before: bucket walk of Method's years": lambda ctx: walk(ctx, "Method"),
        "before: bucket walk of every type's years": lambda ctx: walk(ctx, None),
        "trending(Method, since 2023)": lambda ctx: trends.trending(ctx, "Method", 2023, 10),
        "trending(Dataset, since 2023)": lambda ctx: trends.trending(ctx, "Dataset", 2023, 10),
        "trending(any type, since 2024)": lambda ctx: trends.trending(ctx, None, 2024, 10),
        "trend(dataset)": lambda ctx: trends.entity_trend(ctx, ctx.iris.base + "dataset/imagenet"),
    }
    out.update({
        "trending(Method, 2023, venues ICML+NeurIPS)":
            lambda ctx: trends.trending(ctx, "Method", 2023, 10, venues=two),
        "trending(Method, 2023, normalize VENUE)":
            lambda ctx: trends.trending(ctx, "Method", 2023, 10, normalize="VENUE"),
        "trending(any type, 2024, normalize VENUE)":
            lambda ctx: trends.trending(ctx, None, 2024, 10, normalize="VENUE"),
        "trend(dataset, venues ICML+NeurIPS, VENUE)":
            lambda ctx: trends.entity_trend(ctx, ctx.iris.base + "dataset/imagenet", two, "VENUE"),
    })
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--papers", type=int, default=50_000)
    ap.add_argument("--rebuild", action="store_true", help="recompute the cached store's aggregates")
    a = ap.parse_args()
    from kg.query import QueryContext
    from kg.store.embedded import EmbeddedStore

    path, built = make_store(a.papers, a.rebuild)
    print(f"store: {a.papers} papers {json.dumps(built)}", flush=True)
    store = EmbeddedStore(str(path), base_iri=BASE, read_only=True)
    results: dict[str, dict[str, float]] = {}
    for name, ask in questions().items():
        ctx = QueryContext.open(store, BASE)  # a fresh context: no cached answer
        t = time.perf_counter()
        found = ask(ctx)
        first = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        ask(ctx)
        again = (time.perf_counter() - t) * 1000
        results[name] = {"first_ms": first, "cached_ms": again, "rows": len(found)}
        print(f"{name:48} first {first:8.1f} ms   cached {again:7.1f} ms   ({len(found)} rows)", flush=True)
    store.close()
    print(json.dumps({"papers": a.papers, "results": results}))


if __name__ == "__main__":
    main()
