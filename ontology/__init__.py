"""The paperkg ontology, SHACL shapes and curated SKOS vocabularies, shipped as package data."""

from pathlib import Path

ONTOLOGY_DIR = Path(__file__).resolve().parent
ONTOLOGY_FILE = ONTOLOGY_DIR / "kg.ttl"
SHAPES_FILE = ONTOLOGY_DIR / "shapes.ttl"
VOCAB_DIR = ONTOLOGY_DIR / "vocab"
