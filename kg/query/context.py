"""What every query function reads: the store, the IRI scheme and the full-text index."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from pyoxigraph import NamedNode

from kg.query.memo import GenerationCache
from kg.query.search import SearchIndex
from kg.query.sparql import paper_relations, prefixes
from kg.rdf.iris import Iris
from kg.settings import DEFAULT_BASE_IRI
from kg.store.types import QueryTimeout, Row, Store, Term

_DEADLINE: ContextVar[float | None] = ContextVar("kg_query_deadline", default=None)


@contextmanager
def time_budget(seconds: float) -> Iterator[None]:
    """Refuse further queries of this context (thread pool hops included) after `seconds`."""
    token = _DEADLINE.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


@dataclass(slots=True)
class QueryContext:
    """A store seen through one base IRI; cheap to build, safe to share between threads."""

    store: Store
    iris: Iris
    index: SearchIndex
    timeout_s: float | None = None
    memo: GenerationCache = field(default_factory=GenerationCache)  # derived answers, per generation
    prologue: str = field(init=False)
    relations: list[NamedNode] = field(init=False)

    def __post_init__(self) -> None:
        self.prologue = prefixes(self.iris)
        self.relations = paper_relations(self.iris)

    @classmethod
    def open(
        cls, store: Store, base_iri: str = DEFAULT_BASE_IRI, timeout_s: float | None = None
    ) -> QueryContext:
        """A context with the search index cached next to `store` (on disk for a local directory)."""
        iris = Iris(base_iri)
        return cls(store, iris, SearchIndex.for_store(store, iris), timeout_s)

    def select(self, body: str, bindings: dict[str, Term] | None = None) -> list[Row]:
        """Run `body` (without prefixes) as a SELECT over the union of all graphs."""
        end = _DEADLINE.get()
        if end is not None and time.monotonic() > end:
            raise QueryTimeout("query time budget spent")
        return self.store.select(self.prologue + body, bindings, timeout_s=self.timeout_s)

    def term(self, local: str) -> NamedNode:
        return NamedNode(self.iris.term(local))
