"""`kg migrate` and `kg reextract`: bring a store's layout and its links up to date with this paperkg."""

from __future__ import annotations

import json
import os
from typing import Annotated

import typer

from kg.cli.common import BaseOpt, StoreOpt, app, err, fail, open_or_fail
from kg.settings import DEFAULT_BASE_IRI
from kg.store.types import StoreError


@app.command()
def migrate(
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
    batch: Annotated[int, typer.Option(min=1, help="Papers per store transaction.")] = 500,
) -> None:
    """Upgrade the store's layout in place to this paperkg's format version (resumable after a kill)."""
    from kg.migrate import describe
    from kg.migrate import migrate as run
    from kg.store import open_store
    from kg.store.version import FORMAT_VERSION

    try:
        st = open_store(store, base_iri=base_iri, create=False, upgrade=True)
    except StoreError as exc:
        fail(str(exc))
    try:
        if st.format_version == FORMAT_VERSION:
            print(f"{store} is at format version {FORMAT_VERSION} already; nothing to do")
            return
        err.print(f"migrating {store}: format version {st.format_version} -> {FORMAT_VERSION}")
        for v in range(st.format_version + 1, FORMAT_VERSION + 1):
            err.print(f"  version {v}: {describe(v)}", soft_wrap=True)

        def tick(version: int, done: int, total: int) -> None:
            err.print(f"version {version}: {done}/{total} papers", soft_wrap=True)

        summary = run(st, base_iri, batch_size=batch, progress=tick)
    except StoreError as exc:
        fail(str(exc).splitlines()[0])
    finally:
        st.close()
    papers = ", ".join(f"{n} papers for version {v}" for v, n in summary.papers.items())
    done = [papers] if papers else []
    done += ["aggregates computed"] if getattr(summary, "aggregates_computed", False) else []
    print(f"migrated {store} from format version {summary.from_version} to {summary.to_version}: "
          + "; ".join(done)
          + ("; ontology and vocabulary graphs rewritten" if summary.schema_rewritten else "")
          + f"; {summary.seconds:.1f} s")


@app.command()
def reextract(
    store: StoreOpt = "./kg-data",
    base_iri: BaseOpt = DEFAULT_BASE_IRI,
    where: Annotated[list[str] | None, typer.Option(
        "--where", help="KEY=VALUE or KEY~TEXT (id, venue, year, extractor, source, title); repeat to AND."
    )] = None,
    force: Annotated[bool, typer.Option("--force", help="Also papers at the current version.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the diff, write nothing.")] = False,
    workers: Annotated[int, typer.Option(envvar="KG_WORKERS", help="Extraction processes.")] = 1,
    batch: Annotated[int, typer.Option(min=1, help="Papers per store transaction.")] = 200,
    top: Annotated[int, typer.Option(min=0, help="Rows in each 'most' list of the diff.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="The diff as one JSON object.")] = False,
) -> None:
    """Run the current extractor again over the stored papers' text and print what changed."""
    from kg.reextract import format_report, parse_where
    from kg.reextract import reextract as run

    try:
        conditions = [parse_where(w) for w in where or []]
    except ValueError as exc:
        fail(str(exc))
    st = open_or_fail(store, base_iri, read_only=dry_run and os.path.isdir(store), create=False)
    try:
        report = run(st, base_iri, where=conditions, force=force, dry_run=dry_run, workers=workers,
                     batch_size=batch, top=top)
    except StoreError as exc:
        fail(str(exc).splitlines()[0])
    finally:
        st.close()
    print(json.dumps(report.to_json(), ensure_ascii=False) if as_json else format_report(report))
