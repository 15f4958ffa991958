"""Writes behind the mutations: extract papers (extractor loaded on first use), replace or drop graphs."""

from __future__ import annotations

import hashlib
import threading
from typing import Any

from pyoxigraph import NamedNode

from api.errors import PublicError
from kg.query import QueryContext, papers_by_iris
from kg.query.memo import at_generation
from kg.query.model import PaperInfo
from kg.query.sparql import text, values
from kg.rdf.mapping import GraphMapper
from kg.types import Paper

MAX_ABSTRACT = 100_000
MAX_FIELD = 2_000


def paper_id(title: str | None, abstract: str) -> str:
    """A stable id for a paper given without one."""
    return "p-" + hashlib.sha1(f"{title or ''}\n{abstract}".encode()).hexdigest()[:12]


def check_paper(p: Paper) -> None:
    if not p.abstract.strip():
        raise PublicError("each paper needs a non-empty abstract")
    if len(p.abstract) > MAX_ABSTRACT:
        raise PublicError(f"abstract longer than {MAX_ABSTRACT} characters")
    if not p.id.strip() or any(len(x or "") > MAX_FIELD for x in (p.id, p.title, p.venue, p.url, *p.authors)):
        raise PublicError(
            f"id, title, venue, url and authors must be non-empty ids / at most {MAX_FIELD} characters"
        )


class PaperWriter:
    """Adds and deletes papers in one QueryContext's store, keeping the search index in step."""

    def __init__(self, ctx: QueryContext) -> None:
        self.ctx = ctx
        self._extractor: Any = None
        self._lock = threading.Lock()
        self._mapper = GraphMapper(ctx.iris)

    def extractor(self) -> Any:
        """The extractor, loaded once on the first mutation (loading spaCy takes seconds)."""
        with self._lock:
            if self._extractor is None:
                from kg.extract import Extractor

                self._extractor = Extractor(self.ctx.iris.base)
            return self._extractor

    def hold(self) -> bool:
        """Try to keep this writer's writes out until `release()` (for a reader that wants one store
        generation); False when a write is under way."""
        return self._lock.acquire(blocking=False)

    def release(self) -> None:
        self._lock.release()

    def add(self, papers: list[Paper]) -> list[PaperInfo]:
        """Extract and store `papers` in one atomic write (re-adding an id replaces that paper)."""
        for p in papers:
            check_paper(p)
        extractor = self.extractor()
        extractions = [extractor.extract_one(p) for p in papers]
        mapped = [self._mapper.map(ex) for ex in extractions]
        graphs = {m.graph: m.quads for m in mapped}
        shared = list(dict.fromkeys(q for m in mapped for q in m.shared))
        ids = [p.id for p in papers]
        iris = [self.ctx.iris.paper(i) for i in ids]
        with self._lock:
            before, touched = self.ctx.store.generation(), self._entities_of(ids)
            self.ctx.store.replace_graphs(graphs, shared)
            touched |= self._entities_of(ids)
            self.ctx.index.refresh(self.ctx.store, before, ids, touched)
        with at_generation(self.ctx.store.generation()):  # not the generation the request began with
            found = papers_by_iris(self.ctx, iris)
        return [found[i] for i in iris if i in found]

    def delete(self, pid: str) -> bool:
        """Drop one paper's graph; False when there is no such paper."""
        iri = self.ctx.iris.paper(pid)
        with self._lock:
            if not papers_by_iris(self.ctx, [iri]):
                return False
            before, touched = self.ctx.store.generation(), self._entities_of([pid])
            self.ctx.store.drop_graphs([self.ctx.iris.paper_graph(pid)])
            self.ctx.index.refresh(self.ctx.store, before, [pid], touched)
        return True

    def _entities_of(self, paper_ids: list[str]) -> set[str]:
        """Ids of the entities declared in these papers' graphs."""
        graphs = values("g", [NamedNode(self.ctx.iris.paper_graph(p)) for p in paper_ids])
        rows = self.ctx.select(f"SELECT DISTINCT ?e WHERE {{ {graphs} GRAPH ?g {{ ?e skos:prefLabel ?l }} }}")
        return {eid for r in rows if (eid := self.ctx.iris.entity_id_of(text(r, "e") or ""))}
