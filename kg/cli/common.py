"""What every `kg` command shares: the typer app, common options, one-line errors, opening stores."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
import typer.rich_utils
from rich.console import Console
from rich.markup import escape

from kg.store.types import Store, StoreError
from kg.types import ENTITY_TYPES, EntityType, Paper, ReadProblem

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


def entity_types(values: list[str]) -> list[EntityType]:
    """The entity types `--type` values name (any case); an unknown one fails in one line naming them all."""
    kinds = {t.lower(): t for t in ENTITY_TYPES}
    for v in values:
        if v.lower() not in kinds:
            fail(f"--type must be one of {', '.join(ENTITY_TYPES)}, not {v!r}")
    return [kinds[v.lower()] for v in values]


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


class BuildProgress:
    """Progress of a long run, per paper: a rich bar with rate and time left on a terminal, a plain line
    every `every_s` seconds otherwise (logs, CI). The clock starts at the first paper, so model loading and
    other start-up never count in the rate; `startup_s` and `rate` say what the summary should print."""

    def __init__(self, total: int, verb: str = "extracted", every_s: float = 10.0,
                 tty: bool | None = None, console: Console | None = None) -> None:
        import time

        self.total, self.verb, self.every_s = total, verb, every_s
        self.console = console or err
        self.tty = self.console.is_terminal if tty is None else tty
        self.created = time.perf_counter()
        self.first: float | None = None
        self.last: float | None = None
        self.done = 0
        self._last_line = self.created
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> BuildProgress:
        if self.tty and self.total:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TaskProgressColumn,
                TextColumn,
            )

            self._bar = Progress(
                TextColumn(self.verb), BarColumn(), MofNCompleteColumn(), TaskProgressColumn(),
                TextColumn("{task.fields[rate]}"), TextColumn("{task.fields[clock]}"), console=self.console,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task(self.verb, total=self.total, start=False, rate="starting…",
                                            clock="")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)

    def __call__(self, n: int = 1) -> None:
        import time

        now = time.perf_counter()
        if self.first is None:
            self.first = now
            if self._bar is not None:
                self._bar.start_task(self._task)
        self.done += n
        self.last = now
        if self._bar is not None:
            self._bar.update(self._task, advance=n, rate=f"{self.rate:.1f} papers/s", clock=self.clock(now))
        elif now - self._last_line >= self.every_s or self.done >= self.total:
            self._last_line = now
            self.console.print(self.line(), soft_wrap=True, highlight=False)

    @property
    def startup_s(self) -> float:
        """Seconds from the start to the first paper (loading models, opening the store)."""
        return (self.first or self.created) - self.created

    @property
    def rate(self) -> float:
        """Papers per second from the first paper to the latest: start-up excluded."""
        if self.first is None or self.last is None or self.done <= 1:
            return 0.0
        return (self.done - 1) / max(self.last - self.first, 1e-9)

    def clock(self, now: float | None = None) -> str:
        """"elapsed 0:02:17, about 0:04:54 left": wall time since the start, and the papers still to do at
        the average rate since the first paper (steady, unlike the last batch's)."""
        import time

        text = f"elapsed {_hms((now or time.perf_counter()) - self.created)}"
        if self.rate > 0 and self.done < self.total:
            text += f", about {_hms((self.total - self.done) / self.rate)} left"
        return text

    def line(self) -> str:
        pct = 100 * self.done / self.total if self.total else 100.0
        text = f"{self.verb} {self.done:,}/{self.total:,} papers ({pct:.0f}%)"
        if self.rate > 0:
            text += f", {self.rate:.1f} papers/s"
        return f"{text}, {self.clock(self.last)}"


def _hms(seconds: float) -> str:
    """Seconds as H:MM:SS."""
    s = max(0, round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
