"""Ranked full-text search over papers and entities, resolved to records."""

from __future__ import annotations

from kg.query.context import QueryContext
from kg.query.entities import entities_by_iris
from kg.query.model import SearchHit
from kg.query.papers import papers_by_iris


def search(ctx: QueryContext, text: str, first: int = 10) -> list[SearchHit]:
    """The `first` best hits for `text` among paper titles/abstracts and entity names/aliases."""
    ranked = ctx.index.search(ctx.store, text, first)
    paper_iris = {key: ctx.iris.paper(key) for (kind, key), _ in ranked if kind == "paper"}
    entity_iris = {key: ctx.iris.entity_from_id(key) for (kind, key), _ in ranked if kind == "entity"}
    papers = papers_by_iris(ctx, paper_iris.values())
    entities = entities_by_iris(ctx, entity_iris.values())
    hits: list[SearchHit] = []
    for (kind, key), score in ranked:
        if kind == "paper" and (p := papers.get(paper_iris[key])) is not None:
            hits.append(SearchHit(round(score, 4), paper=p))
        elif kind == "entity" and (e := entities.get(entity_iris[key])) is not None:
            hits.append(SearchHit(round(score, 4), entity=e))
    return hits
