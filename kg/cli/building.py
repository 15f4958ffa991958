"""`kg build`, `kg extract` and `kg load`: from input files to a store, to JSON lines, or from shards."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from kg.cli.common import (
    BaseOpt,
    BuildProgress,
    Inputs,
    StoreOpt,
    app,
    err,
    fail,
    open_or_fail,
    read_or_fail,
)
from kg.settings import DEFAULT_BASE_IRI
from kg.store.types import Store, StoreError

if TYPE_CHECKING:
    from kg.build import BuildSummary
    from kg.query import Stats


@app.command()
def build(
    inputs: Inputs,
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
    workers: Annotated[int, typer.Option(envvar="KG_WORKERS", help="Extraction processes.")] = 1,
    out: Annotated[Path | None, typer.Option("--out", help="Write N-Quads here instead of a store.")] = None,
    batch: Annotated[int, typer.Option(help="Papers per store transaction.")] = 200,
    progress_every: Annotated[float, typer.Option(
        "--progress-every", help="Seconds between progress lines when not on a terminal.")] = 10.0,
    cluster: Annotated[str | None, typer.Option(
        "--cluster", envvar="KG_CLUSTER",
        help="Extract on a Dask cluster: a scheduler address (tcp://HOST:8786) or local:N (N processes)."
    )] = None,
) -> None:
    """Read papers, extract their links and write one named graph per paper (replacing older versions)."""
    from kg.build import BuildSummary, build_fresh, build_into_store, is_fresh, write_shard

    if cluster is not None:
        from kg.cluster import ClusterError, parse_cluster

        try:
            parse_cluster(cluster)
        except ClusterError as exc:
            fail(str(exc))
    papers, problems = read_or_fail(inputs)
    summary = BuildSummary(problems=problems, inputs=[str(i) for i in inputs])
    stored: Stats | None = None
    with BuildProgress(len(papers), every_s=progress_every) as tick:
        try:
            if out is not None:
                with open(out, "wb") as fh:
                    write_shard(fh, papers, base_iri, workers=workers, progress=tick, summary=summary,
                                cluster=cluster)
            elif is_fresh(store):  # a new store: built beside it and renamed into place when complete
                build_fresh(store, papers, base_iri, workers=workers, progress=tick, summary=summary,
                            cluster=cluster)
                st = open_or_fail(store, base_iri)
                try:
                    stored = _store_stats(st, base_iri)
                finally:
                    st.close()
            else:
                st = open_or_fail(store, base_iri)
                try:
                    build_into_store(
                        st,
                        papers,
                        base_iri,
                        workers=workers,
                        batch_size=batch,
                        progress=tick,
                        summary=summary,
                        cluster=cluster,
                    )
                    stored = _store_stats(st, base_iri)
                finally:
                    st.close()
        except typer.Exit:
            raise  # open_or_fail has printed its one line (typer.Exit is a RuntimeError too)
        except (StoreError, OSError, RuntimeError) as exc:  # RuntimeError: kg.cluster.ClusterError
            fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    _print_summary(summary, tick, stored, out or store)


def _store_stats(st: Store, base_iri: str) -> Stats:
    """The store's counts from kg.query.stats, the function `kg stats` prints: one source of truth."""
    from kg.query import QueryContext
    from kg.query import stats as graph_stats

    return graph_stats(QueryContext.open(st, base_iri))


def _print_summary(s: BuildSummary, progress: BuildProgress, stored: Stats | None, where: object) -> None:
    """The build's own figures (papers, bad records, time, rate after start-up), then the counts: the
    store's, as `kg stats` gives them, or for --out what was written to the shard."""
    from rich.table import Table

    rate = f"{progress.rate:.1f} papers/s after {progress.startup_s:.1f} s of start-up"
    console = Console()
    title = f"built {s.papers} papers into {where} in {s.seconds:.1f} s ({rate})"
    console.print(escape(title), soft_wrap=True)
    t = Table(show_header=False)
    t.add_row("papers built", str(s.papers))
    t.add_row("bad records", str(s.problems))
    if stored is not None:
        t.add_row("papers in store", str(stored.papers))
        for rel, n in stored.links_per_relation.items():
            t.add_row(f"links {rel}", str(n))
        for typ, n in stored.entities_per_type.items():
            t.add_row(f"entities {typ}", str(n))
        t.add_row("triples in store", str(stored.triples))
    else:
        for rel, n in sorted(s.links_per_relation.items()):
            t.add_row(f"links {rel} (extracted)", str(n))
        for typ, n in sorted(s.entities_per_type.items()):
            t.add_row(f"entities {typ} (extracted)", str(n))
        t.add_row("quads written", str(s.triples))
    console.print(t)


@app.command()
def extract(
    inputs: Inputs,
    fmt: Annotated[str, typer.Option("--format", help="jsonl")] = "jsonl",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
    workers: Annotated[int, typer.Option(envvar="KG_WORKERS", help="Extraction processes.")] = 1,
) -> None:
    """Print the links found in each paper as JSON lines (no store needed), in input order."""
    from kg.build import extractions
    from kg.extract import to_json

    if fmt != "jsonl":
        fail(f"unknown format {fmt!r}; use jsonl")
    papers, _ = read_or_fail(inputs)
    out = sys.stdout
    for ex in extractions(papers, base_iri, workers):
        out.write(json.dumps(to_json(ex), ensure_ascii=False) + "\n")
    out.flush()


@app.command()
def load(
    files: Annotated[list[Path], typer.Argument(help="N-Quads shards from `kg build --out`.")],
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
) -> None:
    """Bulk-load N-Quads shards into a store (each paper graph replaces its older version)."""
    from kg.build import load_shards

    for f in files:
        if not f.is_file():
            fail(f"{f}: no such file")
    st = open_or_fail(store, base_iri)
    try:
        for f in files:
            n = load_shards(st, [f], base_iri)
            err.print(f"loaded {n} papers from {f}")
    except (StoreError, OSError, SyntaxError, ValueError) as exc:
        fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    finally:
        st.close()
