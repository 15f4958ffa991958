"""GraphQL for reported results: `results(dataset:, metric:, task:, first:, after:)` (a leaderboard),
`compare(papers:)`, and the fields `Paper.results` and `Entity.metrics` (mixed into those types). Thin: every
resolver calls kg.query.results."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Annotated

import strawberry

from api.context import ApiInfo
from api.errors import PublicError
from api.loaders import off_loop
from api.page import Connection, PageInfo, check_range
from api.records import from_record
from kg.query import EntityInfo, LinkInfo, Page, PaperInfo, entities_by_iris
from kg.query import results as qr

if TYPE_CHECKING:
    from api.types import Entity, Link, Paper

MAX_COMPARE = 20  # papers in one comparison

LazyPaper = Annotated["Paper", strawberry.lazy("api.types")]
LazyEntity = Annotated["Entity", strawberry.lazy("api.types")]
LazyLink = Annotated["Link", strawberry.lazy("api.types")]


def _paper(p: PaperInfo) -> Paper:
    from api.types import Paper

    return Paper.of(p)


def _entity(e: EntityInfo | None) -> Entity | None:
    from api.types import Entity

    return None if e is None else Entity.of(e)


@strawberry.type(name="Result", description="A result an abstract reports, with the evidence of its value.")
class ResultNode:
    id: strawberry.ID
    value: float
    unit: str = strawberry.field(description='"%", "points", "x" (a factor), "dB" or "" (a bare score).')
    kind: str = strawberry.field(description='"absolute", "delta" (an improvement) or "ratio" (a factor).')
    metric: LazyEntity
    higher_is_better: bool | None = strawberry.field(description="The metric's direction (None: it depends).")
    dataset: LazyEntity | None
    split: str | None = strawberry.field(
        description='The dataset\'s split or resolution ("test-dev", "256x256").'
    )
    method: LazyEntity | None = strawberry.field(description="The paper's method or model it belongs to.")
    baseline: LazyEntity | None
    paper: LazyPaper
    evidence: str = strawberry.field(description="The sentence stating the value.")
    mention: str
    start: int = strawberry.field(description="Offset of the value in the abstract.")
    end: int
    confidence: float
    rank: int | None = strawberry.field(
        description="Place on its board (absolute results only; equal values share a place)."
    )
    board: str | None = strawberry.field(
        description='The board it is ranked on, one metric on one dataset and split ("top-1 accuracy · '
        'ImageNet"); null for deltas, ratios and results that name no dataset.'
    )
    improvement: str | None = strawberry.field(
        description='A delta or ratio in words ("+1.3 top-1 accuracy over FixMatch"); null when absolute.'
    )

    @classmethod
    def of(cls, r: qr.ResultInfo) -> ResultNode:
        metric = _entity(r.metric)
        assert metric is not None
        return from_record(
            cls, r, id=strawberry.ID(r.id), metric=metric, dataset=_entity(r.dataset),
            method=_entity(r.method), baseline=_entity(r.baseline), paper=_paper(r.paper),
            improvement=qr.improvement_text(r) if r.improvement else None,
        )


@strawberry.type
class ResultPageInfo(PageInfo):
    """PageInfo under the name the published schema gives the leaderboard's."""


@strawberry.type(
    description="A leaderboard: absolute results ranked per board (one metric on one dataset and split) best "
    "first by the metric's direction, then deltas and ratios (improvements), largest first, unranked."
)
class ResultConnection(Connection[ResultNode]):
    page_info: ResultPageInfo
    hidden_count: int = strawberry.field(
        default=0,
        description="Rows of lower confidence left out (includeLowConfidence: true shows them)."
    )

    @classmethod
    def of(cls, page: Page[qr.ResultInfo], hidden: int = 0) -> ResultConnection:
        conn = cls.page(page, ResultNode.of, ResultPageInfo)
        conn.hidden_count = hidden
        return conn


@strawberry.type(description="A metric reported on a dataset: how many results and papers.")
class MetricCount:
    metric: LazyEntity
    results: int
    papers: int
    higher_is_better: bool | None


@strawberry.type(description="One paper of a comparison: its links by kind, with evidence, and its results.")
class ComparedPaper:
    paper: LazyPaper
    tasks: list[LazyLink]
    datasets: list[LazyLink]
    methods: list[LazyLink]
    models: list[LazyLink]
    metrics: list[LazyLink]
    results: list[ResultNode]


def _links(links: tuple[LinkInfo, ...]) -> list[Link]:
    from api.types import Entity, Link

    return [
        Link(relation=x.relation, entity=Entity.of(x.entity), evidence=x.evidence, confidence=x.confidence)
        for x in links
    ]


@strawberry.type
class ResultsQuery:
    """The Query fields of results (the schema's Query inherits them)."""

    @strawberry.field(
        description="A leaderboard of reported results on a dataset (name, alias or id; variants included), "
        "optionally for one metric and papers addressing a task."
    )
    async def results(
        self,
        info: ApiInfo,
        dataset: str | None = None,
        metric: str | None = None,
        task: str | None = None,
        first: int = 20,
        after: str | None = None,
        section: Annotated[
            str | None,
            strawberry.argument(
                description='"absolute" (the ranked results) or "improvement" (deltas, ratios); null: both.'
            ),
        ] = None,
        include_low_confidence: Annotated[
            bool, strawberry.argument(description="Also the rows of lower confidence (hidden by default).")
        ] = False,
    ) -> ResultConnection:
        check_range("first", first, 0, info.context.settings.max_page)
        if dataset is None and metric is None and task is None:
            raise PublicError("results needs at least one of dataset, metric, task")
        if section is not None and section not in qr.SECTIONS:
            raise PublicError(f"section must be one of {', '.join(qr.SECTIONS)}")
        board = await off_loop(
            qr.board, info.context.query, dataset, metric, task, first, after,
            section=section, include_low=include_low_confidence,
        )
        rows = await off_loop(qr.full, info.context.query, board.page.items)
        return ResultConnection.of(replace(board.page, items=tuple(rows)), board.hidden)

    @strawberry.field(description="Papers side by side: tasks, datasets, methods, models, metrics, results.")
    async def compare(self, info: ApiInfo, papers: list[strawberry.ID]) -> list[ComparedPaper]:
        check_range("number of papers", len(papers), 1, MAX_COMPARE)
        cmp = await off_loop(qr.compare, info.context.query, [str(p) for p in papers])
        if cmp.missing:
            raise PublicError(f"no paper with id {', '.join(repr(m[:100]) for m in cmp.missing)}")
        return [
            ComparedPaper(
                paper=_paper(c.paper),
                tasks=_links(c.tasks),
                datasets=_links(c.datasets),
                methods=_links(c.methods),
                models=_links(c.models),
                metrics=_links(c.metrics),
                results=[ResultNode.of(r) for r in c.results],
            )
            for c in cmp.papers
        ]


@strawberry.type
class PaperResults:
    """`Paper.results` (mixed into api.types.Paper)."""

    if TYPE_CHECKING:
        iri: str

    @strawberry.field(description="Results stated in the abstract, in text order, with evidence.")
    async def results(self, info: ApiInfo) -> list[ResultNode]:
        found = await off_loop(qr.results_by_paper, info.context.query, [self.iri])
        rows = await off_loop(qr.full, info.context.query, found.get(self.iri, []))
        return [ResultNode.of(r) for r in rows]


@strawberry.type
class EntityMetrics:
    """`Entity.metrics` (mixed into api.types.Entity): for a dataset, the metrics results on it use."""

    if TYPE_CHECKING:
        id: strawberry.ID

    @strawberry.field(description="For a dataset: the metrics its reported results use, most results first.")
    async def metrics(self, info: ApiInfo) -> list[MetricCount]:
        if not str(self.id).startswith("dataset/"):
            return []
        found = await off_loop(qr.dataset_metrics, info.context.query, str(self.id))
        described = await off_loop(entities_by_iris, info.context.query, [m.metric.iri for m in found])
        from api.types import Entity

        return [
            MetricCount(
                metric=Entity.of(described.get(m.metric.iri, m.metric)),
                results=m.results,
                papers=m.papers,
                higher_is_better=m.higher_is_better,
            )
            for m in found
        ]
