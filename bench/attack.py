"""Replay issues 11's and 25's attacks against a live `kg serve` and time each answer, while a probe client
(from another loopback address, so it is another client) measures a normal query's latency throughout.

    .venv/bin/python bench/attack.py [--store PATH] [--rounds 20] [--issue 25]

Without --store the bundled sample is built into a temporary store (the store the issues attacked). Most
attacks run `--rounds` times from one attacker client, back to back for at least 3 s; the sustained ones
(issue 25: four introspection clients, heavy SPARQL from four addresses, eight clients of 2,000-token
documents, eight clients downloading the dump) run for a fixed time from several threads and addresses, as
the issue ran them. The probe alternates `{ stats { papers } }` over GraphQL and a one-row SPARQL SELECT.
Prints a table and writes bench/results/attack.json and attack.md. Targets (issues 11 and 25): every
refusal within 100 ms, the probe's p99 within 250 ms during every attack.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from soak import ROOT, start_server  # noqa: E402

RESULTS = ROOT / "bench" / "results"
TOKEN = "attack-bench-token"
PROBE_FROM = "127.0.0.2"  # any 127.x address reaches the server on 127.0.0.1; the server sees another client

RELATED_CHAIN = ("{ entities(first:100) { edges { node { related(first:100) { related(first:100) { "
                 "related(first:100) { related(first:100) { name } } } } } } } }")
FRAGMENT_FAN_OUT = " ".join(["query Q { ...F0 }"]
                            + [f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}" for i in range(20)]
                            + ["fragment F20 on Query { stats { papers } }"])
CHAIN = "entities(first:100) { edges { node { related(first:100) { related(first:100) { name } } } } }"
ALIASED = "{ " + " ".join(f"a{i}: {CHAIN}" for i in range(15)) + " }"
DEEP = "{ papers { edges { node { links { entity { related { papers { edges { node { id } } } } } } } } } }"
ADD = "mutation($p: [PaperInput!]!) { addPapers(papers: $p) { id } }"
ALIASED_ADDS = ("mutation($p: [PaperInput!]!) { "
                + " ".join(f"a{i}: addPapers(papers: $p) {{ id }}" for i in range(4)) + " }")
CARTESIAN_COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
CARTESIAN_ORDER = "SELECT ?a ?d ?g WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?c ?f ?i LIMIT 10"
NORMAL_SPARQL = "SELECT ?p WHERE { ?p a <https://w3id.org/paperkg/ontology#Paper> } LIMIT 1"
# issue 25's requests, as the issue sent them (the SPARQL ones with the literal backslash escapes)
SSRF = r'SELECT ?s WHERE { BIND("\u0022 AS ?a) } #" AS ?b) SERVICE <URL> { ?s ?p ?o } }'
SSRF_KEYWORD = r"SELECT ?s WHERE { \u0053ERVICE <URL> { ?s ?p ?o } }"
TYPEREF = ("name kind ofType { name kind ofType { name kind ofType { name kind ofType { name kind ofType { "
           "name kind ofType { name kind } } } } } }")
INTROSPECTION = ("__schema { types { name kind fields { name args { name type { " + TYPEREF + " } } type { "
                 + TYPEREF + " } } } }")
INTROSPECTION_15 = "{ " + " ".join(f"a{i}: {INTROSPECTION}" for i in range(15)) + " }"
VARIABLE_CHAIN = ("query($n:Int!=100){ entities(first:$n){ edges{ node{ related(first:$n){ "
                  "related(first:$n){ name }}}}}}")
TOKENS_2000 = "{ stats { " + "papers " * 1990 + "} }"  # parsed, then refused: 2,000 tokens


def repeated(n: int) -> str:
    return "query { " + " ".join(["stats { papers }"] * n) + " }"


def papers(n: int, tag: str) -> list[dict[str, str]]:
    return [{"id": f"atk-{tag}-{i}", "abstract": f"We study image classification on ImageNet ({i})."}
            for i in range(n)]


@dataclass
class Outcome:
    name: str
    statuses: list[int] = field(default_factory=list)
    by_status: dict[int, list[float]] = field(default_factory=dict)  # each response's own time
    seconds: list[float] = field(default_factory=list)
    answer: str = ""
    probe_ms: list[float] = field(default_factory=list)
    probe_errors: int = 0


class Probe(threading.Thread):
    """A well-behaved client on another address, timing a normal query back to back."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.stop, self.lock = url, threading.Event(), threading.Lock()
        self.samples: list[tuple[float, bool]] = []

    def take(self) -> list[tuple[float, bool]]:
        with self.lock:
            out, self.samples = self.samples, []
        return out

    def run(self) -> None:
        transport = httpx.HTTPTransport(local_address=PROBE_FROM)
        with httpx.Client(transport=transport, timeout=60) as c:
            turn = 0
            while not self.stop.is_set():
                turn += 1
                started = time.perf_counter()
                try:
                    if turn % 2:
                        r = c.post(self.url + "/graphql", json={"query": "{ stats { papers } }"})
                        ok = r.status_code == 200 and "errors" not in r.json()
                    else:
                        r = c.get(self.url + "/sparql", params={"query": NORMAL_SPARQL})
                        ok = r.status_code == 200
                except httpx.HTTPError:
                    ok = False
                with self.lock:
                    self.samples.append(((time.perf_counter() - started) * 1000, ok))
                time.sleep(0.01)


def graphql(c: httpx.Client, url: str, query: str, token: bool = False,
            **variables: object) -> httpx.Response:
    headers = {"Authorization": f"Bearer {TOKEN}"} if token else {}
    return c.post(url + "/graphql", json={"query": query, "variables": variables}, headers=headers)


def message(r: httpx.Response) -> str:
    try:
        body = r.json()
    except ValueError:
        return r.text[:120]
    errors = body.get("errors") if isinstance(body, dict) else None
    return str(errors[0]["message"])[:120] if errors else "answered"


Send = Callable[[httpx.Client], list[httpx.Response]]


@dataclass(frozen=True)
class Attack:
    """One attack: `send` makes one round of it; `mode` says how it is repeated: "rounds" (back to back,
    `--rounds` times and at least 3 s), "heavy" (two rounds: each lasts up to a query's budget) or
    "sustained" (one call that runs its clients for its own duration)."""

    issue: int
    name: str
    send: Send
    mode: str = "rounds"


class Listener:
    """A TCP listener on loopback counting connections: what a SERVICE that got through would call."""

    def __init__(self) -> None:
        self.connections = 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/internal/sparql"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()


def sustained(clients: int, seconds: float, one: Callable[[httpx.Client], httpx.Response],
              first_address: int = 20) -> Send:
    """`clients` threads, each from its own loopback address, sending `one` back to back for `seconds`."""

    def go(_: httpx.Client) -> list[httpx.Response]:
        out: list[httpx.Response] = []
        lock = threading.Lock()
        stop = time.monotonic() + seconds

        def loop(address: str) -> None:
            with httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=120) as c:
                while time.monotonic() < stop:
                    try:
                        r = one(c)
                    except httpx.HTTPError:
                        continue
                    with lock:
                        out.append(r)

        together([threading.Thread(target=loop, args=(f"127.0.0.{first_address + i}",))
                  for i in range(clients)])
        return out

    return go


def together(threads: list[threading.Thread]) -> None:
    """Start `threads` and wait for them all."""
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def attacks(url: str, listener: Listener) -> list[Attack]:
    def post_raw(body: bytes) -> Send:
        headers = {"content-type": "application/json"}
        return lambda c: [c.post(url + "/graphql", content=body, headers=headers)]

    def concurrent_sparql(q: str, n: int) -> Send:
        def go(c: httpx.Client) -> list[httpx.Response]:
            out: list[httpx.Response] = []
            together([threading.Thread(target=lambda: out.append(
                httpx.get(url + "/sparql", params={"query": q}, timeout=120))) for _ in range(n)])
            return out
        return go

    def sparql(q: str) -> Send:
        return lambda c: [c.get(url + "/sparql", params={"query": q})]

    def one_paper(**fields: object) -> Send:
        paper = {"id": "atk-one", "abstract": "We study image classification on ImageNet.", **fields}
        return lambda c: [graphql(c, url, ADD, True, p=[paper])]

    return [
        Attack(11, "GraphQL related chain, depth 8", lambda c: [graphql(c, url, RELATED_CHAIN)]),
        Attack(11, "GraphQL fragment fan-out, 2^20", lambda c: [graphql(c, url, FRAGMENT_FAN_OUT)]),
        Attack(11, "GraphQL 15 aliased chains", lambda c: [graphql(c, url, ALIASED)]),
        Attack(11, "GraphQL depth 9", lambda c: [graphql(c, url, DEEP)]),
        Attack(11, "GraphQL first: 101",
               lambda c: [graphql(c, url, "{ papers(first: 101) { totalCount } }")]),
        Attack(11, "addPapers x4 aliased, 40 each",
               lambda c: [graphql(c, url, ALIASED_ADDS, True, p=papers(40, "al"))]),
        Attack(11, "addPapers of 100", lambda c: [graphql(c, url, ADD, True, p=papers(100, "big"))]),
        Attack(11, "body: invalid UTF-8", post_raw(b'{"query": "{ stats { papers } }\xff"}')),
        Attack(11, "body: 100,000 nested [", post_raw(b"[" * 100_000)),
        Attack(11, "SPARQL update", lambda c: [c.post(
            url + "/sparql", content=b"DROP ALL", headers={"content-type": "application/sparql-update"})]),
        Attack(11, "SPARQL 4 cartesian COUNTs at once", concurrent_sparql(CARTESIAN_COUNT, 4), "heavy"),
        Attack(11, "SPARQL ORDER BY over a cartesian product", concurrent_sparql(CARTESIAN_ORDER, 1),
               "heavy"),
        # issue 25, items 1-8
        Attack(25, "1 SSRF: \\u0022 hides SERVICE from the guard", sparql(SSRF.replace("URL", listener.url))),
        Attack(25, "1 SSRF: \\u0053ERVICE", sparql(SSRF_KEYWORD.replace("URL", listener.url))),
        Attack(25, "2 introspection, 15 aliases", lambda c: [graphql(c, url, INTROSPECTION_15)]),
        Attack(25, "2 introspection, 15 aliases, 4 clients",
               sustained(4, 5.0, lambda c: graphql(c, url, INTROSPECTION_15)), "sustained"),
        Attack(25, "3 stats x280, no aliases", lambda c: [graphql(c, url, repeated(280))]),
        Attack(25, "3 stats x490, no aliases", lambda c: [graphql(c, url, repeated(490))]),
        Attack(25, "4 related chain, $n:Int!=100", lambda c: [graphql(c, url, VARIABLE_CHAIN)]),
        Attack(25, "4 related chain, {n: 100.0}", lambda c: [graphql(c, url, VARIABLE_CHAIN, n=100.0)]),
        Attack(25, "5 addPapers, 150,000 authors", one_paper(authors=["x"] * 150_000)),
        Attack(25, "6 lone surrogate in neighborhood(id:)", post_raw(json.dumps({
            "query": "query($s: ID!) { neighborhood(id: $s) { nodes { id } } }",
            "variables": {"s": "\udfff"}}).encode())),
        Attack(25, "7 addPapers id nul\\u0000id", one_paper(id="nul\u0000id")),
        Attack(25, "7 addPapers year -5", one_paper(year=-5)),
        Attack(25, "8 heavy SPARQL from 4 addresses, 12 s",
               sustained(4, 12.0, lambda c: c.get(url + "/sparql", params={"query": CARTESIAN_COUNT})),
               "sustained"),
        Attack(25, "8 2,000-token documents, 8 clients",
               sustained(8, 5.0, lambda c: graphql(c, url, TOKENS_2000)), "sustained"),
        Attack(25, "8 whole-graph export, 8 clients",
               sustained(8, 5.0, lambda c: c.get(url + "/export", params={"format": "nt"})), "sustained"),
    ]


def run(url: str, rounds: int, issues: set[int]) -> tuple[list[Outcome], int]:
    """Every attack of `issues`, in turn, with the probe's samples during each; and how many connections the
    SSRF listener saw."""
    listener = Listener()
    probe = Probe(url)
    probe.start()
    outcomes = []
    with httpx.Client(timeout=120) as c:
        graphql(c, url, "{ stats { papers } }")
        for attack in attacks(url, listener):
            if attack.issue not in issues:
                continue
            out = Outcome(attack.name)
            settle(url)  # the SPARQL workers a previous attack killed have been replaced and are ready
            probe.take()
            began = time.perf_counter()
            while True:
                started = time.perf_counter()
                responses = attack.send(c)
                took = time.perf_counter() - started
                for r in responses:
                    out.statuses.append(r.status_code)
                    out.by_status.setdefault(r.status_code, []).append(r.elapsed.total_seconds())
                out.seconds.append(took)
                out.answer = "; ".join(sorted({f"{r.status_code} {message(r)}" for r in responses}))
                if attack.mode == "sustained":
                    break
                if attack.mode == "heavy" and len(out.seconds) >= 2:
                    break
                long_enough = len(out.seconds) >= rounds and time.perf_counter() - began >= 3
                if attack.mode == "rounds" and long_enough:
                    break
            samples = probe.take()
            out.probe_ms = [ms for ms, _ in samples]
            out.probe_errors = sum(not ok for _, ok in samples)
            outcomes.append(out)
            print(f"{attack.name:45} {times(out):30}  "
                  f"probe p99 {p99(out.probe_ms):7.1f} ms ({len(out.probe_ms)}, {out.probe_errors} failed)  "
                  f"{out.answer[:90]}", flush=True)
    probe.stop.set()
    probe.join()
    listener.sock.close()
    return outcomes, listener.connections


def times(o: Outcome) -> str:
    """Median / max time to each kind of answer (HTTP status), in ms."""
    return ", ".join(f"{status}: {statistics.median(v) * 1000:.1f} / {max(v) * 1000:.1f}"
                     for status, v in sorted(o.by_status.items()))


def settle(url: str) -> None:
    """Wait until a SPARQL query from a third address is answered quickly (fresh workers have started)."""
    with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.3"), timeout=120) as c:
        for _ in range(100):
            started = time.perf_counter()
            ok = c.get(url + "/sparql", params={"query": NORMAL_SPARQL}).status_code == 200
            if ok and time.perf_counter() - started < 0.1:
                return
            time.sleep(0.2)


def p99(values: list[float]) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]


def summary(o: Outcome) -> dict[str, object]:
    """One attack's figures: per status the answers, median and maximum ms; the probe's p99 and count."""
    by_status = {str(k): {"n": len(v), "median_ms": round(statistics.median(v) * 1000, 1),
                          "max_ms": round(max(v) * 1000, 1)} for k, v in sorted(o.by_status.items())}
    return {"name": o.name, "answer": o.answer, "by_status": by_status,
            "probe": {"p99_ms": round(p99(o.probe_ms), 1), "n": len(o.probe_ms), "failed": o.probe_errors}}


def table(outcomes: list[Outcome]) -> str:
    rows = ["| attack | answer | ms to answer by status, median / max | probe p99 (n, failed) |",
            "| --- | --- | --- | --- |"]
    for o in outcomes:
        rows.append(f"| {o.name} | {o.answer[:100]} | {times(o)} | {p99(o.probe_ms):.1f} ms "
                    f"({len(o.probe_ms)}, {o.probe_errors}) |")
    return "\n".join(rows)


def deadline_phase(store: Path, limits: list[float]) -> list[dict[str, float]]:
    """The related chain against servers whose cost analysis is lifted: how far past each time limit the
    deadline alone ends it, and the probe's p99 meanwhile."""
    out = []
    for limit in limits:
        proc, url = start_server(store, {"KG_MAX_COST": "1e18", "KG_QUERY_TIMEOUT": str(limit)})
        probe = Probe(url)
        try:
            with httpx.Client(timeout=120) as c:
                graphql(c, url, "{ stats { papers } }")
                settle(url)
                probe.start()
                time.sleep(0.5)
                probe.take()
                took = []
                for _ in range(3):
                    started = time.perf_counter()
                    graphql(c, url, RELATED_CHAIN)
                    took.append(time.perf_counter() - started)
                samples = probe.take()
        finally:
            probe.stop.set()
            proc.kill()
            proc.wait()
        row = {"limit_s": limit, "answered_s": statistics.median(took), "max_s": max(took),
               "probe_p99_ms": p99([ms for ms, _ in samples]), "probes": len(samples)}
        print(f"deadline only, limit {limit:g} s: answered after {row['answered_s']:.2f} s median "
              f"(max {row['max_s']:.2f}), probe p99 {row['probe_p99_ms']:.0f} ms ({len(samples)})",
              flush=True)
        out.append(row)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", type=Path, default=None)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--issue", type=int, nargs="*", default=[11, 25], help="replay these issues' attacks")
    ap.add_argument("--deadline", type=float, nargs="*", default=[1.0, 3.0],
                    help="also time the related chain with the cost analysis lifted, at these limits (s)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = args.store or Path(tmp) / "store"
        proc, url = start_server(store, {"KG_API_TOKEN": TOKEN})
        try:
            outcomes, connections = run(url, args.rounds, set(args.issue))
        finally:
            proc.kill()
            proc.wait()
        deadlines = deadline_phase(store, args.deadline)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "attack.json").write_text(json.dumps(
        {"attacks": [summary(o) for o in outcomes], "ssrf_listener_connections": connections,
         "deadline_only": deadlines}, indent=1) + "\n")
    md = table(outcomes)
    md += f"\n\nConnections the SSRF listener saw during the run: {connections}.\n"
    if deadlines:
        md += ("\nWith the cost analysis lifted (`KG_MAX_COST=1e18`), the related chain against the "
               "deadline alone:\n\n| time limit | answered after, median (max) | probe p99 |\n"
               "| --- | --- | --- |\n")
        md += "\n".join(f"| {d['limit_s']:g} s | {d['answered_s']:.2f} s ({d['max_s']:.2f} s) | "
                        f"{d['probe_p99_ms']:.0f} ms ({d['probes']:.0f} probes) |" for d in deadlines)
    (RESULTS / "attack.md").write_text(
        "# bench/attack.py: issues 11's and 25's attacks against `kg serve` over the sample store\n\n"
        + md + "\n")
    print()
    print(md)


if __name__ == "__main__":
    main()
