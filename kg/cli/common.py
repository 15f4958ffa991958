"""What every `kg` command shares: the typer app, common options, one-line errors, opening stores."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from kg.store.types import Store, StoreError
from kg.types import Paper, ReadProblem

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
ROOT = Path(__file__).resolve().parent.parent.parent
SAMPLE = ROOT / "data" / "icml2025_seed.jsonl"


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

    problems = 0

    def on_problem(p: ReadProblem) -> None:
        nonlocal problems
        problems += 1
        problem_line(p)

    papers = unique_last(read_all(inputs, on_problem))
    if not papers:
        fail(f"no paper could be read from {', '.join(str(i) for i in inputs)}")
    return papers, problems
