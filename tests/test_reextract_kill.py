"""`kg reextract` killed with SIGKILL mid-run: every paper graph is wholly the old or wholly the new
extraction, whole batches landed, and rerunning re-extracts only the papers left."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyoxigraph as ox
import pytest
from fixtures_api import pipeline_available
from test_reextract import IRIS, alter
from test_store_format import BASE, ROOT, SEED_JSONL, kg

pytestmark = pytest.mark.skipif(not pipeline_available(), reason="spaCy pipeline not installed")
COPIES, BATCH = 5, 3


def paper_graphs(loc: Path) -> dict[str, set[str]]:
    """Each paper graph's quads (as text), read from the RocksDB files without taking the lock."""
    raw = ox.Store.read_only(str(loc))
    out: dict[str, set[str]] = {}
    for q in raw.quads_for_pattern(None, None, None, None):
        if isinstance(q.graph_name, ox.NamedNode) and q.graph_name.value.startswith(BASE + "graph/paper/"):
            out.setdefault(q.graph_name.value, set()).add(str(q))
    del raw
    return out


def current(loc: Path, version: str) -> int:
    """Papers already at `version`, read while the writer runs (0 when a compaction moved files under
    the read-only reader: the next poll sees them)."""
    try:
        raw = ox.Store.read_only(str(loc))
        n = sum(1 for _ in raw.quads_for_pattern(None, ox.NamedNode(BASE + "ontology#extractorVersion"),
                                                 ox.Literal(version), None))
    except (OSError, RuntimeError):
        return 0
    del raw
    return n


def test_a_killed_reextract_leaves_whole_papers_and_the_rerun_finishes(tmp_path: Path) -> None:
    from kg.build import ensure_schema, extractions, read_all, unique_last, write_extractions
    from kg.extract.extractor import VERSION
    from kg.rdf.mapping import GraphMapper
    from kg.store import open_store

    src = tmp_path / "many.jsonl"
    seed = [json.loads(line) for line in SEED_JSONL.read_text().splitlines()]
    src.write_text("".join(json.dumps({**r, "id": f"{r['id']}-{i}"}) + "\n"
                           for i in range(COPIES) for r in seed))
    total = COPIES * len(seed)
    fresh, work = tmp_path / "fresh", tmp_path / "work"
    kg("build", src, "--store", fresh)
    papers = unique_last(read_all([src], lambda p: None))
    st = open_store(str(work), base_iri=BASE)
    ensure_schema(st, BASE)
    write_extractions(st, [alter(i, ex) for i, ex in enumerate(extractions(papers, BASE))], GraphMapper(IRIS))
    st.close()
    del st
    old = paper_graphs(work)
    new = paper_graphs(fresh)
    assert len(old) == len(new) == total and all(old[g] != new[g] for g in new)

    cmd = [sys.executable, "-m", "kg", "reextract", "--store", str(work), "--batch", str(BATCH)]
    proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 600
    while current(work, VERSION) < BATCH and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)  # kill as soon as the first batch has landed
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)

    got = paper_graphs(work)
    done = [g for g in got if got[g] == new[g]]
    assert all(got[g] == old[g] for g in got if g not in done)  # the rest untouched: no paper half-written
    assert len(got) == total and 0 < len(done) < total
    assert len(done) % BATCH == 0  # whole batches, one transaction each
    rerun = json.loads(kg("reextract", "--store", work, "--json").stdout)
    assert rerun["papers"]["skipped_current"] == len(done)
    assert rerun["papers"]["reextracted"] == total - len(done)
    assert paper_graphs(work) == new
