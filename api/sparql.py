"""/sparql: the SPARQL 1.1 protocol, read-only (updates, LOAD and SERVICE refused), timed and capped.

Over an on-disk store the queries run in a worker pool of two lanes (api.sparql_worker). A query from an
address that ran no heavy query lately starts in the light lane (waiting up to LIGHT_WAIT_S for a light
worker, after LIGHT_ONLY_S taking an idle heavy one too); past LIGHT_S of CPU there it is moved to the heavy
lane, and an address whose query used that much counts as heavy for a minute (api.shares.HeavyClients):
its next queries start in the heavy lane, whose workers run at a lower CPU priority. However many
addresses run heavy queries, light ones keep a lane."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections import Counter
from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from api.errors import Refused
from api.sandbox import forbid_network
from api.shares import HeavyClients
from api.sparql_protocol import Reply, SparqlRequest, answer, read_request, service_description
from api.sparql_worker import TooHeavy, TooMuchMemory, WorkerPool
from kg.settings import Settings
from kg.store.types import QueryTimeout, Store, StoreError

RUNNING_QUERIES = 4  # in-thread SPARQL evaluations alive at once, including ones whose request timed out
PER_CLIENT = 1  # queries one client address may run at once (env KG_SPARQL_PER_CLIENT)
LIGHT_S = 0.25  # CPU seconds: a query past them in the light lane moves to the heavy lane, its address heavy
LIGHT_WAIT_S = 2.5  # how long a light query waits for a worker (past LIGHT_WALL_S: a light one frees by then)
LIGHT_ONLY_S = 0.1  # ... of which it waits for a light one only (a heavy worker runs at a lower priority)
_POLL_S = 0.005


class SparqlEndpoint:
    """/sparql over `store`: an on-disk embedded store answers in killable worker processes (a query past
    its time is SIGKILLed with its worker); in-memory and remote stores answer in threads, as before."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store, self.settings = store, settings
        self.timeout, self.cap = settings.query_timeout_s, settings.sparql_row_cap
        self.pool: WorkerPool | None = None
        self._slots = threading.BoundedSemaphore(RUNNING_QUERIES)
        per_client = settings.sparql_per_client or int(os.environ.get("KG_SPARQL_PER_CLIENT") or PER_CLIENT)
        self.per_client = max(1, per_client)
        self._clients: Counter[str] = Counter()  # queries running per client address (on the event loop)
        self.heavy = HeavyClients()
        size = settings.sparql_workers
        if store.directory is not None and size > 0:
            self.pool = WorkerPool(store.directory, settings.base_iri, size, store.generation,
                                   settings.sparql_memory_mb, light=max(0, settings.sparql_light_workers))

    async def _answer(self, req: SparqlRequest, client: str) -> Reply:
        if self.pool is None:
            reply: Reply = await _in_slot(self._slots, self.timeout, self.store.in_process, answer,
                                          self.store, req, self.cap, self.settings.base_iri)
            return reply
        pool, loop = self.pool, asyncio.get_running_loop()
        light, began = not self.heavy.heavy(client), loop.time()
        worker = pool.acquire(light, heavy_too=pool.light == 0)
        while worker is None and light and loop.time() - began < LIGHT_WAIT_S:
            await asyncio.sleep(_POLL_S)
            waited = loop.time() - began
            worker = pool.acquire(light, heavy_too=pool.light == 0 or waited >= LIGHT_ONLY_S)
        if worker is None:
            raise Busy(pool.size + pool.light if light else pool.size)

        def ran(cpu_s: float) -> None:  # on the pool's thread: the CPU time the query itself used
            if cpu_s > LIGHT_S:
                self.heavy.mark(client)

        try:
            return await loop.run_in_executor(pool.executor, pool.call, worker, req, self.cap, self.timeout,
                                              LIGHT_S if light else None, ran)
        except TooHeavy as exc:
            worker = pool.acquire(light=False)
            if worker is None:
                raise Busy(pool.size) from None
            return await loop.run_in_executor(pool.executor, pool.call, worker, req, self.cap,
                                              self.timeout - exc.spent, None, ran)

    async def handle(self, request: Request) -> Response:
        """The request handler."""
        client = request.client.host if request.client is not None else "?"
        if self._clients[client] >= self.per_client:
            return PlainTextResponse(
                f"{self._clients[client]} SPARQL queries from this client are still running; retry later",
                status_code=429, headers={"Retry-After": "1"})
        self._clients[client] += 1
        try:
            req = await read_request(request)
            if req is None:  # GET /sparql without a query: what this service is
                status, media, body = service_description(self.store, self.settings, request)
            else:
                status, media, body = await self._answer(req, client)
        except Refused as exc:
            return PlainTextResponse(str(exc), status_code=exc.status)
        except QueryTimeout:
            return PlainTextResponse(f"query ran longer than {self.timeout:g} s", status_code=503)
        except Busy as exc:
            return PlainTextResponse(f"{exc.running} SPARQL queries are still running; retry later",
                                     status_code=503)
        except TooMuchMemory as exc:
            return PlainTextResponse(str(exc), status_code=503)
        except StoreError:
            return PlainTextResponse("the store could not answer this query", status_code=500)
        finally:
            self._clients[client] -= 1
            if self._clients[client] <= 0:
                del self._clients[client]
        return Response(body, status_code=status, media_type=media)

    def close(self) -> None:
        """Stop the worker processes (on app shutdown)."""
        if self.pool is not None:
            self.pool.close()


class Busy(Exception):
    """Every evaluation slot is taken."""

    def __init__(self, running: int = RUNNING_QUERIES) -> None:
        super().__init__(running)
        self.running = running


async def _in_slot(slots: threading.BoundedSemaphore, timeout: float, offline: bool, fn: Any,
                   *args: Any) -> Any:
    """`fn(*args)` in its own thread, answered within `timeout` (+0.5 s) seconds; with `offline`, a thread
    that cannot open a network socket (api.sandbox: an in-process engine needs none).

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
            if offline:
                forbid_network()
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

