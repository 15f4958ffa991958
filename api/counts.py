"""`Entity.paperCountWithNarrower` and `Entity.resultCount` (mixed into api.types.Entity): counts that say
what they count, from kg.query.entity_counts (the explorer's entity panel shows these very numbers)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import strawberry

from api.context import ApiInfo
from api.loaders import off_loop
from kg.query import entity_counts


@strawberry.type
class EntityCounts:
    """The counts beside `paperCount` (papers linking the entity directly)."""

    if TYPE_CHECKING:
        id: strawberry.ID
        iri: str

    @strawberry.field(
        description="Papers linking this entity or an entity narrower than it or a variant of it "
        "(skos:broader, kg:variantOf, any depth), each paper counted once: paperCount or more."
    )
    async def paper_count_with_narrower(self, info: ApiInfo) -> int:
        return await off_loop(entity_counts.paper_count_with_narrower, info.context.query, self.iri)

    @strawberry.field(
        description="For a dataset: the results abstracts report on it, its variants or narrower datasets, "
        "every confidence (what results(dataset: id, includeLowConfidence: true) ranks; the sum of metrics' "
        "results); null for other types."
    )
    async def result_count(self, info: ApiInfo) -> int | None:
        return await off_loop(entity_counts.result_count, info.context.query, str(self.id))
