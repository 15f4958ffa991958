"""Extraction on a Dask distributed cluster: `kg build INPUT... --cluster ADDRESS|local:N`.

The parent reads the inputs, cuts them into batches and submits one task per batch to the cluster's
workers; each worker process loads the extractor once (a worker plugin warms a per-process cache) and
sends back frozen `Extraction`s (or, for `--out`, the batch's N-Quads text). Results are taken in input
order from a bounded window of in-flight batches, so the parent holds only a few batches at a time and
writes through the one write path (kg/write.py) exactly as a local build does.

Failures are the engine's job: a task that raises is retried (`retries`), and a task whose worker dies
is rescheduled on another worker by the scheduler (up to `distributed.scheduler.allowed-failures`). A
batch computed twice is still taken once, by its future, so no paper is ever duplicated.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from distributed import Client, Future, LocalCluster, WorkerPlugin

from kg.types import Extraction, Paper

if TYPE_CHECKING:
    from kg.extract import Extractor

__all__ = ["ClusterError", "connect", "extract_on_cluster", "parse_cluster", "shard_on_cluster"]

BATCH = 64  # papers per task: big enough to amortise a task's ~1 ms scheduling cost, small to retry
RETRIES = 2  # a batch whose task raises is run again this many times before the build fails


class ClusterError(RuntimeError):
    """The cluster could not be reached or started, or a batch failed on every try."""


@dataclass(frozen=True, slots=True)
class ClusterSpec:
    """Where to run: a scheduler address, or a local cluster of `local_workers` processes."""

    address: str | None
    local_workers: int = 0


def parse_cluster(text: str) -> ClusterSpec:
    """`local:N` (N worker processes on this machine) or a scheduler address (`tcp://host:8786`)."""
    text = text.strip()
    if text.startswith("local:") or text == "local":
        n = text.partition(":")[2] or "2"
        if not n.isdigit() or int(n) < 1:
            raise ClusterError(f"--cluster {text}: local:N needs a worker count N >= 1")
        return ClusterSpec(None, int(n))
    if not text:
        raise ClusterError("--cluster: empty address; use local:N or tcp://HOST:PORT")
    return ClusterSpec(text if "://" in text else f"tcp://{text}")


@contextmanager
def connect(cluster: str | Client, *, timeout: float = 30.0) -> Iterator[Client]:
    """A client for `cluster`; for `local:N` a local cluster of N single-threaded worker processes
    (each under a nanny, which restarts it if it dies) that is shut down on exit. A `Client` given is
    used as it is and left open."""
    if isinstance(cluster, Client):
        yield cluster
        return
    spec = parse_cluster(cluster)
    if spec.address is None:
        try:
            local = LocalCluster(
                n_workers=spec.local_workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                scheduler_port=0,
                host="127.0.0.1",
                silence_logs=logging.ERROR,
            )
        except Exception as exc:  # noqa: BLE001 - one line for the CLI, whatever the cause
            raise ClusterError(f"--cluster {cluster}: could not start a local cluster: {exc}") from exc
        try:
            with Client(local, timeout=timeout) as client:
                yield client
        finally:
            local.close()
        return
    try:
        client = Client(spec.address, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"--cluster {cluster}: no scheduler answered ({exc})") from exc
    try:
        yield client
    finally:
        client.close()


# --- on the workers -------------------------------------------------------------------------------------

_EXTRACTORS: dict[tuple[str, bool], Extractor] = {}
_LOCK = threading.Lock()
_LOADS = [0]  # how many extractors this process has loaded (one per worker, whatever the batch count)


def loads() -> int:
    """How many times this worker process loaded an extractor (for tests and `client.run`)."""
    return _LOADS[0]


def warm(base_iri: str, with_recogniser: bool = True) -> int:
    """Make sure this worker's extractor is loaded (waiting for a load under way); how many loads it took."""
    worker_extractor(base_iri, with_recogniser)
    return loads()


def worker_extractor(base_iri: str, with_recogniser: bool = True) -> Extractor:
    """This process's extractor for `base_iri`, loaded on first use and kept (one load per worker)."""
    key = (base_iri, with_recogniser)
    with _LOCK:
        ex = _EXTRACTORS.get(key)
        if ex is None:
            from kg.extract import Extractor

            ex = _EXTRACTORS[key] = Extractor(base_iri, with_recogniser=with_recogniser)
            _LOADS[0] += 1
        return ex


class ExtractorPlugin(WorkerPlugin):
    """Worker plugin: loads the extractor when a worker joins (or is restarted), off the event loop."""

    idempotent = True

    def __init__(self, base_iri: str, with_recogniser: bool = True) -> None:
        self.base_iri = base_iri
        self.with_recogniser = with_recogniser
        self.name = f"paperkg-extractor-{base_iri}-{with_recogniser}"

    async def setup(self, worker: Any) -> None:
        await asyncio.to_thread(worker_extractor, self.base_iri, self.with_recogniser)


def _extract_batch(papers: list[Paper], base_iri: str, with_recogniser: bool) -> list[Extraction]:
    return list(worker_extractor(base_iri, with_recogniser).extract(papers))


def _shard_batch(
    papers: list[Paper], base_iri: str, with_recogniser: bool
) -> list[tuple[Extraction, str, int]]:
    """Each paper's extraction with its N-Quads text and quad count (mapping done on the worker)."""
    from kg.rdf.nquads import nquads_records

    return nquads_records(list(worker_extractor(base_iri, with_recogniser).extract(papers)), base_iri)


# --- in the parent --------------------------------------------------------------------------------------


def _batches(papers: Iterable[Paper], size: int) -> Iterator[list[Paper]]:
    batch: list[Paper] = []
    for p in papers:
        batch.append(p)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _ordered(
    client: Client,
    fn: Any,
    papers: Iterable[Paper],
    base_iri: str,
    *,
    batch: int,
    window: int | None,
    with_recogniser: bool,
) -> Iterator[Any]:
    """Submit `fn` over batches of `papers`, keeping `window` batches in flight, and yield each batch's
    result in input order."""
    try:
        client.register_plugin(ExtractorPlugin(base_iri, with_recogniser))
    except Exception as exc:  # noqa: BLE001 - a worker that cannot load the extractor: one line
        raise ClusterError(f"the cluster's workers could not load the extractor: {exc}") from exc
    if window is None:
        window = max(2, 2 * sum(client.nthreads().values()))
    run = uuid.uuid4().hex[:12]
    pending: deque[tuple[int, Future[Any]]] = deque()

    def take() -> Any:
        i, fut = pending.popleft()
        try:
            return fut.result()
        except Exception as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ClusterError(f"batch {i} failed on the cluster: {type(exc).__name__}: {first}") from exc
        finally:
            fut.release()

    try:
        for i, part in enumerate(_batches(papers, batch)):
            fut = client.submit(fn, part, base_iri, with_recogniser, key=f"paperkg-{fn.__name__}-{run}-{i}",
                                retries=RETRIES, pure=False)
            pending.append((i, fut))
            if len(pending) >= window:
                yield take()
        while pending:
            yield take()
    finally:
        for _, fut in pending:
            fut.cancel()


def extract_on_cluster(
    client: Client,
    papers: Iterable[Paper],
    base_iri: str,
    *,
    batch: int = BATCH,
    window: int | None = None,
    with_recogniser: bool = True,
) -> Iterator[Extraction]:
    """Extractions of `papers` computed on the cluster's workers, in input order."""
    for part in _ordered(client, _extract_batch, papers, base_iri, batch=batch, window=window,
                         with_recogniser=with_recogniser):
        yield from part


def shard_on_cluster(
    client: Client,
    papers: Sequence[Paper] | Iterable[Paper],
    base_iri: str,
    *,
    batch: int = BATCH,
    window: int | None = None,
    with_recogniser: bool = True,
) -> Iterator[tuple[Extraction, str, int]]:
    """(extraction, N-Quads text, quad count) per paper, mapped and serialised on the workers, in order."""
    for part in _ordered(client, _shard_batch, papers, base_iri, batch=batch, window=window,
                         with_recogniser=with_recogniser):
        yield from part
