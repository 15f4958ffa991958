"""/sparql against the W3C SPARQL 1.1 Protocol over real HTTP: the request's RDF dataset, a default graph that
is a set, content negotiation with q-values and 406, result formats, HEAD, the Service Description — checked
with the W3C protocol test cases that apply to a read-only endpoint and with real clients (SPARQLWrapper,
rdflib's SPARQLStore)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pyoxigraph as ox
import pytest
import rdflib
from fixtures_api import BASE, Server, sample_store, serve
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from SPARQLWrapper import CSV, JSON, TURTLE, XML, SPARQLWrapper

from api.negotiation import choose
from api.sparql_protocol import names_dataset

KG = f"PREFIX kg: <{BASE}ontology#> "
PAPER_GRAPH = BASE + "graph/paper/seed-12"
IMAGENET = BASE + "dataset/imagenet"
# The W3C protocol suite's data graphs (sparql11/protocol/data1-3.nt): one triple each, in a graph of its name
DOC = "http://xmlns.com/foaf/0.1/Document"
W3C = [f"http://kasei.us/2009/09/sparql/data/data{i}.rdf" for i in (1, 2, 3)]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    store = sample_store(str(tmp_path_factory.mktemp("protocol") / "store"))
    rdf_type = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
    store.replace_graphs({g: [ox.Quad(ox.NamedNode(g), rdf_type, ox.NamedNode(DOC), ox.NamedNode(g))]
                          for g in W3C})
    yield from serve(store, sparql_row_cap=20_000)


def get(server: Server, query: str, accept: str = "", **params: str | list[str]) -> httpx.Response:
    headers = {"Accept": accept} if accept else {}
    return httpx.get(server.url + "/sparql", params={"query": query, **params}, headers=headers, timeout=60)


def count(server: Server, query: str, **params: str | list[str]) -> int:
    r = get(server, query, "", **params)
    assert r.status_code == 200, r.text
    return int(r.json()["results"]["bindings"][0]["n"]["value"])


# --- W3C SPARQL 1.1 protocol test cases (sparql11/protocol/manifest.ttl), the ones a read-only endpoint runs
ASK_EMPTY = "ASK {}"
D1, D2, D3 = (f"default-graph-uri={quote(g, safe='')}" for g in W3C)
N1, N2 = (f"named-graph-uri={quote(g, safe='')}" for g in W3C[:2])
D0 = "default-graph-uri=" + quote("http://kasei.us/2009/09/sparql/data/data0.rdf", safe="")
BOTH_DEFAULT = f"ASK {{ <{W3C[0]}> a ?type . <{W3C[1]}> a ?type . }}"
BOTH_NAMED = f"ASK {{ GRAPH ?g1 {{ <{W3C[0]}> a ?type }} GRAPH ?g2 {{ <{W3C[1]}> a ?type }} }}"
FULL = (f"ASK {{ <{W3C[2]}> a ?type GRAPH ?g1 {{ <{W3C[0]}> a ?type }} "
        f"GRAPH ?g2 {{ <{W3C[1]}> a ?type }} }}")
FORM = "application/x-www-form-urlencoded"
JSON_TYPE, XML_TYPE = "application/sparql-results+json", "application/sparql-results+xml"
DIRECT = "application/sparql-query"
# name: (method, query string, content type, body, expected status class, expected boolean or format)
W3C_CASES: dict[str, tuple[str, str, str, str, int, object]] = {
    "query_post_form": ("POST", D0, FORM, "query=" + quote(ASK_EMPTY), 2, True),
    "query_dataset_default_graphs_get": ("GET", f"query={quote(BOTH_DEFAULT)}&{D1}&{D2}", "", "", 2, True),
    "query_dataset_default_graphs_post": ("POST", f"{D1}&{D2}", DIRECT, BOTH_DEFAULT, 2, True),
    "query_dataset_named_graphs_post": ("POST", f"{N1}&{N2}", DIRECT, BOTH_NAMED, 2, True),
    "query_dataset_named_graphs_get": ("GET", f"query={quote(BOTH_NAMED)}&{N1}&{N2}", "", "", 2, True),
    "query_dataset_full": ("POST", f"{D3}&{N1}&{N2}", DIRECT, FULL, 2, True),
    "query_multiple_dataset": ("POST", f"{N1}&{N2}", DIRECT, f"ASK FROM <{W3C[2]}> {BOTH_NAMED[4:]}", 2,
                               True),
    "query_get": ("GET", f"query={quote(ASK_EMPTY)}&{D0}", "", "", 2, True),
    "query_content_type_select": ("POST", D0, DIRECT, "SELECT (1 AS ?value) {}", 2, "results"),
    "query_content_type_ask": ("POST", D0, DIRECT, ASK_EMPTY, 2, "boolean"),
    "query_content_type_describe": ("POST", D0, DIRECT, "DESCRIBE <http://example.org/>", 2, "rdf"),
    "query_content_type_construct": ("POST", D0, DIRECT, "CONSTRUCT { <s> <p> 1 } WHERE {}", 2, "rdf"),
    "query_post_direct": ("POST", "", DIRECT, ASK_EMPTY, 2, True),
    "bad_query_method": ("PUT", f"query={quote(ASK_EMPTY)}&{D0}", FORM, "", 4, None),
    "bad_multiple_queries": ("GET", f"query={quote(ASK_EMPTY)}&query={quote('SELECT * {}')}", "", "", 4,
                             None),
    "bad_query_wrong_media_type": ("POST", "", "text/plain", ASK_EMPTY, 4, None),
    "bad_query_missing_form_type": ("POST", "", "", "query=" + quote(ASK_EMPTY), 4, None),
    "bad_query_missing_direct_type": ("POST", "", "", ASK_EMPTY, 4, None),
    "bad_query_non_utf8": ("POST", "", "application/sparql-query; charset=UTF-16", ASK_EMPTY, 4, None),
    "bad_query_syntax": ("GET", "query=" + quote("ASK {"), "", "", 4, None),
    "bad_update_get": ("GET", "update=" + quote("CLEAR ALL"), "", "", 4, None),
    "bad_multiple_updates": ("POST", "", FORM, "update=CLEAR%20NAMED&update=CLEAR%20DEFAULT", 4, None),
    "bad_update_wrong_media_type": ("POST", "", "text/plain", "CLEAR NAMED", 4, None),
    "bad_update_missing_form_type": ("POST", "", "", "update=CLEAR%20NAMED", 4, None),
    "bad_update_syntax": ("POST", "", FORM, "update=" + quote("CLEAR XYZ"), 4, None),
}


@pytest.mark.parametrize("name", sorted(W3C_CASES))
def test_w3c_protocol_case(server: Server, name: str) -> None:
    method, query, ctype, body, status_class, expected = W3C_CASES[name]
    headers = {"Content-Type": ctype} if ctype else {}
    content = body.encode("utf-16") if name == "bad_query_non_utf8" else body.encode()
    r = httpx.request(method, server.url + "/sparql" + ("?" + query if query else ""), content=content,
                      headers=headers, timeout=60)
    assert r.status_code // 100 == status_class, (r.status_code, r.text)
    ctype_out = r.headers.get("content-type", "").split(";")[0]
    if expected is True:
        assert r.json()["boolean"] is True
    elif expected == "results":
        assert ctype_out in (JSON_TYPE, XML_TYPE, "text/csv", "text/tab-separated-values")
    elif expected == "boolean":
        assert ctype_out in (JSON_TYPE, XML_TYPE)
    elif expected == "rdf":
        assert ctype_out in ("application/rdf+xml", "text/turtle", "application/n-triples")
        rdflib.Graph().parse(data=r.text, format="turtle")


# --- the request's dataset ------------------------------------------------------------------------------
def graph_size(server: Server, graph: str) -> int:
    return count(server, f"SELECT (COUNT(*) AS ?n) {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}")


def test_default_graph_uri_is_the_default_graph(server: Server) -> None:
    whole = count(server, "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }")
    size = graph_size(server, PAPER_GRAPH)
    assert 0 < size < whole
    assert count(server, "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }", **{"default-graph-uri": PAPER_GRAPH}) == size
    assert count(server, "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }",
                 **{"default-graph-uri": BASE + "graph/no-such-graph"}) == 0
    assert count(server, f"SELECT (COUNT(*) AS ?n) FROM <{PAPER_GRAPH}> {{ ?s ?p ?o }}") == size
    two = [PAPER_GRAPH, BASE + "graph/paper/seed-01"]
    assert count(server, "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }", **{"default-graph-uri": two}) == (
        size + graph_size(server, two[1]))


def test_named_graph_uri_limits_the_named_graphs(server: Server) -> None:
    q = "SELECT (COUNT(DISTINCT ?g) AS ?n) { GRAPH ?g { ?s ?p ?o } }"
    assert count(server, q) > 20
    assert count(server, q, **{"named-graph-uri": PAPER_GRAPH}) == 1
    assert count(server, "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }", **{"named-graph-uri": PAPER_GRAPH}) == 0


def test_a_bad_graph_iri_is_400(server: Server) -> None:
    r = get(server, "ASK {}", **{"default-graph-uri": "not an iri"})
    assert r.status_code == 400 and "default-graph-uri" in r.text


def test_from_detection_ignores_strings_iris_and_comments() -> None:
    assert names_dataset("SELECT * FROM <http://g> { ?s ?p ?o }")
    assert names_dataset("select * from named <http://g> { graph ?g { ?s ?p ?o } }")
    assert not names_dataset('SELECT ?from { ?from <http://x/from> "from" } # FROM <x>')
    assert not names_dataset("PREFIX from: <http://x#> SELECT * { ?s from:p ?o }")


# --- the default graph is a set ----------------------------------------------------------------------------
def test_default_graph_is_a_set(server: Server) -> None:
    r = get(server, f"SELECT ?o {{ <{IMAGENET}> a ?o }}")
    types = [b["o"]["value"] for b in r.json()["results"]["bindings"]]
    assert types and len(types) == len(set(types)), types
    everything = count(server, "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }")
    distinct = count(server, "SELECT (COUNT(*) AS ?n) { SELECT DISTINCT ?s ?p ?o { ?s ?p ?o } }")
    assert everything == distinct
    shared = count(server, "SELECT (COUNT(*) AS ?n) { GRAPH ?a { ?s ?p ?o } GRAPH ?b { ?s ?p ?o } "
                           "FILTER(STR(?a) < STR(?b)) }")
    assert shared == 0


def test_describe_repeats_no_line(server: Server) -> None:
    r = get(server, f"DESCRIBE <{IMAGENET}>", accept="application/n-triples")
    lines = [line for line in r.text.splitlines() if line.strip()]
    assert lines and len(lines) == len(set(lines))


# --- negotiation, formats, HEAD, service description -------------------------------------------------------
def test_q_values_decide_and_nothing_acceptable_is_406(server: Server) -> None:
    q = KG + "SELECT ?p { ?p a kg:Paper } LIMIT 1"
    xml_low = "application/sparql-results+xml;q=0.1, application/sparql-results+json;q=1.0"
    assert get(server, q, accept=xml_low).headers["content-type"].startswith(JSON_TYPE)
    assert get(server, q, accept="application/sparql-results+xml, */*;q=0.1").headers[
        "content-type"].startswith("application/sparql-results+xml")
    assert get(server, q, accept="text/html").status_code == 406
    assert get(server, q, accept="application/sparql-results+json;q=0").status_code == 406
    assert get(server, q, accept="text/html,*/*;q=0.8").headers["content-type"].startswith(
        "application/sparql-results+json")
    construct = f"CONSTRUCT {{ <{IMAGENET}> ?p ?o }} WHERE {{ <{IMAGENET}> ?p ?o }}"
    assert get(server, construct, accept="application/sparql-results+json").status_code == 406
    r = get(server, construct, accept="text/turtle;q=0.5, application/rdf+xml")
    assert r.headers["content-type"].startswith("application/rdf+xml")


def test_choose_prefers_specific_ranges() -> None:
    offered = ("application/sparql-results+json", "text/csv")
    assert choose("text/*;q=0.2, text/csv;q=0.9, */*;q=0.1", offered) == "text/csv"
    assert choose("text/csv;q=0, */*", offered) == "application/sparql-results+json"
    assert choose("", offered) == offered[0] and choose(None, offered) == offered[0]
    assert choose("image/png", offered) is None


def test_blank_nodes_in_csv_and_tsv(server: Server) -> None:
    q = "SELECT ?b ?x { BIND(BNODE() AS ?b) BIND(<http://e/x> AS ?x) }"
    rows = list(csv.reader(io.StringIO(get(server, q, accept="text/csv").text)))
    assert rows[0] == ["b", "x"] and rows[1][0].startswith("_:") and rows[1][1] == "http://e/x"
    tsv = get(server, q, accept="text/tab-separated-values").text.splitlines()
    assert tsv[0] == "?b\t?x" and tsv[1].startswith("_:") and tsv[1].endswith("<http://e/x>")


def test_select_star_with_no_rows_names_its_variables(server: Server) -> None:
    r = get(server, "SELECT * { ?s ?p ?o FILTER(false) }")
    assert sorted(r.json()["head"]["vars"]) == ["o", "p", "s"] and r.json()["results"]["bindings"] == []
    rx = get(server, "SELECT * { ?s ?p ?o FILTER(false) }", accept="application/sparql-results+xml")
    assert '<variable name="s"/>' in rx.text


def test_head_answers_like_get_without_a_body(server: Server) -> None:
    url = server.url + "/sparql"
    r = httpx.head(url, params={"query": "ASK {}"})
    assert r.status_code == 200 and r.content == b""
    assert r.headers["content-type"].startswith("application/sparql-results+json")
    assert httpx.head(url).status_code == 200


def test_get_without_a_query_is_the_service_description(server: Server) -> None:
    r = httpx.get(server.url + "/sparql")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/turtle")
    g = rdflib.Graph().parse(data=r.text, format="turtle")
    sd = rdflib.Namespace("http://www.w3.org/ns/sparql-service-description#")
    me = rdflib.URIRef(server.url + "/sparql")
    assert (me, rdflib.RDF.type, sd.Service) in g
    assert (me, sd.endpoint, me) in g
    assert (me, sd.supportedLanguage, sd.SPARQL11Query) in g
    assert (me, sd.feature, sd.UnionDefaultGraph) in g
    formats = set(g.objects(me, sd.resultFormat))
    assert rdflib.URIRef("http://www.w3.org/ns/formats/SPARQL_Results_JSON") in formats
    jsonld = httpx.get(server.url + "/sparql", headers={"Accept": "application/ld+json"})
    assert jsonld.headers["content-type"].startswith("application/ld+json")
    assert len(rdflib.Graph().parse(data=jsonld.text, format="json-ld")) == len(g)


# --- real clients --------------------------------------------------------------------------------------
def test_sparqlwrapper_select_ask_construct_and_a_default_graph(server: Server) -> None:
    sw = SPARQLWrapper(server.url + "/sparql")
    sw.setQuery(KG + "SELECT ?id { ?p a kg:Paper ; <http://purl.org/dc/terms/identifier> ?id } ORDER BY ?id")
    for fmt in (JSON, XML, CSV):
        sw.setReturnFormat(fmt)
        result = sw.query()
        assert result.response.status == 200
        converted = result.convert()
        if fmt == JSON:
            assert isinstance(converted, dict)
            ids = [b["id"]["value"] for b in converted["results"]["bindings"]]
            assert ids[0] == "seed-01" and len(ids) == 19
        elif fmt == CSV:
            assert isinstance(converted, bytes) and converted.decode().splitlines()[1] == "seed-01"
    sw.setReturnFormat(JSON)
    sw.setQuery(KG + "ASK { ?p a kg:Paper }")
    asked = sw.query().convert()
    assert isinstance(asked, dict)
    assert asked["boolean"] is True
    sw.setQuery(f"CONSTRUCT {{ <{IMAGENET}> ?p ?o }} WHERE {{ <{IMAGENET}> ?p ?o }}")
    sw.setReturnFormat(TURTLE)
    constructed = sw.query().convert()
    assert isinstance(constructed, bytes | str)
    g = rdflib.Graph().parse(data=constructed, format="turtle")
    assert (rdflib.URIRef(IMAGENET), rdflib.RDF.type, rdflib.URIRef(BASE + "ontology#Dataset")) in g
    one = SPARQLWrapper(server.url + "/sparql", defaultGraph=PAPER_GRAPH)
    one.setQuery("SELECT (COUNT(*) AS ?n) { ?s ?p ?o }")
    one.setReturnFormat(JSON)
    counted = one.query().convert()
    assert isinstance(counted, dict)
    n = counted["results"]["bindings"][0]["n"]["value"]
    assert int(n) == graph_size(server, PAPER_GRAPH)


def test_rdflib_sparqlstore_reads_one_named_graph(server: Server) -> None:
    store = SPARQLStore(server.url + "/sparql", returnFormat="json")
    graph = rdflib.Graph(store=store, identifier=rdflib.URIRef(PAPER_GRAPH))
    triples = list(graph.triples((None, None, None)))
    assert len(triples) == graph_size(server, PAPER_GRAPH) == len(graph)
    paper = rdflib.URIRef(BASE + "paper/seed-12")
    assert (paper, rdflib.RDF.type, rdflib.URIRef(BASE + "ontology#Paper")) in graph
    assert all(s != rdflib.URIRef(IMAGENET) for s, _, _ in triples)  # entity descriptions live elsewhere
    whole = rdflib.Graph(store=SPARQLStore(server.url + "/sparql", returnFormat="json"))
    assert len(whole) > len(graph)


def test_results_json_parses_with_a_results_parser(server: Server, tmp_path: Path) -> None:
    r = get(server, KG + "SELECT ?p ?t { ?p a kg:Paper ; <http://purl.org/dc/terms/title> ?t } LIMIT 3")
    parsed = ox.parse_query_results(r.content, format=ox.QueryResultsFormat.JSON)
    assert isinstance(parsed, ox.QuerySolutions) and len(list(parsed)) == 3
    assert json.loads(r.text)["head"]["vars"] == ["p", "t"]


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_rdflib_sparqlstore_asks_in_tsv_and_csv(server: Server, fmt: str) -> None:
    """SPARQL's CSV/TSV formats have no boolean; an ASK answers the JSON boolean, which the client reads by
    its Content-Type (rdflib failed on the bare `true` TSV answer, issue 25)."""
    graph = rdflib.Graph(store=SPARQLStore(server.url + "/sparql", returnFormat=fmt))
    paper = rdflib.URIRef(BASE + "paper/seed-12")
    assert (paper, rdflib.RDF.type, rdflib.URIRef(BASE + "ontology#Paper")) in graph
    assert (paper, rdflib.RDF.type, rdflib.URIRef(BASE + "ontology#Dataset")) not in graph
    assert graph.query(KG + "ASK { ?p a kg:Paper }").askAnswer is True


def test_ask_for_csv_answers_the_json_boolean(server: Server) -> None:
    r = get(server, "ASK { ?s ?p ?o }", accept="text/csv")
    assert (r.headers["content-type"], r.json()) == ("application/sparql-results+json",
                                                     {"head": {}, "boolean": True})
