"""Soak: 16 concurrent clients mixing the contract queries against one `kg serve` process on loopback, for a
bounded time; reports errors, p50/p99 latency and the server's RSS at the start and the end.

    .venv/bin/python bench/soak.py [--seconds 60] [--clients 16] [--store PATH]

Without --store the bundled sample is built into a temporary store first. Writes
bench/results/hardening_soak.json. tests/test_hardening_soak.py runs a 10 s version.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import psutil

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "icml2025_seed.jsonl"

# The contract queries of issue 4, as a client mix (name, query, variables).
MIX: list[tuple[str, str, dict[str, Any]]] = [
    ("papers(dataset)", '{ papers(dataset: "ImageNet") { totalCount edges { node { id title } } } }', {}),
    ("papers(alias)", '{ papers(dataset: "imagenet") { edges { node { title year venue } } } }', {}),
    ("defenses", '{ defenses(target: "LLM agents") { name kind papers { edges { node { id } } } } }', {}),
    (
        "neighborhood",
        '{ neighborhood(id: "dataset/agentdojo", depth: 2) { nodes { id type } truncated } }',
        {},
    ),
    (
        "page",
        "query($after: String) { papers(first: 5, after: $after) { totalCount "
        "edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }",
        {"after": None},
    ),
    ("entity(name)", '{ entity(name: "IPI") { id name type aliases paperCount } }', {}),
    ("entities", "{ entities(type: METHOD, first: 10) { edges { node { name paperCount } } } }", {}),
    (
        "paper+links",
        '{ paper(id: "seed-12") { codeUrls links { relation confidence entity { id name } evidence } } }',
        {},
    ),
    ("search", '{ search(text: "coastal ocean", first: 5) { score paper { id } entity { id } } }', {}),
    ("related", '{ entity(id: "dataset/imagenet") { related(first: 5) { name } narrower { id } } }', {}),
    ("stats", "{ stats { papers triples } }", {}),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(store: Path, env_extra: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """`kg serve` on a free loopback port (building the sample when `store` does not exist yet), with
    mutations off unless `env_extra` sets KG_API_TOKEN."""
    port = free_port()
    env = {**{k: v for k, v in os.environ.items() if k != "KG_API_TOKEN"}, **(env_extra or {})}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kg",
            "serve",
            "--store",
            str(store),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while True:
        if proc.poll() is not None:
            raise RuntimeError("kg serve exited before it answered")
        try:
            if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                return proc, url
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("kg serve did not answer within 180 s")
        time.sleep(0.2)


class RssSampler(threading.Thread):
    """Samples the server's resident set size every `every` seconds."""

    def __init__(self, pid: int, every: float = 0.25) -> None:
        super().__init__(daemon=True)
        self.proc, self.every = psutil.Process(pid), every
        self.samples: list[tuple[float, int]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.samples.append((time.monotonic(), self.proc.memory_info().rss))
            self.stop.wait(self.every)


async def client(
    url: str, until: float, measure_from: float, rng: random.Random, latencies: list[float], errors: list[str]
) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        cursor: str | None = None
        while (now := time.monotonic()) < until:
            name, query, variables = rng.choice(MIX)
            if name == "page":
                variables = {"after": cursor}
            started = time.perf_counter()
            try:
                r = await http.post("/graphql", json={"query": query, "variables": variables})
                body = r.json()
            except (httpx.HTTPError, ValueError) as exc:
                errors.append(f"{name}: {type(exc).__name__}")
                continue
            elapsed = time.perf_counter() - started
            if r.status_code != 200 or body.get("errors") or not body.get("data"):
                errors.append(f"{name}: {r.status_code} {str(body)[:200]}")
                continue
            if name == "page":
                info = body["data"]["papers"]["pageInfo"]
                cursor = info["endCursor"] if info["hasNextPage"] else None
            if now >= measure_from:
                latencies.append(elapsed)


def window_mean(samples: list[tuple[float, int]], start: float, end: float) -> float:
    vals = [rss for t, rss in samples if start <= t < end]
    return statistics.fmean(vals) if vals else float("nan")


def soak(
    seconds: float = 60,
    clients: int = 16,
    store: Path | None = None,
    warmup: float = 3.0,
    window: float | None = None,
    seed: int = 1,
) -> dict[str, Any]:
    """Run the soak and return its figures; RSS windows default to a sixth of the run (10 s of 60 s)."""
    tmp = None
    if store is None:
        tmp = tempfile.mkdtemp(prefix="kg-soak-")
        store = Path(tmp) / "store"
    proc, url = start_server(store)
    sampler = RssSampler(proc.pid)
    try:
        latencies: list[float] = []
        errors: list[str] = []
        start = time.monotonic()
        measure_from = start + warmup
        until = measure_from + seconds
        sampler.start()
        rng = random.Random(seed)

        async def run_all() -> None:
            await asyncio.gather(
                *(
                    client(url, until, measure_from, random.Random(rng.random()), latencies, errors)
                    for _ in range(clients)
                )
            )

        asyncio.run(run_all())
        sampler.stop.set()
        sampler.join()
        window = window or seconds / 6
        first = window_mean(sampler.samples, measure_from, measure_from + window)
        last = window_mean(sampler.samples, until - window, until)
        lat = sorted(latencies)
        q = statistics.quantiles(lat, n=100) if len(lat) >= 100 else [max(lat, default=0.0)] * 99
        return {
            "seconds": seconds,
            "clients": clients,
            "requests": len(latencies),
            "errors": len(errors),
            "error_samples": errors[:10],
            "requests_per_s": round(len(latencies) / seconds, 1),
            "p50_ms": round(statistics.median(lat) * 1000, 2) if lat else None,
            "p99_ms": round(q[98] * 1000, 2),
            "max_ms": round(lat[-1] * 1000, 2) if lat else None,
            "rss_first_mb": round(first / 2**20, 1),
            "rss_last_mb": round(last / 2**20, 1),
            "rss_growth_mb": round((last - first) / 2**20, 1),
            "rss_window_s": round(window, 1),
        }
    finally:
        sampler.stop.set()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if tmp is not None:
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--store", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "hardening_soak.json")
    args = ap.parse_args()
    result = soak(args.seconds, args.clients, args.store)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))
    sys.exit(1 if result["errors"] else 0)


if __name__ == "__main__":
    main()
