"""Remote store against a real OpenLink Virtuoso 7.2 (Debian's virtuoso-opensource, `scripts/virtuoso`).

The test starts `virtuoso-t` on free 127.0.0.1 ports (SQL + HTTP) with its own ini file and database in a
temporary directory, grants SPARQL_UPDATE to the SPARQL user through isql, loads the sample and checks that
every kg.query contract function answers as on the embedded store. Skipped when Virtuoso is not installed.
"""

from __future__ import annotations

import io
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator

import httpx
import pyoxigraph as ox
import pytest
from fixtures_api import BASE, gold_extractions, store_from

import kg.query as q
from kg.build import schema_graphs
from kg.query import QueryContext
from kg.store import open_store
from kg.store.dialects import VirtuosoDialect, _where_brace
from kg.store.embedded import EmbeddedStore
from kg.store.remote import RemoteStore

BOOLEAN = ox.NamedNode("http://www.w3.org/2001/XMLSchema#boolean")
INI = """[Database]
DatabaseFile = {d}/virtuoso.db
ErrorLogFile = {d}/virtuoso.log
LockFile = {d}/virtuoso.lck
TransactionFile = {d}/virtuoso.trx
xa_persistent_file = {d}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
MaxCheckpointRemap = 2000
Striping = 0
TempStorage = TempDatabase
[TempDatabase]
DatabaseFile = {d}/virtuoso-temp.db
TransactionFile = {d}/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping = 0
[Parameters]
ServerPort = 127.0.0.1:{sql}
DisableUnixSocket = 1
MaxClientConnections = 10
CheckpointInterval = 60
CaseMode = 2
DirsAllowed = ., {d}
NumberOfBuffers = 20000
MaxDirtyBuffers = 15000
ThreadsPerQuery = 2
[HTTPServer]
ServerPort = 127.0.0.1:{http}
ServerRoot = /var/lib/virtuoso-opensource-7/vsp
MaxClientConnections = 10
ServerThreads = 10
EnabledDavVSP = 0
Charset = UTF-8
[SPARQL]
ResultSetMaxRows = 1000000
MaxQueryExecutionTime = 60
MaxQueryCostEstimationTime = 0
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A private Virtuoso on loopback; stopped (by its pid) after the module."""
    server, isql = shutil.which("virtuoso-t"), shutil.which("isql-vt")
    if server is None or isql is None:
        pytest.skip("virtuoso-opensource is not installed (run scripts/virtuoso)")
    d = tmp_path_factory.mktemp("virtuoso")
    sql, http = free_port(), free_port()
    (d / "virtuoso.ini").write_text(INI.format(d=d, sql=sql, http=http))
    log = open(d / "stdout.log", "wb")  # noqa: SIM115 - closed in finally
    proc = subprocess.Popen([server, "+foreground", "+configfile", str(d / "virtuoso.ini")], cwd=d,
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{http}/sparql"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url, params={"query": "ASK {}"}, timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"virtuoso did not start: {(d / 'virtuoso.log').read_text()[-500:]}")
            time.sleep(0.2)
        subprocess.run([isql, f"127.0.0.1:{sql}", "dba", "dba", 'exec=GRANT SPARQL_UPDATE TO "SPARQL";'],
                       check=True, capture_output=True, timeout=60)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="module")
def stores(endpoint: str,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[EmbeddedStore, RemoteStore]]:
    """The gold sample (+ schema graphs) in an embedded store, and the same N-Quads loaded into Virtuoso."""
    local = store_from(gold_extractions())
    local.replace_graphs(schema_graphs(BASE))
    remote = open_store(endpoint, base_iri=BASE)
    assert isinstance(remote, RemoteStore) and isinstance(remote.dialect, VirtuosoDialect)
    remote.drop_graphs(remote.named_graphs())
    shard = tmp_path_factory.mktemp("shard") / "sample.nq"
    with open(shard, "wb") as fh:
        local.dump(fh, "nquads")
    remote.load(str(shard))  # chunked INSERT DATA: the schema graphs alone exceed one statement's limit
    yield local, remote
    remote.close()


def contexts(stores: tuple[EmbeddedStore, RemoteStore]) -> list[QueryContext]:
    return [QueryContext.open(s, BASE) for s in stores]


def test_same_graphs_and_counts(stores: tuple[EmbeddedStore, RemoteStore]) -> None:
    local, remote = stores
    assert remote.named_graphs() == local.named_graphs()  # Virtuoso's system graphs are left out
    assert remote.triple_count() == local.triple_count()


def test_contract_answers_match_embedded(stores: tuple[EmbeddedStore, RemoteStore]) -> None:
    emb, vir = contexts(stores)
    for ctx in (emb, vir):
        assert [p.title for p in q.papers(ctx, dataset="ImageNet").items]
    checks: list[Callable[[QueryContext], object]] = [
        lambda c: q.papers(c, dataset="imagenet"),
        lambda c: q.papers(c, first=5),
        lambda c: q.papers(c, first=5, after=q.papers(c, first=5).end_cursor),
        lambda c: q.papers(c, task="prompt injection", first=50),
        lambda c: q.paper(c, "seed-12"),
        lambda c: q.entity(c, name="IPI"),
        lambda c: q.entities(c, "Dataset", first=10),
        lambda c: q.defenses(c, target="LLM agents"),
        lambda c: q.defenses(c, against="prompt injection"),
        lambda c: q.neighborhood(c, "dataset/agentdojo", 2, 50),
        lambda c: q.links(c, "seed-12"),
        lambda c: q.stats(c),
    ]
    for i, check in enumerate(checks):
        assert check(vir) == check(emb), i
    melon = [e.name for e in q.defenses(vir, target="LLM agents")]
    assert "MELON" in melon


def test_related_and_papers_of_entities_match(stores: tuple[EmbeddedStore, RemoteStore]) -> None:
    emb, vir = contexts(stores)
    iris = [e.iri for e in q.entities(emb, first=15).items]
    assert q.related(vir, iris) == q.related(emb, iris)
    assert q.papers_of_entities(vir, iris, first=3) == q.papers_of_entities(emb, iris, first=3)


def test_bound_values_go_inside_where(stores: tuple[EmbeddedStore, RemoteStore]) -> None:
    _, remote = stores
    title = ox.NamedNode("http://purl.org/dc/terms/identifier")
    rows = remote.select("SELECT ?p WHERE { ?p ?k ?id }", {"id": ox.Literal("seed-12"), "k": title})
    assert rows == [{"p": ox.NamedNode(f"{BASE}paper/seed-12")}]
    assert remote.ask("ASK { ?p ?k ?id }", {"id": ox.Literal('"} ; DROP ALL ; {"')}) is False


def test_replace_and_drop_bump_generation(stores: tuple[EmbeddedStore, RemoteStore]) -> None:
    _, remote = stores
    g = f"{BASE}graph/paper/tmp"
    big = [ox.Quad(ox.NamedNode(f"{BASE}paper/tmp"), ox.NamedNode(f"{BASE}ontology#n"), ox.Literal(f"v{i} ×"),
                   ox.NamedNode(g)) for i in range(6000)]  # over the one-statement limit: chunked
    before = remote.generation()
    remote.replace_graphs({g: big})
    remote.replace_graphs({g: big[:3]})
    assert remote.generation() != before
    rows = remote.select(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{g}> {{ ?s ?p ?o }} }}")
    assert rows[0]["n"].value == "3"
    remote.drop_graphs([g])
    assert g not in remote.named_graphs()


def test_booleans_and_dump_round_trip(stores: tuple[EmbeddedStore, RemoteStore]) -> None:
    local, remote = stores
    a, b = io.BytesIO(), io.BytesIO()
    local.dump(a, "nquads")
    remote.dump(b, "nquads")
    mine, theirs = (list(ox.parse(x.getvalue(), ox.RdfFormat.N_QUADS)) for x in (a, b))
    assert len(theirs) == len(mine)  # blank node labels differ; everything else is identical

    def named(quads: list[ox.Quad]) -> list[str]:
        return sorted(str(q) for q in quads if "_:" not in str(q))
    assert named(theirs) == named(mine)
    assert any(q.object == ox.Literal("true", datatype=BOOLEAN) for q in theirs)


def test_where_brace_finder() -> None:
    cases = {"SELECT ?x WHERE { ?x ?p '{' }": "WHERE {", "PREFIX a: <http://x/{}> ASK { ?s ?p ?o }": "ASK {",
             'CONSTRUCT { ?s ?p "}" } WHERE { ?s ?p ?o }': "WHERE {", "SELECT * { ?s ?p ?o }": "* {"}
    for query, before in cases.items():
        assert _where_brace(query) == query.index(before) + len(before) - 1, query
