"""How long upgrades take: `kg migrate` per 10k papers, and `kg reextract` against `kg build` in one run.

    .venv/bin/python bench/upgrade_bench.py [--migrate 10000] [--papers 1000] [--workers 1 2] [--quick]

migrate: synthetic papers (bench/synth.py, written through the build's mapping), rewritten into the
format-1 layout (no stamp, no kg:extractorVersion) and migrated in place with the library call `kg migrate`
makes; the time is scaled to 10k papers. reextract: the first N real abstracts of one corpus file
(../shared/data/corpus next to the repository, or KG_CORPUS; synthetic abstracts without it) are built
into a fresh store, then re-extracted from the store (`--force`, i.e. what an extractor version bump
costs) and dry-run, each with the same worker counts, in the same process, one after the other; rates
are papers per second and ratios are taken within this run. Results: bench/results/upgrade_bench.{md,json}.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import pyoxigraph as ox  # noqa: E402

from kg.settings import DEFAULT_BASE_IRI as BASE  # noqa: E402

RESULTS = ROOT / "bench" / "results"
CORPUS = Path(os.environ.get("KG_CORPUS", str(ROOT.parent / "shared" / "data" / "corpus")))
KG = BASE + "ontology#"
META = ox.NamedNode(BASE + "graph/meta")


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def downgrade_to_v1(path: Path) -> int:
    """The format-1 layout: no stamp and no kg:extractorVersion (the same rewrite the tests use)."""
    store = ox.Store(str(path))
    versions = list(store.quads_for_pattern(None, ox.NamedNode(KG + "extractorVersion"), None, None))
    for q in versions + list(store.quads_for_pattern(META, ox.NamedNode(KG + "formatVersion"), None, META)):
        store.remove(q)
    store.flush()
    del store
    return len(versions)


def synth_store(path: Path, n: int) -> None:
    """n synthetic papers mapped like a build, bulk-loaded (setting up is not what is measured)."""
    from synth import synth_extractions

    from kg.build import ensure_schema
    from kg.rdf.iris import Iris
    from kg.rdf.mapping import GraphMapper
    from kg.store.embedded import EmbeddedStore

    st = EmbeddedStore(str(path), base_iri=BASE)
    ensure_schema(st, BASE)
    mapper = GraphMapper(Iris(BASE))
    nq = path.with_suffix(".nq")
    with open(nq, "w", encoding="utf-8") as out:
        for ex in synth_extractions(n, seed=11):
            out.writelines(f"{q} .\n" for q in mapper.paper_quads(ex))
    st.load(str(nq), "nquads", bulk=True)
    st.close()
    del st
    nq.unlink()


def bench_migrate(n: int, work: Path, runs: int) -> dict[str, Any]:
    from kg.migrate import migrate
    from kg.store import open_store

    times = []
    for run in range(runs):
        loc = work / f"migrate-{n}-{run}"
        synth_store(loc, n)
        assert downgrade_to_v1(loc) == n
        st = open_store(str(loc), base_iri=BASE, upgrade=True)
        started = time.perf_counter()
        summary = migrate(st, BASE, batch_size=500)
        times.append(time.perf_counter() - started)
        st.close()
        del st
        assert summary.papers == {2: n}
        log(f"migrate {n} papers: {times[-1]:.2f} s")
        shutil.rmtree(loc)
    med = statistics.median(times)
    return {"papers": n, "runs": times, "seconds": med, "seconds_per_10k": med * 10_000 / n}


def real_papers(n: int, work: Path) -> tuple[Path, str]:
    """The first n records of the biggest recent corpus file, or synthetic abstracts without the corpus."""
    files = sorted(CORPUS.glob("*.jsonl.gz")) if CORPUS.is_dir() else []
    dest = work / f"input-{n}.jsonl.gz"
    if files:
        pick = next((f for f in files if f.name == "eccv_eccv2022.jsonl.gz"), files[-1])
        with gzip.open(pick, "rt", encoding="utf-8") as fh, gzip.open(dest, "wt", encoding="utf-8") as out:
            for i, line in enumerate(fh):
                if i >= n:
                    break
                out.write(line)
        return dest, f"first {n} records of {pick.name} (real abstracts)"
    from synth import synth_papers

    with gzip.open(dest, "wt", encoding="utf-8") as out:
        for p in synth_papers(n, seed=5):
            out.write(json.dumps({"id": p.id, "title": p.title, "abstract": p.abstract}) + "\n")
    return dest, f"{n} synthetic abstracts (no corpus at {CORPUS})"


def bench_reextract(n: int, workers: list[int], work: Path, runs: int) -> dict[str, Any]:
    from kg.build import build_into_store, read_all, unique_last
    from kg.reextract import reextract
    from kg.store import open_store

    path, source = real_papers(n, work)
    papers = unique_last(read_all([path], lambda p: None))
    rows = []
    for w in workers:
        build_t, dry_t, real_t = [], [], []
        for run in range(runs):  # build, dry run and reextract alternate, so load changes hit all three
            loc = work / f"reextract-w{w}-{run}"
            st = open_store(str(loc), base_iri=BASE)
            started = time.perf_counter()
            build_into_store(st, papers, BASE, workers=w, batch_size=200)
            build_t.append(time.perf_counter() - started)
            dry = reextract(st, BASE, force=True, dry_run=True, workers=w)
            real = reextract(st, BASE, force=True, workers=w)
            st.close()
            del st
            assert real.reextracted == len(papers) and real.changed == 0
            dry_t.append(dry.seconds)
            real_t.append(real.seconds)
            log(f"workers {w} run {run}: build {build_t[-1]:.1f} s, dry run {dry.seconds:.1f} s,"
                f" reextract {real.seconds:.1f} s")
            shutil.rmtree(loc)
        build_s, dry_s, real_s = (statistics.median(t) for t in (build_t, dry_t, real_t))
        row = {"workers": w, "papers": len(papers), "runs": runs, "build_s": build_t, "dry_run_s": dry_t,
               "reextract_s": real_t, "build_rate": len(papers) / build_s,
               "reextract_rate": len(papers) / real_s, "dry_run_rate": len(papers) / dry_s}
        row["reextract_vs_build"] = row["reextract_rate"] / row["build_rate"]
        row["reextract_s_per_10k"] = real_s * 10_000 / len(papers)
        rows.append(row)
    return {"source": source, "rows": rows}


def write_results(result: dict[str, Any]) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "upgrade_bench.json").write_text(json.dumps(result, indent=1) + "\n")
    m, r = result["migrate"], result["reextract"]
    lines = [
        "# Upgrade bench (`bench/upgrade_bench.py`)",
        "",
        f"Machine: {result['machine']}. Measured {result['when']}, one process; the cores were shared"
        " with other work, so compare the ratios within a run rather than absolute rates across runs"
        f" (load average at the end: {result.get('load_average_after', '?')}).",
        "",
        "## kg migrate (format 1 -> 2), synthetic papers",
        "",
        "| papers | runs (s) | median s | s per 10k papers |",
        "| --- | --- | --- | --- |",
        f"| {m['papers']:,} | {', '.join(f'{t:.2f}' for t in m['runs'])} | {m['seconds']:.2f} |"
        f" **{m['seconds_per_10k']:.2f}** |",
        "",
        f"## kg reextract vs kg build, {r['source']}",
        "",
        "Medians of the runs; spaCy loading is inside every figure (each run loads the extractor once).",
        "",
        "| workers | build papers/s | reextract papers/s | dry run papers/s | reextract / build |"
        " reextract s per 10k |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for x in r["rows"]:
        lines.append(f"| {x['workers']} | {x['build_rate']:.1f} | {x['reextract_rate']:.1f} |"
                     f" {x['dry_run_rate']:.1f} | {x['reextract_vs_build']:.2f} |"
                     f" {x['reextract_s_per_10k']:.0f} |")
    lines.append("")
    (RESULTS / "upgrade_bench.md").write_text("\n".join(lines))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--migrate", type=int, default=10_000, help="synthetic papers to migrate")
    ap.add_argument("--papers", type=int, default=1000, help="real abstracts to build and re-extract")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--runs", type=int, default=2, help="runs of each measurement (median)")
    ap.add_argument("--quick", action="store_true", help="2,000 papers to migrate, 200 to re-extract")
    args = ap.parse_args()
    if args.quick:
        args.migrate, args.papers, args.runs = 2000, 200, 1
    import pyoxigraph
    import spacy

    machine = (f"{os.cpu_count()} vCPU, CPython {platform.python_version()},"
               f" pyoxigraph {pyoxigraph.__version__}, spaCy {spacy.__version__}")
    with tempfile.TemporaryDirectory(prefix="kg-upgrade-bench-") as tmp:
        work = Path(tmp)
        result = {"machine": machine, "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                  "migrate": bench_migrate(args.migrate, work, args.runs),
                  "reextract": bench_reextract(args.papers, args.workers, work, args.runs)}
    result["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    write_results(result)
    print((RESULTS / "upgrade_bench.md").read_text())


if __name__ == "__main__":
    main()
