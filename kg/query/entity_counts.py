"""What the counts an entity shows count, said once for GraphQL and the explorer: the papers linking it, the
papers linking it or a narrower entity or variant, and (a dataset) the results reported on it."""

from __future__ import annotations

from kg.query.context import QueryContext
from kg.query.entities import with_narrower
from kg.query.papers import linked_ids
from kg.query.results import leaderboard_rows


def paper_count_with_narrower(ctx: QueryContext, iri: str) -> int:
    """Distinct papers linking the entity, or an entity narrower than it or a variant of it at any depth
    (the papers of several counted once); cached per store generation with the paper lists."""
    return len(linked_ids(ctx, [with_narrower(ctx, [iri])], None)[0])


def result_count(ctx: QueryContext, entity_id: str) -> int | None:
    """For a dataset: the results reported on it, its variants or narrower datasets, every confidence (the
    rows `results(dataset: id, includeLowConfidence: true)` ranks, the sum of `metrics`); None otherwise."""
    if ctx.iris.type_of_entity_id(entity_id) != "Dataset":
        return None
    return len(leaderboard_rows(ctx, entity_id))
