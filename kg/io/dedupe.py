"""Within one input, the same paper is yielded once; a record id reused by a *different* paper is replaced.

Same id and same content (title + abstract, normalised) → a duplicate: reported and skipped. Same id,
different content → the id is unreliable (real corpora contain e.g. 633 records all with id
"cvpr2016-None"): the later paper keeps its place under its fallback id (DOI, URL, else content hash)
and a warning says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from kg.io.identity import content_hash_id, paper_id
from kg.types import Paper, ReadProblem


def location_of(paper: Paper, name: str) -> str:
    """ "line 12" / "record 3" from a paper's source "name:12" / "name:record 3"."""
    tail = (paper.source or "")[len(name) + 1 :]
    return f"line {tail}" if tail.isdigit() else tail or "file"


@dataclass(slots=True)
class Deduper:
    """Remembers the ids (and content) of the papers yielded so far from one input."""

    name: str
    _seen: dict[str, tuple[int, str]] = field(default_factory=dict)  # id → (hash of the text, location)

    def admit(self, paper: Paper) -> list[Paper | ReadProblem]:
        """[paper], [problem] for a duplicate, or [renamed paper, warning] for a reused id."""
        where = location_of(paper, self.name)
        content = hash((paper.title, paper.abstract))  # both already cleaned; cheap, per-process
        seen = self._seen.get(paper.id)
        if seen is None:
            self._seen[paper.id] = (content, where)
            return [paper]
        if seen[0] == content:
            return [ReadProblem(self.name, where, f"duplicate of paper {paper.id!r} at {seen[1]}; skipped")]
        new_id = paper_id(None, paper.doi, paper.url, paper.title, paper.abstract)
        if new_id in self._seen:
            new_id = content_hash_id(paper.title, paper.abstract)
        if new_id in self._seen:
            first = self._seen[new_id][1]
            return [ReadProblem(self.name, where, f"duplicate of paper {new_id!r} at {first}; skipped")]
        self._seen[new_id] = (content, where)
        note = f"id {paper.id!r} already used by a different paper at {seen[1]}; using {new_id!r}"
        return [replace(paper, id=new_id), ReadProblem(self.name, where, note)]
