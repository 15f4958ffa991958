"""Extraction of research entities from paper titles and abstracts (spaCy with our own components)."""

from kg.extract.extractor import VERSION, Extractor, to_json

__all__ = ["VERSION", "Extractor", "to_json"]
