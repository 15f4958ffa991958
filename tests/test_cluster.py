"""`kg build --cluster`: extraction on a real local Dask cluster of worker processes (no mocks).

The output must be what a local build writes, in input order, each worker must load the extractor once,
and a worker killed mid-build must cost nothing but time: its batches are recomputed elsewhere by the
engine and every paper is stored exactly once.
"""

from __future__ import annotations

import dataclasses
import io
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Client

from kg.build import build_into_store, write_shard
from kg.cluster import ClusterError, connect, extract_on_cluster, parse_cluster, warm
from kg.extract import Extractor
from kg.io import read_papers
from kg.settings import DEFAULT_BASE_IRI
from kg.store.embedded import EmbeddedStore
from kg.types import Paper

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "icml2025_seed.jsonl"
_BNODE = re.compile(r"_:[0-9A-Za-z]+")


def kg(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """Run the CLI in a subprocess (bounded)."""
    return subprocess.run([sys.executable, "-m", "kg", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, env=dict(os.environ), timeout=600)


def ok(*args: str | Path) -> str:
    proc = kg(*args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _normalised(dump: str) -> list[str]:
    # the ontology graph's blank-node labels are fresh on every parse of the ontology, whatever the build
    return sorted(_BNODE.sub("_:b", line) for line in dump.splitlines())


@pytest.fixture(scope="module")
def papers() -> list[Paper]:
    """The sample three times over under distinct ids: enough batches of 2 to keep both workers busy."""
    base = [p for p in read_papers(SAMPLE) if isinstance(p, Paper)]
    return [dataclasses.replace(p, id=f"{p.id}-{k}") for k in range(3) for p in base]


@pytest.fixture(scope="module")
def reference(papers: list[Paper]) -> list[object]:
    return list(Extractor(DEFAULT_BASE_IRI).extract(papers))


@pytest.fixture(scope="module")
def cluster() -> Iterator[Client]:
    with connect("local:2") as client:
        yield client


def test_cluster_spec_parsing() -> None:
    assert parse_cluster("local:3").local_workers == 3
    assert parse_cluster("local:3").address is None
    assert parse_cluster("10.0.0.5:8786").address == "tcp://10.0.0.5:8786"
    assert parse_cluster("tls://sched:8786").address == "tls://sched:8786"
    for bad in ("local:0", "local:x", ""):
        with pytest.raises(ClusterError):
            parse_cluster(bad)


def test_bad_cluster_is_one_line_error() -> None:
    proc = kg("build", SAMPLE, "--out", os.devnull, "--cluster", "local:0")
    assert proc.returncode != 0
    assert proc.stderr.strip().startswith("error: --cluster local:0")
    assert "Traceback" not in proc.stderr


def test_extractions_on_the_cluster_equal_a_local_run_in_input_order(
    cluster: Client, papers: list[Paper], reference: list[object]
) -> None:
    out = list(extract_on_cluster(cluster, papers, DEFAULT_BASE_IRI, batch=4))
    assert out == reference
    # each worker process loaded the extractor exactly once, however many batches it ran (`warm` waits for
    # a load still under way, e.g. on a worker a nanny has just restarted)
    assert set(cluster.run(warm, DEFAULT_BASE_IRI).values()) == {1}


def test_a_killed_worker_costs_time_not_papers(
    cluster: Client, papers: list[Paper], reference: list[object]
) -> None:
    client = cluster
    it = extract_on_cluster(client, papers, DEFAULT_BASE_IRI, batch=2, window=6)
    got = [next(it)]
    # distributed leaves Client.processing unannotated (its other Client methods used here are typed)
    busy = [w for w, keys in client.processing().items() if keys]  # type: ignore[no-untyped-call]
    assert busy, "no worker had a batch in flight to lose"
    victim = busy[0]
    pid = client.run(os.getpid, workers=[victim])[victim]
    os.kill(pid, signal.SIGKILL)  # the worker process dies with its batches; its nanny starts a new one
    got.extend(it)
    assert [e.paper.id for e in got] == [p.id for p in papers]
    assert got == reference
    client.wait_for_workers(2, timeout=120)
    assert pid not in client.run(os.getpid).values()


def test_cluster_build_writes_the_same_store_as_a_local_build(cluster: Client, tmp_path: Path) -> None:
    sample = [p for p in read_papers(SAMPLE) if isinstance(p, Paper)]
    dumps = []
    for name, where in (("local", None), ("cluster", cluster)):
        store = EmbeddedStore(str(tmp_path / name))
        try:
            build_into_store(store, sample, DEFAULT_BASE_IRI, batch_size=7, cluster=where)
        finally:
            store.close()
        dumps.append(ok("export", "--format", "nquads", "--store", tmp_path / name))
    assert dumps[0].count("\n") > 1000
    assert _normalised(dumps[0]) == _normalised(dumps[1])


def test_cli_cluster_shards_equal_a_local_shard(tmp_path: Path) -> None:
    sample = [p for p in read_papers(SAMPLE) if isinstance(p, Paper)]
    local = io.BytesIO()
    write_shard(local, sample, DEFAULT_BASE_IRI)
    ok("build", SAMPLE, "--out", tmp_path / "cluster.nq", "--cluster", "local:2")
    assert local.getvalue().count(b"\n") > 1000
    assert (tmp_path / "cluster.nq").read_bytes() == local.getvalue()
