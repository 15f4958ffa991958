"""Per-request DataLoaders: every field that fans out over a list is answered one query-batch per level; each
load checks the request's deadline when its batch arrives (api.limits.Deadline)."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from typing import ParamSpec, TypeVar

from starlette.concurrency import run_in_threadpool
from strawberry.dataloader import DataLoader

from api.limits import check_deadline
from kg import query as q
from kg.query import EntityInfo, LinkInfo, Page, PaperInfo, QueryContext
from kg.query.trends import Normalize, TrendPoint, trends_by_iris

P = ParamSpec("P")
R = TypeVar("R")
K = TypeVar("K")
V = TypeVar("V")
PapersKey = tuple[str, str | None, int, str | None]  # entity iri, relation, first, after
RelatedKey = tuple[str, int]
TrendKey = tuple[str, tuple[str, ...] | None, Normalize]  # entity iri, venues, normalize


ON_REQUEST_THREAD: ContextVar[bool] = ContextVar("kg_on_request_thread", default=False)
"""True while a GraphQL operation executes on its own worker thread and event loop (api.app)."""


async def off_loop(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Run a blocking store call off the server's event loop, so it (and the time limit) stays live: on a
    request's own thread directly (nothing else waits on that loop; a hop to another thread cost ~0.5 ms a
    call) once the sibling fields have started — their argument checks answer first, as from the pool —
    else in the thread pool."""
    if ON_REQUEST_THREAD.get():
        await asyncio.sleep(0)
        return fn(*args, **kwargs)
    return await run_in_threadpool(fn, *args, **kwargs)


class CheckedLoader(DataLoader[K, V]):
    """A DataLoader whose loads check the request's deadline once their batch has arrived."""

    def load(self, key: K) -> Awaitable[V]:
        return _checked(super().load(key))


async def _checked(pending: Awaitable[V]) -> V:
    value = await pending
    check_deadline()
    return value


class Loaders:
    """The batch loaders of one request over one QueryContext."""

    def __init__(self, ctx: QueryContext) -> None:
        self.ctx = ctx
        self.links: DataLoader[str, list[LinkInfo]] = CheckedLoader(self._links)
        self.broader: DataLoader[str, list[EntityInfo]] = CheckedLoader(self._broader)
        self.narrower: DataLoader[str, list[EntityInfo]] = CheckedLoader(self._narrower)
        self.related: DataLoader[RelatedKey, list[EntityInfo]] = CheckedLoader(self._related)
        self.papers: DataLoader[PapersKey, Page[PaperInfo]] = CheckedLoader(self._papers)
        self.trends: DataLoader[TrendKey, list[TrendPoint]] = CheckedLoader(self._trends)

    async def _links(self, keys: Sequence[str]) -> list[list[LinkInfo]]:
        found = await off_loop(q.links_by_paper, self.ctx, keys)
        return [found.get(k, []) for k in keys]

    async def _broader(self, keys: Sequence[str]) -> list[list[EntityInfo]]:
        found = await off_loop(q.broader, self.ctx, keys)
        return [found.get(k, []) for k in keys]

    async def _narrower(self, keys: Sequence[str]) -> list[list[EntityInfo]]:
        found = await off_loop(q.broader, self.ctx, keys, narrower=True)
        return [found.get(k, []) for k in keys]

    async def _related(self, keys: Sequence[RelatedKey]) -> list[list[EntityInfo]]:
        by_first: dict[int, list[str]] = defaultdict(list)
        for iri, first in keys:
            by_first[first].append(iri)
        found = {first: await off_loop(q.related, self.ctx, iris, first) for first, iris in by_first.items()}
        return [found[first].get(iri, []) for iri, first in keys]

    async def _trends(self, keys: Sequence[TrendKey]) -> list[list[TrendPoint]]:
        groups: dict[tuple[tuple[str, ...] | None, Normalize], list[str]] = defaultdict(list)
        for iri, venues, normalize in keys:
            groups[(venues, normalize)].append(iri)
        found = {g: await off_loop(trends_by_iris, self.ctx, iris, g[0], g[1]) for g, iris in groups.items()}
        return [found[(venues, normalize)].get(iri, []) for iri, venues, normalize in keys]

    async def _papers(self, keys: Sequence[PapersKey]) -> list[Page[PaperInfo]]:
        groups: dict[tuple[str | None, int, str | None], list[str]] = defaultdict(list)
        for iri, relation, first, after in keys:
            groups[(relation, first, after)].append(iri)
        found = {}
        for (relation, first, after), iris in groups.items():
            found[(relation, first, after)] = await off_loop(
                q.papers_of_entities, self.ctx, iris, relation, first, after
            )
        return [found[(rel, first, after)][iri] for iri, rel, first, after in keys]
