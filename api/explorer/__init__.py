"""The graph explorer page at /explore: our own HTML/JS/CSS plus vis-network as shipped by pyvis.

Mount with `Starlette(routes=[*explorer.routes(), ...])`; the page itself only talks to /graphql.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

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


def routes() -> list[BaseRoute]:
    """Routes of the explorer: /explore, /explore/types.json, /explore/static/…"""
    return [
        Route("/explore", index, methods=["GET", "HEAD"]),
        Route("/explore/", slash, methods=["GET", "HEAD"]),
        Route("/explore/types.json", types, methods=["GET"]),
        Route("/explore/static/vis/{name}", vis, methods=["GET", "HEAD"]),
        Mount("/explore/static", app=StaticFiles(directory=STATIC), name="explorer-static"),
    ]
