"""Turtle and N-Triples exports of the union of the data graphs (kg.store.embedded.dump_dataset, format 5):
rdflib reads exactly the union's triples, meta graphs left out, and every piece of a link's evidence."""

from __future__ import annotations

import io
from pathlib import Path

import pyoxigraph as ox
import pytest
import rdflib
from rdflib.compare import isomorphic

from kg.build import ensure_schema, write_extractions
from kg.rdf.iris import Iris
from kg.rdf.mapping import GraphMapper
from kg.store.embedded import EmbeddedStore, is_meta_graph
from kg.types import EntityRef, Evidence, Extraction, Link, Paper, Relation

BASE = "https://example.org/kg/"


def _paper(i: int) -> Extraction:
    abstract = f"We study prompt injection on ImageNet. Paper {i} defends LLM agents with MELON."
    ev = Evidence("We study prompt injection on ImageNet.", "ImageNet", 29, 37, 0.9 - i / 100, rule="vocab")
    melon, ipi = EntityRef("Method", "MELON", "Defense"), EntityRef("Threat", "indirect prompt injection")
    rel_ev = Evidence(abstract.split(". ")[1], "MELON", abstract.index("MELON"), abstract.index("MELON") + 5,
                      0.6, rule="defends")
    return Extraction(Paper(id=f"x-{i}", abstract=abstract, title=f"Paper {i}", authors=("A B", "C D")),
                      (Link("usesDataset", EntityRef("Dataset", "ImageNet"), ev),),
                      relations=(Relation(melon, "defendsAgainst", ipi, rel_ev),), extractor_version="1")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> EmbeddedStore:
    path = Path(tmp_path_factory.mktemp("export")) / "store"
    st = EmbeddedStore(str(path), base_iri=BASE)
    ensure_schema(st, BASE)
    write_extractions(st, [_paper(i) for i in range(5)], GraphMapper(Iris(BASE)), batch_size=2)
    return st


def _expected(st: EmbeddedStore) -> rdflib.Graph:
    """The union of the data graphs as a set of triples (meta graphs left out)."""
    triples = {q.triple for q in st.oxigraph if not is_meta_graph(q.graph_name, st._meta)}
    g = rdflib.Graph()
    g.parse(data=ox.serialize(triples, None, ox.RdfFormat.N_TRIPLES) or b"", format="nt")
    return g


@pytest.mark.parametrize(("fmt", "rdflib_fmt"), [("turtle", "turtle"), ("ntriples", "nt")])
def test_export_is_exactly_the_union_of_the_data_graphs(store: EmbeddedStore, fmt: str,
                                                        rdflib_fmt: str) -> None:
    out = io.BytesIO()
    store.dump(out, fmt)
    data = out.getvalue()
    got, expected = rdflib.Graph(), _expected(store)
    got.parse(data=data, format=rdflib_fmt)
    assert len(expected) > 100 and not any("graph/meta" in str(s) for s in expected.subjects())
    assert len(got) == len(expected) and isomorphic(got, expected)  # the ontology has blank nodes


def test_evidence_round_trips_through_the_export(store: EmbeddedStore) -> None:
    """A link's evidence (span, rule node with its confidence, the paper's abstract) is in the export."""
    out = io.BytesIO()
    store.dump(out, "turtle")
    g = rdflib.Graph()
    g.parse(data=out.getvalue(), format="turtle")
    kg = rdflib.Namespace(BASE + "ontology#")
    iris = Iris(BASE)
    link = rdflib.URIRef(iris.link("x-3", "usesDataset", BASE + "dataset/imagenet"))
    span = str(g.value(link, kg.span))
    field, ss, se, ms, me = span.split()
    abstract = str(g.value(rdflib.URIRef(iris.paper("x-3")), rdflib.URIRef("http://purl.org/dc/terms/abstract")))
    assert abstract[int(ss):int(se)] == "We study prompt injection on ImageNet."
    assert abstract[int(ms):int(me)] == "ImageNet"
    rule = g.value(link, kg.by)
    assert float(str(g.value(rule, kg.confidence))) == 0.87 and str(g.value(rule, kg.rule)) == "vocab"


@pytest.mark.parametrize("fmt", ["turtle", "nt"])
def test_export_by_two_processes_is_the_same_union(store: EmbeddedStore, fmt: str) -> None:
    one, two = io.BytesIO(), io.BytesIO()
    store.dump(one, fmt)
    store.dump(two, fmt, workers=2)
    g1 = rdflib.Graph().parse(data=one.getvalue(), format=fmt)
    g2 = rdflib.Graph().parse(data=two.getvalue(), format=fmt)
    assert len(g2) == len(g1) > 100 and isomorphic(g1, g2)


def test_export_by_two_processes_states_each_triple_once(store: EmbeddedStore) -> None:
    """The MELON-defends-against-IPI statement sits in all five paper graphs: written once."""
    two = io.BytesIO()
    store.dump(two, "nt", workers=2)
    lines = two.getvalue().decode().splitlines()
    assert len(lines) == len(set(lines))
    assert sum("defendsAgainst" in ln and "melon" in ln for ln in lines) == 1


@pytest.mark.parametrize("fmt", ["nquads", "trig"])
def test_dataset_export_by_two_processes_is_the_same_dataset(store: EmbeddedStore, fmt: str) -> None:
    def content(data: bytes) -> tuple[set[ox.Quad], int]:
        quads = list(ox.parse(data, ox.RdfFormat.N_QUADS if fmt == "nquads" else ox.RdfFormat.TRIG))
        plain = {q for q in quads if not isinstance(q.subject, ox.BlankNode)
                 and not isinstance(q.object, ox.BlankNode)}
        return plain, len(quads) - len(plain)

    one, two = io.BytesIO(), io.BytesIO()
    store.dump(one, fmt)
    store.dump(two, fmt, workers=2)
    assert content(two.getvalue()) == content(one.getvalue())
