"""The app over one store: /graphql (POST; GET opens GraphiQL), /sparql, /export, /healthz, /explore."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import threading
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.to_thread
from cross_web import HTTPException
from graphql import GraphQLError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLHTTPResponse, GraphQLRequestData
from strawberry.types import ExecutionResult
from strawberry.types.unset import UNSET

from api import explorer, graphiql, paper_export
from api.body_limit import BodySizeLimit
from api.context import ApiContext
from api.cors import Cors
from api.export import Export
from api.graphql_http import adapt, lone_surrogate, mark, refusal
from api.headers import SecurityHeaders
from api.limits import DeadlineExceeded
from api.linked_data import routes as linked_data_routes
from api.loaders import ON_REQUEST_THREAD, Loaders
from api.schema import build_schema
from api.shares import ConcurrencyShare, large_body, whole_export
from api.sparql import SparqlEndpoint
from api.time_limit import TimeLimit
from api.writer import PaperWriter
from kg.query import QueryContext
from kg.query.memo import at_generation
from kg.settings import Settings
from kg.store import Store, StoreError, open_store

EXECUTIONS = 32  # GraphQL executions at once (each on its own thread and event loop)
LARGE_DOCUMENT = 1024  # GraphQL bodies from this size on are served one at a time (parsing is ~20 µs a token)
_THREAD = threading.local()  # each execution thread's event loop, made once and reused
CONSISTENT_TRIES = 3  # a query overlapped by writes runs again, at most this many times in all


class GraphQLApp(GraphQL[ApiContext, None]):
    """strawberry's ASGI view with our per-request context; queries over GET are off (GET is GraphiQL)."""

    def __init__(self, settings: Settings, ctx: QueryContext) -> None:
        super().__init__(build_schema(settings), graphql_ide="graphiql", allow_queries_via_get=False)
        self.settings, self.ctx, self.writer = settings, ctx, PaperWriter(ctx)
        self._executions = anyio.CapacityLimiter(EXECUTIONS)

    async def run(self, request: Any, context: Any = UNSET, root_value: Any = UNSET) -> Any:
        """GraphQL over HTTP: application/graphql-response+json and its status codes when accepted."""
        try:
            response = await super().run(request, context, root_value)
        except HTTPException as exc:  # strawberry's refusals are text/plain: answered as GraphQL errors
            return refusal(request, exc.status_code, exc.reason, exc.__cause__)
        return adapt(request, response) if isinstance(response, Response) else response

    async def process_result(self, request: Request, result: ExecutionResult) -> GraphQLHTTPResponse:
        mark(request, result)  # a request error (no data, no path) is a 400 under graphql-response+json
        return await super().process_result(request, result)

    async def get_context(self, request: Request | WebSocket, response: Response | WebSocket) -> ApiContext:
        if not isinstance(request, Request) or not isinstance(response, Response):
            raise TypeError("the API serves GraphQL over HTTP only (no subscriptions)")
        return ApiContext(request, response, self.ctx, self.settings, self.writer)

    async def render_graphql_ide(self, request: Request) -> Response:
        """GraphiQL served from this machine (api.graphiql), never from a CDN: it works offline."""
        return graphiql.page()

    async def execute_single(
        self, request: Request, request_adapter: Any, sub_response: Response, context: ApiContext,
        root_value: None, request_data: GraphQLRequestData,
    ) -> ExecutionResult:
        """Answer a query from one store generation: its fields come from several store queries, so when a
        write lands in between (a paper's title from one version, its links from the next) it runs again,
        the last time holding off this process's writers. Mutations run once."""
        for attempt in range(CONSISTENT_TRIES):
            last = attempt == CONSISTENT_TRIES - 1
            while last and not self.writer.hold():  # polled on the loop: a cancel never strands the lock
                await asyncio.sleep(0.005)
            try:
                before = await self._generation()
                try:
                    with at_generation(before):  # the time budget: api.limits.Deadline
                        result = await self._execute_in_thread(
                            request, request_adapter, sub_response, context, root_value, request_data)
                except DeadlineExceeded as exc:
                    request.state.kg_deadline = True  # not a request error (api.graphql_http)
                    return ExecutionResult(data=None, errors=[GraphQLError(str(exc))])
                if last or context.mutation:  # a mutation runs once (api.auth.MarkMutations)
                    return result
                if await self._generation() == before:
                    return result
                context.loaders = Loaders(self.ctx)  # loaders cache what the older generation said
            finally:
                if last:
                    self.writer.release()
        raise AssertionError("unreachable")

    async def _execute_in_thread(
        self, request: Request, request_adapter: Any, sub_response: Response, context: ApiContext,
        root_value: None, request_data: GraphQLRequestData,
    ) -> ExecutionResult:
        """Execute on an event loop of its own in a worker thread. graphql-core completes a list in one
        synchronous sweep (a task per item), which no deadline check can interrupt; off the server's loop
        such a sweep cannot stall other requests or the time limit, which abandons the thread at the limit
        (the sweep then stops at its next resolver, past the deadline)."""

        def run() -> ExecutionResult:
            token = ON_REQUEST_THREAD.set(True)
            try:
                return _thread_loop().run_until_complete(GraphQL.execute_single(
                    self, request, request_adapter, sub_response, context, root_value, request_data))
            finally:
                ON_REQUEST_THREAD.reset(token)
                _cancel_leftovers(_thread_loop())

        return await anyio.to_thread.run_sync(run, abandon_on_cancel=True, limiter=self._executions)

    def decode_json(self, data: str | bytes) -> object:
        """The request body as JSON; a body that is not UTF-8, nests too deeply or is not an object (or a
        batch) is a 400 with one line, never a 500."""
        try:
            body = data.decode("utf-8") if isinstance(data, bytes) else data
        except UnicodeDecodeError as exc:
            raise HTTPException(400, f"request body is not valid UTF-8 (byte {exc.start})") from None
        try:
            value = json.loads(body)
        except RecursionError:
            raise HTTPException(400, "request body nests too deeply") from None
        if not isinstance(value, dict | list):
            raise HTTPException(400, "request body must be a JSON object") from None
        try:
            where = lone_surrogate(value, body)
        except RecursionError:
            raise HTTPException(400, "request body nests too deeply") from None
        if where is not None:
            raise HTTPException(400, f"request body holds a lone surrogate, which is not text: {where}")
        return value

    async def _generation(self) -> str:
        """The store's generation: read on the loop for a local store (~15 µs), off it for a remote one."""
        store = self.ctx.store
        if store.in_process:
            return store.generation()
        return await run_in_threadpool(store.generation)


def _thread_loop() -> asyncio.AbstractEventLoop:
    """This execution thread's event loop (a new loop per request, as asyncio.run makes, cost ~0.3 ms)."""
    loop: asyncio.AbstractEventLoop | None = getattr(_THREAD, "loop", None)
    if loop is None or loop.is_closed():
        loop = _THREAD.loop = asyncio.new_event_loop()
        loop.set_exception_handler(_unless_past_deadline)
    return loop


def _unless_past_deadline(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """Report a task's unretrieved exception as asyncio does, except the deadline's: when one field passes
    it, graphql-core leaves its sibling fields' tasks to fail the same way (the client got one line)."""
    if not isinstance(context.get("exception"), DeadlineExceeded):
        loop.default_exception_handler(context)


def _cancel_leftovers(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what an execution left scheduled on its thread's loop, as asyncio.run would on exit."""
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))


def create_app(settings: Settings, store: Store | None = None) -> Starlette:
    """The API over `store` (or the store `settings.store` names, opened here and closed on shutdown)."""
    owned = store is None
    the_store = open_store(settings.store, base_iri=settings.base_iri) if store is None else store
    # A local store's SELECTs get no per-query timeout (it costs a thread per query, ~0.4 ms): each GraphQL
    # request has a time budget checked before every query (kg.query.context.time_budget) and TimeLimit.
    per_query = None if the_store.in_process else settings.query_timeout_s
    ctx = QueryContext.open(the_store, settings.base_iri, timeout_s=per_query)
    sparql = SparqlEndpoint(the_store, settings)  # its worker processes start on the first /sparql query
    export = Export(ctx)
    graphql = GraphQLApp(settings, ctx)

    async def healthz(request: Request) -> Response:
        try:
            await run_in_threadpool(the_store.ask, "ASK { ?s ?p ?o }")
        except StoreError:
            return JSONResponse({"status": "unavailable"}, status_code=503)
        return JSONResponse({"status": "ok"})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if settings.api_token:  # writes on: load the extractor before listening, not in the first
            await run_in_threadpool(graphql.writer.extractor)  # addPapers' time budget (seconds of spaCy)
        gc.collect()
        gc.freeze()  # startup objects leave the collector's generations: shorter GC pauses per request
        try:
            yield
        finally:
            sparql.close()
            export.close()
            ctx.index.close()
            if owned:
                the_store.close()

    return Starlette(
        routes=[
            Route("/graphql", graphql, methods=["GET", "POST"]),
            Route("/sparql", sparql.handle, methods=["GET", "POST"]),
            Route("/export", export.handle, methods=["GET"]),
            paper_export.route(ctx),
            Route("/healthz", healthz, methods=["GET"]),
            *explorer.routes(ctx),
            *graphiql.routes(),
            *linked_data_routes(ctx),  # last: `/`, /.well-known/void, /ontology, /paper/..., /dataset/...
        ],
        middleware=[
            Middleware(Cors, origins=settings.cors_origins),  # cross-origin reads only, never writes
            Middleware(SecurityHeaders),
            # fair shares (api.shares): documents large enough to cost tens of ms to parse, whole dumps
            Middleware(ConcurrencyShare, path="/graphql", applies=large_body(LARGE_DOCUMENT), total=1,
                       graphql=True, what="large GraphQL documents"),
            Middleware(ConcurrencyShare, path="/export", applies=whole_export, total=2,
                       what="whole-graph exports"),
            Middleware(BodySizeLimit, max_bytes=settings.max_body_bytes),
            Middleware(TimeLimit, seconds=settings.query_timeout_s),
        ],
        lifespan=lifespan,
    )
