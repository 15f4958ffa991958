"""RDF serialisation formats by their paperkg names (turtle, nt, nquads, trig, jsonld, xml)."""

from __future__ import annotations

import pyoxigraph as ox

from kg.rdf.iris import DCTERMS, PROV, RDF, RDFS, SCHEMA, SKOS, XSD

_FORMATS: dict[str, ox.RdfFormat] = {
    "turtle": ox.RdfFormat.TURTLE,
    "nt": ox.RdfFormat.N_TRIPLES,
    "nquads": ox.RdfFormat.N_QUADS,
    "trig": ox.RdfFormat.TRIG,
    "jsonld": ox.RdfFormat.JSON_LD,
    "xml": ox.RdfFormat.RDF_XML,
}
_ALIASES = {"ttl": "turtle", "ntriples": "nt", "n-triples": "nt", "nq": "nquads", "n-quads": "nquads",
            "json-ld": "jsonld", "rdfxml": "xml", "rdf/xml": "xml", "rdf": "xml"}


FORMAT_NAMES = tuple(_FORMATS)


def rdf_format(name: str) -> ox.RdfFormat:
    """The pyoxigraph format for a paperkg format name; ValueError names the accepted ones."""
    key = _ALIASES.get(name.lower(), name.lower())
    try:
        return _FORMATS[key]
    except KeyError:
        raise ValueError(f"unknown RDF format {name!r}; use one of: {', '.join(_FORMATS)}") from None


def media_type(name: str) -> str:
    """The media type of a paperkg format name, as pyoxigraph names it (`turtle` -> text/turtle)."""
    return rdf_format(name).media_type


def prefixes(base_iri: str) -> dict[str, str]:
    """Prefixes written into Turtle/TriG/RDF-XML output."""
    return {"kg": base_iri + "ontology#", "dcterms": DCTERMS, "schema": SCHEMA, "skos": SKOS,
            "prov": PROV, "rdf": RDF, "rdfs": RDFS, "xsd": XSD}
