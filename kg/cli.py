"""The `kg` command line: build, extract, export, load, sparql, stats, validate, eval, serve."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from kg.settings import DEFAULT_BASE_IRI, Settings
from kg.store.types import Store, StoreError
from kg.types import Paper, ReadProblem

if TYPE_CHECKING:
    from kg.build import BuildSummary

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="paperkg: knowledge graphs of ML research from paper records.",
)
err = Console(stderr=True, highlight=False)

StoreOpt = Annotated[
    str,
    typer.Option(
        "--store", envvar="KG_STORE", help="Store directory, memory:, or http(s):// SPARQL endpoint."
    ),
]
BaseOpt = Annotated[str, typer.Option("--base-iri", envvar="KG_BASE_IRI", help="Base IRI of the graph.")]
Inputs = Annotated[list[Path], typer.Argument(help="Input files: .txt, .jsonl, .json, .csv, .bib, .jsonl.gz")]
EXPORT_FORMATS = ("turtle", "nt", "nquads", "trig", "jsonld", "xml")
GRAPH_FORMATS = ("graphml", "gexf", "cyjs")
ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "icml2025_seed.jsonl"


def fail(message: str, code: int = 1) -> NoReturn:
    """Print one line and exit: the only way errors leave the CLI."""
    err.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True)
    raise typer.Exit(code)


def _problem(problem: ReadProblem) -> None:
    err.print(f"[yellow]warning:[/yellow] {escape(str(problem))}", soft_wrap=True)


def _open(location: str, base_iri: str, *, read_only: bool = False, create: bool = True) -> Store:
    from kg.store import open_store

    try:
        return open_store(location, base_iri=base_iri, read_only=read_only, create=create)
    except StoreError as exc:
        fail(str(exc))


def _papers(inputs: list[Path]) -> tuple[list[Paper], int]:
    from kg.build import read_all, unique_last

    problems = 0

    def on_problem(p: ReadProblem) -> None:
        nonlocal problems
        problems += 1
        _problem(p)

    papers = unique_last(read_all(inputs, on_problem))
    if not papers:
        fail(f"no paper could be read from {', '.join(str(i) for i in inputs)}")
    return papers, problems


@app.command()
def build(
    inputs: Inputs,
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
    workers: Annotated[int, typer.Option(help="Extraction processes.")] = 1,
    out: Annotated[Path | None, typer.Option("--out", help="Write N-Quads here instead of a store.")] = None,
    batch: Annotated[int, typer.Option(help="Papers per store transaction.")] = 200,
) -> None:
    """Read papers, extract their links and write one named graph per paper (replacing older versions)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from kg.build import BuildSummary, build_into_store, write_shard

    papers, problems = _papers(inputs)
    summary = BuildSummary(problems=problems, inputs=[str(i) for i in inputs])
    show = len(papers) >= 200 and sys.stderr.isatty()
    with Progress(
        TextColumn("extracting"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        disable=not show,
    ) as bar:
        task = bar.add_task("build", total=len(papers))

        def tick(n: int) -> None:
            bar.advance(task, n)

        try:
            if out is not None:
                with open(out, "wb") as fh:
                    write_shard(fh, papers, base_iri, workers=workers, progress=tick, summary=summary)
                triples = summary.triples
            else:
                st = _open(store, base_iri)
                try:
                    build_into_store(
                        st,
                        papers,
                        base_iri,
                        workers=workers,
                        batch_size=batch,
                        progress=tick,
                        summary=summary,
                    )
                    triples = st.triple_count()
                finally:
                    st.close()
        except (StoreError, OSError) as exc:
            fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    _print_summary(summary, triples, out or store, out is not None)


def _print_summary(s: BuildSummary, triples: int, where: object, shard: bool) -> None:
    from rich.table import Table

    rate = s.papers / s.seconds if s.seconds else 0.0
    t = Table(
        title=escape(f"built {s.papers} papers into {where} in {s.seconds:.1f} s ({rate:.0f} papers/s)"),
        show_header=False,
    )
    t.add_row("papers", str(s.papers))
    t.add_row("bad records", str(s.problems))
    for rel, n in sorted(s.links_per_relation.items()):
        t.add_row(f"links {rel}", str(n))
    for typ, n in sorted(s.entities_per_type.items()):
        t.add_row(f"entities {typ}", str(n))
    t.add_row("quads written" if shard else "triples in store", str(triples))
    Console().print(t)


@app.command()
def extract(
    inputs: Inputs,
    fmt: Annotated[str, typer.Option("--format", help="jsonl")] = "jsonl",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
    workers: Annotated[int, typer.Option(help="Extraction processes.")] = 1,
) -> None:
    """Print the links found in each paper as JSON lines (no store needed), in input order."""
    from kg.build import extractions
    from kg.extract import to_json

    if fmt != "jsonl":
        fail(f"unknown format {fmt!r}; use jsonl")
    papers, _ = _papers(inputs)
    out = sys.stdout
    for ex in extractions(papers, base_iri, workers):
        out.write(json.dumps(to_json(ex), ensure_ascii=False) + "\n")
    out.flush()


@app.command()
def export(
    fmt: Annotated[str, typer.Option("--format", help="|".join(EXPORT_FORMATS + GRAPH_FORMATS))] = "turtle",
    output: Annotated[Path | None, typer.Option("-o", "--output", help="File (default stdout).")] = None,
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
) -> None:
    """Serialise the whole graph as RDF, or as GraphML/GEXF/Cytoscape JSON for graph tools."""
    if fmt not in EXPORT_FORMATS + GRAPH_FORMATS:
        fail(f"unknown format {fmt!r}; use one of {', '.join(EXPORT_FORMATS + GRAPH_FORMATS)}")
    if fmt in GRAPH_FORMATS and output is None:
        fail(f"--format {fmt} needs -o FILE")
    st = _open(store, base_iri, read_only=True, create=False)
    try:
        if fmt in GRAPH_FORMATS:
            from kg.graphio import export as export_graph
            from kg.query import QueryContext

            g = export_graph(QueryContext.open(st, base_iri), fmt, output)  # type: ignore[arg-type]
            err.print(f"wrote {g.number_of_nodes()} nodes and {g.number_of_edges()} edges to {output}")
        elif output is None:
            st.dump(sys.stdout.buffer, fmt)
            sys.stdout.flush()
        else:
            with open(output, "wb") as fh:
                st.dump(fh, fmt)
    except (StoreError, OSError) as exc:
        fail(str(exc))
    finally:
        st.close()


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
    st = _open(store, base_iri)
    try:
        for f in files:
            n = load_shards(st, [f], base_iri)
            err.print(f"loaded {n} papers from {f}")
    except (StoreError, OSError, SyntaxError, ValueError) as exc:
        fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    finally:
        st.close()


@app.command()
def stats(
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Count papers, links per relation, entities per type and triples."""
    from rich.table import Table

    from kg.query import QueryContext
    from kg.query import stats as graph_stats

    st = _open(store, base_iri, read_only=True, create=False)
    try:
        s = graph_stats(QueryContext.open(st, base_iri))
    except StoreError as exc:
        fail(str(exc))
    finally:
        st.close()
    if as_json:
        print(
            json.dumps(
                {
                    "papers": s.papers,
                    "triples": s.triples,
                    "links_per_relation": s.links_per_relation,
                    "entities_per_type": s.entities_per_type,
                }
            )
        )
        return
    t = Table(title=f"{store}", show_header=False)
    t.add_row("papers", str(s.papers))
    for rel, n in s.links_per_relation.items():
        t.add_row(f"links {rel}", str(n))
    for typ, n in s.entities_per_type.items():
        t.add_row(f"entities {typ}", str(n))
    t.add_row("triples", str(s.triples))
    Console().print(t)


@app.command()
def validate(
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
    verbose: Annotated[bool, typer.Option("--verbose", "-v")] = False,
) -> None:
    """Check the graph against the SHACL shapes (ontology/shapes.ttl)."""
    from kg.rdf.validate import validate as run_validation
    from kg.store import as_rdflib

    st = _open(store, base_iri, read_only=True, create=False)
    try:
        report = run_validation(as_rdflib(st), base_iri)
    finally:
        st.close()
    if report.conforms:
        Console().print("conforms: the graph passes every SHACL shape")
        return
    if verbose:
        Console().print(report.text, markup=False)
    fail(f"{report.violations} SHACL violations (run with --verbose for details)")


@app.command()
def eval(
    gold: Annotated[Path, typer.Argument(help="Gold JSONL (GOLD_GUIDELINES format).")],  # noqa: A001
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List misses and false links.")] = False,
    as_json: Annotated[bool, typer.Option("--json")] = False,
    titles: Annotated[bool, typer.Option("--titles/--no-titles", help="Read titles too.")] = True,
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
) -> None:
    """Extract from the gold file's texts and score the links per category."""
    from kg.eval import evaluate, format_report
    from kg.extract import Extractor

    if not gold.is_file():
        fail(f"{gold}: no such file")
    report = evaluate(gold, Extractor(base_iri), with_title=titles)
    if as_json:
        print(json.dumps(report.rows))
    else:
        print(format_report(report, verbose=verbose))


@app.command()
def sparql(
    query: Annotated[str, typer.Argument(help="A SPARQL SELECT, ASK or CONSTRUCT query.")],
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
    timeout: Annotated[float, typer.Option(help="Seconds before the query is abandoned.")] = 30.0,
    limit: Annotated[int, typer.Option(help="Most rows returned.")] = 100_000,
) -> None:
    """Run a read-only SPARQL query (updates are refused) and print JSON results or Turtle."""
    import pyoxigraph as ox

    from kg.query.guard import ReadOnlyViolation, classify
    from kg.store.formats import prefixes

    try:
        form = classify(query).form
    except ReadOnlyViolation as exc:
        fail(str(exc))
    st = _open(store, base_iri, read_only=True, create=False)
    try:
        if form == "SelectQuery":
            rows = st.select(query, None, timeout_s=timeout, max_rows=limit)
            print(
                json.dumps(
                    [{k: str(v.value) for k, v in r.items()} for r in rows], ensure_ascii=False, indent=1
                )
            )
        elif form == "AskQuery":
            print(json.dumps(st.ask(query)))
        else:
            triples = st.construct(query)
            body = ox.serialize(triples, format=ox.RdfFormat.TURTLE, prefixes=prefixes(base_iri)) or b""
            sys.stdout.write(body.decode("utf-8"))
    except StoreError as exc:
        fail(str(exc).splitlines()[0])
    finally:
        st.close()


@app.command()
def viz(
    name_or_id: Annotated[str, typer.Argument(help="An entity name or alias, an entity id or a paper id.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="out.html, out.svg or out.png")],
    depth: Annotated[int, typer.Option(min=1, max=3)] = 1,
    limit: Annotated[int, typer.Option(min=1, max=500)] = 50,
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
) -> None:
    """Draw a node's neighbourhood: standalone HTML (interactive) or a static SVG/PNG picture."""
    from kg.query import QueryContext
    from kg.viz import viz as draw

    st = _open(store, base_iri, read_only=True, create=False)
    try:
        written = draw(QueryContext.open(st, base_iri), name_or_id, output, depth=depth, limit=limit)
    except (LookupError, ValueError) as exc:
        fail(str(exc).strip("'\""))
    finally:
        st.close()
    err.print(f"wrote {written}")


@app.command()
def serve(
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    sample: Annotated[
        bool, typer.Option(help="Build the bundled sample first when the store does not exist.")
    ] = True,
) -> None:
    """Serve GraphQL (/graphql), SPARQL (/sparql), RDF export (/export) and the explorer (/explore)."""
    import gc

    import uvicorn

    from api import create_app
    from kg.build import build_into_store

    settings = Settings.from_env(store=store, base_iri=base_iri)
    local = "://" not in store and not store.startswith("memory:")
    fresh = local and not Path(store).exists()
    st = _open(store, base_iri)
    if fresh and sample:
        if not SAMPLE.is_file():
            fail(f"no store at {store} and no bundled sample to build it from")
        err.print(f"no store at {store}: building the bundled sample ({SAMPLE.name}) first")
        papers, _ = _papers([SAMPLE])
        build_into_store(st, papers, base_iri)
    application = create_app(settings, st)
    gc.collect()
    gc.freeze()  # long-lived startup objects leave the GC's young generations: shorter pauses under load
    url = f"http://{host}:{port}"
    err.print(
        f"paperkg serving {store} at {url}/  (GraphQL {url}/graphql · explorer {url}/explore · "
        f"SPARQL {url}/sparql · export {url}/export)",
        soft_wrap=True,
    )
    if settings.api_token is None:
        err.print("mutations are off: set KG_API_TOKEN to enable addPapers/deletePaper")
    try:
        uvicorn.run(application, host=host, port=port, log_level="warning", access_log=False)
    finally:
        st.close()


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


__all__ = ["app", "main", "Settings"]
