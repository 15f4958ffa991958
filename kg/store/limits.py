"""Time budget and row cap for in-process SELECTs (pyoxigraph has no query timeout of its own).

With a budget, the lazy solutions are consumed in a daemon worker thread while the caller waits on it;
pyoxigraph releases the GIL while it evaluates, so the caller wakes at the deadline and raises
QueryTimeout. The worker then stops at its next row. What is bounded: the caller's wait, and the work of
streaming queries (checked between rows). What is not: one blocking step of evaluation (a sort, an
aggregate, a join that finds no row for a long time) keeps a core busy in the abandoned thread until
it yields its next row or finishes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

from kg.store.types import QueryTimeout, TooManyRows

T = TypeVar("T")
R = TypeVar("R")


def _drain(rows: Iterator[T], convert: Callable[[T], R], max_rows: int | None,
           deadline: float | None, stop: threading.Event | None) -> list[R]:
    """The converted rows. The solutions are released here whatever happens: pyoxigraph's result objects
    are thread-bound ("unsendable"), and one whose last reference goes on another thread — say with an
    exception's traceback handed to the caller — is leaked, keeping its store open (and an on-disk
    store's RocksDB lock held) for the rest of the process."""
    out: list[R] = []
    try:
        for row in rows:
            if max_rows is not None and len(out) >= max_rows:
                raise TooManyRows(f"query returned more than {max_rows} rows; add a LIMIT or narrow it")
            if stop is not None and stop.is_set():
                return out
            if deadline is not None and time.monotonic() > deadline:
                raise QueryTimeout("query timed out")
            out.append(convert(row))
        return out
    finally:
        del rows


def collect(start: Callable[[], Iterator[T]], convert: Callable[[T], R], *,
            timeout_s: float | None = None, max_rows: int | None = None) -> list[R]:
    """`convert` of every row of `start()`, within `timeout_s` seconds and `max_rows` rows."""
    if timeout_s is None:
        return _drain(start(), convert, max_rows, None, None)
    deadline = time.monotonic() + timeout_s
    stop = threading.Event()
    rows: list[list[R]] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            rows.append(_drain(start(), convert, max_rows, deadline, stop))
        except BaseException as exc:  # handed to the caller
            errors.append(exc)

    worker = threading.Thread(target=work, name="kg-query", daemon=True)
    worker.start()
    worker.join(timeout_s)
    if worker.is_alive():
        stop.set()
        raise QueryTimeout(f"query ran longer than {timeout_s:g} s")
    if errors:
        raise errors[0]
    return rows[0]
