"""GraphiQL at GET /graphql, served from this machine: our page and start script, and GraphiQL's and React's
browser files from node_modules here (installed from the npm registry by scripts/setup: `npm ci` over the
committed package.json and package-lock.json; nothing third-party is committed). No CDN, so it works offline;
without the files the page says how to install them instead of staying blank.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Route

HERE = Path(__file__).parent
# The files the page loads: URL name -> path under node_modules (a fixed list: nothing else is served).
ASSETS = {
    "react.production.min.js": "react/umd/react.production.min.js",
    "react-dom.production.min.js": "react-dom/umd/react-dom.production.min.js",
    "graphiql.min.js": "graphiql/graphiql.min.js",
    "graphiql.min.css": "graphiql/graphiql.min.css",
}
OWN = {"graphiql-start.js": HERE / "graphiql-start.js"}
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'"
)
_PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>paperkg GraphiQL</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/graphiql/static/graphiql.min.css">
  <style>body {{ margin: 0; height: 100vh; }} #graphiql {{ height: 100vh; }}</style>
</head>
<body>
  <div id="graphiql">Loading…</div>
  <script src="/graphiql/static/react.production.min.js"></script>
  <script src="/graphiql/static/react-dom.production.min.js"></script>
  <script src="/graphiql/static/graphiql.min.js"></script>
  <script src="/graphiql/static/graphiql-start.js"></script>
</body>
</html>
"""
_MISSING = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>paperkg GraphiQL</title></head>
<body style="font: 15px system-ui, sans-serif; margin: 3em;">
<h1>GraphiQL is not installed here</h1>
<p>Its browser files come from the npm registry at set-up and are served by this server (no CDN).
Run <code>bash scripts/setup</code> (it runs <code>npm ci --prefix api/graphiql</code>), or point
<code>KG_GRAPHIQL_ASSETS</code> at a <code>node_modules</code> folder holding them, then reload.</p>
<p>GraphQL itself works: POST queries to <code>/graphql</code>, or use the explorer at
<a href="/explore">/explore</a>.</p>
</body></html>
"""


def modules_dir() -> Path:
    """Where GraphiQL's node_modules are: KG_GRAPHIQL_ASSETS, else api/graphiql/node_modules."""
    return Path(os.environ.get("KG_GRAPHIQL_ASSETS") or HERE / "node_modules")


def installed() -> bool:
    return all((modules_dir() / p).is_file() for p in ASSETS.values())


@cache
def _page() -> str:
    return _PAGE.format()


def page() -> Response:
    """The GraphiQL page (or, without its files, a page saying how to install them)."""
    headers = {"Content-Security-Policy": CSP, "Cache-Control": "no-cache"}
    if not installed():
        return HTMLResponse(_MISSING, status_code=200, headers=headers)
    return HTMLResponse(_page(), headers=headers)


async def asset(request: Request) -> Response:
    name = request.path_params["name"]
    path = OWN.get(name) or (modules_dir() / ASSETS[name] if name in ASSETS else None)
    if path is None or not path.is_file():
        return Response("not found", status_code=404, media_type="text/plain")
    media = "text/css; charset=utf-8" if name.endswith(".css") else "text/javascript; charset=utf-8"
    return FileResponse(path, media_type=media, headers={"Cache-Control": "public, max-age=86400"})


def routes() -> list[BaseRoute]:
    """/graphiql/static/{name}: the page's scripts and styles."""
    return [Route("/graphiql/static/{name}", asset, methods=["GET", "HEAD"])]
