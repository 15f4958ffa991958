"""The small frozen records that cross layer boundaries: readers → extractor → RDF → store → queries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

# The kinds of entity, said once: the GraphQL enum (api/types.py) and the extractor derive from these.
EntityType = Literal["Task", "Dataset", "Method", "Metric", "Model", "Domain", "Threat"]
ENTITY_TYPES: tuple[EntityType, ...] = get_args(EntityType)
# The relation a paper has to an entity of each type when nothing more specific was read.
RELATION_BY_TYPE: dict[str, str] = {
    "Dataset": "usesDataset",
    "Task": "addressesTask",
    "Method": "usesMethod",
    "Model": "evaluatesModel",
    "Metric": "reportsMetric",
    "Domain": "targetsDomain",
    "Threat": "studiesThreat",
}

# Ontology properties linking a paper to an entity (local names in the kg: namespace).
PAPER_RELATIONS: tuple[str, ...] = (
    "proposes",
    "addressesTask",
    "usesDataset",
    "introducesDataset",
    "usesMethod",
    "comparesWith",
    "reportsMetric",
    "evaluatesModel",
    "targetsDomain",
    "studiesThreat",
)
# Ontology properties linking one entity to another.
ENTITY_RELATIONS: tuple[str, ...] = (
    "defendsAgainst", "targetsDomain", "realizesThreat", "attacksDomain", "variantOf", "broader"
)


@dataclass(frozen=True, slots=True)
class Paper:
    """One paper record as read from an input file, text already cleaned."""

    id: str
    abstract: str
    title: str | None = None
    authors: tuple[str, ...] = ()
    venue: str | None = None
    year: int | None = None
    url: str | None = None
    doi: str | None = None
    source: str | None = None  # "file:line" or "file:record N" it came from
    citations: int | None = None  # times cited, where the source counts them (OpenAlex, Semantic Scholar)


@dataclass(frozen=True, slots=True)
class ReadProblem:
    """A record that could not be read; the reader carries on with the next one."""

    source: str  # file name
    location: str  # "line 12", "record 3", "entry smith2020", ...
    message: str

    def __str__(self) -> str:
        return f"{self.source}:{self.location}: {self.message}"


@dataclass(frozen=True, slots=True)
class EntityRef:
    """A canonical entity: its type and canonical name identify it (the IRI is derived from both)."""

    type: EntityType
    name: str
    kind: str | None = None  # Benchmark, Defense, Attack, Loss, Algorithm, Architecture, Framework, Model...


@dataclass(frozen=True, slots=True)
class Evidence:
    """Where a link was read: the sentence, the mention's offsets in its field, confidence, which rule."""

    sentence: str
    mention: str
    start: int  # character offsets of the mention in `field` of the paper
    end: int
    confidence: float
    field: Literal["title", "abstract"] = "abstract"
    rule: str = ""  # the component or pattern that produced it, e.g. "vocab", "propose-pattern"

    @property
    def tier(self) -> str:
        """Where the link comes from, by falling prior confidence: "curated" vocabulary, "pattern" rule,
        "mined" vocabulary tier, or a trained model's new name ("model"). The linker's rule names the
        model and, for a vocabulary entry, its tier ("model:linker/curated")."""
        if self.rule.startswith("model:linker"):
            return {"curated": "curated", "mined": "mined"}.get(self.rule.rpartition("/")[2], "model")
        if self.rule.startswith("vocab"):
            return "curated"
        if self.rule.startswith("mined"):
            return "mined"
        if self.rule.startswith("recogniser"):
            return "model"
        return "pattern"


@dataclass(frozen=True, slots=True)
class Link:
    """paper --relation--> entity, with its evidence."""

    relation: str  # one of PAPER_RELATIONS
    entity: EntityRef
    evidence: Evidence
    # other surface forms of the entity seen in this paper (they become skos:altLabel)
    aliases: tuple[str, ...] = ()
    variant_of: EntityRef | None = None  # CIFAR-10-LT variantOf CIFAR-10
    broader: tuple[EntityRef, ...] = ()  # from the vocabulary: video generation broader generative modelling


@dataclass(frozen=True, slots=True)
class Relation:
    """entity --relation--> entity read in a paper (MELON defendsAgainst indirect prompt injection)."""

    subject: EntityRef
    relation: str  # one of ENTITY_RELATIONS
    object: EntityRef
    evidence: Evidence


@dataclass(frozen=True, slots=True)
class Result:
    """A reported result: a value tied to a metric (and, when stated, dataset, method, baseline), with the
    evidence of the value itself (its sentence and offsets in the abstract)."""

    value: float
    unit: str  # "%", "points", "x", "dB" or "" (a bare score)
    kind: Literal["absolute", "delta", "ratio"]
    metric: EntityRef
    evidence: Evidence
    dataset: EntityRef | None = None
    method: EntityRef | None = None  # the paper's method or model the number belongs to
    baseline: EntityRef | None = None  # what it is compared with, when stated
    split: str | None = None  # the dataset's split or resolution when stated ("test-dev", "256x256")


@dataclass(frozen=True, slots=True)
class Extraction:
    """Everything the extractor found in one paper."""

    paper: Paper
    links: tuple[Link, ...]
    relations: tuple[Relation, ...] = ()
    code_urls: tuple[str, ...] = ()
    extractor_version: str = ""
    notes: tuple[str, ...] = field(default=())  # e.g. "abstract truncated to 100000 characters"
    results: tuple[Result, ...] = ()  # reported results (kg.extract.results)
