"""Shared test fixtures for kg/query and the API: stores built from the sample, and a live uvicorn server."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from kg.build import write_extractions
from kg.rdf.iris import Iris
from kg.rdf.mapping import GraphMapper
from kg.settings import DEFAULT_BASE_IRI
from kg.store.embedded import EmbeddedStore
from kg.types import EntityRef, EntityType, Evidence, Extraction, Link, Paper, Relation, Result

ROOT = Path(__file__).resolve().parent.parent
GOLD = ROOT / "tests" / "data" / "icml2025_seed_gold.jsonl"
SAMPLE = ROOT / "data" / "icml2025_seed.jsonl"
# The sample's MELON as the extractor names it: a proposal named by the acronym its paper defines, with
# the definition as disambiguator (kg.extract.canon.defined_name); "MELON" is its alias.
MELON_NAME = "MELON (Masked re-Execution and TooL comparisON)"
MELON_ID = "method/melon-masked-re-execution-and-tool-comparison"
BASE = DEFAULT_BASE_IRI
TOKEN = "test-token-7c1d"

_SECTIONS: dict[str, tuple[EntityType, str]] = {
    "tasks": ("Task", "addressesTask"),
    "datasets": ("Dataset", "usesDataset"),
    "metrics": ("Metric", "reportsMetric"),
    "models": ("Model", "evaluatesModel"),
    "domains": ("Domain", "targetsDomain"),
    "threats": ("Threat", "studiesThreat"),
}
_PROPOSED_TYPE: dict[str, EntityType] = {"Dataset": "Dataset", "Model": "Model"}
# Extra structure the gold file does not carry, so that narrower/variant/defense questions have answers.
_BROADER = {"LLM agents": EntityRef("Domain", "large language models")}
_VARIANT = {"CIFAR-10-LT": EntityRef("Dataset", "CIFAR-10")}


def _evidence(text: str, name: str, aliases: list[str], confidence: float = 0.9) -> Evidence:
    for form in [name, *aliases]:
        m = re.search(re.escape(form), text, re.IGNORECASE)
        if m:
            start = text.rfind(". ", 0, m.start()) + 2 if ". " in text[: m.start()] else 0
            end = text.find(". ", m.end())
            return Evidence(
                text[start : end + 1 if end >= 0 else len(text)],
                m.group(0),
                m.start(),
                m.end(),
                confidence,
                rule="gold",
            )
    return Evidence(text[:200], name, 0, 0, 0.4, rule="gold")


def gold_extractions() -> list[Extraction]:
    """Hand-made Extractions from the gold annotations of the 19 sample papers (no extractor involved)."""
    out = []
    for line in GOLD.read_text(encoding="utf-8").splitlines():
        g = json.loads(line)
        text = g["text"]
        paper = Paper(id=g["id"], title=g["title"], abstract=text, venue="ICML", year=2025)
        links: list[Link] = []
        for p in g["proposed"]:
            kind = p["kind"]
            ref = EntityRef(_PROPOSED_TYPE.get(kind, "Method"), p["name"], None if kind == "Method" else kind)
            links.append(Link("proposes", ref, _evidence(text, p["name"], p["aliases"]), tuple(p["aliases"])))
        for m in g["methods"]:
            rel = "comparesWith" if m["role"] == "baseline" else "usesMethod"
            links.append(
                Link(
                    rel,
                    EntityRef("Method", m["name"]),
                    _evidence(text, m["name"], m["aliases"]),
                    tuple(m["aliases"]),
                )
            )
        for section, (etype, rel) in _SECTIONS.items():
            for e in g[section]:
                links.append(
                    Link(
                        rel,
                        EntityRef(etype, e["name"]),
                        _evidence(text, e["name"], e["aliases"]),
                        tuple(e["aliases"]),
                        _VARIANT.get(e["name"]),
                        (_BROADER[e["name"]],) if e["name"] in _BROADER else (),
                    )
                )
        relations: list[Relation] = []
        if g["id"] == "seed-12":
            melon = EntityRef("Method", "MELON", "Defense")
            ev = _evidence(text, "MELON", [])
            relations = [
                Relation(melon, "defendsAgainst", EntityRef("Threat", "indirect prompt injection"), ev),
                Relation(melon, "targetsDomain", EntityRef("Domain", "LLM agents"), ev),
            ]
        out.append(Extraction(paper, tuple(links), tuple(relations), tuple(g["code"]), "gold"))
    return out


def store_from(extractions: list[Extraction], path: str | None = None) -> EmbeddedStore:
    store = EmbeddedStore(path, base_iri=BASE)
    mapper = GraphMapper(Iris(BASE))
    write_extractions(store, extractions, mapper)
    return store


_SAMPLE_QUADS: list[ox.Quad] = []


def sample_extractions() -> list[Extraction]:
    """The real pipeline on the bundled sample: kg.io.read_papers, then the spaCy extractor."""
    from kg.extract import Extractor
    from kg.io import read_papers

    extractor = Extractor(BASE)
    papers = [p for p in read_papers(str(SAMPLE)) if isinstance(p, Paper)]
    return [extractor.extract_one(p) for p in papers]


def pipeline_available() -> bool:
    try:
        from kg.extract import Extractor  # noqa: F401
        from kg.io import read_papers  # noqa: F401
    except ImportError:
        return False
    return True


def sample_store(path: str | None = None) -> EmbeddedStore:
    """The sample as `kg build` stores it (schema graphs + extracted papers); gold ones without a pipeline."""
    if not _SAMPLE_QUADS:
        if pipeline_available():
            from kg.build import schema_graphs

            exs = sample_extractions()
            _SAMPLE_QUADS.extend(q for quads in schema_graphs(BASE).values() for q in quads)
        else:
            exs = gold_extractions()
        mapper = GraphMapper(Iris(BASE))
        schema = {q.triple for q in _SAMPLE_QUADS}  # as kg.write does: no triple stored in two graphs
        for ex in exs:
            mapped = mapper.map(ex)
            _SAMPLE_QUADS.extend(mapped.quads)
            _SAMPLE_QUADS.extend(q for q in mapped.shared if q.triple not in schema)
    store = EmbeddedStore(path, base_iri=BASE)
    graphs: dict[str, list[ox.Quad]] = {}
    for q in _SAMPLE_QUADS:
        graphs.setdefault(str(getattr(q.graph_name, "value", "")), []).append(q)
    store.replace_graphs(graphs)
    return store


def sample_store_with(*extractions: Extraction) -> EmbeddedStore:
    """`sample_store()` plus `extractions`, written through the one write path."""
    store = sample_store()
    write_extractions(store, list(extractions), GraphMapper(Iris(BASE)))
    return store


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Listener:
    """A TCP listener on a loopback port that records every connection made to it and answers each with a
    one-row SPARQL result (so a query that reached it would show the row); `close()` stops it."""

    ROW = "http://internal.example/secret"

    def __init__(self) -> None:
        self.connections: list[tuple[str, int]] = []
        self._sock = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._sock.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}/internal/sparql"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        body = json.dumps({"head": {"vars": ["s"]},
                           "results": {"bindings": [{"s": {"type": "uri", "value": self.ROW}}]}}).encode()
        while True:
            try:
                conn, peer = self._sock.accept()
            except OSError:  # closed
                return
            self.connections.append(peer)
            with conn:
                conn.settimeout(2)
                try:
                    conn.recv(65536)
                    conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/sparql-results+json\r\n"
                                 b"content-length: %d\r\nconnection: close\r\n\r\n" % len(body) + body)
                except OSError:
                    pass

    def seen(self) -> list[tuple[str, int]]:
        """The connections made so far, once the listener has accepted all of them: a marker connection is
        made and awaited (the backlog is accepted in order), then left out."""
        with socket.create_connection(("127.0.0.1", self.port)) as marker:
            mine = marker.getsockname()
            deadline = time.monotonic() + 60  # a hang guard, not a speed check
            while mine not in self.connections:
                assert time.monotonic() < deadline, "the listener stopped accepting"
                time.sleep(0.01)
        self.connections.remove(mine)
        return list(self.connections)

    def close(self) -> None:
        self._sock.close()


@dataclass
class Server:
    url: str
    store: EmbeddedStore


def serve(
    store: EmbeddedStore, port: int | None = None, base_iri: str = BASE, **settings: Any
) -> Iterator[Server]:
    """Run the API over `store` with uvicorn on a loopback port (a free one unless given) in a thread; stop
    it afterwards."""
    import uvicorn

    from api import create_app
    from kg.settings import Settings

    app = create_app(Settings(store=store.location, base_iri=base_iri, **settings), store)
    port = port or free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120  # a hang guard, not a speed check: spawning workers is slow under load
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("test server did not start")
        time.sleep(0.02)
    try:
        yield Server(f"http://127.0.0.1:{port}", store)
    finally:
        server.should_exit = True
        thread.join(10)


def run_kg(
    *args: str | Path, check: bool = True, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the real `kg` command in a subprocess from the repository root (`env` added to this process's);
    with `check`, a non-zero exit fails the test with kg's stderr."""
    proc = subprocess.run(
        [sys.executable, "-m", "kg", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        timeout=600,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"kg {args} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


IMAGENET = EntityRef("Dataset", "ImageNet", "Benchmark")
FID = EntityRef("Metric", "Frechet Inception Distance")
ACC = EntityRef("Metric", "top-1 accuracy")


def results_paper(
    pid: str, name: str, rows: list[tuple[Any, ...]], title: str, task: str | None = None,
    year: int | None = None,
) -> Extraction:
    """A made-up paper of method `name` stating one result on ImageNet per row (value, unit, metric, and
    optionally kind, default "absolute", and confidence, default 0.9), each with its sentence as evidence;
    it proposes `name`, uses ImageNet, reports the first row's metric and addresses `task` when given."""
    full = [(*r, *("absolute", 0.9)[len(r) - 3 :]) for r in rows]
    sentences = [
        f"{name} reaches {'+' if k == 'delta' else ''}{v:g}{u} {m.name} on ImageNet."
        for v, u, m, k, _ in full
    ]
    abstract = " ".join(sentences)
    own = EntityRef("Method", name)
    results, at = [], 0
    for (v, u, m, kind, conf), sent in zip(full, sentences, strict=True):
        mention = f"{'+' if kind == 'delta' else ''}{v:g}{u}"
        s = abstract.index(sent, at) + len(name) + 9
        ev = Evidence(sent, mention, s, s + len(mention), conf)
        results.append(Result(v, u, kind, m, ev, dataset=IMAGENET, method=own))
        at = s
    ev = Evidence(abstract, name, 0, len(name), 0.9)
    links = [Link("proposes", own, ev), Link("usesDataset", IMAGENET, ev),
             Link("reportsMetric", rows[0][2], ev)]
    if task is not None:
        links.append(Link("addressesTask", EntityRef("Task", task), ev))
    paper = Paper(pid, abstract, title=title, year=year)
    return Extraction(paper, tuple(links), extractor_version="t", results=tuple(results))
