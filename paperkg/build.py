"""Build a store from paper files from Python, through the same write path as `kg build`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kg.settings import DEFAULT_BASE_IRI
from kg.store.types import StoreError
from kg.types import ReadProblem


@dataclass(frozen=True, slots=True)
class Built:
    """What `build` did: papers written, one line per bad record (its file and line), and the time taken."""

    papers: int
    problems: tuple[str, ...]
    seconds: float


def build(inputs: Iterable[str | Path], store: str | Path = "./kg-data", *, base_iri: str = DEFAULT_BASE_IRI,
          workers: int = 1) -> Built:
    """Read `inputs` (any format `kg build` reads), extract and write them: a new store is made beside
    `store` and renamed into place when complete; an existing one has these papers' graphs replaced."""
    from kg.build import BuildSummary, build_fresh, build_into_store, is_fresh, read_all, unique_last
    from kg.store import open_store
    from paperkg.graph import QueryError

    problems: list[ReadProblem] = []
    paths = [Path(i) for i in inputs]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise QueryError(f"{missing[0]}: no such file")
    papers = unique_last(read_all(paths, problems.append))
    summary = BuildSummary(problems=len(problems), inputs=[str(p) for p in paths])
    location = str(store)
    try:
        if is_fresh(location):
            build_fresh(location, papers, base_iri, workers=workers, summary=summary)
        else:
            st = open_store(location, base_iri=base_iri)
            try:
                build_into_store(st, papers, base_iri, workers=workers, summary=summary)
            finally:
                st.close()
    except (StoreError, OSError) as exc:
        raise QueryError(f"{location}: {str(exc).splitlines()[0]}") from None
    return Built(summary.papers, tuple(str(p) for p in problems), summary.seconds)
