"""/sparql over an on-disk store answers in killable worker processes: a timed-out query dies with its
worker, a dead worker is replaced, writes become visible, the pool is bounded and stopped on shutdown (these
with the heavy lane alone); with a light lane, light queries keep a worker while heavy ones run."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import pyoxigraph as ox
import pytest
from fixtures_api import BASE, Server, sample_store, serve

from api.sparql_protocol import SparqlRequest
from api.sparql_worker import WorkerPool

RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
ANY = "ASK { ?s ?p ?o }"
NORMAL = "SELECT ?s WHERE { ?s ?p ?o } LIMIT 5"


def workers() -> list[psutil.Process]:
    """This process's live SPARQL worker processes: the children of its multiprocessing forkserver."""
    out = []
    for child in psutil.Process(os.getpid()).children():
        try:
            if not any("forkserver" in part for part in child.cmdline()):
                continue
            out += [w for w in child.children() if w.status() != psutil.STATUS_ZOMBIE]
        except psutil.NoSuchProcess:
            pass
    return out


def wait_for_workers(n: int, deadline_s: float = 30) -> list[psutil.Process]:
    deadline = time.monotonic() + deadline_s
    while len(found := workers()) != n:
        assert time.monotonic() < deadline, f"expected {n} workers, found {len(found)}"
        time.sleep(0.05)
    return found


def ask(server: Server, query: str = ANY) -> httpx.Response:
    return httpx.get(server.url + "/sparql", params={"query": query}, timeout=60)


def answer(server: Server, query: str) -> object:
    r = ask(server, query)
    assert r.status_code == 200, (r.status_code, r.text)
    return r.json()["boolean"]


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[Server]:
    """Two workers and a budget (60 s) no ordinary query reaches, however busy the machine."""
    store = sample_store(str(tmp_path / "store"))
    yield from serve(store, query_timeout_s=60.0, sparql_workers=2, sparql_light_workers=0)
    store.close()


@pytest.fixture()
def short_server(tmp_path: Path) -> Iterator[Server]:
    """Two workers and a 1 s budget, for the tests about queries cut off at it."""
    store = sample_store(str(tmp_path / "store"))
    yield from serve(store, query_timeout_s=1.0, sparql_workers=2, sparql_light_workers=0)
    store.close()


@pytest.fixture()
def busy_server(tmp_path: Path) -> Iterator[Server]:
    """Two workers and a 30 s budget: runaway queries hold both workers long enough to be seen busy, even
    on a loaded machine (at load average 13, seeing both busy took longer than a 10 s budget once)."""
    store = sample_store(str(tmp_path / "store"))
    yield from serve(store, query_timeout_s=30.0, sparql_workers=2, sparql_light_workers=0)
    store.close()


def test_workers_start_lazily_and_answer(server: Server) -> None:
    assert workers() == []
    r = ask(server)
    assert (r.status_code, r.json()) == (200, {"head": {}, "boolean": True})
    assert len(wait_for_workers(2)) == 2


def test_timed_out_query_kills_its_worker_and_the_next_query_answers(short_server: Server) -> None:
    server = short_server
    assert ask(server).status_code == 200
    before = {p.pid for p in wait_for_workers(2)}
    r = ask(server, RUNAWAY)
    assert (r.status_code, r.text) == (503, "query ran longer than 1 s")
    now = wait_for_workers(2)
    assert len(before - {p.pid for p in now}) == 1  # the runaway's worker is gone, a fresh one took its place
    for _ in range(4):
        assert ask(server).status_code == 200
    idle_baseline()  # the workers go idle: no core is still busy with the runaway query


def test_worker_killed_from_outside_is_replaced(server: Server) -> None:
    assert ask(server).status_code == 200
    for p in wait_for_workers(2):  # killed, and not reaped here: the pool finds out by itself
        os.kill(p.pid, signal.SIGKILL)
    wait_for_workers(0)
    for _ in range(4):
        r = ask(server)
        assert (r.status_code, r.json()) == (200, {"head": {}, "boolean": True})
    assert len(wait_for_workers(2)) == 2


def test_writes_become_visible(server: Server) -> None:
    q = "ASK { <http://example.org/s> <http://example.org/p> ?o }"
    assert [answer(server, q) for _ in range(4)] == [False] * 4
    g = "http://example.org/g"
    triple = ox.Quad(ox.NamedNode("http://example.org/s"), ox.NamedNode("http://example.org/p"),
                     ox.Literal("new"), ox.NamedNode(g))
    server.store.replace_graphs({g: [triple]})
    assert [answer(server, q) for _ in range(4)] == [True] * 4  # every worker re-opened
    server.store.drop_graphs([g])
    assert [answer(server, q) for _ in range(4)] == [False] * 4


def client_at(address: str) -> httpx.Client:
    """An HTTP client whose connections come from `address` (any 127.x.y.z is this machine's loopback)."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=120)


def ask_from(address: str, server: Server, query: str = ANY) -> httpx.Response:
    with client_at(address) as c:
        return c.get(server.url + "/sparql", params={"query": query})


def cpu_seconds(p: psutil.Process) -> float:
    times = p.cpu_times()
    return float(times.user + times.system)


def idle_baseline(deadline_s: float = 60) -> dict[int, float]:
    """Each live worker's CPU time, taken once none spends any (a fresh worker has finished starting)."""
    deadline = time.monotonic() + deadline_s
    before = {p.pid: cpu_seconds(p) for p in workers()}
    while True:
        time.sleep(0.5)
        now = {p.pid: cpu_seconds(p) for p in workers()}
        if now.keys() == before.keys() and all(now[pid] - before[pid] < 0.02 for pid in now):
            return now
        assert time.monotonic() < deadline, "the workers never went idle"
        before = now


def busy_workers(n: int, baseline: dict[int, float], deadline_s: float = 25) -> None:
    """Wait until `n` workers have spent CPU time since `baseline`: the runaway queries really started.

    CPU time spent, not a CPU share: on a machine at load 14 a busy worker gets well under a fifth of a core,
    so a rate threshold can miss it for longer than the query's budget; an idle worker spends none."""
    deadline = time.monotonic() + deadline_s
    while True:
        spent = 0
        for p in workers():
            with contextlib.suppress(psutil.NoSuchProcess):
                spent += cpu_seconds(p) - baseline.get(p.pid, 0.0) > 0.3
        if spent >= n:
            return
        assert time.monotonic() < deadline, "the runaway queries did not start"
        time.sleep(0.05)


def test_all_workers_busy_is_503_retry_later(busy_server: Server) -> None:
    server = busy_server
    assert ask(server).status_code == 200
    wait_for_workers(2)
    baseline = idle_baseline()
    results: list[int] = []
    threads = [threading.Thread(target=lambda a=a: results.append(ask_from(a, server, RUNAWAY).status_code))
               for a in ("127.0.0.2", "127.0.0.3")]  # two clients: each may run one query
    for t in threads:
        t.start()
    busy_workers(2, baseline)
    busy = ask_from("127.0.0.4", server)
    for t in threads:
        t.join()
    assert (busy.status_code, busy.text) == (503, "2 SPARQL queries are still running; retry later")
    assert results == [503, 503]
    assert ask(server).status_code == 200


def test_one_client_runs_one_query_at_a_time_and_others_keep_their_latency(tmp_path: Path) -> None:
    store = sample_store(str(tmp_path / "store"))
    running = serve(store, query_timeout_s=5.0, sparql_workers=2, sparql_light_workers=0)
    server = next(running)
    try:
        assert ask(server).status_code == 200
        assert ask_from("127.0.0.2", server).status_code == 200
        wait_for_workers(2)
        baseline = idle_baseline()
        statuses: list[int] = []
        with client_at("127.0.0.1") as attacker:
            def attack() -> None:
                statuses.append(attacker.get(server.url + "/sparql", params={"query": RUNAWAY}).status_code)

            heavy = [threading.Thread(target=attack) for _ in range(4)]
            for t in heavy:
                t.start()
            busy_workers(1, baseline)
            latencies = []
            with client_at("127.0.0.2") as probe:
                for _ in range(20):
                    started = time.monotonic()
                    r = probe.get(server.url + "/sparql", params={"query": NORMAL})
                    latencies.append(time.monotonic() - started)
                    assert r.status_code == 200, r.text
            for t in heavy:
                t.join()
        assert sorted(statuses) == [429, 429, 429, 503]  # one query per client; it ran to its budget
        # generous: a normal query takes milliseconds; before, every probe got 503 while workers were busy
        assert max(latencies) < 4, latencies
    finally:
        next(running, None)
        store.close()


def test_a_query_past_the_memory_cap_is_killed_and_reported(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KG_SPARQL_MEMORY_MB", "200")
    store = sample_store(str(tmp_path / "store"))
    running = serve(store, query_timeout_s=120.0, sparql_workers=1, sparql_light_workers=0)
    server = next(running)
    try:
        first = ask(server)
        assert first.status_code == 200, first.text
        before = {p.pid for p in wait_for_workers(1)}
        hog = "SELECT ?a ?d ?g WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?c ?f ?i LIMIT 10"
        r = ask(server, hog)
        assert (r.status_code, r.text) == (503, "query needed more than 200 MB of memory; it was stopped")
        assert {p.pid for p in wait_for_workers(1)}.isdisjoint(before)  # killed, a fresh worker in its place
        assert ask(server).status_code == 200
    finally:
        next(running, None)
        store.close()


def test_workers_stop_with_the_app(tmp_path: Path) -> None:
    store = sample_store(str(tmp_path / "store"))
    running = serve(store, sparql_workers=2, sparql_light_workers=0)
    server = next(running)
    assert ask(server).status_code == 200
    assert len(wait_for_workers(2)) == 2
    next(running, None)  # shuts the server down (lifespan shutdown)
    assert wait_for_workers(0) == []
    store.close()


def test_a_query_goes_to_a_ready_worker_not_to_one_still_starting(tmp_path: Path) -> None:
    store = sample_store(str(tmp_path / "store"))
    pool = WorkerPool(str(tmp_path / "store"), BASE, 2, store.generation)
    ask_any = SparqlRequest(ANY)
    try:
        for _ in range(2):  # both workers started and answered once
            assert pool.call(pool.acquire() or pytest.fail("no idle worker"), ask_any, 10, 60)[0] == 200
        ready = pool.acquire() or pytest.fail("no idle worker")
        for _ in range(5):  # replace the other one and freeze its replacement before it says it is ready
            starting = pool.acquire() or pytest.fail("no idle worker")
            pool.release(starting, replace=True)
            starting = pool._idle[-1]
            os.kill(starting.process.pid or 0, signal.SIGSTOP)
            if not starting.conn.poll(0):
                break
            os.kill(starting.process.pid or 0, signal.SIGCONT)
        pool.release(ready)  # idle, in order: the starting worker, then the ready one
        assert pool.acquire() is ready
        os.kill(starting.process.pid or 0, signal.SIGCONT)
    finally:
        pool.close()
        store.close()


# --- issue 25, item 8: a light lane ----------------------------------------------------------------------
def niceness() -> list[int]:
    out = []
    for p in workers():
        with contextlib.suppress(psutil.NoSuchProcess):
            out.append(p.nice())
    return sorted(out)


def test_a_light_query_keeps_a_lane_while_four_addresses_run_heavy_ones(tmp_path: Path) -> None:
    """Four addresses each running one heavy query held both workers and left every other client 503
    (145 of 146 tries in the issue). Now the two that started in the light lane move to the heavy lane
    (their workers reniced to 10) and fresh light workers take their place: a fifth address is answered."""
    store = sample_store(str(tmp_path / "store"))
    running = serve(store, query_timeout_s=30.0, sparql_workers=2, sparql_light_workers=2)
    server = next(running)
    try:
        assert ask(server).status_code == 200
        wait_for_workers(4)
        results: list[int] = []
        def heavy(a: str) -> None:
            results.append(ask_from(a, server, RUNAWAY).status_code)

        threads = [threading.Thread(target=heavy, args=(a,))
                   for a in ("127.0.0.20", "127.0.0.21", "127.0.0.22", "127.0.0.23")]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 120  # a hang guard: under load the heavy queries take a while to start
        base = os.nice(0)  # light workers run at this process's priority, heavy ones lower (up to +10)
        while [n > base for n in niceness()] != [False] * 2 + [True] * 4:  # both light workers moved to
            # the heavy lane, two fresh ones in their place
            assert time.monotonic() < deadline, niceness()
            time.sleep(0.05)
        probes = [ask_from("127.0.0.30", server, NORMAL).status_code for _ in range(20)]
        assert probes == [200] * 20
        for t in threads:
            t.join()
        assert sorted(results) == [503] * 4  # each ran to its budget, none was refused for the probe's sake
        wait_for_workers(4)  # the two moved workers left the heavy lane when their queries ended
    finally:
        next(running, None)
        store.close()


def test_an_address_whose_query_was_heavy_starts_in_the_heavy_lane() -> None:
    from api.shares import HeavyClients

    heavy = HeavyClients(memory_s=60.0, most=2)
    assert not heavy.heavy("127.0.0.5")
    heavy.mark("127.0.0.5")
    assert heavy.heavy("127.0.0.5")
    heavy.mark("127.0.0.6")
    heavy.mark("127.0.0.7")  # at most two remembered: the oldest is forgotten
    assert [heavy.heavy(f"127.0.0.{i}") for i in (5, 6, 7)] == [False, True, True]
