"""Extraction in worker processes: chunks of papers go out, frozen `Extraction`s come back, in input order.

spaCy's own `nlp.pipe(n_process=N)` pickles every Doc (with our user data) back to the parent, which costs
more than it saves; here each worker runs the whole extractor and only papers and small records cross.
Workers are forked from the parent, so they share its loaded pipeline (copy-on-write) instead of loading it.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.pool import AsyncResult
from typing import Any, Protocol

from kg.types import Extraction, Paper


class _Runner(Protocol):
    def extract(
        self, papers: Iterable[Paper], *, n_process: int = ..., batch_size: int = ...
    ) -> Iterator[Extraction]: ...


_RUNNER: _Runner | None = None  # the extractor a worker uses, inherited through fork or made by `_init`
_BATCH = 32


def _init(factory: Callable[[], _Runner] | None, batch_size: int) -> None:
    global _RUNNER, _BATCH
    if _RUNNER is None and factory is not None:  # spawn start method: nothing inherited, load here once
        _RUNNER = factory()
    _BATCH = batch_size


def _run(chunk: list[Paper], then: Callable[[list[Extraction]], list[Any]] | None = None) -> list[Any]:
    assert _RUNNER is not None, "worker started without an extractor"
    found = list(_RUNNER.extract(chunk, n_process=1, batch_size=_BATCH))
    return then(found) if then is not None else found


def _chunks(papers: Iterable[Paper], size: int) -> Iterator[list[Paper]]:
    chunk: list[Paper] = []
    for p in papers:
        chunk.append(p)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def extract_in_workers(
    runner: _Runner,
    papers: Iterable[Paper],
    n_process: int,
    *,
    batch_size: int = 32,
    chunk_size: int = 64,
    factory: Callable[[], _Runner] | None = None,
) -> Iterator[Extraction]:
    """`runner.extract` over `papers` in `n_process` workers; at most two chunks per worker are in flight."""
    yield from map_in_workers(runner, papers, n_process, None, batch_size=batch_size, chunk_size=chunk_size,
                              factory=factory)


def map_in_workers(
    runner: _Runner,
    papers: Iterable[Paper],
    n_process: int,
    then: Callable[[list[Extraction]], list[Any]] | None,
    *,
    batch_size: int = 32,
    chunk_size: int = 64,
    factory: Callable[[], _Runner] | None = None,
) -> Iterator[Any]:
    """`then(extractions of a chunk)` computed in the workers (a picklable function, e.g. the mapping to
    N-Quads of a build), items in input order; without `then`, the extractions themselves."""
    global _RUNNER
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    previous, _RUNNER = _RUNNER, runner if "fork" in methods else None
    try:
        with ctx.Pool(n_process, initializer=_init, initargs=(factory, batch_size)) as pool:
            _RUNNER = previous  # the workers have their copy; the parent keeps its own state
            pending: deque[AsyncResult[list[Any]]] = deque()
            for chunk in _chunks(papers, chunk_size):
                pending.append(pool.apply_async(_run, (chunk, then)))
                if len(pending) >= 2 * n_process:
                    yield from pending.popleft().get()
            while pending:
                yield from pending.popleft().get()
    finally:
        _RUNNER = previous
