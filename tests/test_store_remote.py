"""Remote backend against a real `oxigraph serve` on a free 127.0.0.1 port, compared with embedded."""

from __future__ import annotations

import io
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib import Variable

from kg.store import as_rdflib, open_store
from kg.store.embedded import EmbeddedStore
from kg.store.remote import RemoteStore
from kg.store.types import BadQuery, StoreError

BASE = "https://w3id.org/paperkg/"
NASTY = ['say "hi"', "{braces}", "two\nlines", '"} ; DROP ALL ; {"', "tab\tback\\slash", "ünïcødé"]
QUERIES = [
    "SELECT ?s ?o WHERE { ?s <https://w3id.org/paperkg/ontology#f3> ?o } ORDER BY ?s ?o",
    "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g ORDER BY ?g",
    "SELECT DISTINCT ?o WHERE { ?s ?p ?o FILTER(CONTAINS(STR(?o), 'DROP')) } ORDER BY ?o",
]


def oxigraph_cli() -> str:
    found = shutil.which("oxigraph") or str(Path(sys.executable).with_name("oxigraph"))
    if not Path(found).exists():
        pytest.skip("oxigraph CLI not installed")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`oxigraph serve` WITHOUT --union-default-graph: the client must ask for the union itself."""
    port = free_port()
    loc = str(tmp_path_factory.mktemp("ox"))
    cmd = [oxigraph_cli(), "serve", "--location", loc, "--bind", f"127.0.0.1:{port}"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def remote(server: str) -> Iterator[RemoteStore]:
    store = open_store(server, base_iri=BASE)
    assert isinstance(store, RemoteStore)
    store.drop_graphs(store.named_graphs())
    yield store
    store.close()


def papers(n: int, size: int = 12, tag: str = "v1") -> dict[str, list[ox.Quad]]:
    out = {}
    for i in range(n):
        g = ox.NamedNode(f"{BASE}graph/paper/p{i}")
        out[g.value] = [ox.Quad(ox.NamedNode(f"{BASE}paper/p{i}"), ox.NamedNode(f"{BASE}ontology#f{j}"),
                                ox.Literal(f"{tag}|{NASTY[j % 6]}|{i}"), g) for j in range(size)]
    return out


def test_same_answers_as_embedded(remote: RemoteStore) -> None:
    local = EmbeddedStore(base_iri=BASE)
    for s in (remote, local):
        s.replace_graphs(papers(5))
    for q in QUERIES:
        assert remote.select(q) == local.select(q), q
    data = f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ ?s ?p ?o FILTER(?s != <{BASE}graph/meta>) }}"
    assert len(remote.construct(data)) == 60
    assert sorted(map(str, remote.construct(data))) == sorted(map(str, local.construct(data)))
    assert (remote.named_graphs(), remote.triple_count()) == (local.named_graphs(), local.triple_count())


def test_bound_values_stay_values(remote: RemoteStore) -> None:
    remote.replace_graphs(papers(2))
    nasty = ox.Literal('v1|"} ; DROP ALL ; {"|1')
    rows = remote.select("SELECT DISTINCT ?s WHERE { ?s ?p ?o }", {"o": nasty})
    assert rows == [{"s": ox.NamedNode(f"{BASE}paper/p1")}]
    assert remote.ask("ASK { ?s ?p ?o }", {"o": ox.Literal("two\nlines")}) is False
    assert remote.triple_count() == 24


def test_replace_graphs_replaces_never_duplicates(remote: RemoteStore) -> None:
    remote.replace_graphs(papers(3))
    remote.replace_graphs(papers(3))
    remote.replace_graphs(papers(1, size=5, tag="v2"))
    assert remote.triple_count() == 5 + 2 * 12


def test_generation_changes_on_write(remote: RemoteStore) -> None:
    g0 = remote.generation()
    remote.replace_graphs(papers(1))
    g1 = remote.generation()
    assert g1 != g0 and remote.generation() == g1


FORMATS = {"nquads": ox.RdfFormat.N_QUADS, "trig": ox.RdfFormat.TRIG, "jsonld": ox.RdfFormat.JSON_LD,
           "turtle": ox.RdfFormat.TURTLE, "nt": ox.RdfFormat.N_TRIPLES, "xml": ox.RdfFormat.RDF_XML}


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_dump_parses_back(remote: RemoteStore, fmt: str) -> None:
    remote.replace_graphs(papers(2))
    buf = io.BytesIO()
    remote.dump(buf, fmt)
    assert len(list(ox.parse(buf.getvalue(), format=FORMATS[fmt]))) == 24


def test_load_posts_a_file(remote: RemoteStore, tmp_path: Path) -> None:
    (tmp_path / "x.nq").write_text('<http://e/s> <http://e/p> "1" <http://e/g> .\n'
                                   '<http://e/s> <http://e/p> "2" <http://e/h> .\n')
    remote.load(str(tmp_path / "x.nq"))
    assert (remote.named_graphs(), remote.triple_count()) == (["http://e/g", "http://e/h"], 2)


def test_bad_query_is_bad_query(remote: RemoteStore) -> None:
    with pytest.raises(BadQuery, match="bad SPARQL"):
        remote.select("SELEC ?x")


def test_rdflib_view_is_a_snapshot(remote: RemoteStore) -> None:
    remote.replace_graphs(papers(2, size=4))
    ds = as_rdflib(remote)
    rows = ds.query("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }").bindings
    assert int(rows[0][Variable("n")]) == 8


def test_unreachable_endpoint_is_one_line() -> None:
    with pytest.raises(StoreError, match="cannot reach SPARQL endpoint") as err:
        open_store(f"http://127.0.0.1:{free_port()}", base_iri=BASE)
    assert "\n" not in str(err.value)
