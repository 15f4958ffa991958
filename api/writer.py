"""Writes behind the mutations: extract papers (extractor loaded on first use), then store them through the
library's one write path (kg.write), which also keeps the search index and the entities graph in step.

A write either commits and says so, or writes nothing and says that: the request's deadline is checked
after extraction and before the commit, and once the commit has started the answer waits for it (the
time-limit middleware never cuts a committing request short). Ids are stable, so a retry is idempotent.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from api.errors import PublicError
from kg.io.clean import drop_invisible
from kg.io.records import (
    MAX_ABSTRACT_CHARS,
    MAX_AUTHORS,
    MAX_TITLE_CHARS,
    MAX_YEAR,
    MIN_YEAR,
    RawFields,
    as_text,
    build_paper,
    parse_authors,
    parse_year,
)
from kg.query import QueryContext, papers_by_iris
from kg.query.context import time_budget
from kg.query.memo import at_generation
from kg.query.model import PaperInfo
from kg.rdf.mapping import GraphMapper
from kg.types import Paper, ReadProblem
from kg.write import delete_papers, write_extractions

MAX_FIELD = 2_000  # characters of an id, venue, url or author name
INPUT_FIELDS = ("id", "title", "abstract", "authors", "venue", "year", "url")  # PaperInput's, by name
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


def input_problem(paper: Mapping[str, Any], where: str) -> str | None:
    """What makes one `addPapers` input unfit to store, as sent (None: nothing): the file readers' bounds
    (kg.io.records: abstract, title, author count, years), refused here rather than cut, since the client is
    there to be told; ids, venues, urls and author names at most MAX_FIELD characters; an id may hold no
    control or invisible character (the readers drop those, and the client would not find its paper)."""
    def text(name: str) -> str | None:
        value = paper.get(name)
        return value if isinstance(value, str) else None  # other types: GraphQL's coercion says so

    abstract, title, pid = text("abstract"), text("title"), text("id")
    if abstract is not None and len(abstract) > MAX_ABSTRACT_CHARS:
        return f"{where}.abstract has {len(abstract):,} characters; at most {MAX_ABSTRACT_CHARS:,}"
    if abstract is not None and not abstract.strip():
        return f"{where}.abstract is empty; each paper needs an abstract"
    if title is not None and len(title) > MAX_TITLE_CHARS:
        return f"{where}.title has {len(title):,} characters; at most {MAX_TITLE_CHARS:,}"
    authors = paper.get("authors")
    if isinstance(authors, list):
        if len(authors) > MAX_AUTHORS:
            return f"{where}.authors has {len(authors):,} names; at most {MAX_AUTHORS:,}"
        for i, name in enumerate(authors):
            if isinstance(name, str) and len(name) > MAX_FIELD:
                return f"{where}.authors[{i}] has {len(name):,} characters; at most {MAX_FIELD:,}"
    for name in ("id", "venue", "url"):
        value = text(name)
        if value is not None and len(value) > MAX_FIELD:
            return f"{where}.{name} has {len(value):,} characters; at most {MAX_FIELD:,}"
    if pid is not None and (not pid.strip() or drop_invisible(pid) != pid):
        return f"{where}.id {pid[:60]!r} is empty or holds a control or invisible character"
    year = paper.get("year")
    if isinstance(year, int) and not isinstance(year, bool) and not MIN_YEAR <= year <= MAX_YEAR:
        return f"{where}.year {year} is outside {MIN_YEAR}-{MAX_YEAR}"
    return None


def records_of(inputs: list[Mapping[str, Any]]) -> list[Paper]:
    """The papers `addPapers` stores, cleaned and identified as the file readers do (kg.io.records: text
    cleaning, author names, ids from the record, its DOI or URL, else its content); PublicError for an
    input `input_problem` refuses, or one the cleaning leaves without an abstract."""
    out = []
    for i, p in enumerate(inputs):
        where = f"papers[{i}]"
        if (problem := input_problem(p, where)) is not None:
            raise PublicError(problem)
        raw = RawFields(id=as_text(p.get("id")), title=as_text(p.get("title")),
                        abstract=as_text(p.get("abstract")), authors=parse_authors(p.get("authors")),
                        venue=as_text(p.get("venue")), year=parse_year(p.get("year")),
                        url=as_text(p.get("url")))
        built = build_paper(raw, "addPapers", where, "api")
        paper, *problems = built
        if problems or not isinstance(paper, Paper) or not paper.abstract:
            said = "; ".join(str(x.message) for x in built if isinstance(x, ReadProblem))
            raise PublicError(f"{where}: {said or 'the abstract is empty once cleaned'}")
        out.append(paper)
    return out


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

