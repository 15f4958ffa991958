"""/sparql: the SPARQL 1.1 protocol, read-only (updates, LOAD and SERVICE refused), timed and capped."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs

import pyoxigraph as ox
from rdflib.plugins.sparql.parser import parseQuery, parseUpdate
from rdflib.plugins.sparql.parserutils import CompValue
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from api.sparql_results import ask_result, negotiate, select_results
from kg.settings import Settings
from kg.store.formats import prefixes
from kg.store.types import BadQuery, QueryTimeout, Store, StoreError, TooManyRows

RUNNING_QUERIES = 4  # SPARQL evaluations alive at once, including ones whose request has timed out
_GRAPH_TYPES = {
    "text/turtle": ox.RdfFormat.TURTLE,
    "application/n-triples": ox.RdfFormat.N_TRIPLES,
    "application/ld+json": ox.RdfFormat.JSON_LD,
    "application/rdf+xml": ox.RdfFormat.RDF_XML,
}


class Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _walk(node: Any) -> Iterator[Any]:
    yield node
    children = node.values() if isinstance(node, dict) else node if isinstance(node, list | tuple) else ()
    if hasattr(node, "asList") and not isinstance(node, dict):
        children = list(node)
    for child in children:
        yield from _walk(child)


def classify(text: str) -> tuple[str, list[str] | None]:
    """("SelectQuery" | "AskQuery" | "ConstructQuery" | "DescribeQuery", projected variables or None)."""
    try:
        parsed = parseQuery(text)
    except Exception as exc:
        try:
            parseUpdate(text)
        except Exception:
            raise Refused(400, "malformed SPARQL query") from None
        raise Refused(
            403, "this endpoint is read-only: SPARQL updates (INSERT, DELETE, LOAD, DROP...) are refused"
        ) from exc
    if any(isinstance(n, CompValue) and n.name == "ServiceGraphPattern" for n in _walk(parsed)):
        raise Refused(403, "SERVICE (federated queries) is not allowed on this endpoint")
    query = parsed[1]
    variables = None
    if query.name == "SelectQuery" and "projection" in query:
        variables = [str(p["var"] if "var" in p else p["evar"]) for p in query["projection"]]
    return query.name, variables


async def _query_text(request: Request) -> str:
    if request.method == "GET":
        if "update" in request.query_params:
            raise Refused(403, "this endpoint is read-only: updates are refused")
        text = request.query_params.get("query")
    else:
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype == "application/sparql-update":
            raise Refused(403, "this endpoint is read-only: updates are refused")
        if ctype == "application/x-www-form-urlencoded":  # parsed here: no python-multipart needed
            form = parse_qs((await request.body()).decode("utf-8", errors="replace"), max_num_fields=20)
            if "update" in form:
                raise Refused(403, "this endpoint is read-only: updates are refused")
            text = form.get("query", [""])[0]
        elif ctype == "application/sparql-query":
            text = (await request.body()).decode("utf-8", errors="replace")
        else:
            raise Refused(415, "POST a form (query=...) or application/sparql-query")
    if not text:
        raise Refused(400, "missing `query` parameter")
    return text


def make_endpoint(store: Store, settings: Settings) -> Any:
    """The /sparql request handler over `store` with the settings' timeout and row cap."""
    timeout, cap = settings.query_timeout_s, settings.sparql_row_cap
    slots = threading.BoundedSemaphore(RUNNING_QUERIES)

    def answer(text: str, accept: str) -> Response:
        """Parse, evaluate and serialise, all off the event loop (parsing a huge query takes seconds)."""
        form, variables = classify(text)
        if form == "SelectQuery":
            rows = store.select(text, None, None, cap)
            if variables is None:
                variables = list(dict.fromkeys(v for r in rows for v in r))
            media = negotiate(accept)
            return Response(select_results(variables, rows, media), media_type=media)
        if form == "AskQuery":
            media = negotiate(accept)
            return Response(ask_result(store.ask(text), media), media_type=media)
        triples = store.construct(text)
        if len(triples) > cap:
            raise TooManyRows(f"query returned more than {cap} triples; add a LIMIT or narrow it")
        media = next((m for m in _GRAPH_TYPES if m in accept), "text/turtle")
        body = ox.serialize(triples, format=_GRAPH_TYPES[media], prefixes=prefixes(settings.base_iri))
        return Response(body, media_type=media)

    async def run(request: Request) -> Response:
        try:
            text = await _query_text(request)
            accept = request.headers.get("accept", "")
            response: Response = await _in_slot(slots, timeout, answer, text, accept)
            return response
        except Refused as exc:
            return PlainTextResponse(str(exc), status_code=exc.status)
        except QueryTimeout:
            return PlainTextResponse(f"query ran longer than {timeout:g} s", status_code=503)
        except Busy:
            return PlainTextResponse(
                f"{RUNNING_QUERIES} SPARQL queries are still running; retry later", status_code=503)
        except TooManyRows as exc:
            return PlainTextResponse(str(exc), status_code=413)
        except BadQuery as exc:
            return PlainTextResponse(str(exc), status_code=400)
        except StoreError:
            return PlainTextResponse("the store could not answer this query", status_code=500)

    return run


class Busy(Exception):
    """Every evaluation slot is taken."""


async def _in_slot(slots: threading.BoundedSemaphore, timeout: float, fn: Any, *args: Any) -> Any:
    """`fn(*args)` in its own thread, answered within `timeout` (+0.5 s) seconds.

    Oxigraph cannot cancel a query, so one that runs past its time keeps its thread (and a core) until it
    ends. The slot is given back only then: at most RUNNING_QUERIES evaluations exist at once, so runaway
    queries cannot pile up threads, starve the shared thread pool or take every core (GraphQL keeps
    answering); beyond that /sparql answers 503.
    """
    if not slots.acquire(blocking=False):
        raise Busy
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Any] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if done.done():  # the request gave up waiting
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)

    def work() -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            result = fn(*args)
        except BaseException as exc:  # handed to the waiting request, without this thread's frames (they
            error = exc.with_traceback(None)  # hold Oxigraph iterators that must be dropped on this thread)
        finally:
            slots.release()
        with contextlib.suppress(RuntimeError):  # the event loop has closed (server shut down)
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=work, name="kg-sparql", daemon=True).start()
    try:
        return await asyncio.wait_for(done, timeout + 0.5)
    except TimeoutError:
        raise QueryTimeout("timed out") from None
