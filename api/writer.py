"""Writes behind the mutations: extract papers (extractor loaded on first use), then store them through the
library's one write path (kg.write), which also keeps the search index and the entities graph in step.

A write either commits and says so, or writes nothing and says that: the request's deadline is checked
after extraction and before the commit, and once the commit has started the answer waits for it (the
time-limit middleware never cuts a committing request short). Ids are stable, so a retry is idempotent.
"""

from __future__ import annotations

import hashlib
import threading
import time
from typing import Any

from api.errors import PublicError
from kg.query import QueryContext, papers_by_iris
from kg.query.context import time_budget
from kg.query.memo import at_generation
from kg.query.model import PaperInfo
from kg.rdf.mapping import GraphMapper
from kg.types import Paper
from kg.write import delete_papers, write_extractions

MAX_ABSTRACT = 100_000
MAX_FIELD = 2_000
AFTER_COMMIT_S = 60.0  # budget for reading back what a committed write stored
MAX_BATCH = 20  # papers per addPapers request: extraction + commit stay well inside the 5 s limit


class TooSlow(PublicError):
    """The write's deadline passed before its commit: nothing was written."""


class WriteGate:
    """Who goes first between a write's commit and the request's time limit, decided under a lock: once
    the commit starts the answer waits for it; once the limit has closed the gate no commit starts."""

    def __init__(self, deadline: float | None = None) -> None:
        self.deadline = deadline
        self._lock = threading.Lock()
        self._state = "open"  # -> "committing" | "closed"

    def start_commit(self) -> None:
        """Enter the commit, or raise TooSlow (nothing written) when the deadline or the limit came first."""
        with self._lock:
            if self._state == "open" and (self.deadline is None or time.monotonic() <= self.deadline):
                self._state = "committing"
                return
            self._state = "closed"
        raise TooSlow("the write ran out of time before its commit: nothing was written; retry it "
                      "(ids are stable, so a retry never duplicates)")

    def close(self) -> bool:
        """Refuse any later commit; False when a commit has already started (then wait for its answer)."""
        with self._lock:
            if self._state == "committing":
                return False
            self._state = "closed"
            return True

    def in_time(self) -> None:
        """Raise TooSlow when the deadline has passed or the gate was closed (nothing written yet)."""
        with self._lock:
            late = self._state == "closed" or (self.deadline is not None and time.monotonic() > self.deadline)
        if late:
            self.start_commit()


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
    """Adds and deletes papers in one QueryContext's store (one writer at a time in this process)."""

    def __init__(self, ctx: QueryContext) -> None:
        self.ctx = ctx
        self._extractor: Any = None
        self._load = threading.Lock()
        self._lock = threading.Lock()
        self._mapper = GraphMapper(ctx.iris)

    def extractor(self) -> Any:
        """The extractor, loaded once on the first mutation (loading spaCy takes seconds)."""
        with self._load:
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

    def add(self, papers: list[Paper], gate: WriteGate | None = None) -> list[PaperInfo]:
        """Extract and store `papers` in one atomic write (re-adding an id replaces that paper).

        Raises TooSlow, having written nothing, when the `gate` closes (deadline, time limit) before the
        commit starts; once it has started, the answer is the papers as stored."""
        gate = gate or WriteGate()
        if len(papers) > MAX_BATCH:
            raise PublicError(f"at most {MAX_BATCH} papers per addPapers request (got {len(papers)}); "
                              "use `kg build` or `kg load` for bulk loads")
        for p in papers:
            check_paper(p)
        extractor = self.extractor()
        extractions = []
        for p in papers:
            gate.in_time()
            extractions.append(extractor.extract_one(p))
        iris = [self.ctx.iris.paper(p.id) for p in papers]
        with self._lock:
            gate.start_commit()
            write_extractions(self.ctx.store, extractions, self._mapper, batch_size=len(papers) or 1,
                              index=self.ctx.index)
            generation = self.ctx.store.generation()
        # committed: read the answer without the request's time budget (a write is never reported failed
        # after it committed) and at the generation it made
        with time_budget(AFTER_COMMIT_S), at_generation(generation):
            found = papers_by_iris(self.ctx, iris)
        return [found[i] for i in iris if i in found]

    def delete(self, pid: str, gate: WriteGate | None = None) -> bool:
        """Drop one paper's graph and the entities only it linked; False when there is no such paper."""
        iri = self.ctx.iris.paper(pid)
        with self._lock:
            if not papers_by_iris(self.ctx, [iri]):
                return False
            (gate or WriteGate()).start_commit()
            delete_papers(self.ctx.store, self.ctx.iris, [pid], index=self.ctx.index)
        return True

