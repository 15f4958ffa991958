"""api.sandbox: the SPARQL engine makes no outbound connection whatever text reaches it (issue 25, item 1:
defence in depth behind the guard). Each check runs Oxigraph's own SERVICE against a real loopback listener
that records connections: sandboxed, it sees none; unsandboxed (the control), it sees the engine's POST."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from fixtures_api import BASE, Listener, sample_store

from api.sandbox import forbid_network
from api.sparql import _in_slot
from api.sparql_protocol import SparqlRequest, execute
from api.sparql_worker import WorkerPool
from kg.query.guard import QueryForm


@pytest.fixture()
def listener() -> Iterator[Listener]:
    found = Listener()
    yield found
    found.close()


def service(url: str) -> str:
    return f"SELECT ?s WHERE {{ SERVICE <{url}> {{ ?s ?p ?o }} }}"


def on_thread(fn: Callable[[], Any]) -> Any:
    """`fn()` on a fresh thread: its result, or the exception it raised."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(fn())
        except BaseException as exc:  # handed back to the test
            out.append(exc)

    t = threading.Thread(target=run)
    t.start()
    t.join(60)
    return out[0]


def oxigraph_service(url: str, sandboxed: bool) -> Any:
    def run() -> object:
        if sandboxed:
            assert forbid_network()
        return list(ox.Store().query(service(url)))  # type: ignore[arg-type]

    return on_thread(run)


def test_the_listener_sees_an_unsandboxed_engine_connect(listener: Listener) -> None:
    rows = oxigraph_service(listener.url, sandboxed=False)
    assert [r["s"].value for r in rows] == [Listener.ROW]
    assert len(listener.seen()) == 1


def test_a_sandboxed_thread_runs_service_without_a_connection(listener: Listener) -> None:
    failed = oxigraph_service(listener.url, sandboxed=True)
    assert isinstance(failed, PermissionError)
    assert listener.seen() == []


def test_the_sandbox_is_the_calling_threads_only(listener: Listener) -> None:
    assert isinstance(on_thread(lambda: (forbid_network(), socket.socket())[1]), PermissionError)
    with socket.create_connection(("127.0.0.1", listener.port)):  # this thread still may
        pass
    assert len(listener.seen()) == 1


def test_unix_sockets_stay_open_to_a_sandboxed_thread() -> None:
    pair = on_thread(lambda: (forbid_network(), socket.socketpair())[1])
    assert isinstance(pair, tuple)
    for s in pair:
        s.close()


def test_a_service_that_reached_the_engine_is_a_500_and_no_connection(listener: Listener) -> None:
    store = sample_store()
    form = QueryForm("SelectQuery", ["s"], service(listener.url))  # as if the guard had missed it
    reply = on_thread(lambda: (forbid_network(), execute(store, form, SparqlRequest(form.text), 10, BASE))[1])
    assert reply == (500, "text/plain", b"the store could not answer this query")
    assert listener.seen() == []


def test_in_thread_evaluation_is_sandboxed_for_an_in_process_store() -> None:
    slots = threading.BoundedSemaphore(1)
    with pytest.raises(PermissionError):
        asyncio.run(_in_slot(slots, 10, True, socket.socket))
    sock = asyncio.run(_in_slot(slots, 10, False, socket.socket))  # a remote store's thread needs the network
    sock.close()


def seccomp_of(pid: int) -> set[str]:
    """The seccomp mode of every thread of process `pid` ("2": a filter)."""
    modes: set[str] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        lines = (task / "status").read_text().splitlines()
        modes.update(line.split(":", 1)[1].strip() for line in lines if line.startswith("Seccomp:"))
    return modes


def test_every_thread_of_every_sparql_worker_runs_without_network(tmp_path: Path) -> None:
    store = sample_store(str(tmp_path / "store"))
    pool = WorkerPool(str(tmp_path / "store"), BASE, 2, store.generation)
    try:
        for _ in range(2):  # both started and answered a query (Oxigraph's threads exist)
            worker = pool.acquire() or pytest.fail("no idle worker")
            assert pool.call(worker, SparqlRequest("ASK { ?s ?p ?o }"), 10, 60)[0] == 200
        assert [seccomp_of(pid) for pid in pool.pids()] == [{"2"}, {"2"}]
    finally:
        pool.close()
        store.close()


def test_a_query_that_fails_in_a_worker_leaves_the_worker_serving(tmp_path: Path) -> None:
    store = sample_store(str(tmp_path / "store"))
    pool = WorkerPool(str(tmp_path / "store"), BASE, 1, store.generation)
    try:
        worker = pool.acquire() or pytest.fail("no idle worker")
        assert pool.call(worker, SparqlRequest("ASK { ?s ?p ?o }"), 10, 60)[0] == 200
        before = pool.pids()
        broken = SparqlRequest(None)  # type: ignore[arg-type]  # fails inside the worker, not on the way
        worker = pool.acquire() or pytest.fail("no idle worker")
        assert pool.call(worker, broken, 10, 60) == (500, "text/plain",
                                                     b"the store could not answer this query")
        worker = pool.acquire() or pytest.fail("no idle worker")
        assert pool.call(worker, SparqlRequest("ASK { ?s ?p ?o }"), 10, 60)[0] == 200
        assert pool.pids() == before
    finally:
        pool.close()
        store.close()
