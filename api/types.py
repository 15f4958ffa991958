"""GraphQL object types: thin wrappers over the query layer's records, fan-out fields through loaders."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, cast

import strawberry

from api.context import ApiInfo
from api.counts import EntityCounts
from api.errors import PublicError
from api.page import Connection, check_range
from api.records import from_record
from api.results import EntityMetrics, PaperResults
from kg.query import EntityInfo, Page, PaperInfo
from kg.query import model as m
from kg.query.graph import Ring as RingRecord
from kg.query.trends import Normalize
from kg.types import ENTITY_TYPES, PAPER_RELATIONS
from kg.types import EntityType as KgEntityType

if TYPE_CHECKING:
    class EntityType(Enum):
        """TASK = "Task", DATASET = "Dataset", ...: one member per kg.types.ENTITY_TYPES."""
else:  # the members come from kg.types, where the entity types are said once
    EntityType = strawberry.enum(Enum("EntityType", [(t.upper(), t) for t in ENTITY_TYPES]),
                                 description="The kinds of entity a paper links to.")


@strawberry.enum(description="How a trend's share of a year is computed (kg.query.trends).")
class TrendNormalize(Enum):
    PAPERS = "PAPERS"  # the entity's papers / all counted papers of the year
    VENUE = "VENUE"  # the mean over the year's venues of the entity's share of that venue's papers


def trend_args(venues: list[str] | None,
               normalize: TrendNormalize) -> tuple[tuple[str, ...] | None, Normalize]:
    """The query layer's venue filter and normalisation (at most 50 venues of 200 characters)."""
    if venues is not None:
        check_range("number of venues", len(venues), 1, 50)
        if any(len(v) > 200 for v in venues):
            raise PublicError("a venue name is longer than 200 characters")
    return (None if venues is None else tuple(sorted(set(venues))),
            "VENUE" if normalize is TrendNormalize.VENUE else "PAPERS")


@strawberry.enum(description="The order of a list of papers; the default ID is identifier order.")
class PaperOrder(Enum):
    ID = "ID"
    YEAR = "YEAR"  # newest first, then identifier; papers without a year last
    TITLE = "TITLE"  # alphabetical, case-insensitive
    CONFIDENCE = "CONFIDENCE"  # the most confident link to the filtered entity first, then identifier
    CITATIONS = "CITATIONS"  # most cited first (as the source counted), then identifier; no count last


def kg_type(t: EntityType | None) -> KgEntityType | None:
    return None if t is None else cast(KgEntityType, t.value)


@strawberry.type
class Link:
    relation: str
    entity: Entity
    evidence: str | None
    confidence: float | None


@strawberry.type
class Paper(PaperResults):
    id: strawberry.ID
    iri: str
    title: str | None
    abstract: str | None
    venue: str | None
    year: int | None
    url: str | None
    doi: str | None
    authors: list[str]
    code_urls: list[str]
    extractor_version: str | None = strawberry.field(
        default=None, description="Version of the extractor that wrote this paper's links (kg reextract).")
    citations: int | None = strawberry.field(
        default=None, description="Times cited, as the source counted when the paper was read (OpenAlex "
        "cited_by_count, Semantic Scholar citationCount); null when the source gives none.")

    @strawberry.field(
        description="Links to entities, with evidence; filter by entity type, relation, confidence."
    )
    async def links(
        self,
        info: ApiInfo,
        type: EntityType | None = None,
        relation: str | None = None,
        min_confidence: float | None = None,
    ) -> list[Link]:
        found = await info.context.loaders.links.load(self.iri)
        want = kg_type(type)
        return [
            Link(
                relation=x.relation, entity=Entity.of(x.entity), evidence=x.evidence, confidence=x.confidence
            )
            for x in found
            if (want is None or x.entity.type == want)
            and (relation is None or x.relation == relation)
            and (min_confidence is None or (x.confidence is not None and x.confidence >= min_confidence))
        ]

    @classmethod
    def of(cls, p: PaperInfo) -> Paper:
        return from_record(cls, p, id=strawberry.ID(p.id), authors=list(p.authors),
                           code_urls=list(p.code_urls))


PaperConnection = Connection[Paper]  # strawberry names it "PaperConnection"


@strawberry.type
class Entity(EntityMetrics, EntityCounts):
    id: strawberry.ID
    iri: str
    name: str
    type: EntityType
    kind: str | None
    aliases: list[str]
    paper_count: int = strawberry.field(
        description="Papers linking this entity directly, by any relation (not its narrower entities or "
        "variants: paperCountWithNarrower).")

    @strawberry.field(description="Papers linked to this entity (by `relation` if given), in id order.")
    async def papers(
        self, info: ApiInfo, relation: str | None = None, first: int = 20, after: str | None = None
    ) -> PaperConnection:
        check_range("first", first, 0, info.context.settings.max_page)
        if relation is not None and relation not in PAPER_RELATIONS:
            return PaperConnection.page(Page((), 0, False, None), Paper.of)
        found = await info.context.loaders.papers.load((self.iri, relation, first, after))
        return PaperConnection.page(found, Paper.of)

    @strawberry.field(description="Broader entities (skos:broader).")
    async def broader(self, info: ApiInfo) -> list[Entity]:
        return [Entity.of(e) for e in await info.context.loaders.broader.load(self.iri)]

    @strawberry.field(description="Narrower entities (those whose skos:broader is this one).")
    async def narrower(self, info: ApiInfo) -> list[Entity]:
        return [Entity.of(e) for e in await info.context.loaders.narrower.load(self.iri)]

    @strawberry.field(description="Papers per year linked to this entity and their share of that year's"
                      " papers (every year with papers, oldest first: a year without any is left out)."
                      " `venues`: count only papers of these venues; `normalize: VENUE`: a year's share"
                      " is the mean of the entity's shares of each venue's papers that year.")
    async def trend(self, info: ApiInfo, venues: list[str] | None = None,
                    normalize: TrendNormalize = TrendNormalize.PAPERS) -> list[TrendPoint]:
        vs, norm = trend_args(venues, normalize)
        found = await info.context.loaders.trends.load((self.iri, vs, norm))
        return [from_record(TrendPoint, p) for p in found]

    @strawberry.field(description="Entities that share the most papers with this one.")
    async def related(self, info: ApiInfo, first: int = 10) -> list[Entity]:
        check_range("first", first, 0, info.context.settings.max_page)
        return [Entity.of(e) for e in await info.context.loaders.related.load((self.iri, first))]

    @classmethod
    def of(cls, e: EntityInfo) -> Entity:
        return from_record(cls, e, id=strawberry.ID(e.id), type=EntityType(e.type), aliases=list(e.aliases))


@strawberry.type(description="One year of an entity's trend.")
class TrendPoint:
    year: int
    papers: int
    share: float = strawberry.field(description="The entity's papers that year / all papers that year.")


@strawberry.type(description="An entity whose share of papers rose: share from `since` on minus before.")
class TrendingEntity:
    entity: Entity
    since: int
    recent_papers: int
    earlier_papers: int
    recent_share: float
    earlier_share: float
    rise: float


EntityConnection = Connection[Entity]  # strawberry names it "EntityConnection"


@strawberry.type
class Node:
    id: strawberry.ID
    label: str
    type: str
    iri: str
    degree: int


@strawberry.type
class Edge:
    source: strawberry.ID
    target: strawberry.ID
    relation: str


@strawberry.type
class Subgraph:
    nodes: list[Node]
    edges: list[Edge]
    truncated: int

    @classmethod
    def of(cls, g: m.Subgraph) -> Subgraph:
        return cls(
            nodes=[
                Node(id=strawberry.ID(n.id), label=n.label, type=n.type, iri=n.iri, degree=n.degree)
                for n in g.nodes
            ],
            edges=[
                Edge(source=strawberry.ID(e.source), target=strawberry.ID(e.target), relation=e.relation)
                for e in g.edges
            ],
            truncated=g.truncated,
        )


@strawberry.type(description="A node of an entity's co-occurrence map.")
class CoNode:
    id: strawberry.ID
    label: str
    type: str
    papers: int = strawberry.field(description="Papers linked to this entity (links of a paper node).")
    shared: int | None = strawberry.field(description="Papers shared with the centre (None for it).")


@strawberry.type(description="Two nodes of a co-occurrence map and the papers they share.")
class CoEdge:
    source: strawberry.ID
    target: strawberry.ID
    relation: str = strawberry.field(description='"cooccurs", or the relation of a paper\'s link.')
    weight: int


@strawberry.type(description="An entity and the entities sharing the most papers with it.")
class Cooccurrence:
    center: strawberry.ID
    nodes: list[CoNode]
    edges: list[CoEdge]
    more: int = strawberry.field(description="Co-occurring entities left out by `first`.")
    paper_count: int
    papers_drawn: bool = strawberry.field(description="True when the centre's papers are nodes too.")
    counted: int = strawberry.field(description="Papers whose links were counted: below paperCount (a very "
                                    "popular entity), `shared` and `weight` are estimates scaled to all.")

    @classmethod
    def of(cls, r: RingRecord) -> Cooccurrence:
        return cls(
            center=strawberry.ID(r.nodes[0].id),
            nodes=[
                CoNode(id=strawberry.ID(n.id), label=n.label, type=n.type, papers=n.degree,
                       shared=r.shared.get(n.id) if i else None)
                for i, n in enumerate(r.nodes)
            ],
            edges=[
                CoEdge(source=strawberry.ID(e.source), target=strawberry.ID(e.target), relation=e.relation,
                       weight=e.weight)
                for e in r.edges
            ],
            more=r.more,
            paper_count=r.paper_count,
            papers_drawn=r.papers_drawn,
            counted=r.counted,
        )


@strawberry.type
class SearchHit:
    score: float
    paper: Paper | None
    entity: Entity | None


@strawberry.type
class RelationCount:
    relation: str
    count: int


@strawberry.type
class TypeCount:
    type: str
    count: int


@strawberry.type
class Stats:
    papers: int
    triples: int
    links: list[RelationCount]
    entities: list[TypeCount]


@strawberry.input
class PaperInput:
    abstract: str
    id: strawberry.ID | None = None
    title: str | None = None
    authors: list[str] | None = None
    venue: str | None = None
    year: int | None = None
    url: str | None = None
