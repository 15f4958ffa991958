"""`kg export`, `stats`, `validate`, `eval`, `sparql` and `viz`: reading a store."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from kg.cli.common import (
    EXPORT_FORMATS,
    GRAPH_FORMATS,
    BaseOpt,
    StoreOpt,
    app,
    entity_types,
    err,
    fail,
    open_or_fail,
)
from kg.settings import DEFAULT_BASE_IRI
from kg.store.types import StoreError


@app.command()
def export(
    fmt: Annotated[str | None, typer.Option(
        "--format", help="|".join(EXPORT_FORMATS + GRAPH_FORMATS) + " (default: -o's extension, else turtle)"
    )] = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="File (default stdout).")] = None,
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
    unlinked: Annotated[bool, typer.Option(
        "--unlinked", help="graphml/gexf/cyjs: also the vocabulary concepts no paper links")] = False,
    workers: Annotated[int, typer.Option(
        "--workers", min=1,
        help="processes writing turtle/nt/nquads/trig from a local store (default: cores, at most 4)",
    )] = min(4, os.cpu_count() or 1),
) -> None:
    """Serialise the whole graph as RDF, or as GraphML/GEXF/Cytoscape JSON for graph tools. With -o the format
    follows the file's extension (.ttl .nt .nq .trig .jsonld .rdf .graphml .gexf .cyjs); a --format that
    contradicts the extension is refused."""
    fmt = export_format(fmt, output)
    if fmt not in EXPORT_FORMATS + GRAPH_FORMATS:
        fail(f"unknown format {fmt!r}; use one of {', '.join(EXPORT_FORMATS + GRAPH_FORMATS)}")
    if fmt in GRAPH_FORMATS and output is None:
        fail(f"--format {fmt} needs -o FILE")
    st = open_or_fail(store, base_iri, read_only=True, create=False)
    try:
        if fmt in GRAPH_FORMATS:
            from kg.graphio import export as export_graph
            from kg.query import QueryContext

            assert output is not None  # refused above
            g = export_graph(QueryContext.open(st, base_iri), fmt, output, unlinked=unlinked)
            err.print(f"wrote {g.number_of_nodes()} nodes and {g.number_of_edges()} edges to {output}")
        elif output is None:
            st.dump(sys.stdout.buffer, fmt, workers=workers)
            sys.stdout.flush()
        else:
            with open(output, "wb") as fh:
                st.dump(fh, fmt, workers=workers)
    except (StoreError, OSError) as exc:
        fail(str(exc))
    finally:
        st.close()


EXTENSIONS = {".ttl": "turtle", ".turtle": "turtle", ".nt": "nt", ".nq": "nquads", ".nquads": "nquads",
              ".trig": "trig", ".jsonld": "jsonld", ".json-ld": "jsonld", ".rdf": "xml", ".owl": "xml",
              ".xml": "xml", ".graphml": "graphml", ".gexf": "gexf", ".cyjs": "cyjs"}


def export_format(fmt: str | None, output: Path | None) -> str:
    """The export format: --format, else the output's extension, else Turtle; a contradiction is refused."""
    implied = None
    if output is not None:
        name = output.name.lower().removesuffix(".gz")
        implied = next((f for ext, f in EXTENSIONS.items() if name.endswith(ext)), None)
    if fmt is None:
        if output is not None and implied is None:
            fail(f"cannot tell the format from {output.name!r}; give --format "
                 f"({'|'.join(EXPORT_FORMATS + GRAPH_FORMATS)}) or use a known extension")
        return implied or "turtle"
    fmt = fmt.lower()
    if output is not None and implied is not None and implied != fmt:
        fail(f"--format {fmt} does not match {output.name!r} (a {implied} file name); change one of them")
    return fmt


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

    st = open_or_fail(store, base_iri, read_only=True, create=False)
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
                    "papers_per_extractor": s.papers_per_extractor,
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
    for version, n in s.papers_per_extractor.items():
        t.add_row(f"papers by extractor {version}", str(n))
    t.add_row("triples", str(s.triples))
    Console().print(t)


@app.command()
def validate(
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
    verbose: Annotated[bool, typer.Option("--verbose", "-v")] = False,
) -> None:
    """Check the graph against the SHACL shapes (ontology/shapes.ttl)."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from kg.cli.common import err
    from kg.rdf.validate import validate as run_validation
    from kg.store import as_rdflib

    st = open_or_fail(store, base_iri, read_only=True, create=False)
    steps = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=err,
                     transient=True, disable=not err.is_terminal)
    try:
        with steps:  # on stderr, on a terminal only: a large store takes minutes to load and check
            task = steps.add_task(f"reading {st.triple_count():,} triples", total=2)
            graph = as_rdflib(st)
            steps.update(task, advance=1, description="checking the SHACL shapes")
            report = run_validation(graph, base_iri)
            steps.update(task, advance=1)
    finally:
        st.close()
    if report.conforms:
        Console().print("conforms: the graph passes every SHACL shape")
        return
    if verbose:
        Console().print(report.text, markup=False)
    fail(f"{report.violations} SHACL violations (run with --verbose for details)")


@app.command()
def eval(  # noqa: A001
    gold: Annotated[list[Path], typer.Argument(help="Gold JSONL files (GOLD_GUIDELINES format).")],
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List misses and false links.")] = False,
    as_json: Annotated[bool, typer.Option("--json")] = False,
    titles: Annotated[bool, typer.Option("--titles/--no-titles", help="Read titles too.")] = True,
    calibration: Annotated[
        bool, typer.Option("--calibration", help="Precision per confidence band (last table).")
    ] = False,
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
) -> None:
    """Extract from each gold file's texts, score its links per category; several files: their union too."""
    from kg.eval import evaluate_gold, format_calibration, format_report, read_gold, union
    from kg.extract import Extractor

    for g in gold:
        if not g.is_file():
            fail(f"{g}: no such file")
    try:
        golds = [read_gold(g) for g in gold]
    except (ValueError, KeyError) as exc:
        fail(f"bad gold file: {exc}")
    extractor = Extractor(base_iri)
    reports = [
        (str(g), evaluate_gold(d, extractor, with_title=titles)) for g, d in zip(gold, golds, strict=True)
    ]
    if len(golds) > 1:
        reports.append(("union", evaluate_gold(union(golds), extractor, with_title=titles)))
    if as_json:
        out = {name: r.rows for name, r in reports}
        print(json.dumps(out if len(reports) > 1 else reports[0][1].rows))
        return
    for i, (name, r) in enumerate(reports):
        if len(reports) > 1:
            print(("\n" if i else "") + f"== {name}")
        print(format_report(r, verbose=verbose and name != "union"))
    if calibration:
        print("\n" + format_calibration(reports[-1][1]))


@app.command()
def sparql(
    query: Annotated[str, typer.Argument(help="A SPARQL SELECT, ASK or CONSTRUCT query.")],
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
    timeout: Annotated[float, typer.Option(help="Seconds before the query is abandoned.")] = 30.0,
    limit: Annotated[int, typer.Option(help="Most rows returned.")] = 100_000,
) -> None:
    """Run a read-only SPARQL query (updates are refused) and print JSON results or Turtle. The prefixes kg:,
    dcterms:, skos:, schema:, prov:, rdf:, rdfs:, xsd: and owl: are predeclared; a syntax error names its line
    and column; predicates and classes nothing in the store uses are warned about."""
    import pyoxigraph as ox

    from kg.cli.sparqltext import syntax_error, unknown_terms, with_prefixes
    from kg.query.guard import MalformedQuery, ReadOnlyViolation, classify
    from kg.store.formats import prefixes

    user_query = query
    query, _ = with_prefixes(user_query, base_iri)
    try:
        classified = classify(query)
        form, query = classified.form, classified.text  # run what the guard read (escapes decoded)
    except ReadOnlyViolation as exc:
        fail((syntax_error(user_query, base_iri) if isinstance(exc, MalformedQuery) else None) or str(exc))
    bad = syntax_error(user_query, base_iri)
    if bad is not None:
        fail(bad)
    st = open_or_fail(store, base_iri, read_only=True, create=False)
    try:
        for warning in unknown_terms(st, user_query, base_iri):
            err.print(f"[yellow]warning:[/yellow] {escape(warning)}", soft_wrap=True)
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
    depth: Annotated[int, typer.Option(min=1, max=3, help="A paper's neighbourhood: hops.")] = 1,
    limit: Annotated[int, typer.Option(min=1, max=500, help="A paper's neighbourhood: most nodes.")] = 50,
    first: Annotated[int, typer.Option(
        "--first", min=1, max=100, help="An entity's map: the entities sharing most papers with it.")] = 30,
    types: Annotated[list[str] | None, typer.Option(
        "--type", help="An entity's map: only entities of this type (repeatable; Task|Dataset|…).")] = None,
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
) -> None:
    """Draw an entity's co-occurrence map (the explorer's: the entities sharing most papers with it, edges
    weighted by papers shared) or a paper's neighbourhood: standalone HTML (interactive) or SVG/PNG."""
    from kg.query import QueryContext
    from kg.viz import viz as draw

    wanted = entity_types(types) if types else None
    st = open_or_fail(store, base_iri, read_only=True, create=False)
    try:
        written = draw(QueryContext.open(st, base_iri), name_or_id, output, depth=depth, limit=limit,
                       first=first, types=wanted)
    except (LookupError, ValueError) as exc:
        fail(str(exc.args[0]) if exc.args else str(exc))  # KeyError's str() quotes its message
    finally:
        st.close()
    err.print(f"wrote {written}")


@app.command()
def trend(
    names: Annotated[list[str], typer.Argument(help="Entity names, aliases or ids to compare.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="trend.png or trend.svg")],
    share: Annotated[bool, typer.Option("--share", help="Share of each year's papers instead of counts.")]
    = False,
    venue: Annotated[list[str] | None, typer.Option("--venue", help="Count only papers of this venue "
                                                   "(repeat for several).")] = None,
    per_venue: Annotated[bool, typer.Option("--per-venue", help="Share: the mean of the entity's share of "
                                           "each venue's papers that year (implies --share).")] = False,
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
) -> None:
    """Draw papers per year for one or more entities (a line each) as a PNG or SVG chart; a year without
    papers is a gap in the line."""
    from kg.query import QueryContext, entity
    from kg.query.trends import entity_trend
    from kg.viz import IMAGE_SUFFIXES, draw_trend

    if output.suffix.lower() not in IMAGE_SUFFIXES:
        fail(f"unsupported output {output.name!r}: use .png or .svg")
    st = open_or_fail(store, base_iri, read_only=True, create=False)
    try:
        ctx = QueryContext.open(st, base_iri)
        series = []
        for name in names:
            found = entity(ctx, name if "/" in name else None, None if "/" in name else name)
            if found is None and "/" in name:
                found = entity(ctx, None, name)
            if found is None:
                fail(f"no entity named {name!r}")
            points = entity_trend(ctx, found.iri, venue or None, "VENUE" if per_venue else "PAPERS")
            series.append((f"{found.name} ({found.paper_count})",
                           [(p.year, p.papers, p.share) for p in points]))
        if not any(pt[1] for _, pts in series for pt in pts):
            fail("none of these entities has a paper with a year"
                 + (f" in {', '.join(map(repr, venue))}" if venue else ""))
        draw_trend(series, output, share=share or per_venue)
    except StoreError as exc:
        fail(str(exc))
    finally:
        st.close()
    err.print(f"wrote {output}")
