"""Public SPARQL in killable worker processes: each opens the on-disk store read-only and answers one query at
a time; a query past its time budget is ended with SIGKILL (Oxigraph cannot cancel one) and the worker
replaced, so a timed-out query stops using a core at once."""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from api.sandbox import forbid_network
from api.sparql_protocol import Reply, SparqlRequest, answer
from kg.store.types import QueryTimeout, StoreError

STARTUP_S = 60.0  # longest wait for a fresh worker to import its modules and open the store
MEMORY_MB = 512  # resident memory a worker may use (env KG_SPARQL_MEMORY_MB)
POLL_S = 0.02  # how often a waiting call looks at its worker's memory (a worker grows ~0.3 GB/s at most)
log = logging.getLogger("api.sparql")


class TooMuchMemory(StoreError):
    """A query made its worker grow past the memory cap; the worker was killed."""


def rss_mb(pid: int | None) -> float:
    """Resident memory of a process in MB (0 when it is gone), from /proc (Linux)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when the server dies, even mid-query (best effort elsewhere)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def worker_main(conn: Connection, location: str, base_iri: str) -> None:
    """The worker's loop: jobs (request, row cap, generation) in, Replies out, until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle; it stops us
    _die_with_parent()
    forbid_network(all_threads=True)  # whatever query text arrives, Oxigraph cannot connect anywhere
    from kg.store.embedded import EmbeddedStore

    def open_store() -> tuple[EmbeddedStore | None, str | None]:
        try:
            store = EmbeddedStore(location, base_iri=base_iri, read_only=True, create=False)
            return store, store.generation()
        except StoreError:
            return None, None

    store, generation = open_store()
    conn.send(("ready",))
    while True:
        try:
            req, cap, wanted = conn.recv()
        except (EOFError, OSError):
            return
        if store is None or wanted != generation:  # a read-only store sees the data as of opening
            store = None
            store, generation = open_store()
        reply: Reply = (500, "text/plain", b"the store could not answer this query")
        if store is not None:
            try:
                reply = answer(store, req, cap, base_iri)
            except Exception:  # whatever one query does, the worker answers the next
                log.exception("sparql worker: query failed")
        conn.send(reply)


class _Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(self, ctx: Any, location: str, base_iri: str) -> None:
        self.conn, child = ctx.Pipe()
        self.process: BaseProcess = ctx.Process(target=worker_main, args=(child, location, base_iri),
                                                name="kg-sparql-worker", daemon=True)
        self.process.start()
        child.close()
        self.ready = False

    def stop(self) -> None:
        """SIGKILL the process, reap it and close the pipe."""
        with contextlib.suppress(Exception):
            self.process.kill()
        with contextlib.suppress(Exception):
            self.process.join(5)
        with contextlib.suppress(Exception):
            self.conn.close()


class WorkerPool:
    """At most `size` worker processes over the store at `location`, started on first use."""

    def __init__(self, location: str, base_iri: str, size: int, generation: Callable[[], str],
                 memory_mb: int | None = None) -> None:
        self.location, self.base_iri, self.size = os.path.abspath(location), base_iri, size
        self.memory_mb = memory_mb or int(os.environ.get("KG_SPARQL_MEMORY_MB") or MEMORY_MB)
        self._generation = generation
        self._ctx = multiprocessing.get_context("spawn")  # never fork a threaded server
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._all: list[_Worker] = []
        self._started = self._closed = False
        self.executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="kg-sparql")

    def pids(self) -> list[int]:
        """The live workers' process ids (for tests and monitoring)."""
        with self._lock:
            return [w.process.pid for w in self._all if w.process.pid is not None]

    def acquire(self) -> _Worker | None:
        """An idle worker, or None when all are answering queries (starting the pool the first time)."""
        with self._lock:
            if self._closed:
                return None
            if not self._started:
                self._started = True
                self._all = [_Worker(self._ctx, self.location, self.base_iri) for _ in range(self.size)]
                self._idle = list(self._all)
            for i, worker in enumerate(self._idle):  # round robin over workers that can answer now, so
                if worker.ready or worker.conn.poll(0):  # no query waits for a fresh one still starting
                    return self._idle.pop(i)
            return self._idle.pop(0) if self._idle else None

    def _swap(self, worker: _Worker) -> _Worker:
        """Kill `worker` and start a fresh process in its place (still checked out)."""
        worker.stop()
        with self._lock:
            if self._closed:
                return worker
            fresh = _Worker(self._ctx, self.location, self.base_iri)
            self._all = [fresh if w is worker else w for w in self._all]
            return fresh

    def release(self, worker: _Worker, *, replace: bool = False) -> None:
        """Give `worker` back; with `replace`, kill it and put a fresh process in its place."""
        if replace:
            worker = self._swap(worker)
        with self._lock:
            if self._closed:
                worker.stop()
                return
            self._idle.append(worker)

    def call(self, worker: _Worker, req: SparqlRequest, cap: int, timeout: float) -> Reply:
        """Run one query on `worker` (blocking; the worker is given back); QueryTimeout past `timeout` s,
        TooMuchMemory when the worker grows past `memory_mb` (either way the worker is killed)."""
        replace = True
        try:
            job = (req, cap, self._generation())
            try:
                if worker.process.exitcode is not None:  # died while idle: a fresh one takes its place
                    worker = self._swap(worker)
                self._send(worker, job)
            except (EOFError, OSError):  # died before taking the job: once more on a fresh one
                worker = self._swap(worker)
                self._send(worker, job)
            self._wait(worker, timeout)
            reply: Reply = worker.conn.recv()
            replace = False
            return reply
        except (EOFError, OSError) as exc:  # the worker died (killed, out of memory) or the pool closed
            raise StoreError("SPARQL worker died") from exc
        finally:
            self.release(worker, replace=replace)

    def _wait(self, worker: _Worker, timeout: float) -> None:
        """Wait for `worker`'s reply, watching its resident memory; raise past the time or memory cap."""
        end = time.monotonic() + timeout
        while not worker.conn.poll(min(POLL_S, max(0.0, end - time.monotonic()))):
            if time.monotonic() >= end:
                raise QueryTimeout(f"query ran longer than {timeout:g} s")
            if (used := rss_mb(worker.process.pid)) > self.memory_mb:
                log.warning("sparql worker %s killed: %.0f MB resident, over the %d MB cap",
                            worker.process.pid, used, self.memory_mb)
                raise TooMuchMemory(f"query needed more than {self.memory_mb} MB of memory; it was stopped")

    @staticmethod
    def _send(worker: _Worker, job: tuple[SparqlRequest, int, str]) -> None:
        """Wait for `worker` to be ready (the first time), then hand it `job`."""
        if not worker.ready:
            if not worker.conn.poll(STARTUP_S) or worker.conn.recv() != ("ready",):
                raise StoreError("SPARQL worker did not start")
            worker.ready = True
        worker.conn.send(job)

    def close(self) -> None:
        """Stop every worker (SIGKILL: they hold no write locks) and refuse further work."""
        with self._lock:
            self._closed = True
            workers, self._all, self._idle = self._all, [], []
        for w in workers:
            w.stop()
        self.executor.shutdown(wait=False, cancel_futures=True)
