"""Trends: how many papers of each year link to an entity, and which entities are rising.

The papers counted are those with a year, of the given `venues` when there is a venue filter (a paper
without a venue is then in none). A year's **share** depends on `normalize`:

- `PAPERS` (the default): the entity's papers of that year / all counted papers of that year;
- `VENUE`: the mean, over the venues with counted papers that year, of the entity's papers in that venue
  and year / that venue's papers that year (papers without a venue left out), so that a venue joining the
  corpus in a later year does not lift its topics by its size alone.

A year without counted papers has no point (a gap, not a zero). An entity's **rise** since year S is its
share of the papers from S on minus its share of the earlier ones. With `PAPERS` both are shares of all
counted papers on each side; with `VENUE` they are means of per-venue shares over the venues *with papers on
both sides* (a venue seen only before or only since S is not comparable and is left out), so a topic whose
share is flat within every venue does not rise however the venue mix changes. `trending` ranks by rise,
then by recent papers, then by id, and needs at least `min_papers` recent papers (counted in the venues it
compares); one paper in a small year is noise, not a trend.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from kg.query.context import QueryContext
from kg.query.counts import (
    VenueYears,
    YearCounts,
    entity_venue_year_counts,
    entity_year_counts,
    type_venue_year_counts,
    type_year_counts,
    venue_year_totals,
    year_totals,
)
from kg.query.entities import entities_by_iris
from kg.query.model import EntityInfo
from kg.query.sparql import iri_or_none
from kg.types import EntityType

Normalize = Literal["PAPERS", "VENUE"]
NORMALIZE: tuple[Normalize, ...] = ("PAPERS", "VENUE")


@dataclass(frozen=True, slots=True)
class TrendPoint:
    """One year of an entity's trend: its papers that year and their share (see the module's definition)."""

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


def _check(normalize: str) -> None:
    if normalize not in NORMALIZE:
        raise ValueError(f"normalize must be one of {', '.join(NORMALIZE)}, not {normalize!r}")


def _wanted(venues: Sequence[str] | None) -> frozenset[str] | None:
    return None if venues is None else frozenset(venues)


def _pick(by_venue: VenueYears, wanted: frozenset[str] | None) -> VenueYears:
    return by_venue if wanted is None else {v: ys for v, ys in by_venue.items() if v in wanted}


def _summed(by_venue: VenueYears) -> YearCounts:
    out: YearCounts = {}
    for ys in by_venue.values():
        for y, n in ys.items():
            out[y] = out.get(y, 0) + n
    return out


def _points(years: Mapping[int, int], totals: Mapping[int, int]) -> list[TrendPoint]:
    """A point for every year with counted papers (0 when the entity has none), oldest first."""
    return [TrendPoint(y, years.get(y, 0), years.get(y, 0) / n) for y, n in sorted(totals.items()) if n]


def _venue_points(mine: VenueYears, totals: VenueYears) -> list[TrendPoint]:
    """Per year with counted papers: the entity's papers, and the mean of its per-venue shares."""
    shares: dict[int, list[float]] = {}
    papers: dict[int, int] = {}
    for v, ys in totals.items():
        for y, n in ys.items():
            if n > 0:
                k = mine.get(v, {}).get(y, 0)
                shares.setdefault(y, []).append(k / n)
                papers[y] = papers.get(y, 0) + k
    return [TrendPoint(y, papers[y], sum(s) / len(s)) for y, s in sorted(shares.items())]


def trends_by_iris(ctx: QueryContext, iris: Iterable[str], venues: Sequence[str] | None = None,
                   normalize: Normalize = "PAPERS") -> dict[str, list[TrendPoint]]:
    """For each entity IRI, its per-year points (every year with counted papers; an unknown entity gets
    zeros)."""
    _check(normalize)
    nodes = [n.value for n in (iri_or_none(i) for i in iris) if n is not None]
    if not nodes:
        return {}
    if venues is None and normalize == "PAPERS":
        totals = year_totals(ctx)
        counts = entity_year_counts(ctx, nodes)
        return {iri: _points(counts.get(iri, {}), totals) for iri in nodes}
    wanted = _wanted(venues)
    by_venue = _pick(venue_year_totals(ctx), wanted)
    mine = entity_venue_year_counts(ctx, nodes)
    if normalize == "VENUE":
        return {iri: _venue_points(_pick(mine.get(iri, {}), wanted), by_venue) for iri in nodes}
    return {iri: _points(_summed(_pick(mine.get(iri, {}), wanted)), _summed(by_venue)) for iri in nodes}


def entity_trend(ctx: QueryContext, entity_iri: str, venues: Sequence[str] | None = None,
                 normalize: Normalize = "PAPERS") -> list[TrendPoint]:
    """Per-year papers and share for one entity (by IRI), oldest year first."""
    return trends_by_iris(ctx, [entity_iri], venues, normalize).get(entity_iri, [])


def _split(ys: Mapping[int, int], start: int) -> tuple[int, int]:
    """(papers from `start` on, papers before)."""
    recent = earlier = 0
    for y, n in ys.items():
        if y >= start:
            recent += n
        else:
            earlier += n
    return recent, earlier


Scored = tuple[str, int, int, float, float]  # (iri, recent papers, earlier papers, recent share, earlier)


def _by_papers(ys_of: Mapping[str, YearCounts], totals: YearCounts, start: int,
               min_papers: int) -> list[Scored]:
    recent_total, earlier_total = _split(totals, start)
    if recent_total == 0:
        return []
    out = []
    for iri, ys in ys_of.items():
        recent, earlier = _split(ys, start)
        if recent >= min_papers:
            out.append((iri, recent, earlier, recent / recent_total,
                        earlier / earlier_total if earlier_total else 0.0))
    return out


def _by_venue(vys_of: Mapping[str, VenueYears], totals: VenueYears, start: int,
              min_papers: int) -> list[Scored]:
    sides = {v: _split(ys, start) for v, ys in totals.items()}
    both = {v: s for v, s in sides.items() if s[0] > 0 and s[1] > 0}  # the comparable venues
    if not both:
        return []
    out = []
    for iri, vys in vys_of.items():
        recent = earlier = 0
        recent_share = earlier_share = 0.0
        for v, ys in vys.items():
            if (sides_v := both.get(v)) is not None:
                r, e = _split(ys, start)
                recent, earlier = recent + r, earlier + e
                recent_share += r / sides_v[0]
                earlier_share += e / sides_v[1]
        if recent >= min_papers:
            out.append((iri, recent, earlier, recent_share / len(both), earlier_share / len(both)))
    return out


def trending(
    ctx: QueryContext,
    type_: EntityType | None = None,
    since: int | None = None,
    first: int = 10,
    min_papers: int = 2,
    venues: Sequence[str] | None = None,
    normalize: Normalize = "PAPERS",
) -> list[TrendingEntity]:
    """The `first` entities (of `type_`, if given) whose share of papers rose most from the years before
    `since` to `since` and later; `since` defaults to the latest year with counted papers."""
    _check(normalize)
    if first <= 0:
        return []
    wanted = _wanted(venues)
    plain = wanted is None and normalize == "PAPERS"
    by_venue = {} if plain else _pick(venue_year_totals(ctx), wanted)
    totals = year_totals(ctx) if plain else _summed(by_venue)
    if not any(totals.values()):
        return []
    start = max(y for y, n in totals.items() if n) if since is None else since
    least = max(1, min_papers)
    if plain:
        scored = _by_papers(type_year_counts(ctx, type_), totals, start, least)
    else:
        found = type_venue_year_counts(ctx, type_)
        mine = {iri: _pick(vys, wanted) for iri, vys in found.items()} if wanted is not None else found
        if normalize == "VENUE":
            scored = _by_venue(mine, by_venue, start, least)
        else:
            scored = _by_papers({iri: _summed(vys) for iri, vys in mine.items()}, totals, start, least)
    scored.sort(key=lambda s: (s[4] - s[3], -s[1], ctx.iris.entity_id_of(s[0]) or s[0]))
    chosen = scored[:first]
    infos = entities_by_iris(ctx, [s[0] for s in chosen])
    return [TrendingEntity(info, start, recent, earlier, rs, es, rs - es)
            for iri, recent, earlier, rs, es in chosen if (info := infos.get(iri)) is not None]
