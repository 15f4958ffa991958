"""The OWL ontology (ontology/kg.ttl) and the SHACL shapes (ontology/shapes.ttl)."""

from __future__ import annotations

import pyoxigraph as ox
import pytest
import rdflib
from rdflib.namespace import OWL, RDF, RDFS

from kg.rdf.iris import DCTERMS, MLS, PROV, SCHEMA, SH, SKOS
from kg.rdf.mapping import KIND_CLASSES
from kg.rdf.validate import load_ontology, load_shapes
from kg.settings import DEFAULT_BASE_IRI
from kg.types import ENTITY_RELATIONS, ENTITY_TYPES, PAPER_RELATIONS
from ontology import ONTOLOGY_FILE, SHAPES_FILE

BASE = DEFAULT_BASE_IRI
KG = rdflib.Namespace(BASE + "ontology#")
# Every kg: property GraphMapper writes (paper metadata, entity annotations, link evidence).
MAPPED_PROPERTIES = ("venue", "doi", "hasCode", "key", "kind", "variantOf", "mention", "evidence", "field",
                     "start", "end", "confidence", "lowConfidence", "rule")
CLASSES = ("Paper", "Link", "Benchmark", *ENTITY_TYPES, *sorted(KIND_CLASSES))


@pytest.fixture(scope="module")
def onto() -> rdflib.Graph:
    return load_ontology(BASE)


def _super(onto: rdflib.Graph, local: str) -> set[str]:
    return {str(o) for o in onto.objects(KG[local], RDFS.subClassOf)}


@pytest.mark.parametrize("path", [ONTOLOGY_FILE, SHAPES_FILE])
def test_file_is_written_with_relative_iris(path: object) -> None:
    text = ONTOLOGY_FILE.read_text(encoding="utf-8") if path == ONTOLOGY_FILE else SHAPES_FILE.read_text()
    assert "@prefix kg: <ontology#> ." in text
    assert "<https://w3id.org" not in text and "\n@base" not in text


def test_ontology_parses_with_pyoxigraph_against_any_base() -> None:
    quads = list(ox.parse(path=ONTOLOGY_FILE, format=ox.RdfFormat.TURTLE, base_iri="http://example.org/x/"))
    subjects = {q.subject.value for q in quads if isinstance(q.subject, ox.NamedNode)}
    assert "http://example.org/x/ontology#Paper" in subjects
    assert "http://example.org/x/ontology" in subjects


def test_ontology_header(onto: rdflib.Graph) -> None:
    assert (rdflib.URIRef(BASE + "ontology"), RDF.type, OWL.Ontology) in onto


@pytest.mark.parametrize("local", CLASSES)
def test_class_is_declared_with_label_and_comment(onto: rdflib.Graph, local: str) -> None:
    assert (KG[local], RDF.type, OWL.Class) in onto
    assert onto.value(KG[local], RDFS.label) is not None
    assert onto.value(KG[local], RDFS.comment) is not None


@pytest.mark.parametrize(("local", "parent"), [
    ("Paper", SCHEMA + "ScholarlyArticle"),
    ("Task", MLS + "Task"),
    ("Dataset", MLS + "Dataset"),
    ("Metric", MLS + "EvaluationMeasure"),
    ("Method", MLS + "Algorithm"),
    ("Model", MLS + "Model"),
    ("Link", str(RDF.Statement)),
    ("Link", PROV + "Entity"),
    ("Benchmark", BASE + "ontology#Dataset"),
])
def test_alignment(onto: rdflib.Graph, local: str, parent: str) -> None:
    assert parent in _super(onto, local)


@pytest.mark.parametrize("kind", sorted(KIND_CLASSES - {"Benchmark"}))
def test_method_kinds_are_subclasses_of_method(onto: rdflib.Graph, kind: str) -> None:
    assert _super(onto, kind) == {BASE + "ontology#Method"}


def test_model_is_not_a_method_kind_class(onto: rdflib.Graph) -> None:
    assert BASE + "ontology#Method" not in _super(onto, "Model")


@pytest.mark.parametrize("local", sorted(set(PAPER_RELATIONS) | set(ENTITY_RELATIONS) - {"broader"}
                                         | set(MAPPED_PROPERTIES)))
def test_property_is_declared_with_label_and_comment(onto: rdflib.Graph, local: str) -> None:
    types = set(onto.objects(KG[local], RDF.type))
    assert types & {OWL.ObjectProperty, OWL.DatatypeProperty}
    assert onto.value(KG[local], RDFS.label) is not None
    assert onto.value(KG[local], RDFS.comment) is not None


def test_has_code_specialises_schema_code_repository(onto: rdflib.Graph) -> None:
    assert (KG.hasCode, RDFS.subPropertyOf, rdflib.URIRef(SCHEMA + "codeRepository")) in onto


def test_introduces_dataset_specialises_uses_dataset(onto: rdflib.Graph) -> None:
    assert (KG.introducesDataset, RDFS.subPropertyOf, KG.usesDataset) in onto


@pytest.mark.parametrize(("local", "range_"), [
    ("addressesTask", "Task"), ("usesDataset", "Dataset"), ("reportsMetric", "Metric"),
    ("targetsDomain", "Domain"), ("studiesThreat", "Threat"),
])
def test_relation_ranges(onto: rdflib.Graph, local: str, range_: str) -> None:
    assert onto.value(KG[local], RDFS.range) == KG[range_]


def test_evidence_datatypes(onto: rdflib.Graph) -> None:
    xsd = rdflib.Namespace("http://www.w3.org/2001/XMLSchema#")
    ranges = {p: onto.value(KG[p], RDFS.range) for p in ("start", "end", "confidence", "lowConfidence")}
    assert ranges == {"start": xsd.integer, "end": xsd.integer, "confidence": xsd.double,
                      "lowConfidence": xsd.boolean}


def test_every_kg_term_used_in_the_shapes_is_declared(onto: rdflib.Graph) -> None:
    shapes = load_shapes(BASE)
    used = {t for triple in shapes for t in triple if isinstance(t, rdflib.URIRef) and t.startswith(str(KG))}
    declared = {s for s in onto.subjects() if isinstance(s, rdflib.URIRef)}
    assert used - declared == set()


def test_shapes_target_every_entity_class() -> None:
    shapes = load_shapes(BASE)
    targets = {str(o) for o in shapes.objects(None, rdflib.URIRef(SH + "targetClass"))}
    assert {BASE + "ontology#" + t for t in (*ENTITY_TYPES, "Paper", "Rule")} <= targets
    link_targets = {str(o) for o in shapes.objects(None, rdflib.URIRef(SH + "targetSubjectsOf"))}
    assert BASE + "ontology#span" in link_targets  # link nodes: every subject of kg:span
    assert {SKOS + "Concept", SKOS + "ConceptScheme", PROV + "SoftwareAgent"} <= targets


def test_an_entity_has_exactly_one_preflabel() -> None:
    # the write path keeps one name per entity (kg.rdf.descriptions); SKOS allows one prefLabel a language
    shapes = load_shapes(BASE)
    entity_shape = rdflib.URIRef("https://w3id.org/paperkg/shapes#EntityShape")
    props = list(shapes.objects(entity_shape, rdflib.URIRef(SH + "property")))
    path, label = rdflib.URIRef(SH + "path"), rdflib.URIRef(SKOS + "prefLabel")
    pref = [p for p in props if shapes.value(p, path) == label]
    counts = [tuple(shapes.value(p, rdflib.URIRef(SH + c)) for c in ("minCount", "maxCount")) for p in pref]
    assert counts == [(rdflib.Literal(1), rdflib.Literal(1))]


def test_paper_identifier_is_exactly_one() -> None:
    shapes = load_shapes(BASE)
    node = next(shapes.subjects(rdflib.URIRef(SH + "path"), rdflib.URIRef(DCTERMS + "identifier")))
    counts = tuple(shapes.value(node, rdflib.URIRef(SH + c)) for c in ("minCount", "maxCount"))
    assert counts == (rdflib.Literal(1), rdflib.Literal(1))
