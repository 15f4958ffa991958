"""Extractions → RDF quads under the paperkg ontology, one named graph per paper."""

from kg.rdf.iris import Iris

__all__ = ["Iris"]
