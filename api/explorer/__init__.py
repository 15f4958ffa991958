"""The graph explorer page at /explore: our own HTML/JS/CSS plus vis-network as shipped by pyvis.

Mount with `Starlette(routes=[*explorer.routes(), ...])`; the page itself only talks to /graphql.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import cache
from pathlib import Path

import pyoxigraph as ox
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from kg.query import QueryContext
from kg.query.sparql import iri_or_none, values
from kg.store.formats import prefixes, rdf_format
from kg.viz import TYPE_STYLES, vis_asset

STATIC = Path(__file__).parent / "static"
_VIS_FILES = {
    "vis-network.min.js": "text/javascript; charset=utf-8",
    "vis-network.css": "text/css; charset=utf-8",
}
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'"
)


@cache
def _vis_bytes(name: str) -> bytes:
    return vis_asset(name).read_bytes()


async def index(request: Request) -> Response:
    """The page; no inline scripts, so a strict Content-Security-Policy holds."""
    return FileResponse(
        STATIC / "index.html",
        media_type="text/html; charset=utf-8",
        headers={"Content-Security-Policy": CSP, "Cache-Control": "no-cache"},
    )


async def vis(request: Request) -> Response:
    """vis-network's JS or CSS from the installed pyvis package."""
    name = request.path_params["name"]
    if name not in _VIS_FILES:
        return Response("not found", status_code=404, media_type="text/plain")
    return Response(
        _vis_bytes(name), media_type=_VIS_FILES[name], headers={"Cache-Control": "public, max-age=86400"}
    )


async def types(request: Request) -> Response:
    """Colour and shape of each node type, shared with `kg viz` so both draw alike."""
    body = {t: {"color": s.color, "shape": s.shape} for t, s in TYPE_STYLES.items()}
    return JSONResponse(body, headers={"Cache-Control": "no-cache"})


async def slash(request: Request) -> Response:
    return RedirectResponse("/explore", status_code=308)


MAX_SUBGRAPH_IDS = 500
_SUBGRAPH_MEDIA = {"turtle": "text/turtle; charset=utf-8", "nt": "application/n-triples; charset=utf-8",
                   "trig": "application/trig; charset=utf-8", "nquads": "application/n-quads; charset=utf-8",
                   "jsonld": "application/ld+json", "xml": "application/rdf+xml"}


def subgraph_rdf(ctx: QueryContext, ids: list[str], fmt: str) -> bytes:
    """The RDF of a drawn view: each entity's own description and each paper's whole named graph (its
    metadata, direct links and link nodes with evidence); values bound, never pasted into the query."""
    entities = [iri_or_none(ctx.iris.entity_from_id(i)) for i in ids if ctx.iris.type_of_entity_id(i)]
    graphs = [iri_or_none(ctx.iris.paper_graph(i)) for i in ids if not ctx.iris.type_of_entity_id(i)]
    parts = []
    if entities:
        parts.append(f"{{ {values('e', [e for e in entities if e])} ?e ?p ?o BIND(?e AS ?s) }}")
    if graphs:
        parts.append(f"{{ {values('g', [g for g in graphs if g])} GRAPH ?g {{ ?s ?p ?o }} }}")
    triples = (
        ctx.store.construct(ctx.prologue + f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ {' UNION '.join(parts)} }}")
        if parts else []
    )
    return bytes(ox.serialize(triples, format=rdf_format(fmt), prefixes=prefixes(ctx.iris.base)) or b"")


def subgraph(ctx: QueryContext) -> Callable[[Request], Awaitable[Response]]:
    """GET /explore/subgraph?format=turtle&id=…&id=…: the download of the explorer's current view."""

    async def handle(request: Request) -> Response:
        fmt = request.query_params.get("format", "turtle").lower()
        ids = list(dict.fromkeys(request.query_params.getlist("id")))
        if fmt not in _SUBGRAPH_MEDIA:
            return PlainTextResponse(f"unknown format; use one of: {', '.join(_SUBGRAPH_MEDIA)}", 400)
        if not ids or len(ids) > MAX_SUBGRAPH_IDS:
            return PlainTextResponse(f"give 1 to {MAX_SUBGRAPH_IDS} `id` parameters", 400)
        body = await run_in_threadpool(subgraph_rdf, ctx, ids, fmt)
        return Response(body, media_type=_SUBGRAPH_MEDIA[fmt])

    return handle


def routes(ctx: QueryContext | None = None) -> list[BaseRoute]:
    """Routes of the explorer: /explore, /explore/types.json, /explore/static/…, and with a query context
    /explore/subgraph (the view's RDF)."""
    extra = [Route("/explore/subgraph", subgraph(ctx), methods=["GET"])] if ctx is not None else []
    return [
        *extra,
        Route("/explore", index, methods=["GET", "HEAD"]),
        Route("/explore/", slash, methods=["GET", "HEAD"]),
        Route("/explore/types.json", types, methods=["GET"]),
        Route("/explore/static/vis/{name}", vis, methods=["GET", "HEAD"]),
        Mount("/explore/static", app=StaticFiles(directory=STATIC), name="explorer-static"),
    ]
