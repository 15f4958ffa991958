"""The frozen records the query layer returns (the CLI and the API render them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

from kg.types import EntityType

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PaperInfo:
    """One paper's metadata (its links are fetched separately, batched)."""

    id: str
    iri: str
    title: str | None = None
    abstract: str | None = None
    venue: str | None = None
    year: int | None = None
    url: str | None = None
    doi: str | None = None
    authors: tuple[str, ...] = ()
    code_urls: tuple[str, ...] = ()
    extractor_version: str | None = None  # kg:extractorVersion: the extractor that wrote its links
    citations: int | None = None  # kg:citationCount: times cited, as the source counted when read


@dataclass(frozen=True, slots=True)
class EntityInfo:
    """One canonical entity with its labels and how many papers link to it."""

    id: str
    iri: str
    name: str
    type: EntityType
    kind: str | None = None
    aliases: tuple[str, ...] = ()
    paper_count: int = 0


@dataclass(frozen=True, slots=True)
class LinkInfo:
    """paper --relation--> entity with the evidence sentence and confidence of its link node."""

    paper_iri: str
    relation: str
    entity: EntityInfo
    evidence: str | None = None
    confidence: float | None = None


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of an ordered result; `end_cursor` resumes after its last item."""

    items: tuple[T, ...]
    total: int
    has_next: bool
    end_cursor: str | None
    cursors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Node:
    """A node of a neighbourhood: a paper (type "Paper") or an entity (its type)."""

    id: str
    iri: str
    label: str
    type: str
    degree: int = 0


@dataclass(frozen=True, slots=True)
class Edge:
    source: str
    target: str
    relation: str


@dataclass(frozen=True, slots=True)
class Subgraph:
    """Nodes and edges around a centre; `truncated` counts nodes reached but left out by the limit."""

    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    truncated: int


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A full-text hit: exactly one of paper / entity is set."""

    score: float
    paper: PaperInfo | None = None
    entity: EntityInfo | None = None


@dataclass(frozen=True, slots=True)
class Stats:
    papers: int
    triples: int
    links_per_relation: dict[str, int] = field(default_factory=dict)
    entities_per_type: dict[str, int] = field(default_factory=dict)
    papers_per_extractor: dict[str, int] = field(default_factory=dict)  # kg:extractorVersion -> papers
