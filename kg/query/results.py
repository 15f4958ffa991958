"""Reported results: leaderboards per dataset (sorted by the metric's direction, absolute results apart from
deltas and factors), the results of papers, the metrics reported on a dataset, and side-by-side comparison.

User names and ids become bound terms (VALUES blocks of NamedNodes), never SPARQL text.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from pyoxigraph import NamedNode

from kg.query import cursor
from kg.query.context import QueryContext
from kg.query.entities import entities_by_iris, resolve
from kg.query.links import links_by_paper
from kg.query.model import EntityInfo, LinkInfo, Page, PaperInfo
from kg.query.papers import papers_by_iris
from kg.query.sparql import integer, iri_or_none, number, text, values
from kg.store.types import Row
from kg.types import EntityType

KINDS = ("absolute", "delta", "ratio")
IMPROVEMENTS = ("delta", "ratio")
# Rows whose confidence is below this are hidden from a leaderboard unless asked for (and counted). The
# extractor's confidences are rules' guesses, not calibrated: on all visible results gold the rows below 0.75
# (a value tied loosely to its metric, bare or in a list; an improvement with no measure named) are right 33
# of 54 times, those above 118 of 146 (bench/results/results_cv.json, precision_by_confidence). A calibrated
# model should replace both.
LOW_CONFIDENCE = 0.75


@dataclass(frozen=True, slots=True)
class ResultInfo:
    """One reported result with its evidence; `rank` is its place in a leaderboard (absolute results only)."""

    id: str  # the result node's IRI
    paper: PaperInfo
    value: float
    unit: str
    kind: str
    metric: EntityInfo
    evidence: str
    mention: str
    start: int
    end: int
    confidence: float
    dataset: EntityInfo | None = None
    method: EntityInfo | None = None
    baseline: EntityInfo | None = None
    higher_is_better: bool | None = None
    rank: int | None = None
    split: str | None = None  # the dataset's split or resolution, when stated
    board: str | None = None  # "metric · dataset[ · split]": the board an absolute result is ranked on

    @property
    def improvement(self) -> bool:
        """A delta or a ratio: shown apart from the board, never ranked as a score."""
        return self.kind in IMPROVEMENTS


@dataclass(frozen=True, slots=True)
class MetricCount:
    """A metric reported on a dataset, in how many results and papers, and its direction."""

    metric: EntityInfo
    results: int
    papers: int
    higher_is_better: bool | None = None


@dataclass(frozen=True, slots=True)
class ComparedPaper:
    """One column of a comparison: a paper's links by kind and its results."""

    paper: PaperInfo
    tasks: tuple[LinkInfo, ...]
    datasets: tuple[LinkInfo, ...]
    methods: tuple[LinkInfo, ...]
    models: tuple[LinkInfo, ...]
    metrics: tuple[LinkInfo, ...]
    results: tuple[ResultInfo, ...]


@dataclass(frozen=True, slots=True)
class Comparison:
    """Papers side by side; `missing` lists the requested ids that name no paper."""

    papers: tuple[ComparedPaper, ...]
    missing: tuple[str, ...] = ()


_Raw = tuple[
    str, str, str, float, str, str, str, str, int, int, float, str | None, str | None, str | None, str | None
]

_SELECT = (
    "SELECT ?r ?p ?m ?v ?unit ?kind ?ev ?mention ?start ?end ?conf ?ds ?meth ?base ?split WHERE {{ {scope} "
    "?r kg:metric ?m ; kg:value ?v ; kg:unit ?unit ; kg:resultKind ?kind ; kg:evidence ?ev ; "
    "kg:mention ?mention ; kg:start ?start ; kg:end ?end ; kg:confidence ?conf ; prov:wasDerivedFrom ?p . "
    "OPTIONAL {{ ?r kg:onDataset ?ds }} OPTIONAL {{ ?r kg:ofMethod ?meth }} "
    "OPTIONAL {{ ?r kg:baseline ?base }} OPTIONAL {{ ?r kg:datasetSplit ?split }} {extra} }}"
)


def _raw(row: Row) -> _Raw | None:
    v = number(row, "v")
    if v is None:
        return None
    return (
        text(row, "r") or "",
        text(row, "p") or "",
        text(row, "m") or "",
        v,
        text(row, "unit") or "",
        text(row, "kind") or "absolute",
        text(row, "ev") or "",
        text(row, "mention") or "",
        integer(row, "start"),
        integer(row, "end"),
        number(row, "conf") or 0.0,
        text(row, "ds"),
        text(row, "meth"),
        text(row, "base"),
        text(row, "split"),
    )


def directions(ctx: QueryContext, metric_iris: Iterable[str]) -> dict[str, bool]:
    """`kg:higherIsBetter` of these metrics (from the vocabulary or the results' entity descriptions)."""
    nodes = sorted({n.value for i in metric_iris if (n := iri_or_none(i)) is not None})
    if not nodes:
        return {}
    scope = values("m", [NamedNode(n) for n in nodes])
    rows = ctx.select(f"SELECT DISTINCT ?m ?h WHERE {{ {scope} ?m kg:higherIsBetter ?h }}")
    return {text(r, "m") or "": (text(r, "h") or "").lower() in ("true", "1") for r in rows}


def _light_papers(ctx: QueryContext, iris: Iterable[str]) -> dict[str, PaperInfo]:
    """Id, title, year and venue of papers (a leaderboard row needs no abstract), cached per generation."""

    def fetch(missing: list[str]) -> dict[str, PaperInfo | None]:
        rows = ctx.select(
            f"SELECT ?p ?id ?t ?y ?v WHERE {{ {values('p', [NamedNode(p) for p in missing])} "
            "?p dcterms:identifier ?id OPTIONAL { ?p dcterms:title ?t } OPTIONAL { ?p dcterms:issued ?y } "
            "OPTIONAL { ?p kg:venue ?v } }"
        )
        out: dict[str, PaperInfo | None] = {}
        for r in rows:
            p = text(r, "p") or ""
            year = text(r, "y")
            out.setdefault(
                p,
                PaperInfo(
                    id=text(r, "id") or "",
                    iri=p,
                    title=text(r, "t"),
                    venue=text(r, "v"),
                    year=int(year[:4]) if year and year[:4].isdigit() else None,
                ),
            )
        return out

    nodes = sorted({n.value for i in iris if (n := iri_or_none(i)) is not None})
    none: PaperInfo | None = None
    found = ctx.memo.per_node(ctx.store, "result-paper", nodes, fetch, none)
    return {k: v for k, v in found.items() if v is not None}


def _light_entities(ctx: QueryContext, iris: Iterable[str]) -> dict[str, EntityInfo]:
    """Id, name and type of entities (their aliases and paper counts are not needed to rank)."""

    def fetch(missing: list[str]) -> dict[str, EntityInfo | None]:
        rows = ctx.select(
            f"SELECT ?e ?l WHERE {{ {values('e', [NamedNode(e) for e in missing])} ?e skos:prefLabel ?l }}"
        )
        out: dict[str, EntityInfo | None] = {}
        for r in rows:
            e = text(r, "e") or ""
            eid = ctx.iris.entity_id_of(e)
            etype = ctx.iris.type_of_entity_id(eid or "")
            if eid and etype and e not in out:
                out[e] = EntityInfo(eid, e, text(r, "l") or eid, etype)
        return out

    nodes = sorted({n.value for i in iris if (n := iri_or_none(i)) is not None})
    none: EntityInfo | None = None
    found = ctx.memo.per_node(ctx.store, "result-entity", nodes, fetch, none)
    return {k: v for k, v in found.items() if v is not None}


def full(ctx: QueryContext, rows: Sequence[ResultInfo]) -> list[ResultInfo]:
    """The same rows with complete paper and entity records (abstracts, aliases, paper counts), fetched in
    one batch each: for clients that show more than a leaderboard row (the API)."""
    papers = papers_by_iris(ctx, {r.paper.iri for r in rows})
    ents = entities_by_iris(
        ctx, {e.iri for r in rows for e in (r.metric, r.dataset, r.method, r.baseline) if e is not None}
    )

    def ent(e: EntityInfo | None) -> EntityInfo | None:
        return None if e is None else ents.get(e.iri, e)

    return [
        replace(
            r,
            paper=papers.get(r.paper.iri, r.paper),
            metric=ents.get(r.metric.iri, r.metric),
            dataset=ent(r.dataset),
            method=ent(r.method),
            baseline=ent(r.baseline),
        )
        for r in rows
    ]


def _infos(ctx: QueryContext, raws: Sequence[_Raw]) -> list[ResultInfo]:
    """ResultInfo records for raw rows: papers and entity names fetched in one batch each."""
    papers = _light_papers(ctx, {r[1] for r in raws})
    ents = _light_entities(ctx, {e for r in raws for e in (r[2], r[11], r[12], r[13]) if e})
    dirs = directions(ctx, {r[2] for r in raws})
    out = []
    for r in raws:
        paper, metric = papers.get(r[1]), ents.get(r[2])
        if paper is None or metric is None:
            continue
        out.append(
            ResultInfo(
                id=r[0],
                paper=paper,
                value=r[3],
                unit=r[4],
                kind=r[5],
                metric=metric,
                evidence=r[6],
                mention=r[7],
                start=r[8],
                end=r[9],
                confidence=r[10],
                dataset=ents.get(r[11]) if r[11] else None,
                method=ents.get(r[12]) if r[12] else None,
                baseline=ents.get(r[13]) if r[13] else None,
                higher_is_better=dirs.get(r[2]),
                split=r[14],
            )
        )
    return out


def _comparable(r: ResultInfo, percent_metrics: set[str]) -> float:
    """The value on one scale per metric: a fraction (0.843) beside percentages (84.3%) counts as 84.3."""
    if r.unit == "" and r.metric.iri in percent_metrics and 0.0 <= r.value <= 1.0:
        return r.value * 100.0
    return r.value


def board_of(r: ResultInfo) -> tuple[str, str, str] | None:
    """The board a result is ranked on: one metric on one dataset (and split); None for deltas and ratios
    and for absolute results that name no dataset (nothing to compare them with)."""
    if r.kind != "absolute" or r.dataset is None:
        return None
    return (r.metric.iri, r.dataset.iri, r.split or "")


def board_label(r: ResultInfo) -> str | None:
    if board_of(r) is None or r.dataset is None:
        return None
    return " · ".join(x for x in (r.metric.name, r.dataset.name, r.split) if x)


def rank(rows: Sequence[ResultInfo]) -> list[ResultInfo]:
    """Leaderboard order. Absolute results are ranked per board, one metric on one dataset (and split):
    the boards with the most rows first, best value first by the metric's direction (higher first when
    unknown), equal values sharing a rank (1, 1, 3). Then absolute results that name no dataset, unranked;
    then the improvements (deltas, then ratios), largest first, unranked."""
    percent = {r.metric.iri for r in rows if r.unit == "%"}
    size = Counter(b for r in rows if (b := board_of(r)) is not None)
    names = {
        b: (r.metric.name.lower(), r.dataset.name.lower() if r.dataset else "")
        for r in rows
        if (b := board_of(r)) is not None
    }

    def key(r: ResultInfo) -> tuple[int, int, str, str, str, str, float, float, str]:
        v = _comparable(r, percent)
        b = board_of(r)
        if b is not None:
            section = 0
        elif r.kind == "absolute":
            section = 1
        else:
            section = 2 + IMPROVEMENTS.index(r.kind) if r.kind in IMPROVEMENTS else 9
        signed = -v if (r.kind != "absolute" or r.higher_is_better is not False) else v
        metric, dataset = names[b] if b is not None else (r.metric.name.lower(), "")
        return (
            section,
            -size[b] if b is not None else 0,
            metric,
            dataset,
            b[1] if b is not None else "",
            b[2] if b is not None else "",
            signed,
            -r.confidence,
            r.paper.id,
        )

    ordered = sorted(rows, key=key)
    out: list[ResultInfo] = []
    seen: Counter[tuple[str, str, str]] = Counter()
    last: dict[tuple[str, str, str], tuple[float, int]] = {}
    for r in ordered:
        b = board_of(r)
        if b is None:
            out.append(replace(r, rank=None, board=None))
            continue
        seen[b] += 1
        v = _comparable(r, percent)
        prev = last.get(b)
        place = prev[1] if prev is not None and prev[0] == v else seen[b]
        last[b] = (v, place)
        out.append(replace(r, rank=place, board=board_label(r)))
    return out


def _resolved(ctx: QueryContext, name: str | None, type_: EntityType) -> list[str] | None:
    """IRIs named `name` (an id such as "dataset/imagenet", or a name or alias), variants and narrower ones
    included; None when no name was given."""
    if name is None:
        return None
    if ctx.iris.type_of_entity_id(name) == type_ and "/" in name:
        iri = ctx.iris.entity_from_id(name)
        info = entities_by_iris(ctx, [iri]).get(iri)
        if info is not None:
            return sorted(set(resolve(ctx, info.name, type_, expand=True)) | {iri})
    return resolve(ctx, name, type_, expand=True)


def leaderboard_rows(
    ctx: QueryContext, dataset: str | None, metric: str | None = None, task: str | None = None
) -> list[ResultInfo]:
    """Every result on `dataset` (and `metric`, and papers addressing `task`), in leaderboard order; cached
    per store generation."""

    def compute() -> list[ResultInfo]:
        ds = _resolved(ctx, dataset, "Dataset")
        ms = _resolved(ctx, metric, "Metric")
        ts = _resolved(ctx, task, "Task")
        if (ds is not None and not ds) or (ms is not None and not ms) or (ts is not None and not ts):
            return []
        # Two steps: the result nodes from the most selective pattern, then their values by node (one query
        # with every pattern joined made Oxigraph walk the values first: twice as slow).
        where = []
        if ds is not None:
            where.append(values("ds", [NamedNode(i) for i in ds]) + " ?r kg:onDataset ?ds .")
        if ms is not None:
            where.append(values("m", [NamedNode(i) for i in ms]) + " ?r kg:metric ?m .")
        if ts is not None:
            where.append(
                values("t", [NamedNode(i) for i in ts]) + " ?p kg:addressesTask ?t . ?p kg:reportsResult ?r ."
            )
        where = where or ["?r a kg:Result ."]
        found = ctx.select(f"SELECT DISTINCT ?r WHERE {{ {' '.join(where)} }}")
        ids = sorted({text(r, "r") or "" for r in found} - {""})
        if not ids:
            return []
        rows = ctx.select(_SELECT.format(scope=values("r", [NamedNode(i) for i in ids if i]), extra=""))
        raws = list({r[0]: r for row in rows if (r := _raw(row)) is not None}.values())
        return rank(_infos(ctx, raws))

    return ctx.memo.get(ctx.store, ("leaderboard", dataset, metric, task), compute, len)


SECTIONS = ("absolute", "improvement")


def shown(
    rows: Sequence[ResultInfo], section: str | None = None, include_low: bool = False
) -> tuple[list[ResultInfo], int]:
    """The rows a board shows, ranked, and how many lower-confidence rows it hides: `section` "absolute"
    keeps the ranked results, "improvement" the deltas and ratios, None both."""
    if section is not None and section not in SECTIONS:
        raise ValueError(f"section must be one of {', '.join(SECTIONS)}, not {section!r}")
    chosen = [
        r
        for r in rows
        if section is None or (r.improvement if section == "improvement" else r.kind == "absolute")
    ]
    if include_low:
        return rank(chosen), 0
    kept = [r for r in chosen if r.confidence >= LOW_CONFIDENCE]
    return rank(kept), len(chosen) - len(kept)


@dataclass(frozen=True, slots=True)
class Board:
    """One page of a leaderboard and how many rows of lower confidence it leaves out."""

    page: Page[ResultInfo]
    hidden: int = 0


def board(
    ctx: QueryContext,
    dataset: str | None,
    metric: str | None = None,
    task: str | None = None,
    first: int = 20,
    after: str | None = None,
    *,
    section: str | None = None,
    include_low: bool = False,
) -> Board:
    """One page of the leaderboard (`section`: "absolute" results or "improvement"s, None both), rows below
    LOW_CONFIDENCE left out and counted unless `include_low`; `after` is an opaque cursor."""
    rows, hidden = shown(leaderboard_rows(ctx, dataset, metric, task), section, include_low)
    start = 0
    if after is not None:
        (start,) = cursor.decode("results", after, (int,))
        start = max(start, 0)
    items = rows[start : start + max(first, 0)]
    cursors = tuple(cursor.encode("results", [start + i + 1]) for i in range(len(items)))
    page = Page(
        items=tuple(items),
        total=len(rows),
        has_next=start + len(items) < len(rows),
        end_cursor=cursors[-1] if cursors else None,
        cursors=cursors,
    )
    return Board(page, hidden)


def leaderboard(
    ctx: QueryContext,
    dataset: str | None,
    metric: str | None = None,
    task: str | None = None,
    first: int = 20,
    after: str | None = None,
    *,
    section: str | None = None,
    include_low: bool = True,
) -> Page[ResultInfo]:
    """One page of the leaderboard, every confidence included unless `include_low` is False (see `board`)."""
    return board(ctx, dataset, metric, task, first, after, section=section, include_low=include_low).page


def improvement_text(r: ResultInfo) -> str:
    """A delta or ratio in words: "+1.3 points top-1 accuracy over FixMatch", "3x speedup"."""
    v = f"{r.value:g}"
    unit = r.unit if r.unit in ("%", "x") else f" {r.unit}" if r.unit else ""
    sign = "+" if r.kind == "delta" and r.value > 0 else ""
    over = f" over {r.baseline.name}" if r.baseline is not None else ""
    return f"{sign}{v}{unit} {r.metric.name}{over}"


def results_by_paper(ctx: QueryContext, paper_iris: Iterable[str]) -> dict[str, list[ResultInfo]]:
    """The results of each paper, in the order they are stated (cached per store generation)."""
    nodes = sorted({n.value for i in paper_iris if (n := iri_or_none(i)) is not None})
    if not nodes:
        return {}

    def compute(missing: list[str]) -> dict[str, tuple[_Raw, ...]]:
        scope = values("p", [NamedNode(p) for p in missing])
        ids = sorted(
            {text(r, "r") or "" for r in ctx.select(f"SELECT ?r WHERE {{ {scope} ?p kg:reportsResult ?r }}")}
        )
        rows = (
            ctx.select(_SELECT.format(scope=values("r", [NamedNode(i) for i in ids if i]), extra=""))
            if ids
            else []
        )
        found: dict[str, dict[str, _Raw]] = defaultdict(dict)
        for row in rows:
            if (r := _raw(row)) is not None:
                found[r[1]][r[0]] = r
        return {p: tuple(found[p].values()) for p in missing}

    empty: tuple[_Raw, ...] = ()
    raw: dict[str, tuple[_Raw, ...]] = ctx.memo.per_node(ctx.store, "results", nodes, compute, empty)
    infos = _infos(ctx, [r for rs in raw.values() for r in rs])
    out: dict[str, list[ResultInfo]] = defaultdict(list)
    for info in infos:
        out[info.paper.iri].append(info)
    return {p: sorted(rs, key=lambda r: (r.start, r.end)) for p, rs in out.items()}


def paper_results(ctx: QueryContext, paper_id: str) -> list[ResultInfo]:
    iri = ctx.iris.paper(paper_id)
    return results_by_paper(ctx, [iri]).get(iri, [])


def dataset_metrics(ctx: QueryContext, dataset: str) -> list[MetricCount]:
    """Which metrics results on `dataset` (a name, alias or id) are reported in, most results first."""
    rows = leaderboard_rows(ctx, dataset)
    by_metric: dict[str, list[ResultInfo]] = defaultdict(list)
    for r in rows:
        by_metric[r.metric.iri].append(r)
    out = [
        MetricCount(rs[0].metric, len(rs), len({r.paper.iri for r in rs}), rs[0].higher_is_better)
        for rs in by_metric.values()
    ]
    out.sort(key=lambda m: (-m.results, m.metric.name.lower()))
    return out


_SLOTS = {"Task": "tasks", "Dataset": "datasets", "Method": "methods", "Model": "models", "Metric": "metrics"}


def compare(ctx: QueryContext, paper_ids: Sequence[str]) -> Comparison:
    """The papers side by side (ORKG-style): tasks, datasets, methods, models, metrics, results, evidence."""
    ids = list(dict.fromkeys(paper_ids))
    iris = {pid: ctx.iris.paper(pid) for pid in ids}
    papers = papers_by_iris(ctx, iris.values())
    links = links_by_paper(ctx, [i for i in iris.values() if i in papers])
    results = results_by_paper(ctx, [i for i in iris.values() if i in papers])
    columns = []
    for pid in ids:
        info = papers.get(iris[pid])
        if info is None:
            continue
        slots: dict[str, list[LinkInfo]] = {s: [] for s in _SLOTS.values()}
        for lk in links.get(info.iri, []):
            slot = _SLOTS.get(lk.entity.type)
            if slot is not None:
                slots[slot].append(lk)
        columns.append(
            ComparedPaper(
                paper=info,
                tasks=tuple(slots["tasks"]),
                datasets=tuple(slots["datasets"]),
                methods=tuple(slots["methods"]),
                models=tuple(slots["models"]),
                metrics=tuple(slots["metrics"]),
                results=tuple(full(ctx, results.get(info.iri, []))),
            )
        )
    missing = tuple(pid for pid in ids if iris[pid] not in papers)
    return Comparison(tuple(columns), missing)


def result_count(ctx: QueryContext) -> int:
    """How many results the graph holds."""
    rows = ctx.select("SELECT (COUNT(?r) AS ?n) WHERE { ?r a kg:Result }")
    return integer(rows[0], "n") if rows else 0
