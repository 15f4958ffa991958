"""`kg serve`: the HTTP API and explorer over a store (built from the bundled sample when missing)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kg.cli.common import SAMPLE, BaseOpt, StoreOpt, app, err, fail, open_or_fail, read_or_fail
from kg.settings import DEFAULT_BASE_IRI, Settings, SettingsError


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

    try:
        settings = Settings.from_env(store=store, base_iri=base_iri)
    except SettingsError as exc:
        fail(str(exc))
    local = "://" not in store and not store.startswith("memory:")
    fresh = local and not Path(store).exists()
    st = open_or_fail(store, base_iri)
    if fresh and sample:
        if not SAMPLE.is_file():
            fail(f"no store at {store} and no bundled sample to build it from")
        err.print(f"no store at {store}: building the bundled sample ({SAMPLE.name}) first")
        papers, _ = read_or_fail([SAMPLE])
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
