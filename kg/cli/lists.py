"""`kg papers` (filtered, ordered), `kg search TEXT`, `kg defenses`, `kg attacks` and `kg trending`: a rich
table in the terminal, or `--format csv|json` (`kg papers` also `bibtex`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer

from kg.cli.common import BaseOpt, StoreOpt, app, entity_types, fail, open_or_fail
from kg.settings import DEFAULT_BASE_IRI

T = TypeVar("T")
TableFormat = Annotated[str, typer.Option("--format", help="table|csv|json")]
LONG = {"title", "name"}


def _check(fmt: str, formats: tuple[str, ...]) -> None:
    if fmt not in formats:
        fail(f"--format must be one of {', '.join(formats)}, not {fmt!r}")


def _read(store: str, base_iri: str, ask: Callable[[Any], T]) -> T:
    """`ask(ctx)` on the store opened read-only; a store error is one line."""
    from kg.query import QueryContext
    from kg.query.cursor import BadCursor
    from kg.query.papers import BadOrder
    from kg.store.types import StoreError

    st = open_or_fail(store, base_iri, read_only=True, create=False)
    try:
        return ask(QueryContext.open(st, base_iri))
    except (StoreError, BadCursor, BadOrder) as exc:
        fail(str(exc))
    finally:
        st.close()


def _emit(records: list[dict[str, Any]], fmt: str, columns: tuple[str, ...], title: str) -> None:
    """Records as JSON, CSV (csv module quoting) or a table whose cells stay on one or two lines."""
    if fmt == "json":
        print(json.dumps(records, ensure_ascii=False, indent=1))
        return
    if fmt == "csv":
        from kg.cli.results import write_csv

        write_csv(records, columns)
        return
    from rich.console import Console
    from rich.table import Table

    rows = [["" if r.get(c) is None else str(r[c]) for c in columns] for r in records]
    t = Table(title=title)
    for i, col in enumerate(columns):
        if col in LONG:  # the text column takes what is left and wraps
            t.add_column(col, overflow="fold", ratio=1)
        else:  # short columns keep their width (at least up to 28, at most 40) on one line
            longest = max([len(col), *(len(row[i]) for row in rows)])
            t.add_column(col, overflow="ellipsis", no_wrap=True, min_width=min(28, longest), max_width=40)
    for row in rows:
        t.add_row(*row)
    Console().print(t)


@app.command()
def papers(
    dataset: Annotated[str | None, typer.Option("--dataset", help="Papers using this dataset.")] = None,
    task: Annotated[str | None, typer.Option("--task", help="Papers addressing this task.")] = None,
    method: Annotated[str | None, typer.Option("--method", help="Papers using this method.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="Papers using this model.")] = None,
    domain: Annotated[str | None, typer.Option("--domain", help="Papers in this domain.")] = None,
    search: Annotated[str | None, typer.Option("--search", help="Papers whose text has these words.")] = None,
    year: Annotated[int | None, typer.Option("--year", help="Papers issued that year.")] = None,
    venue: Annotated[str | None, typer.Option("--venue", help="Papers of that venue (any case).")] = None,
    order: Annotated[str, typer.Option(
        "--order", help="ID (default) | YEAR (newest first) | TITLE | CONFIDENCE (of the link to the entity)"
    )] = "ID",
    first: Annotated[int, typer.Option("--first", min=1, max=10_000, help="Most papers.")] = 20,
    exact: Annotated[bool, typer.Option("--exact", help="Not the papers of narrower entities.")] = False,
    fmt: Annotated[str, typer.Option("--format", help="table|csv|json|bibtex")] = "table",
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
) -> None:
    """Papers matching every filter, as GraphQL's `papers` lists them (names match names or aliases and
    include narrower entities unless --exact)."""
    from kg.query import papers as find
    from kg.query.listing import PAPER_COLUMNS, paper_records, papers_bibtex
    from kg.query.papers import ORDERS

    _check(fmt, ("table", "csv", "json", "bibtex"))
    chosen = next((o for o in ORDERS if o == order.upper()), None)
    if chosen is None:
        fail(f"--order must be one of {', '.join(ORDERS)}, not {order!r}")
    if chosen == "CONFIDENCE" and (dataset, task, method, model, domain) == (None,) * 5:
        fail("--order confidence needs --dataset, --task, --method, --model or --domain")
    page = _read(store, base_iri, lambda ctx: find(
        ctx, dataset=dataset, task=task, method=method, model=model, domain=domain, search=search,
        year=year, venue=venue, order=chosen, first=first, include_narrower=not exact))
    if fmt == "bibtex":
        sys.stdout.write(papers_bibtex(page.items))
        return
    columns = PAPER_COLUMNS if fmt != "table" else ("id", "year", "venue", "title")
    _emit(paper_records(page.items), fmt, columns, f"{len(page.items)} of {page.total} papers")


@app.command("search")
def search_text(
    text: Annotated[str, typer.Argument(help="Words to find in titles, abstracts and entity names.")],
    first: Annotated[int, typer.Option("--first", min=1, max=1_000, help="Most hits.")] = 10,
    fmt: TableFormat = "table",
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
) -> None:
    """The best full-text hits among papers and entities, best first (as GraphQL's `search`)."""
    from kg.query import search

    _check(fmt, ("table", "csv", "json"))
    hits = _read(store, base_iri, lambda ctx: search(ctx, text, first))
    records = [
        {"score": h.score, "kind": "paper" if h.paper else (h.entity.type if h.entity else ""),
         "id": h.paper.id if h.paper else h.entity.id if h.entity else "",
         "name": h.paper.title if h.paper else h.entity.name if h.entity else ""}
        for h in hits
    ]
    _emit(records, fmt, ("score", "kind", "id", "name"), f"{len(records)} hits for {text!r}")


@app.command()
def defenses(
    target: Annotated[str | None, typer.Option("--target", help="Defenses of this domain.")] = None,
    against: Annotated[str | None, typer.Option("--against", help="Defenses against this attack.")] = None,
    fmt: TableFormat = "table",
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
) -> None:
    """What papers propose to defend (whatever its kind), optionally by the domain and the attack."""
    from kg.query import defenses as find

    _by_role(find, "defenses", target, against, fmt, store, base_iri)


@app.command()
def attacks(
    target: Annotated[str | None, typer.Option("--target", help="Attacks on this domain.")] = None,
    against: Annotated[str | None, typer.Option("--against", help="Attacks realising this threat.")] = None,
    fmt: TableFormat = "table",
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
) -> None:
    """What papers propose to attack with (whatever its kind), optionally by the domain and the threat."""
    from kg.query import attacks as find

    _by_role(find, "attacks", target, against, fmt, store, base_iri)


def _by_role(find: Callable[[Any, str | None, str | None], list[Any]], what: str, target: str | None,
             against: str | None, fmt: str, store: str, base_iri: str) -> None:
    """The entities playing a role (kg.query.defenses, kg.query.attacks) as a table, CSV or JSON."""
    _check(fmt, ("table", "csv", "json"))
    found = _read(store, base_iri, lambda ctx: find(ctx, target, against))
    records = [{"id": e.id, "name": e.name, "type": e.type, "papers": e.paper_count} for e in found]
    _emit(records, fmt, ("id", "name", "type", "papers"), f"{len(records)} {what}")


@app.command("trending")
def trending_entities(
    type_: Annotated[str | None, typer.Option("--type", help="Task|Dataset|Method|…")] = None,
    since: Annotated[int | None, typer.Option("--since", help="First recent year (default: latest).")] = None,
    venue: Annotated[list[str] | None, typer.Option("--venue", help="Only this venue (repeatable).")] = None,
    per_venue: Annotated[bool, typer.Option("--per-venue", help="Shares within each venue.")] = False,
    first: Annotated[int, typer.Option("--first", min=1, max=100, help="Most entities.")] = 10,
    fmt: TableFormat = "table",
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
) -> None:
    """The entities whose share of papers rose most since a year (as GraphQL's `trending`)."""
    from kg.query.trends import trending

    _check(fmt, ("table", "csv", "json"))
    wanted = None if type_ is None else entity_types([type_])[0]
    found = _read(
        store,
        base_iri,
        lambda ctx: trending(ctx, wanted, since, first, venues=venue or None,
                             normalize="VENUE" if per_venue else "PAPERS"),
    )
    records = [
        {"id": t.entity.id, "name": t.entity.name, "type": t.entity.type, "since": t.since,
         "recent": t.recent_papers, "earlier": t.earlier_papers, "rise": round(t.rise, 4)}
        for t in found
    ]
    columns = ("name", "type", "since", "recent", "earlier", "rise")
    _emit(records, fmt, columns if fmt == "table" else ("id", *columns), f"{len(records)} rising entities")
