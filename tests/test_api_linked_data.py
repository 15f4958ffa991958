"""Linked Data over real HTTP: with the server as the base IRI, every paper, entity, link node and ontology
IRI dereferences (rdflib.Graph().parse(iri) against the live server), in five negotiated formats, JSON-LD
against the published @context; `/` and /.well-known/void describe the service; CORS lets other origins
read, never write."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import rdflib
from fixtures_api import free_port, gold_extractions, serve
from rdflib.compare import isomorphic

from api.cors import parse_origins
from kg.build import ensure_schema
from kg.rdf.iris import Iris
from kg.rdf.mapping import GraphMapper
from kg.store.embedded import EmbeddedStore
from kg.write import write_extractions

RDF = rdflib.RDF
VOID = rdflib.Namespace("http://rdfs.org/ns/void#")
FORMATS = {"text/turtle": "turtle", "application/n-triples": "nt", "application/ld+json": "json-ld",
           "application/rdf+xml": "xml"}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A store whose base IRI is the live server's own URL, and that server (uvicorn in a thread)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    store = EmbeddedStore(str(tmp_path_factory.mktemp("ld") / "store"), base_iri=url)
    ensure_schema(store, url)
    write_extractions(store, gold_extractions(), GraphMapper(Iris(url)))
    try:
        for _ in serve(store, port, url, sparql_workers=0):
            yield url
    finally:
        store.close()


def test_an_entity_iri_dereferences_with_its_links_and_evidence(base: str) -> None:
    imagenet = rdflib.URIRef(base + "dataset/imagenet")
    g = rdflib.Graph().parse(str(imagenet))
    kg = rdflib.Namespace(base + "ontology#")
    assert (imagenet, RDF.type, kg.Dataset) in g
    assert (imagenet, rdflib.SKOS.prefLabel, rdflib.Literal("ImageNet")) in g
    links = set(g.subjects(RDF.object, imagenet))
    assert links, "the links naming the entity come with it"
    for link in links:
        assert g.value(link, kg.evidence) is not None and g.value(link, kg.confidence) is not None
        paper = g.value(link, RDF.subject)
        assert paper is not None and (paper, rdflib.DCTERMS.title, None) in g  # the other end has its label


def test_a_paper_iri_dereferences_with_every_link(base: str) -> None:
    paper = rdflib.URIRef(base + "paper/seed-12")
    g = rdflib.Graph().parse(str(paper))
    kg = rdflib.Namespace(base + "ontology#")
    assert (paper, RDF.type, kg.Paper) in g
    uses = set(g.objects(paper, kg.usesDataset))
    assert rdflib.URIRef(base + "dataset/agentdojo") in uses
    link = next(iter(g.subjects(RDF.subject, paper)))
    assert (link, RDF.object, None) in g and (link, kg.evidence, None) in g
    again = rdflib.Graph().parse(str(link))  # a link node dereferences too
    assert (link, kg.evidence, g.value(link, kg.evidence)) in again


def test_ontology_terms_dereference_to_the_ontology(base: str) -> None:
    g = rdflib.Graph().parse(base + "ontology#Dataset")  # the fragment stays on the client
    kg = rdflib.Namespace(base + "ontology#")
    assert (kg.Dataset, RDF.type, rdflib.OWL.Class) in g
    assert (kg.usesDataset, RDF.type, rdflib.OWL.ObjectProperty) in g


def test_every_format_says_the_same(base: str) -> None:
    iri = base + "method/melon"
    graphs = {}
    for media, fmt in FORMATS.items():
        r = httpx.get(iri, headers={"Accept": media})
        assert r.status_code == 200 and r.headers["content-type"].startswith(media), (media, r.text[:200])
        assert r.headers["vary"] == "Accept"
        graphs[media] = rdflib.Graph().parse(data=r.text, format=fmt, publicID=iri)
    first = graphs["text/turtle"]
    assert len(first) > 10
    for media, g in graphs.items():
        assert isomorphic(first, g), media


def test_jsonld_uses_the_published_context(base: str) -> None:
    r = httpx.get(base + "paper/seed-12", headers={"Accept": "application/ld+json"})
    doc = r.json()
    assert doc["@context"] == base + "context.jsonld"
    context = httpx.get(base + "context.jsonld")
    assert context.headers["content-type"].startswith("application/ld+json")
    assert json.loads(context.text)["@context"]["kg"] == base + "ontology#"
    text = json.dumps(doc)
    assert '"title"' in text and '"evidence"' in text  # compacted with the context's short names
    g = rdflib.Graph().parse(data=r.text, format="json-ld")  # rdflib fetches the context from the server
    turtle = rdflib.Graph().parse(base + "paper/seed-12", format="turtle")
    assert isomorphic(g, turtle)


def test_html_for_browsers(base: str) -> None:
    r = httpx.get(base + "dataset/imagenet", headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert r.headers["content-type"].startswith("text/html")
    assert "<h1>ImageNet</h1>" in r.text and "<mark>" in r.text and "Links with evidence" in r.text
    assert 'href="/explore#node=dataset/imagenet"' in r.text
    assert 'href="/dataset/imagenet?format=turtle"' in r.text


def test_unknown_iris_are_404_and_unacceptable_types_406(base: str) -> None:
    assert httpx.get(base + "dataset/no-such-dataset").status_code == 404
    assert httpx.get(base + "paper/no-such-paper").status_code == 404
    assert httpx.get(base + "dataset/imagenet", headers={"Accept": "image/png"}).status_code == 406
    assert httpx.head(base + "dataset/imagenet").status_code == 200


def test_root_describes_the_service(base: str) -> None:
    page = httpx.get(base, headers={"Accept": "text/html"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    for path in ("/sparql", "/graphql", "/export", "/explore", "/.well-known/void"):
        assert f'href="{path}' in page.text
    g = rdflib.Graph().parse(base)  # an RDF client gets the VoID description
    ds = rdflib.URIRef(base)
    assert (ds, RDF.type, VOID.Dataset) in g
    assert (ds, VOID.sparqlEndpoint, rdflib.URIRef(base + "sparql")) in g


def _int(node: rdflib.term.Node | None) -> int:
    """An integer literal's value (narrows Graph.value's Optional node)."""
    assert isinstance(node, rdflib.Literal), node
    return int(node)


def test_void_counts_and_endpoints(base: str) -> None:
    g = rdflib.Graph().parse(base + ".well-known/void")
    ds = rdflib.URIRef(base)
    kg = rdflib.Namespace(base + "ontology#")
    assert (ds, VOID.dataDump, rdflib.URIRef(base + "export?format=nquads")) in g
    triples = _int(g.value(ds, VOID.triples))
    assert triples > 1000
    papers = next(_int(g.value(p, VOID.entities)) for p in g.objects(ds, VOID.classPartition)
                  if g.value(p, VOID["class"]) == kg.Paper)
    assert papers == 19
    r = httpx.get(base + "sparql", params={"query": f"SELECT (COUNT(*) AS ?n) {{ ?p a <{kg.Paper}> }}"})
    assert int(r.json()["results"]["bindings"][0]["n"]["value"]) == papers
    assert httpx.get(base + ".well-known/void", headers={"Accept": "text/html"}).status_code == 406


def test_cors_lets_other_origins_read_and_never_write(base: str) -> None:
    origin = {"Origin": "https://tools.example"}
    r = httpx.get(base + "sparql", params={"query": "ASK {}"}, headers=origin)
    assert r.headers["access-control-allow-origin"] == "*"
    post = httpx.post(base + "graphql", json={"query": "{ stats { papers } }"}, headers=origin)
    assert post.headers["access-control-allow-origin"] == "*" and post.json()["data"]["stats"]["papers"] == 19
    assert httpx.get(base + "dataset/imagenet", headers=origin).headers["access-control-allow-origin"] == "*"
    assert httpx.get(base + "export?format=nt", headers=origin).headers["access-control-allow-origin"] == "*"
    preflight = httpx.options(base + "graphql", headers={
        **origin, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type, authorization"})
    assert preflight.status_code == 204
    allowed = preflight.headers["access-control-allow-headers"].lower()
    assert "content-type" in allowed and "authorization" not in allowed  # no bearer token cross-origin
    assert "access-control-allow-credentials" not in preflight.headers
    refused = httpx.options(base + "export", headers={**origin, "Access-Control-Request-Method": "POST"})
    assert refused.status_code == 403 and "access-control-allow-origin" not in refused.headers
    assert "access-control-allow-origin" not in httpx.get(base + "healthz", headers=origin).headers
    assert "access-control-allow-origin" not in httpx.get(base + "sparql", params={"query": "ASK {}"}).headers


def test_cors_origins_setting() -> None:
    assert parse_origins("*") == ("*",)
    assert parse_origins("https://a.example, https://b.example/") == ("https://a.example", "https://b.example")
    assert parse_origins("none") == () and parse_origins("") == ()


def test_served_files_stay_small(base: str, tmp_path: Path) -> None:
    """A popular entity's description is bounded (LINKS link nodes at most)."""
    from api.linked_data import LINKS

    g = rdflib.Graph().parse(base + "domain/llm-agents")
    assert 0 < len(set(g.subjects(RDF.predicate, None))) <= LINKS


def test_a_w3id_style_base_resolves_through_the_redirect_rule(tmp_path: Path) -> None:
    """With the default base (https://w3id.org/paperkg/), /dataset/imagenet on this server describes
    https://w3id.org/paperkg/dataset/imagenet: what the redirect rule `(.*) -> https://host/$1` needs."""
    from fixtures_api import BASE, serve, store_from

    running = serve(store_from(gold_extractions()))
    server = next(running)
    try:
        r = httpx.get(server.url + "/dataset/imagenet", headers={"Accept": "text/turtle"})
        g = rdflib.Graph().parse(data=r.text, format="turtle")
        imagenet = rdflib.URIRef(BASE + "dataset/imagenet")
        assert (imagenet, RDF.type, rdflib.URIRef(BASE + "ontology#Dataset")) in g
        page = httpx.get(server.url + "/paper/seed-12", headers={"Accept": "text/html"}).text
        assert 'href="/dataset/agentdojo"' in page  # links stay on this server
    finally:
        next(running, None)


def test_html_links_only_web_iris() -> None:
    import pyoxigraph as ox

    from api.linked_data import _term_html

    base = "http://h/"
    assert _term_html(ox.NamedNode("javascript:alert(1)"), base, {}, {}) == "<code>javascript:alert(1)</code>"
    assert _term_html(ox.NamedNode("http://h/dataset/x"), base, {}, {"http://h/dataset/x": "<X>"}) == (
        '<a href="/dataset/x">&lt;X&gt;</a>')
    assert _term_html(ox.Literal("<b>"), base, {}, {}) == "<span>&lt;b&gt;</span>"


# --- issue 25: VoID tells the truth, every IRI dereferences, HTML gets the CSP, any id dereferences -------
def count(base: str, query: str) -> int:
    r = httpx.get(base + "sparql", params={"query": query})
    return int(r.json()["results"]["bindings"][0]["n"]["value"])


def test_void_triples_and_class_partitions_are_what_its_endpoint_counts(base: str) -> None:
    g = rdflib.Graph().parse(base + ".well-known/void")
    ds = rdflib.URIRef(base)
    assert _int(g.value(ds, VOID.triples)) == count(base, "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }")
    partitions = {g.value(p, VOID["class"]): _int(g.value(p, VOID.entities))
                  for p in g.objects(ds, VOID.classPartition)}
    dataset = rdflib.URIRef(base + "ontology#Dataset")
    assert partitions[dataset] == count(base, f"SELECT (COUNT(DISTINCT ?e) AS ?n) {{ ?e a <{dataset}> }}")
    assert partitions[dataset] > 12  # vocabulary datasets too, not only the ones papers link (12 before)
    for cls, n in partitions.items():
        assert n == count(base, f"SELECT (COUNT(DISTINCT ?e) AS ?n) {{ ?e a <{cls}> }}"), cls


def test_the_service_description_names_the_graphs_of_the_default_graph(base: str) -> None:
    sd = rdflib.Namespace("http://www.w3.org/ns/sparql-service-description#")
    g = rdflib.Graph().parse(data=httpx.get(base + "sparql").text, format="turtle")
    names = {str(g.value(node, sd.name)) for node in g.objects(None, sd.namedGraph)}
    shared = ("graph/entities", "graph/vocab", "graph/ontology", "graph/meta")
    assert names == {base + name for name in shared}
    every = count(base, "SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } }")
    meta = count(base, f'SELECT (COUNT(*) AS ?n) {{ GRAPH ?g {{ ?s ?p ?o }} FILTER(STRSTARTS(STR(?g), '
                       f'"{base}graph/meta")) }}')
    assert meta > 0 and count(base, "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }") == every  # meta graphs included


@pytest.mark.parametrize("path", ["vocab/datasets", "graph/paper/seed-01", "graph/vocab", "graph/entities",
                                  "graph/meta", "graph/ontology"])
def test_concept_schemes_and_named_graphs_dereference(base: str, path: str) -> None:
    iri = rdflib.URIRef(base + path)
    g = rdflib.Graph().parse(iri)
    assert any(True for _ in g.predicate_objects(iri)), path


def test_the_rule_node_of_a_link_dereferences(base: str) -> None:
    r = httpx.get(base + "sparql", params={"query": f"SELECT ?b {{ ?l <{base}ontology#by> ?b }} LIMIT 1"})
    rule = rdflib.URIRef(r.json()["results"]["bindings"][0]["b"]["value"])
    assert str(rule).startswith(base + "rule/")
    g = rdflib.Graph().parse(rule)
    assert (rule, rdflib.URIRef(base + "ontology#confidence"), None) in g


def test_a_named_graph_answers_its_triples(base: str) -> None:
    iri = base + "graph/paper/seed-01"
    g = rdflib.Graph().parse(iri)
    stored = count(base, f"SELECT (COUNT(*) AS ?n) {{ GRAPH <{iri}> {{ ?s ?p ?o }} }}")
    assert _int(g.value(rdflib.URIRef(iri), VOID.triples)) == stored
    assert (rdflib.URIRef(base + "paper/seed-01"), RDF.type, rdflib.URIRef(base + "ontology#Paper")) in g


def test_every_iri_the_graph_names_dereferences(base: str) -> None:
    """Each kind of IRI under the base (by its first path segment) that the store names as a subject, an
    object or a graph: a few of each dereference."""
    rows = httpx.get(base + "sparql", params={"query": (
        "SELECT DISTINCT ?i WHERE { { GRAPH ?i { } } UNION { GRAPH ?g { ?i ?p ?o } } UNION "
        f'{{ GRAPH ?g {{ ?s ?p ?i }} }} FILTER(isIRI(?i) && STRSTARTS(STR(?i), "{base}")) }}')},
        headers={"Accept": "application/sparql-results+json"}, timeout=120).json()["results"]["bindings"]
    by_kind: dict[str, list[str]] = {}
    for r in rows:
        iri = r["i"]["value"].split("#")[0]
        by_kind.setdefault(iri[len(base):].split("/")[0], []).append(iri)
    assert {"paper", "dataset", "graph", "rule", "vocab", "ontology", "extractor", "stats"} <= set(by_kind)
    for kind, iris in sorted(by_kind.items()):
        for iri in sorted(set(iris))[:3]:
            r = httpx.get(iri, headers={"Accept": "text/turtle"}, timeout=60)
            assert r.status_code == 200, (kind, iri, r.status_code, r.text[:100])


def test_linked_data_html_gets_the_explorers_csp(base: str) -> None:
    from api.explorer import CSP

    for path in ("", "dataset/imagenet", "paper/seed-01", "graph/paper/seed-01"):
        r = httpx.get(base + path, headers={"Accept": "text/html"})
        assert r.headers["content-type"].startswith("text/html"), path
        assert r.headers["content-security-policy"] == CSP, path


def test_paper_ids_with_a_space_or_a_quote_dereference(tmp_path: Path) -> None:
    from fixtures_api import results_paper

    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    store = EmbeddedStore(str(tmp_path / "store"), base_iri=url)
    from fixtures_api import ACC

    papers = [results_paper(pid, "Zorb", [(81.0, "%", ACC)], f"Paper {pid}") for pid in ("a b", 'a"b', "a/b")]
    write_extractions(store, papers, GraphMapper(Iris(url)))
    try:
        for _ in serve(store, port, url, sparql_workers=0):
            for pid in ("a b", 'a"b', "a/b"):
                iri = Iris(url).paper(pid)
                g = rdflib.Graph().parse(iri, format="turtle")
                assert (rdflib.URIRef(iri), RDF.type, rdflib.URIRef(url + "ontology#Paper")) in g, pid
    finally:
        store.close()


def test_pyld_expands_a_description_against_the_published_context(base: str) -> None:
    from pyld import jsonld

    doc = httpx.get(base + "dataset/imagenet", headers={"Accept": "application/ld+json"}).json()
    assert doc["@context"] == base + "context.jsonld"
    expanded = jsonld.expand(doc)  # pyld fetches the @context from this server
    imagenet = next(n for n in expanded if n["@id"] == base + "dataset/imagenet")
    assert {"@value": "ImageNet"} in imagenet["http://www.w3.org/2004/02/skos/core#prefLabel"]
    nquads = jsonld.to_rdf(doc, {"format": "application/n-quads"})
    served = rdflib.Graph().parse(base + "dataset/imagenet")
    assert len(rdflib.Graph().parse(data=nquads, format="nt")) == len(served)


RAPPER_SYNTAX = {"text/turtle": "turtle", "application/n-triples": "ntriples",
                 "application/rdf+xml": "rdfxml"}
ANSWERS = ["dataset/imagenet", "paper/seed-12", "graph/paper/seed-01", "vocab/datasets", ".well-known/void",
           "sparql", "ontology"]


@pytest.mark.parametrize("path", ANSWERS)
@pytest.mark.parametrize("media", sorted(RAPPER_SYNTAX))
def test_rapper_reads_every_answer_as_rdflib_does(base: str, path: str, media: str) -> None:
    """raptor's rapper (Debian raptor2-utils, installed by scripts/system-deps) parses each answer strictly
    and finds the same triples as rdflib."""
    rapper = shutil.which("rapper")
    if rapper is None:
        pytest.skip("rapper is not installed (bash scripts/system-deps installs raptor2-utils)")
    r = httpx.get(base + path, headers={"Accept": media}, timeout=60)
    assert r.headers["content-type"].split(";")[0] == media
    proc = subprocess.run([rapper, "-q", "-i", RAPPER_SYNTAX[media], "-o", "ntriples", "-", base + path],
                          input=r.content, capture_output=True, timeout=60, check=False)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr.decode()[:300]
    theirs = rdflib.Graph().parse(data=proc.stdout.decode(), format="nt")
    ours = rdflib.Graph().parse(data=r.content, format=FORMATS[media], publicID=base + path)
    assert isomorphic(theirs, ours), path
