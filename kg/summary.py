"""BuildSummary: what one build did, filled in by kg.write and kg.build and printed by `kg build` (a leaf
module, so the write path and the build do not import each other)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from kg.types import Extraction


@dataclass(slots=True)
class BuildSummary:
    """What one build did, for the end-of-build report."""

    papers: int = 0
    problems: int = 0
    links_per_relation: Counter[str] = field(default_factory=Counter)
    entities: set[tuple[str, str]] = field(default_factory=set)
    triples: int = 0  # quads written for papers in this build
    seconds: float = 0.0
    inputs: list[str] = field(default_factory=list)

    def add(self, ex: Extraction, quads: int) -> None:
        self.papers += 1
        self.triples += quads
        for link in ex.links:
            self.links_per_relation[link.relation] += 1
            self.entities.add((link.entity.type, link.entity.name))
        for rel in ex.relations:
            self.links_per_relation[rel.relation] += 1

    @property
    def entities_per_type(self) -> Counter[str]:
        return Counter(t for t, _ in self.entities)
