"""`kg results DATASET [--metric M]` (a leaderboard) and `kg compare ID...` (papers side by side): a table in
the terminal, or `--format csv|json`."""

from __future__ import annotations

import csv
import io
import json
import sys
import textwrap
from typing import Annotated, Any

import typer

from kg.cli.common import BaseOpt, StoreOpt, app, fail, open_or_fail
from kg.settings import DEFAULT_BASE_IRI

FORMATS = ("table", "csv", "json")
LEADERBOARD_COLUMNS = (
    "rank",
    "board",
    "value",
    "unit",
    "kind",
    "metric",
    "dataset",
    "method",
    "baseline",
    "paper",
    "title",
    "confidence",
    "evidence",
)


def _value(value: float, unit: str) -> str:
    text = f"{value:g}"
    return text + ("%" if unit == "%" else "x" if unit == "x" else f" {unit}" if unit else "")


def _snippet(evidence: str, mention: str, width: int = 70) -> str:
    """The part of the evidence sentence around the value, at most `width` characters."""
    if len(evidence) <= width:
        return evidence
    at = max(evidence.find(mention), 0)
    start = max(0, min(at - width // 2, len(evidence) - width))
    cut = evidence[start : start + width]
    return ("…" if start else "") + cut + ("…" if start + width < len(evidence) else "")


def leaderboard_records(rows: Any) -> list[dict[str, Any]]:
    """Plain records of leaderboard rows (kg.query.results.ResultInfo), the CSV/JSON shape."""
    from kg.query.results import improvement_text

    return [
        {
            "rank": r.rank,
            "board": r.board,
            "value": r.value,
            "unit": r.unit,
            "kind": r.kind,
            "metric": r.metric.name,
            "higher_is_better": r.higher_is_better,
            "improvement": improvement_text(r) if r.improvement else None,
            "dataset": r.dataset.name if r.dataset else None,
            "split": r.split,
            "method": r.method.name if r.method else None,
            "baseline": r.baseline.name if r.baseline else None,
            "paper": r.paper.id,
            "title": r.paper.title,
            "confidence": r.confidence,
            "evidence": r.evidence,
            "mention": r.mention,
            "start": r.start,
            "end": r.end,
        }
        for r in rows
    ]


def _emit(records: list[dict[str, Any]], fmt: str, columns: tuple[str, ...]) -> None:
    if fmt == "json":
        print(json.dumps(records, ensure_ascii=False, indent=1))
        return
    write_csv(records, columns)


def write_csv(records: list[dict[str, Any]], columns: tuple[str, ...]) -> None:
    """Records as CSV on stdout: a header of `columns`, empty cells for missing values."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(columns), extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in records:
        w.writerow({k: "" if r.get(k) is None else r.get(k) for k in columns})
    sys.stdout.write(buf.getvalue())


def _two_lines(evidence: str, mention: str, width: int) -> str:
    """The evidence around the value in at most two lines of `width` ("…" where cut)."""
    lines = textwrap.wrap(_snippet(evidence, mention, 2 * width - 2), width)
    if len(lines) > 2:
        lines = [lines[0], lines[1][: width - 1].rstrip("…") + "…"]
    return "\n".join(lines)


def _column(table: Any, name: str, width: int) -> None:
    """A leaderboard column: the evidence `width` wide (kept to two lines), the others folding when narrow."""
    if name == "evidence":
        table.add_column(name, overflow="ellipsis", no_wrap=True, width=width)
    else:
        table.add_column(name, overflow="fold")


def _check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")


@app.command()
def results(
    dataset: Annotated[str, typer.Argument(help="A dataset name, alias or id (variants are included).")],
    metric: Annotated[str | None, typer.Option("--metric", help="Only this metric (name or alias).")] = None,
    task: Annotated[str | None, typer.Option("--task", help="Only papers addressing this task.")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=10_000, help="Most rows.")] = 20,
    show_all: Annotated[
        bool, typer.Option("--all", help="Also the rows of lower confidence (hidden by default).")
    ] = False,
    fmt: Annotated[str, typer.Option("--format", help="table|csv|json")] = "table",
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
) -> None:
    """The leaderboard of a dataset: absolute results read from abstracts, ranked per board (one metric on
    one dataset and split, best first by the metric's direction, ties sharing a rank); deltas and ratios
    listed apart as improvements, never ranked. Rows of lower confidence are hidden unless --all."""
    from kg.query import QueryContext
    from kg.query.results import board, dataset_metrics
    from kg.store.types import StoreError

    _check_format(fmt)
    st = open_or_fail(store, base_iri, read_only=True, create=False)
    try:
        ctx = QueryContext.open(st, base_iri)
        ranked = board(ctx, dataset, metric=metric, task=task, first=limit, section="absolute",
                       include_low=show_all)
        better = board(ctx, dataset, metric=metric, task=task, first=limit, section="improvement",
                       include_low=show_all)
        metrics = dataset_metrics(ctx, dataset) if metric is None and fmt == "table" else []
    except StoreError as exc:
        fail(str(exc))
    finally:
        st.close()
    records = leaderboard_records(ranked.page.items)
    improvements = leaderboard_records(better.page.items)
    hidden = ranked.hidden + better.hidden
    note = f"{hidden} more, lower confidence (--all shows them)" if hidden else ""
    if fmt != "table":
        _emit(records + improvements, fmt, LEADERBOARD_COLUMNS)
        if note:
            print(note, file=sys.stderr)
        return
    from rich.console import Console
    from rich.table import Table

    if not records and not improvements:
        where = f" in {metric!r}" if metric else ""
        fail(f"no results on {dataset!r}{where}" + (f"; {note}" if note else ""))
    console = Console()
    room = min(70, max(20, (console.width - 40) // 2 + 2))  # the evidence column's width
    if records:
        title = (
            f"{dataset}" + (f" · {metric}" if metric else "")
            + f" · {len(records)} of {ranked.page.total} ranked results"
        )
        t = Table(title=title, show_lines=False)
        for col in ("#", "value", "board", "method", "paper", "evidence"):
            _column(t, col, room)
        for r in records:
            arrow = "" if r["higher_is_better"] is None else (" ↑" if r["higher_is_better"] else " ↓")
            t.add_row(
                str(r["rank"] or ""),
                _value(r["value"], r["unit"]),
                (r["board"] or r["metric"]) + arrow,
                r["method"] or "",
                f"{r['paper']}",
                _two_lines(r["evidence"], r["mention"], room),
            )
        console.print(t)
    if improvements:
        t = Table(title=f"improvements (not ranked) · {len(improvements)} of {better.page.total}")
        for col in ("improvement", "dataset", "method", "paper", "evidence"):
            _column(t, col, room)
        for r in improvements:
            t.add_row(
                r["improvement"] or "",
                r["dataset"] or "",
                r["method"] or "",
                f"{r['paper']}",
                _two_lines(r["evidence"], r["mention"], room),
            )
        console.print(t)
    if note:
        console.print(note)
    if metrics:
        console.print(
            "metrics: " + ", ".join(f"{m.metric.name} ({m.results})" for m in metrics), soft_wrap=True
        )


COMPARE_COLUMNS = (
    "paper", "title", "year", "tasks", "datasets", "methods", "models", "metrics", "results", "improvements"
)


def compare_records(cmp: Any) -> list[dict[str, Any]]:
    """Plain records of a comparison (kg.query.results.Comparison): one per paper."""

    def names(links: Any) -> list[str]:
        return [lk.entity.name for lk in links]

    out = []
    for c in cmp.papers:
        out.append(
            {
                "paper": c.paper.id,
                "title": c.paper.title,
                "year": c.paper.year,
                "tasks": names(c.tasks),
                "datasets": names(c.datasets),
                "methods": names(c.methods),
                "models": names(c.models),
                "metrics": names(c.metrics),
                "results": leaderboard_records(c.results),
                "evidence": {
                    lk.entity.name: lk.evidence
                    for lk in (*c.tasks, *c.datasets, *c.methods, *c.models, *c.metrics)
                    if lk.evidence
                },
            }
        )
    return out


def _result_text(r: dict[str, Any]) -> str:
    """An absolute result ("top-1 accuracy 84.3% on ImageNet") or an improvement in words ("+1.3 top-1
    accuracy over FixMatch on ImageNet")."""
    where = f" on {r['dataset']}" if r["dataset"] else ""
    if r.get("improvement"):
        return f"{r['improvement']}{where}"
    return f"{r['metric']} {_value(r['value'], r['unit'])}{where}"


def _absolute(rs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rs if not r.get("improvement")]


def _improvements(rs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rs if r.get("improvement")]


@app.command()
def compare(
    ids: Annotated[list[str], typer.Argument(help="Paper ids (two or more).")],
    fmt: Annotated[str, typer.Option("--format", help="table|csv|json")] = "table",
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
) -> None:
    """Papers side by side: tasks, datasets, methods, models, metrics and reported results."""
    from kg.query import QueryContext
    from kg.query.results import compare as compare_papers
    from kg.store.types import StoreError

    _check_format(fmt)
    st = open_or_fail(store, base_iri, read_only=True, create=False)
    try:
        cmp = compare_papers(QueryContext.open(st, base_iri), ids)
    except StoreError as exc:
        fail(str(exc))
    finally:
        st.close()
    if cmp.missing:
        fail(f"no paper with id {', '.join(repr(m) for m in cmp.missing)}")
    records = compare_records(cmp)
    if fmt == "json":
        _emit(records, fmt, COMPARE_COLUMNS)
        return
    if fmt == "csv":
        flat = [
            {
                **r,
                **{k: "; ".join(r[k]) for k in ("tasks", "datasets", "methods", "models", "metrics")},
                "results": "; ".join(_result_text(x) for x in _absolute(r["results"])),
                "improvements": "; ".join(_result_text(x) for x in _improvements(r["results"])),
            }
            for r in records
        ]
        _emit(flat, fmt, COMPARE_COLUMNS)
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title="comparison", show_lines=True)
    t.add_column("", style="bold")
    for r in records:
        t.add_column(f"{r['paper']}", overflow="fold")
    t.add_row("title", *[r["title"] or "" for r in records])
    t.add_row("year", *[str(r["year"] or "") for r in records])
    for key in ("tasks", "datasets", "methods", "models", "metrics"):
        t.add_row(key, *["\n".join(r[key]) for r in records])
    t.add_row("results", *["\n".join(_result_text(x) for x in _absolute(r["results"])) for r in records])
    t.add_row(
        "improvements", *["\n".join(_result_text(x) for x in _improvements(r["results"])) for r in records]
    )
    Console().print(t)
