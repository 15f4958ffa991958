"""What every `kg` command shares: the typer app, common options, one-line errors, opening stores."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer
import typer.rich_utils
from rich.console import Console
from rich.markup import escape

from kg.store.types import Store, StoreError
from kg.types import Paper, ReadProblem

HELP_WIDTH = 120
app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="paperkg: knowledge graphs of ML research from paper records.",
)
err = Console(stderr=True, highlight=False)
# Help is not cut to 80 columns when it is not written to a terminal (a pipe, a file, a test): rich falls back
# to 80 there. A terminal keeps its own width; TERMINAL_WIDTH or COLUMNS still decide when set.
if typer.rich_utils.MAX_WIDTH is None and not os.environ.get("COLUMNS") and not sys.stdout.isatty():
    typer.rich_utils.MAX_WIDTH = HELP_WIDTH


def version_text() -> str:
    """`kg --version`: the installed distribution's version and the store format it reads and writes."""
    from importlib.metadata import PackageNotFoundError, version

    from kg import __version__
    from kg.store.version import FORMAT_VERSION

    try:
        v = version("paperkg")
    except PackageNotFoundError:  # run from a source tree that was never installed
        v = __version__
    return f"paperkg {v} (store format {FORMAT_VERSION})"


def _version(value: bool) -> None:
    if value:
        print(version_text())
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit."
    )] = False,
) -> None:
    """paperkg: knowledge graphs of ML research from paper records."""

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
ROOT = Path(__file__).resolve().parent.parent.parent
# The bundled sample is package data (kg/data), so an installed `kg serve` builds it anywhere;
# data/icml2025_seed.jsonl in the source tree is a link to it.
SAMPLE = Path(__file__).resolve().parent.parent / "data" / "icml2025_seed.jsonl"


def fail(message: str, code: int = 1) -> NoReturn:
    """Print one line and exit: the only way errors leave the CLI."""
    err.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True)
    raise typer.Exit(code)


def problem_line(problem: ReadProblem) -> None:
    err.print(f"[yellow]warning:[/yellow] {escape(str(problem))}", soft_wrap=True)


def open_or_fail(location: str, base_iri: str, *, read_only: bool = False, create: bool = True) -> Store:
    from kg.store import open_store

    try:
        return open_store(location, base_iri=base_iri, read_only=read_only, create=create)
    except StoreError as exc:
        fail(str(exc))


def read_or_fail(inputs: list[Path]) -> tuple[list[Paper], int]:
    from kg.build import read_all, unique_last

    missing = [str(i) for i in inputs if not i.exists()]
    if missing:  # before anything is read or written: a typo must not pass as a smaller build
        fail(f"no such input file: {', '.join(missing)}")
    problems = 0

    def on_problem(p: ReadProblem) -> None:
        nonlocal problems
        problems += 1
        problem_line(p)

    papers = unique_last(read_all(inputs, on_problem))
    if not papers:
        fail(f"no paper could be read from {', '.join(str(i) for i in inputs)}")
    return papers, problems
