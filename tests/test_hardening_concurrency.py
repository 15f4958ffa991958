"""Readers during writes: over real HTTP, a paper's links appear (and change, and go) all at once while a
build or a stream of addPapers/deletePaper mutations runs against the same on-disk store."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from fixtures_api import BASE, SAMPLE, TOKEN, Server, sample_store, serve

from kg.build import build_into_store
from kg.types import Paper

PAPER_LINKS = "query($id: ID!) { paper(id: $id) { title links { relation entity { id } } } }"
Seen = tuple[str | None, frozenset[tuple[str, str]]] | None


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    path = tmp_path_factory.mktemp("concurrency") / "store"
    yield from serve(sample_store(str(path)), api_token=TOKEN, query_timeout_s=30.0)


def seen(client: httpx.Client, server: Server, pid: str) -> Seen:
    body = client.post(server.url + "/graphql", json={"query": PAPER_LINKS, "variables": {"id": pid}}).json()
    assert "errors" not in body, body
    p = body["data"]["paper"]
    if p is None:
        return None
    return p["title"], frozenset((lk["relation"], lk["entity"]["id"]) for lk in p["links"])


def read_while(server: Server, ids: list[str], busy: Callable[[], bool],
               readers: int = 4) -> list[tuple[str, Seen]]:
    """Observations (paper id, what a reader saw) from `readers` HTTP clients while `busy()` holds."""
    out: list[tuple[str, Seen]] = []
    lock = threading.Lock()

    def loop(k: int) -> None:
        with httpx.Client(timeout=60) as client:
            i = k
            while busy():
                pid = ids[i % len(ids)]
                got = seen(client, server, pid)
                with lock:
                    out.append((pid, got))
                i += readers

    threads = [threading.Thread(target=loop, args=(k,)) for k in range(readers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    return out


def seed_papers() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_links_appear_all_at_once_while_a_build_runs(server: Server) -> None:
    records = seed_papers()[:12]
    papers = [Paper(id=f"b-{r['id']}-{k}", title=r["title"], abstract=r["abstract"]) for k in range(4)
              for r in records]
    ids = [p.id for p in papers]
    done = threading.Event()

    def build() -> None:
        try:
            build_into_store(server.store, papers, BASE, batch_size=3)
        finally:
            done.set()

    writer = threading.Thread(target=build)
    writer.start()
    observations = read_while(server, ids, lambda: not done.is_set())
    writer.join()
    with httpx.Client(timeout=60) as client:
        final = {pid: seen(client, server, pid) for pid in ids}
    assert all(v is not None and v[1] for v in final.values())
    partial = [(pid, got) for pid, got in observations if got is not None and got != final[pid]]
    assert len(observations) >= 20 and partial == []
    assert any(got is None for _, got in observations)  # the readers really ran during the build


def test_replaced_or_deleted_paper_is_never_seen_half_written(server: Server) -> None:
    seed = {r["id"]: r for r in seed_papers()}
    versions = [  # same id, different text: ImageNet generation vs. agent prompt injection
        {"id": "flip", "title": "Version A", "abstract": seed["seed-01"]["abstract"]},
        {"id": "flip", "title": "Version B", "abstract": seed["seed-12"]["abstract"]},
    ]
    auth = {"Authorization": f"Bearer {TOKEN}"}
    add = "mutation($p: [PaperInput!]!) { addPapers(papers: $p) { id } }"
    expected: set[Seen] = {None}
    with httpx.Client(timeout=120, headers=auth) as client:
        for v in versions:
            assert "errors" not in client.post(server.url + "/graphql",
                                               json={"query": add, "variables": {"p": [v]}}).json()
            expected.add(seen(client, server, "flip"))
    assert len(expected) == 3 and all(e is None or e[1] for e in expected)
    stop_at = time.monotonic() + 8
    writes = 0

    def writer() -> None:
        nonlocal writes
        with httpx.Client(timeout=120, headers=auth) as client:
            while time.monotonic() < stop_at:
                for v in versions:
                    client.post(server.url + "/graphql", json={"query": add, "variables": {"p": [v]}})
                    writes += 1
                client.post(server.url + "/graphql", json={"query": 'mutation { deletePaper(id: "flip") }'})
                writes += 1

    w = threading.Thread(target=writer)
    w.start()
    observations = read_while(server, ["flip"], w.is_alive)
    w.join()
    assert writes >= 6 and len(observations) >= 20
    assert [got for _, got in observations if got not in expected] == []
