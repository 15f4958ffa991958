"""Reported results in the graph (kg/rdf/results.py): kg:Result nodes aligned with ML-Schema, SHACL-valid,
and the metric direction (kg:higherIsBetter) from the curated vocabulary or the metric's name."""

from __future__ import annotations

import pyoxigraph as ox
import rdflib

from kg.rdf.iris import MLS, Iris
from kg.rdf.mapping import GraphMapper
from kg.rdf.results import metric_direction
from kg.rdf.validate import validate
from kg.types import EntityRef, Evidence, Extraction, Link, Paper, Result

BASE = "https://w3id.org/paperkg/"
IRIS = Iris(BASE)
KG = IRIS.ns
SENT = "ZetaNet reaches 84.3% top-1 accuracy on ImageNet and a 3x speed-up over FlashAttention-2."
ACC = EntityRef("Metric", "top-1 accuracy")
IMAGENET = EntityRef("Dataset", "ImageNet", "Benchmark")
ZETA = EntityRef("Method", "ZetaNet", "Model")
FA2 = EntityRef("Method", "FlashAttention-2")


def _ev(mention: str) -> Evidence:
    s = SENT.find(mention)
    return Evidence(SENT, mention, s, s + len(mention), 0.9, rule="result-tight")


def _extraction() -> Extraction:
    paper = Paper("p1", SENT, title="ZetaNet")
    links = (Link("proposes", ZETA, _ev("ZetaNet")), Link("usesDataset", IMAGENET, _ev("ImageNet")))
    results = (
        Result(84.3, "%", "absolute", ACC, _ev("84.3%"), dataset=IMAGENET, method=ZETA),
        Result(3.0, "x", "ratio", EntityRef("Metric", "speedup"), _ev("3x"), method=ZETA, baseline=FA2),
    )
    return Extraction(paper, links, extractor_version="0.2.0", results=results)


def _v(term: object) -> str:
    """The lexical form of an IRI, blank node or literal (narrows pyoxigraph's term union)."""
    assert isinstance(term, ox.NamedNode | ox.BlankNode | ox.Literal), term
    return term.value


def _graph(quads: list[ox.Quad]) -> rdflib.Dataset:
    ds = rdflib.Dataset()
    ds.parse(data="".join(f"{q} .\n" for q in quads), format="nquads")
    return ds


def test_result_nodes_in_the_paper_graph() -> None:
    mapped = GraphMapper(IRIS).map(_extraction())
    paper_graph = ox.NamedNode(IRIS.paper_graph("p1"))
    results = {
        q.subject
        for q in mapped.quads
        if q.predicate.value.endswith("rdf-syntax-ns#type") and _v(q.object) == KG + "Result"
    }
    assert len(results) == 2
    by = {(q.subject, q.predicate.value): q.object for q in mapped.quads}
    acc = next(r for r in results if _v(by[(r, KG + "unit")]) == "%")
    assert all(q.graph_name == paper_graph for q in mapped.quads if q.subject == acc)
    assert _v(by[(acc, KG + "metric")]) == BASE + "metric/top-1-accuracy"
    assert _v(by[(acc, KG + "onDataset")]) == BASE + "dataset/imagenet"
    assert _v(by[(acc, KG + "ofMethod")]) == BASE + "method/zetanet"
    assert by[(acc, KG + "value")] == ox.Literal(
        "84.3", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#double")
    )
    assert (acc, KG + "resultKind") in by and _v(by[(acc, KG + "mention")]) == "84.3%"
    types = {_v(q.object) for q in mapped.quads if q.subject == acc and q.predicate.value.endswith("#type")}
    assert MLS + "ModelEvaluation" in types
    assert (ox.NamedNode(IRIS.paper("p1")), KG + "reportsResult") in {
        (q.subject, q.predicate.value) for q in mapped.quads
    }


def test_result_graph_conforms_to_the_shapes() -> None:
    report = validate(_graph(GraphMapper(IRIS).paper_quads(_extraction())), BASE)
    assert report.conforms, report.text


def test_a_result_without_a_value_violates_the_shape() -> None:
    quads = [q for q in GraphMapper(IRIS).paper_quads(_extraction()) if q.predicate.value != KG + "value"]
    report = validate(_graph(quads), BASE)
    assert not report.conforms and report.violations == 2


def test_metric_direction_from_vocabulary_and_names() -> None:
    assert metric_direction(IRIS, EntityRef("Metric", "top-1 accuracy")) is True
    assert metric_direction(IRIS, EntityRef("Metric", "Frechet Inception Distance")) is False
    assert metric_direction(IRIS, EntityRef("Metric", "perplexity")) is False
    assert metric_direction(IRIS, EntityRef("Metric", "FVD")) is False  # extra.ttl
    assert metric_direction(IRIS, EntityRef("Metric", "reconstruction error")) is False  # by name
    assert metric_direction(IRIS, EntityRef("Metric", "speedup")) is True
    assert metric_direction(IRIS, EntityRef("Metric", "attack success rate")) is None


def test_direction_is_written_on_the_metric_in_the_entities_graph() -> None:
    mapped = GraphMapper(IRIS).map(_extraction())
    dirs = {_v(q.subject): _v(q.object) for q in mapped.shared if q.predicate.value == KG + "higherIsBetter"}
    assert dirs == {BASE + "metric/top-1-accuracy": "true", BASE + "metric/speedup": "true"}
    assert {_v(q.graph_name) for q in mapped.shared} == {IRIS.entities_graph}


def test_a_stated_split_is_kept_on_the_result_node_and_conforms() -> None:
    ex = _extraction()
    split = Result(84.3, "%", "absolute", ACC, _ev("84.3%"), dataset=IMAGENET, split="val")
    ex = Extraction(ex.paper, ex.links, extractor_version="0.3.0", results=(split,))
    quads = GraphMapper(IRIS).paper_quads(ex)
    assert [_v(q.object) for q in quads if q.predicate.value == KG + "datasetSplit"] == ["val"]
    assert validate(_graph(quads), BASE).conforms
