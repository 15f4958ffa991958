"""What a `kg migrate` step hands around: the papers it still has to rewrite (kept apart from kg.migrate so
a step in its own module, such as kg.migrate_links, needs no import of the runner)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pending:
    """One paper still in the old layout: its graph, its node and what the step needs to know."""

    graph: str
    paper: str
    value: str
