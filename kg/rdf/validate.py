"""SHACL validation of paperkg graphs against `ontology/shapes.ttl`.

The shapes and the ontology are written with relative IRIs and are parsed against the deployment's base
IRI, so one shapes file serves every base. A `Dataset` (one named graph per paper) is validated as the
union of its graphs, as the store's queries see it.

No inference is run: every shape targets classes that the mapper asserts directly (a Benchmark is also
typed kg:Dataset, a Paper kg:Paper), which keeps validation linear in the size of the data.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import rdflib
from pyshacl import validate as shacl_validate

from kg.rdf.iris import Iris
from ontology import ONTOLOGY_FILE, SHAPES_FILE

__all__ = ["ValidationReport", "load_ontology", "load_shapes", "validate"]

_SH_RESULT = rdflib.URIRef("http://www.w3.org/ns/shacl#ValidationResult")


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """The outcome of one validation run.

    conforms: True when no shape is violated.
    violations: number of sh:ValidationResult nodes in the report (0 when it conforms).
    text: pyshacl's human-readable report.
    """

    conforms: bool
    violations: int
    text: str


@lru_cache(maxsize=8)
def load_shapes(base_iri: str) -> rdflib.Graph:
    """The SHACL shapes graph resolved against `base_iri` (cached per base; do not mutate it)."""
    g = rdflib.Graph()
    g.parse(SHAPES_FILE, format="turtle", publicID=Iris(base_iri).base)
    return g


@lru_cache(maxsize=8)
def load_ontology(base_iri: str) -> rdflib.Graph:
    """The OWL ontology resolved against `base_iri` (cached per base; do not mutate it)."""
    g = rdflib.Graph()
    g.parse(ONTOLOGY_FILE, format="turtle", publicID=Iris(base_iri).base)
    return g


def _union(data: rdflib.Graph | rdflib.Dataset) -> tuple[rdflib.Graph, bool]:
    """A plain graph holding every triple of `data`, and whether it is a private copy."""
    if isinstance(data, rdflib.Dataset | rdflib.ConjunctiveGraph):
        union = rdflib.Graph()
        union.addN((s, p, o, union) for s, p, o, *_ in data.quads((None, None, None, None)))
        return union, True
    return data, False


def validate(data: rdflib.Graph | rdflib.Dataset, base_iri: str) -> ValidationReport:
    """Validate `data` (a graph, or a dataset taken as the union of its named graphs) against the shapes.

    `base_iri` is the base the data was built with (e.g. "https://w3id.org/paperkg/"); shapes for another
    base would target classes the data does not use and vacuously conform.
    """
    graph, private = _union(data)
    conforms, report_graph, text = shacl_validate(
        graph,
        shacl_graph=load_shapes(base_iri),
        inference="none",
        inplace=private,
        advanced=False,
        abort_on_first=False,
    )
    assert isinstance(report_graph, rdflib.Graph)
    violations = sum(1 for _ in report_graph.subjects(rdflib.RDF.type, _SH_RESULT))
    bad = _reversed_spans(graph, base_iri)
    if bad:
        text = str(text) + "".join(f"\nOffsets of {node}: an end before its start in kg:span {span!r}"
                                   for node, span in bad)
    return ValidationReport(conforms=bool(conforms) and not bad, violations=violations + len(bad),
                            text=str(text))


def _reversed_spans(graph: rdflib.Graph, base_iri: str) -> list[tuple[str, str]]:
    """Link nodes whose kg:span has an end offset before its start (what the shapes' pattern cannot see;
    a SPARQL constraint would run one query per link node in pyshacl, this is one linear pass)."""
    base = base_iri if base_iri.endswith(("/", "#")) else base_iri + "/"
    out = []
    for node, _, span in graph.triples((None, rdflib.URIRef(base + "ontology#span"), None)):
        parts = str(span).split()
        if len(parts) != 5 or not all(x.isdigit() for x in parts[3:]):
            continue  # the shapes' pattern reports it
        ends = [(parts[1], parts[2])] if parts[1].isdigit() and parts[2].isdigit() else []
        if int(parts[4]) < int(parts[3]) or any(int(e) < int(s) for s, e in ends):
            out.append((str(node), str(span)))
    return out
