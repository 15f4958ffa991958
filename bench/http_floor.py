"""What one API process can serve at all, beside what it serves (issue 15's cold-HTTP target).

    .venv/bin/python bench/http_floor.py [N_PAPERS] [ROUNDS]

Starts the API over the synthetic store of N papers (`bench/run.py --step make_store`, default 100,000) in one
uvicorn process, as `kg serve` runs it, and drives it with wrk (16 connections, 4 s each) in one sitting:
- `{ __typename }`: the whole stack (HTTP, middleware, GraphQL parse/validate/execute, our extensions) with
  nothing read from the store — the ceiling for any query;
- `papers(dataset)` cold: every request a dataset the server has not seen since it started;
- `papers(dataset)` warm: 300 of them again, every cache filled.
Prints one line a round; absolute rates move 2x between runs on shared machines, the ratios hold.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402


def serve(n: int) -> tuple[subprocess.Popen[bytes], str]:
    port = run.free_port()
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "KG_STORE": str(run.synth_store_path(n)), "KG_BASE_IRI": run.BASE,
           "PYTHONPATH": root}
    cmd = [run.PY, "-m", "uvicorn", "run:step_serve_app", "--factory", "--app-dir", root + "/bench",
           "--host", "127.0.0.1", "--port", str(port), "--workers", "1", "--no-access-log",
           "--log-level", "warning"]
    server = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/graphql"
    with httpx.Client(timeout=30) as client:
        for _ in range(2400):
            try:
                if client.post(url, json={"query": "{ stats { papers } }"}).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
    return server, url


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    which = "papers(dataset)"
    for r in range(rounds):
        server, url = serve(n)
        try:
            floor = run._wrk(url, [{"query": "{ __typename }"}], 16, 4.0)
            args = run._cold_args(n, which, 20000)
            fresh = [{"query": run.GQL[which], "variables": {"a": a}} for a in args]
            cold = run._wrk(url, fresh, 16, 4.0)
            with httpx.Client(timeout=60) as client:
                for body in fresh[:300]:
                    client.post(url, json=body)
            warm = run._wrk(url, fresh[:300], 16, 4.0)
            print(f"round {r}: __typename {floor['req_s']:.0f} req/s, {which} cold {cold['req_s']:.0f}, "
                  f"warm {warm['req_s']:.0f}", flush=True)
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
