"""The IRI scheme of a paperkg graph, derived from one configurable base IRI.

{base}ontology#Dataset            classes and properties (prefix kg:)
{base}paper/{paper_slug(id)}      a paper
{base}{type lower}/{slug(name)}   an entity, e.g. {base}dataset/imagenet
{base}paper/{id}/link/{hash}      a link node carrying evidence (rdf:Statement + prov:Entity)
{base}graph/paper/{id}            the named graph holding everything extracted from one paper
{base}graph/entities              labels, keys and types of extracted entities, shared by all papers
{base}graph/ontology, {base}graph/vocab   the ontology and the curated vocabularies
{base}extractor/{version}         the prov:SoftwareAgent that produced links
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from urllib.parse import unquote

from kg.names import paper_slug, slug
from kg.types import ENTITY_TYPES, EntityRef, EntityType

DCTERMS = "http://purl.org/dc/terms/"
SCHEMA = "https://schema.org/"
SKOS = "http://www.w3.org/2004/02/skos/core#"
PROV = "http://www.w3.org/ns/prov#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
XSD = "http://www.w3.org/2001/XMLSchema#"
MLS = "http://www.w3.org/ns/mls#"
SH = "http://www.w3.org/ns/shacl#"

_TYPE_BY_SEGMENT: dict[str, EntityType] = {t.lower(): t for t in ENTITY_TYPES}


@dataclass(frozen=True, slots=True)
class Iris:
    """IRIs for one base; every layer asks this object instead of formatting IRIs itself."""

    base: str

    def __post_init__(self) -> None:
        if not self.base.endswith(("/", "#")):
            object.__setattr__(self, "base", self.base + "/")

    @property
    def ns(self) -> str:
        """The ontology namespace (prefix kg:)."""
        return self.base + "ontology#"

    def term(self, local: str) -> str:
        return self.ns + local

    def paper(self, paper_id: str) -> str:
        return f"{self.base}paper/{paper_slug(paper_id)}"

    def paper_graph(self, paper_id: str) -> str:
        return f"{self.base}graph/paper/{paper_slug(paper_id)}"

    @property
    def ontology_graph(self) -> str:
        return self.base + "graph/ontology"

    @property
    def vocab_graph(self) -> str:
        return self.base + "graph/vocab"

    @property
    def entities_graph(self) -> str:
        """The shared graph describing extracted entities (labels, keys, types), written once per entity."""
        return self.base + "graph/entities"

    def extractor(self, version: str) -> str:
        return f"{self.base}extractor/{slug(version)}"

    def entity(self, ref: EntityRef) -> str:
        return self.entity_from_id(self.entity_id(ref))

    @staticmethod
    def entity_id(ref: EntityRef) -> str:
        """The short public id of an entity ("dataset/imagenet"), used by the API and the CLI."""
        return f"{ref.type.lower()}/{slug(ref.name)}"

    def entity_from_id(self, entity_id: str) -> str:
        return self.base + entity_id

    def link(self, paper_id: str, relation: str, entity_iri: str) -> str:
        digest = hashlib.sha1(f"{relation} {entity_iri}".encode()).hexdigest()[:12]
        return f"{self.paper(paper_id)}/link/{digest}"

    def relation_node(self, paper_id: str, subject_iri: str, relation: str, object_iri: str) -> str:
        digest = hashlib.sha1(f"{subject_iri} {relation} {object_iri}".encode()).hexdigest()[:12]
        return f"{self.paper(paper_id)}/link/{digest}"

    # --- the way back: IRIs to ids --------------------------------------------------------------
    def paper_id(self, iri: str) -> str | None:
        prefix = self.base + "paper/"
        if not iri.startswith(prefix) or "/link/" in iri[len(prefix) :]:
            return None
        return unquote(iri[len(prefix) :])

    def entity_id_of(self, iri: str) -> str | None:
        if not iri.startswith(self.base):
            return None
        rest = iri[len(self.base) :]
        segment, _, name = rest.partition("/")
        return rest if segment in _TYPE_BY_SEGMENT and name and "/" not in name else None

    @staticmethod
    def type_of_entity_id(entity_id: str) -> EntityType | None:
        return _TYPE_BY_SEGMENT.get(entity_id.partition("/")[0])
