"""Kill campaign: `kill -9` a `kg build` and a `kg serve` in the middle of an `addPapers` mutation at random
moments, then check the store: it opens, `kg validate` passes, and every paper is whole or absent.

    .venv/bin/python bench/kill_campaign.py [--build-trials 20] [--mutation-trials 20] [--seed 7]

Every trial uses real subprocesses over a real on-disk store; the server listens on 127.0.0.1 only.
Writes bench/results/hardening_kill.json. tests/test_hardening_kill.py runs a shortened campaign.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "data" / "icml2025_seed.jsonl"
TOKEN = "kill-campaign-token-5e2b"
PAPER_GRAPH = "/graph/paper/"


@dataclass
class Trial:
    """One kill and what was found afterwards."""

    kind: str  # "build" or "mutation"
    delay_s: float
    papers_present: int
    papers_expected: int
    complete: bool  # every paper graph present has exactly the quads of its reference
    validates: bool
    reopens: bool
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.complete and self.validates and self.reopens and not self.problems


def kg(*args: str | Path, env: dict[str, str] | None = None,
       timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """`python -m kg ARGS` in a subprocess (never raises on a non-zero exit)."""
    return subprocess.run([sys.executable, "-m", "kg", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, **(env or {})}, timeout=timeout)


def seed_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SEED.read_text(encoding="utf-8").splitlines() if line.strip()]


def copies(records: list[dict[str, Any]], n: int, prefix: str = "") -> list[dict[str, Any]]:
    """`n` copies of every record under ids "<prefix><id>-<k>": same text, so same links per copy."""
    return [{**r, "id": f"{prefix}{r['id']}-{k}"} for k in range(n) for r in records]


def seed_of(paper_id: str) -> str:
    """The seed paper a copy came from: "m-seed-03-7" → "seed-03" (and "seed-03" → itself)."""
    m = re.search(r"seed-\d+", paper_id)
    return m.group(0) if m else paper_id


def graph_counts(nquads: str) -> Counter[str]:
    """Quads per paper graph (keyed by paper id) in an N-Quads dump."""
    out: Counter[str] = Counter()
    for line in nquads.splitlines():
        if PAPER_GRAPH in line:
            graph = line.rstrip(" .").rsplit(" ", 1)[-1]
            out[graph.rsplit("/", 1)[-1].rstrip(">")] += 1
    return out


def reference_counts(work: Path) -> Counter[str]:
    """Quads per seed paper graph, from a complete `kg build --out` of the sample."""
    ref = work / "reference.nq"
    proc = kg("build", SEED, "--out", ref)
    if proc.returncode != 0:
        raise RuntimeError(f"reference build failed: {proc.stderr}")
    return graph_counts(ref.read_text(encoding="utf-8"))


def check_store(store: Path, reference: Counter[str], kind: str, delay: float, expected: int,
                ids: set[str] | None = None) -> Trial:
    """Open the store (export), validate it, and compare every paper graph with its reference."""
    problems: list[str] = []
    dump = kg("export", "--format", "nquads", "--store", store)
    reopens = dump.returncode == 0
    if not reopens:
        problems.append(f"export failed: {dump.stderr.strip()[-300:]}")
    got = graph_counts(dump.stdout)
    considered = {pid: n for pid, n in got.items() if ids is None or pid in ids}
    complete = True
    for pid, n in considered.items():
        want = reference.get(seed_of(pid))
        if n != want:
            complete = False
            problems.append(f"paper {pid}: {n} quads, a whole one has {want}")
    validate = kg("validate", "--store", store)
    validates = validate.returncode == 0 and "conforms" in validate.stdout
    if not validates:
        problems.append(f"validate: {(validate.stdout + validate.stderr).strip()[-300:]}")
    return Trial(kind, round(delay, 3), len(considered), expected, complete, validates, reopens, problems)


def build_trial(work: Path, source: Path, n_papers: int, reference: Counter[str], delay: float,
                batch: int = 10, *, existing: bool = False) -> Trial:
    """Start `kg build` and kill -9 it `delay` seconds after launch: into an existing empty store (batches
    are transactions: each paper whole or absent) or a new one (built beside it, renamed in when complete:
    no store, or every paper)."""
    store = work / f"build-{time.monotonic_ns()}"
    if existing:
        from kg.store.embedded import EmbeddedStore

        EmbeddedStore(str(store)).close()
    proc = subprocess.Popen([sys.executable, "-m", "kg", "build", str(source), "--store", str(store),
                             "--batch", str(batch)], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    time.sleep(delay)
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    kind = "build" if existing else "fresh build"
    if not (store / "CURRENT").exists():  # killed before the store directory was created: nothing to check
        shutil.rmtree(f"{store}.building", ignore_errors=True)
        return Trial(kind, round(delay, 3), 0, n_papers, True, True, True)
    trial = check_store(store, reference, kind, delay, n_papers)
    if not existing and trial.papers_present != n_papers:
        trial.problems.append(f"a new store appeared with {trial.papers_present} of {n_papers} papers")
    shutil.rmtree(store, ignore_errors=True)
    shutil.rmtree(f"{store}.building", ignore_errors=True)
    return trial


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(store: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    """`kg serve` on 127.0.0.1:`port` with mutations on; returns once /healthz answers."""
    env = {**os.environ, "KG_API_TOKEN": TOKEN}
    with log.open("ab") as fh:
        proc = subprocess.Popen([sys.executable, "-m", "kg", "serve", "--store", str(store),
                                 "--host", "127.0.0.1", "--port", str(port), "--no-sample"],
                                cwd=ROOT, env=env, stdout=fh, stderr=fh)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"kg serve exited: {log.read_text()[-500:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("kg serve did not come up within 60 s")


ADD = "mutation($p: [PaperInput!]!) { addPapers(papers: $p) { id } }"


def post(port: int, query: str, variables: dict[str, Any] | None = None, token: str | None = TOKEN,
         timeout: float = 120) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.post(f"http://127.0.0.1:{port}/graphql", json={"query": query, "variables": variables or {}},
                      headers=headers, timeout=timeout)


def mutation_papers(batch_size: int) -> list[dict[str, Any]]:
    """The papers of one addPapers call: copies of the sample under ids "m-seed-NN-k"."""
    records = copies(seed_records(), 3, prefix="m-")[:batch_size]
    return [{"id": r["id"], "title": r["title"], "abstract": r["abstract"], "venue": r.get("venue"),
             "year": r.get("year")} for r in records]


def mutation_reference(work: Path, base_store: Path, batch_size: int) -> tuple[Counter[str], float]:
    """Quads per seed paper as a complete addPapers call stores them (the API marks its own provenance),
    and how long that call took on a fresh server (spaCy loads on the first mutation)."""
    store = work / "mut-reference"
    shutil.copytree(base_store, store)
    port = free_port()
    server = start_server(store, port, work / "serve-reference.log")
    try:
        for _ in range(3):  # the first call may run out of time loading spaCy: then nothing was written
            started = time.monotonic()
            body = post(port, ADD, {"p": mutation_papers(batch_size)}).json()
            seconds = time.monotonic() - started
            if "nothing was written" not in str(body.get("errors")):
                break
        if body.get("errors"):
            raise RuntimeError(f"reference mutation failed: {body['errors']}")
    finally:
        stop(server)
    dump = kg("export", "--format", "nquads", "--store", store)
    counts = graph_counts(dump.stdout)
    shutil.rmtree(store, ignore_errors=True)
    return Counter({seed_of(pid): n for pid, n in counts.items() if pid.startswith("m-")}), seconds


def stop(server: subprocess.Popen[bytes]) -> None:
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(20)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def mutation_trial(work: Path, base_store: Path, reference: Counter[str], delay: float, trial_no: int,
                   batch_size: int = 20) -> Trial:
    """Serve a copy of the sample store, send one addPapers of `batch_size` papers, kill -9 the server
    `delay` seconds after the request left; the batch must be wholly present or wholly absent, the store
    must validate, and a restarted server must answer with counts that agree with the store."""
    store = work / f"mut-{trial_no}"
    shutil.copytree(base_store, store)
    log = work / f"serve-{trial_no}.log"
    port = free_port()
    server = start_server(store, port, log)
    papers = mutation_papers(batch_size)
    ids = {p["id"] for p in papers}

    def send() -> None:
        with contextlib.suppress(httpx.HTTPError):  # the server is killed under it
            post(port, ADD, {"p": papers})

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    time.sleep(delay)
    os.kill(server.pid, signal.SIGKILL)
    server.wait()
    sender.join(30)
    trial = check_store(store, reference, "mutation", delay, len(ids), ids)
    if trial.papers_present not in (0, len(ids)):
        trial.problems.append(f"{trial.papers_present} of {len(ids)} papers of one addPapers call present")
    # A restarted server over the killed store (and its search index) must serve consistent answers.
    port = free_port()
    try:
        server = start_server(store, port, log)
    except RuntimeError as exc:
        trial.reopens = False
        trial.problems.append(str(exc))
    else:
        try:
            body = post(port, "{ stats { papers } }", token=None).json()
            papers_total = body["data"]["stats"]["papers"]
            if papers_total != 19 + trial.papers_present:
                trial.problems.append(f"restarted server counts {papers_total} papers")
            hits = post(port, '{ papers(search: "Nested Transformers", first: 100) { totalCount } }',
                        token=None).json()["data"]["papers"]["totalCount"]
            want = 1 + (sum(1 for i in ids if seed_of(i) == "seed-01") if trial.papers_present else 0)
            if hits != want:
                trial.problems.append(f"search index finds {hits} papers, the store holds {want}")
            for _ in range(3):  # a fresh server's first write may run out of time loading spaCy (and say so)
                again = post(port, ADD, {"p": papers[:1]})
                if "nothing was written" not in again.text:
                    break
            if again.json().get("errors"):
                trial.problems.append(f"mutation after restart failed: {again.text[:200]}")
        finally:
            stop(server)
    shutil.rmtree(store, ignore_errors=True)
    return trial


def campaign(build_trials: int, mutation_trials: int, seed: int = 7, copies_n: int = 20,
             work: Path | None = None) -> dict[str, Any]:
    """Run both campaigns; return the trials and a summary."""
    rng = random.Random(seed)
    own = work is None
    work = Path(tempfile.mkdtemp(prefix="kg-kill-")) if work is None else work
    try:
        reference = reference_counts(work)
        source = work / "many.jsonl"
        records = copies(seed_records(), copies_n)
        source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        started = time.monotonic()
        full = kg("build", source, "--store", work / "calibrate", "--batch", "10")
        full_s = time.monotonic() - started
        if full.returncode != 0:
            raise RuntimeError(f"calibration build failed: {full.stderr}")
        trials: list[Trial] = []
        for i in range(build_trials):  # from "before the store exists" to "about the end"; both build paths
            trials.append(build_trial(work, source, len(records), reference, rng.uniform(0.2, full_s * 1.2),
                                      existing=i % 2 == 0))
        base = work / "base"
        if mutation_trials and kg("build", SEED, "--store", base).returncode != 0:
            raise RuntimeError("base store build failed")
        mut_reference, mut_s = mutation_reference(work, base, 20) if mutation_trials else (Counter(), 0.0)
        for i in range(mutation_trials):  # from the request leaving to just after the answer
            trials.append(mutation_trial(work, base, mut_reference, rng.uniform(0.05, mut_s * 1.1), i))
        return {
            "build_trials": build_trials,
            "mutation_trials": mutation_trials,
            "full_build_seconds": round(full_s, 2),
            "full_mutation_seconds": round(mut_s, 2),
            "papers_per_build": len(records),
            "failures": sum(not t.ok for t in trials),
            "trials": [{**asdict(t), "ok": t.ok} for t in trials],
        }
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-trials", type=int, default=20)
    ap.add_argument("--mutation-trials", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "hardening_kill.json")
    args = ap.parse_args()
    result = campaign(args.build_trials, args.mutation_trials, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    for t in result["trials"]:
        verdict = "ok" if t["ok"] else "FAIL " + "; ".join(t["problems"])
        print(f"{t['kind']:8} kill at {t['delay_s']:6.2f} s: "
              f"{t['papers_present']:4}/{t['papers_expected']} papers {verdict}")
    print(f"{result['failures']} failures in {args.build_trials} build and "
          f"{args.mutation_trials} mutation kills")
    sys.exit(1 if result["failures"] else 0)


if __name__ == "__main__":
    main()
