"""Public SPARQL in killable worker processes: each opens the on-disk store read-only and answers one query at
a time; a query past its time budget is ended with SIGKILL (Oxigraph cannot cancel one) and the worker
replaced, so a timed-out query stops using a core at once.

Two lanes share the machine fairly. The heavy lane's workers run at a lower CPU priority (nice 10), so
whatever they run, the server and the light lane get the cores first; the light lane's workers (normal
priority) answer light queries: a query still running after its light budget of CPU time goes on in its
worker, which moves to the heavy lane (its priority lowered) while a fresh worker takes its place in the
light lane, so no heavy query holds a light worker for long."""

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
HEAVY_NICE = 10  # the heavy lane's CPU priority: below the server's and the light lane's (nice 0)
LIGHT_WALL_S = 2.0  # a light-lane query starved this long of CPU gives its worker back all the same
log = logging.getLogger("api.sparql")


class TooMuchMemory(StoreError):
    """A query made its worker grow past the memory cap; the worker was killed."""


class TooHeavy(Exception):  # noqa: N818 - not an error: the query moves to the heavy lane
    """A query ran past its light budget in a light worker; that worker was killed (and replaced)."""

    def __init__(self, spent: float) -> None:
        super().__init__(spent)
        self.spent = spent


def cpu_seconds(pid: int | None) -> float:
    """CPU time a process has used (user and system, all its threads), from /proc (Linux; 0 elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, ValueError, IndexError):
        return 0.0


def rss_mb(pid: int | None) -> float:
    """Resident memory of a process in MB (0 when it is gone), from /proc (Linux)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when the server dies, even mid-query (best effort elsewhere)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def worker_main(conn: Connection, location: str, base_iri: str, nice: int = 0) -> None:
    """The worker's loop: jobs (request, row cap, generation) in, Replies out, until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle; it stops us
    _die_with_parent()
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
    forbid_network(all_threads=True)  # whatever query text arrives, Oxigraph cannot connect anywhere
    from kg.store.embedded import EmbeddedStore

    def open_store() -> tuple[EmbeddedStore | None, str | None]:
        try:
            store = EmbeddedStore(location, base_iri=base_iri, read_only=True, create=False)
            return store, store.generation()
        except StoreError:
            return None, None

    store, generation = open_store()
    try:
        conn.send(("ready",))
    except OSError:  # the server went away while this worker started
        return
    while True:
        try:
            req, cap, wanted = conn.recv()
        except (EOFError, OSError):
            return
        if store is None or wanted != generation:  # a read-only store sees the data as of opening
            store = None
            store, generation = open_store()
        reply: Reply = (500, "text/plain", b"the store could not answer this query")
        cpu = time.process_time()
        if store is not None:
            try:
                reply = answer(store, req, cap, base_iri)
            except Exception:  # whatever one query does, the worker answers the next
                log.exception("sparql worker: query failed")
        try:
            conn.send((reply, time.process_time() - cpu))
        except OSError:  # the server gave up on this query (or went away): it will kill this worker
            return


class _Worker:
    """One worker process of one lane ("heavy" or "light") and the parent's end of its pipe."""

    def __init__(self, ctx: Any, location: str, base_iri: str, lane: str = "heavy") -> None:
        self.lane = lane
        self.conn, child = ctx.Pipe()
        nice = HEAVY_NICE if lane == "heavy" else 0
        self.process: BaseProcess = ctx.Process(target=worker_main, args=(child, location, base_iri, nice),
                                                name=f"kg-sparql-{lane}", daemon=True)
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
    """`size` heavy-lane and `light` light-lane worker processes over the store at `location`, started on
    first use."""

    def __init__(self, location: str, base_iri: str, size: int, generation: Callable[[], str],
                 memory_mb: int | None = None, light: int = 0) -> None:
        self.location, self.base_iri, self.size, self.light = os.path.abspath(location), base_iri, size, light
        self.memory_mb = memory_mb or int(os.environ.get("KG_SPARQL_MEMORY_MB") or MEMORY_MB)
        self._generation = generation
        # never fork a threaded server: workers fork from a forkserver (a fresh single-threaded process that
        # has imported this module once), so a killed worker's replacement starts in milliseconds, not the
        # seconds a spawned interpreter takes to import its modules on a loaded machine
        self._ctx = multiprocessing.get_context("forkserver")
        with contextlib.suppress(ValueError):
            self._ctx.set_forkserver_preload(["api.sparql_worker"])
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._all: list[_Worker] = []
        self._started = self._closed = False
        self.executor = ThreadPoolExecutor(max_workers=size + 2 * light, thread_name_prefix="kg-sparql")

    def pids(self) -> list[int]:
        """The live workers' process ids (for tests and monitoring)."""
        with self._lock:
            return [w.process.pid for w in self._all if w.process.pid is not None]

    def acquire(self, light: bool = False, heavy_too: bool = True) -> _Worker | None:
        """An idle worker, or None when all that may answer are busy (starting the pool the first time): a
        heavy query takes a heavy-lane worker only; a light one a light-lane worker first, else (with
        `heavy_too`) a heavy one."""
        with self._lock:
            if self._closed:
                return None
            if not self._started:
                self._started = True
                lanes = ["light"] * self.light + ["heavy"] * self.size
                self._all = [_Worker(self._ctx, self.location, self.base_iri, lane) for lane in lanes]
                self._idle = list(self._all)
            for lane in (("light", "heavy") if heavy_too else ("light",)) if light else ("heavy",):
                idle = [i for i, w in enumerate(self._idle) if w.lane == lane]
                for i in idle:  # round robin over workers that can answer now, so no query waits for a
                    worker = self._idle[i]  # fresh one still starting
                    if worker.ready or worker.conn.poll(0):
                        return self._idle.pop(i)
                if idle:
                    return self._idle.pop(idle[0])
            return None

    def _demote(self, worker: _Worker) -> bool:
        """Move a busy light-lane worker to the heavy lane (its CPU priority lowered) and start a fresh light
        worker in its place; False, changing nothing, when the heavy lane already has `size + light`
        workers (the extra ones leave when their query ends: `release`)."""
        with self._lock:
            if self._closed or sum(w.lane == "heavy" for w in self._all) >= self.size + self.light:
                return False
            with contextlib.suppress(OSError):  # as the heavy lane's own workers: HEAVY_NICE below the server
                pid = worker.process.pid or 0
                now = os.getpriority(os.PRIO_PROCESS, pid)
                os.setpriority(os.PRIO_PROCESS, pid, min(19, now + HEAVY_NICE))
            worker.lane = "heavy"
            fresh = _Worker(self._ctx, self.location, self.base_iri, "light")
            self._all.append(fresh)
            self._idle.append(fresh)
            return True

    def _swap(self, worker: _Worker) -> _Worker:
        """Kill `worker` and start a fresh process in its place (still checked out)."""
        worker.stop()
        with self._lock:
            if self._closed:
                return worker
            fresh = _Worker(self._ctx, self.location, self.base_iri, worker.lane)
            self._all = [fresh if w is worker else w for w in self._all]
            return fresh

    def release(self, worker: _Worker, *, replace: bool = False) -> None:
        """Give `worker` back; with `replace`, kill it and put a fresh process in its place."""
        extra = False
        with self._lock:
            extra = worker.lane == "heavy" and sum(w.lane == "heavy" for w in self._all) > self.size
            if extra:  # a demoted light worker beyond the heavy lane's size: it leaves
                self._all = [w for w in self._all if w is not worker]
        if extra:
            worker.stop()
            return
        if replace:
            worker = self._swap(worker)
        with self._lock:
            if self._closed:
                worker.stop()
                return
            self._idle.append(worker)

    def call(self, worker: _Worker, req: SparqlRequest, cap: int, timeout: float,
             light_s: float | None = None, ran: Callable[[float], None] | None = None) -> Reply:
        """Run one query on `worker` (blocking; the worker is given back); QueryTimeout past `timeout` s,
        TooMuchMemory when the worker grows past `memory_mb` (each time the worker is killed). A query past
        `light_s` of CPU time in a light-lane worker (contention on a shared machine does not inflate CPU
        time) goes on in that worker, moved to the heavy lane (`_demote`); when the heavy lane is full it is
        killed with TooHeavy. `ran` is told the CPU seconds the query itself used, whatever the outcome."""
        replace = True
        started: float | None = None
        cpu = cpu_before = 0.0
        try:
            job = (req, cap, self._generation())
            try:
                if worker.process.exitcode is not None:  # died while idle: a fresh one takes its place
                    worker = self._swap(worker)
                self._send(worker, job)
            except (EOFError, OSError):  # died before taking the job: once more on a fresh one
                worker = self._swap(worker)
                self._send(worker, job)
            started, cpu_before = time.monotonic(), cpu_seconds(worker.process.pid)
            if worker.lane == "light" and light_s is not None:
                try:
                    self._wait(worker, min(timeout, LIGHT_WALL_S), cpu_before + light_s)
                except (TooHeavy, QueryTimeout) as exc:
                    if isinstance(exc, QueryTimeout) and timeout <= LIGHT_WALL_S:
                        raise
                    if not self._demote(worker):  # the heavy lane is full: this query waits for none
                        raise TooHeavy(time.monotonic() - started) from None
                    self._wait(worker, timeout - (time.monotonic() - started))
            else:
                self._wait(worker, timeout)
            reply: Reply
            reply, cpu = worker.conn.recv()
            replace = False
            return reply
        except (EOFError, OSError) as exc:  # the worker died (killed, out of memory) or the pool closed
            raise StoreError("SPARQL worker died") from exc
        finally:
            if ran is not None and started is not None:
                ran(cpu if not replace else cpu_seconds(worker.process.pid) - cpu_before)
            self.release(worker, replace=replace)

    def _wait(self, worker: _Worker, timeout: float, cpu_until: float | None = None) -> None:
        """Wait for `worker`'s reply, watching its resident memory (and with `cpu_until`, its CPU time);
        raise past the time, memory or CPU cap."""
        end = time.monotonic() + timeout
        while not worker.conn.poll(min(POLL_S, max(0.0, end - time.monotonic()))):
            if time.monotonic() >= end:
                raise QueryTimeout(f"query ran longer than {timeout:g} s")
            if cpu_until is not None and cpu_seconds(worker.process.pid) > cpu_until:
                raise TooHeavy(timeout - (end - time.monotonic()))
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
