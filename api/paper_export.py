"""/export/papers: a filtered, ordered list of papers as CSV or BibTeX (`kg papers` over HTTP), at most
MAX_ROWS rows; a bad parameter is one line with status 400."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from kg.query import QueryContext, papers
from kg.query.cursor import BadCursor
from kg.query.listing import papers_bibtex, papers_csv
from kg.query.papers import ORDERS, BadOrder

MAX_ROWS = 1000
MEDIA = {"csv": "text/csv; charset=utf-8", "bibtex": "application/x-bibtex; charset=utf-8"}


def route(ctx: QueryContext) -> Route:
    """The GET /export/papers route over `ctx`."""

    async def handle(request: Request) -> Response:
        params = request.query_params
        fmt = params.get("format", "csv").lower()
        order = next((o for o in ORDERS if o == params.get("order", "ID").upper()), None)
        year, first = params.get("year"), params.get("first", str(MAX_ROWS))
        if fmt not in MEDIA:
            return _bad(f"format must be one of {', '.join(MEDIA)}")
        if order is None:
            return _bad(f"order must be one of {', '.join(ORDERS)}")
        if year is not None and not year.isdigit():
            return _bad("year must be a whole number")
        if not first.isdigit() or not 1 <= int(first) <= MAX_ROWS:
            return _bad(f"first must be a whole number from 1 to {MAX_ROWS}")
        try:
            page = await run_in_threadpool(lambda: papers(
                ctx, dataset=params.get("dataset"), task=params.get("task"), method=params.get("method"),
                model=params.get("model"), domain=params.get("domain"), search=params.get("search"),
                venue=params.get("venue"), year=None if year is None else int(year), order=order,
                first=int(first), after=params.get("after"), entity=params.get("entity")))
        except (BadCursor, BadOrder) as exc:
            return _bad(str(exc))
        body = papers_csv(page.items) if fmt == "csv" else papers_bibtex(page.items)
        headers = {"X-Total-Count": str(page.total)}
        if page.has_next and page.end_cursor:
            headers["X-Next-After"] = page.end_cursor
        return Response(body, media_type=MEDIA[fmt], headers=headers)

    return Route("/export/papers", handle, methods=["GET"])


def _bad(message: str) -> Response:
    return PlainTextResponse(message, status_code=400)
