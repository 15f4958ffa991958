"""Trends: how many papers of each year link to an entity, and which entities are rising.

A year's **share** is the entity's papers of that year divided by all papers of that year in the graph
(papers without a year are left out of both). An entity's **rise** since year S is its share of the papers
published in S or later minus its share of the papers published before S: a difference of shares, so a
topic that merely follows the corpus's growth does not rise, and an entity first seen in S rises by its
whole recent share. `trending` ranks by rise, then by recent papers, then by id, and needs at least
`min_papers` recent papers (one paper in a small year is noise, not a trend).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kg.query.context import QueryContext
from kg.query.counts import entity_year_counts, type_year_counts, year_totals
from kg.query.entities import entities_by_iris
from kg.query.model import EntityInfo
from kg.query.sparql import iri_or_none
from kg.types import EntityType


@dataclass(frozen=True, slots=True)
class TrendPoint:
    """One year of an entity's trend: its papers that year and their share of all that year's papers."""

    year: int
    papers: int
    share: float


@dataclass(frozen=True, slots=True)
class TrendingEntity:
    """An entity's rise since `since`: share of the papers from `since` on minus share of the earlier ones."""

    entity: EntityInfo
    since: int
    recent_papers: int
    earlier_papers: int
    recent_share: float
    earlier_share: float
    rise: float


def _points(years: Mapping[int, int], totals: Mapping[int, int]) -> list[TrendPoint]:
    """A point for every year the graph has papers (0 when the entity has none), oldest first."""
    return [TrendPoint(y, years.get(y, 0), years.get(y, 0) / n if n else 0.0)
            for y, n in sorted(totals.items())]


def trends_by_iris(ctx: QueryContext, iris: Iterable[str]) -> dict[str, list[TrendPoint]]:
    """For each entity IRI, its per-year points (every year of the graph; an unknown entity gets zeros)."""
    nodes = [n.value for n in (iri_or_none(i) for i in iris) if n is not None]
    if not nodes:
        return {}
    totals = year_totals(ctx)
    counts = entity_year_counts(ctx, nodes)
    return {iri: _points(counts.get(iri, {}), totals) for iri in nodes}


def entity_trend(ctx: QueryContext, entity_iri: str) -> list[TrendPoint]:
    """Per-year papers and share of that year's papers for one entity (by IRI), oldest year first."""
    return trends_by_iris(ctx, [entity_iri]).get(entity_iri, [])


def trending(
    ctx: QueryContext,
    type_: EntityType | None = None,
    since: int | None = None,
    first: int = 10,
    min_papers: int = 2,
) -> list[TrendingEntity]:
    """The `first` entities (of `type_`, if given) whose share of papers rose most from the years before
    `since` to `since` and later; `since` defaults to the graph's latest year."""
    totals = year_totals(ctx)
    if not totals or first <= 0:
        return []
    start = max(totals) if since is None else since
    recent_total = sum(n for y, n in totals.items() if y >= start)
    earlier_total = sum(n for y, n in totals.items() if y < start)
    if recent_total == 0:
        return []
    scored: list[tuple[float, int, str, int, int]] = []
    for iri, years in type_year_counts(ctx, type_).items():
        recent = sum(n for y, n in years.items() if y >= start)
        if recent < max(1, min_papers):
            continue
        earlier = sum(n for y, n in years.items() if y < start)
        rise = recent / recent_total - (earlier / earlier_total if earlier_total else 0.0)
        scored.append((-rise, -recent, iri, recent, earlier))
    scored.sort(key=lambda s: (s[0], s[1], ctx.iris.entity_id_of(s[2]) or s[2]))
    chosen = scored[:first]
    infos = entities_by_iris(ctx, [s[2] for s in chosen])
    out = []
    for neg_rise, _, iri, recent, earlier in chosen:
        if (info := infos.get(iri)) is not None:
            out.append(TrendingEntity(
                info, start, recent, earlier, recent / recent_total,
                earlier / earlier_total if earlier_total else 0.0, -neg_rise))
    return out
