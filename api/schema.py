"""The GraphQL schema (its contract: README, API): Query and Mutation resolvers stay thin over kg.query."""

from __future__ import annotations

import logging
import os
import time
from typing import Annotated

import strawberry
from graphql import GraphQLError
from strawberry.extensions import (
    AddValidationRules,
    MaskErrors,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
)
from strawberry.types import ExecutionContext

from api.auth import MarkMutations, token_required
from api.context import ApiInfo
from api.errors import PublicError, should_mask
from api.limits import (
    CheckedValidation,
    CostLimit,
    Deadline,
    DeadlineExecution,
    DepthLimit,
    OneWrite,
    PaperInputLimits,
    ValidationBudget,
)
from api.loaders import off_loop
from api.page import check_range
from api.records import from_record
from api.results import ResultsQuery
from api.types import (
    Cooccurrence,
    Entity,
    EntityConnection,
    EntityType,
    Paper,
    PaperConnection,
    PaperInput,
    PaperOrder,
    RelationCount,
    SearchHit,
    Stats,
    Subgraph,
    TrendingEntity,
    TrendNormalize,
    TypeCount,
    kg_type,
    trend_args,
)
from api.writer import INPUT_FIELDS, MAX_BATCH, WriteGate, records_of
from kg import query as q
from kg.query.trends import trending
from kg.settings import Settings

MAX_COST = 100_000  # estimated cost (api.shape) of the costliest request served; env KG_MAX_COST
MAX_VALIDATION_WORK = 3_000  # field comparisons validation may make (api.shape); GraphiQL's query ~900
WRITE_MARGIN_S = 1.0  # a write must start its commit this long before the time limit
log = logging.getLogger("api.graphql")


@strawberry.type
class Query(ResultsQuery):
    @strawberry.field(
        description="Papers matching every filter (names match canonical names or aliases). A name filter "
        "includes the papers of the entities narrower than the named one (skos:broader, any depth) and of "
        "its variants (kg:variantOf) unless includeNarrower is false; the default is true. year and venue "
        "(case-insensitive) filter too; orderBy is ID (identifier order, the default), YEAR (newest first), "
        "TITLE or CONFIDENCE (the most confident link to the filtered entities first; needs an entity "
        "filter)."
    )
    async def papers(
        self,
        info: ApiInfo,
        dataset: str | None = None,
        task: str | None = None,
        method: str | None = None,
        model: str | None = None,
        domain: str | None = None,
        search: str | None = None,
        first: int = 20,
        after: str | None = None,
        include_narrower: Annotated[
            bool,
            strawberry.argument(
                description="Include papers of narrower entities and variants (skos:broader*, "
                "kg:variantOf*); default true."
            ),
        ] = True,
        year: int | None = None,
        venue: str | None = None,
        order_by: PaperOrder = PaperOrder.ID,
        entity: Annotated[
            strawberry.ID | None,
            strawberry.argument(description='Papers linked to this entity id ("dataset/imagenet") itself.'),
        ] = None,
    ) -> PaperConnection:
        check_range("first", first, 0, info.context.settings.max_page)
        page = await off_loop(
            q.papers,
            info.context.query,
            dataset=dataset,
            task=task,
            method=method,
            model=model,
            domain=domain,
            search=search,
            first=first,
            after=after,
            include_narrower=include_narrower,
            year=year,
            venue=venue,
            order=order_by.value,
            entity=None if entity is None else str(entity),
        )
        return PaperConnection.page(page, Paper.of)

    @strawberry.field
    async def paper(self, info: ApiInfo, id: strawberry.ID) -> Paper | None:
        found = await off_loop(q.paper, info.context.query, str(id))
        return None if found is None else Paper.of(found)

    @strawberry.field(description='An entity by id ("dataset/imagenet") or by name or alias.')
    async def entity(
        self,
        info: ApiInfo,
        id: strawberry.ID | None = None,
        name: str | None = None,
        type: EntityType | None = None,
    ) -> Entity | None:
        found = await off_loop(
            q.entity, info.context.query, None if id is None else str(id), name, kg_type(type)
        )
        return None if found is None else Entity.of(found)

    @strawberry.field(description="Entities ranked by paper count.")
    async def entities(
        self,
        info: ApiInfo,
        type: EntityType | None = None,
        search: str | None = None,
        first: int = 20,
        after: str | None = None,
    ) -> EntityConnection:
        check_range("first", first, 0, info.context.settings.max_page)
        page = await off_loop(q.entities, info.context.query, kg_type(type), search, first, after)
        return EntityConnection.page(page, Entity.of)

    @strawberry.field(description="Defenses targeting a domain (or a narrower one) and/or a threat.")
    async def defenses(
        self, info: ApiInfo, target: str | None = None, against: str | None = None
    ) -> list[Entity]:
        return [Entity.of(e) for e in await off_loop(q.defenses, info.context.query, target, against)]

    @strawberry.field(
        description="Attacks by role: what papers propose to attack with, whatever its kind, on a domain "
        "(`target`, or a narrower one) and/or realising a threat (`against`, or a narrower one or variant)."
    )
    async def attacks(
        self, info: ApiInfo, target: str | None = None, against: str | None = None
    ) -> list[Entity]:
        return [Entity.of(e) for e in await off_loop(q.attacks, info.context.query, target, against)]

    @strawberry.field(description="The k-hop subgraph around a paper or entity id, best-connected first.")
    async def neighborhood(
        self, info: ApiInfo, id: strawberry.ID, depth: int = 1, limit: int = 50
    ) -> Subgraph:
        s = info.context.settings
        check_range("depth", depth, 0, s.max_neighborhood_depth)
        check_range("limit", limit, 1, s.max_neighborhood_limit)
        found = await off_loop(q.neighborhood, info.context.query, str(id), depth, limit)
        if found is None:
            raise PublicError(f"no paper or entity with id {str(id)[:100]!r}")
        return Subgraph.of(found)

    @strawberry.field(
        description="The entities sharing the most papers with an entity (of `types`), strongest first, "
        "with their strongest links among themselves; its papers too when it has at most `maxPapers`. "
        "`minConfidence`: count only links extracted with at least this confidence."
    )
    async def cooccurrence(
        self,
        info: ApiInfo,
        id: strawberry.ID,
        first: int = 30,
        types: list[EntityType] | None = None,
        max_papers: int = 12,
        min_confidence: float = 0.0,
    ) -> Cooccurrence:
        check_range("first", first, 1, info.context.settings.max_page)
        check_range("maxPapers", max_papers, 0, info.context.settings.max_page)
        if not 0.0 <= min_confidence <= 1.0:
            raise PublicError("minConfidence must be between 0 and 1")
        kinds = [t.value for t in types or ()]
        found = await off_loop(q.ring, info.context.query, str(id), first, kinds, max_papers, 2,
                               round(min_confidence, 2))
        if found is None:
            raise PublicError(f"no paper or entity with id {str(id)[:100]!r}")
        return Cooccurrence.of(found)

    @strawberry.field(description="Ranked full-text search over titles, abstracts and entity names.")
    async def search(self, info: ApiInfo, text: str, first: int = 10) -> list[SearchHit]:
        check_range("first", first, 0, info.context.settings.max_page)
        hits = await off_loop(q.search, info.context.query, text, first)
        return [
            SearchHit(
                score=h.score,
                paper=Paper.of(h.paper) if h.paper else None,
                entity=Entity.of(h.entity) if h.entity else None,
            )
            for h in hits
        ]

    @strawberry.field(description="Entities whose share of papers rose most from the years before `since` to"
                      " `since` and later (default: the latest year); at least 2 recent papers. `venues`:"
                      " count only papers of these venues; `normalize: VENUE`: compare shares within each"
                      " venue seen both before and since `since` (a new venue lifts nothing).")
    async def trending(
        self, info: ApiInfo, type: EntityType | None = None, since: int | None = None, first: int = 10,
        venues: list[str] | None = None, normalize: TrendNormalize = TrendNormalize.PAPERS,
    ) -> list[TrendingEntity]:
        check_range("first", first, 0, info.context.settings.max_page)
        vs, norm = trend_args(venues, normalize)
        found = await off_loop(trending, info.context.query, kg_type(type), since, first, 2, vs, norm)
        return [from_record(TrendingEntity, t, entity=Entity.of(t.entity)) for t in found]

    @strawberry.field(description="Counts of papers, links per relation, entities per type and triples.")
    async def stats(self, info: ApiInfo) -> Stats:
        ctx = info.context.query  # remembered per store generation, like the query layer's other answers
        st = await off_loop(ctx.memo.get, ctx.store, ("stats",), lambda: q.stats(ctx), lambda _: 1)
        return Stats(
            papers=st.papers,
            triples=st.triples,
            links=[RelationCount(relation=k, count=v) for k, v in st.links_per_relation.items()],
            entities=[TypeCount(type=k, count=v) for k, v in st.entities_per_type.items()],
        )


@strawberry.type
class Mutation:
    @strawberry.mutation(
        description="Extract and add papers (bearer token required); re-adding an id replaces it.",
        extensions=token_required(),
    )
    async def add_papers(self, info: ApiInfo, papers: list[PaperInput]) -> list[Paper]:
        check_range("number of papers", len(papers), 1, MAX_BATCH)
        records = records_of([{k: getattr(p, k) for k in INPUT_FIELDS} for p in papers])
        gate = write_gate(info)
        return [Paper.of(p) for p in await off_loop(info.context.writer.add, records, gate)]

    @strawberry.mutation(
        description="Delete a paper and everything extracted from it (bearer token required).",
        extensions=token_required(),
    )
    async def delete_paper(self, info: ApiInfo, id: strawberry.ID) -> bool:
        return await off_loop(info.context.writer.delete, str(id), write_gate(info))


def write_gate(info: ApiInfo) -> WriteGate:
    """The request's write gate, shared with the time-limit middleware (api.time_limit) through the ASGI
    scope; the write must commit within the time limit less a margin, or not at all."""
    s = info.context.settings
    gate = WriteGate(time.monotonic() + max(0.5, s.query_timeout_s - WRITE_MARGIN_S))
    info.context.request.state.kg_write = gate
    return gate


class Schema(strawberry.Schema):
    """The schema, logging one line per client error (tracebacks only for unexpected faults)."""

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        faults = [e for e in errors if should_mask(e)]
        for e in errors:
            if not should_mask(e):
                log.info("graphql client error: %s", " ".join(e.message.split())[:300])
        if faults:
            super().process_errors(faults, execution_context)


def build_schema(settings: Settings) -> strawberry.Schema:
    """The schema with the public limits from `settings` and strawberry's parse/validation caches."""
    # The limiters' rule classes are made once: QueryDepthLimiter / MaxAliasesLimiter build a new class per
    # instance, and the validation cache is keyed by the rule classes, so per-request limiters never hit it.
    # Depth, cost and the one-write rule are checked before validation, by one memoised walk each
    # (api.shape): graphql-core's rules and strawberry's depth limiter re-walk a fragment per spread.
    rules = [*MaxAliasesLimiter(max_alias_count=settings.max_aliases).validation_rules]
    max_cost = float(getattr(settings, "max_cost", None) or os.environ.get("KG_MAX_COST") or MAX_COST)
    return Schema(
        query=Query,
        mutation=Mutation,
        extensions=[  # factories: a fresh extension per request (the parse/validation caches are global)
            lambda: MaxTokensLimiter(max_token_count=settings.max_tokens),
            lambda: ParserCache(maxsize=512),
            lambda: ValidationBudget(MAX_VALIDATION_WORK),
            lambda: DepthLimit(settings.max_depth),
            lambda: CostLimit(max_cost),
            OneWrite,
            MarkMutations,
            PaperInputLimits,
            lambda: AddValidationRules(rules),
            lambda: CheckedValidation(maxsize=512),
            lambda: Deadline(settings.query_timeout_s),
            lambda: MaskErrors(should_mask_error=should_mask),
        ],
        execution_context_class=DeadlineExecution,
    )
