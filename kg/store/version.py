"""The store format version: stamped in the meta graph when a store is created, checked on every open.

A store written by an older paperkg (an older layout) is refused with one line naming both versions and
`kg migrate`; a store newer than this code is refused and never written to. Stores from before format
versions existed carry no stamp but do carry a generation token or an ontology graph: they are version 1.

Changing the layout: bump FORMAT_VERSION, say what changed in CHANGES, and add the step from the previous
version to kg.migrate.STEPS (which papers need it, how one batch of whole papers is rewritten).
"""

from __future__ import annotations

from collections.abc import Callable

import pyoxigraph as ox

from kg.store.types import Store, StoreError
from kg.store.writes import Meta

FORMAT_VERSION = 5
# What each version changed in the layout (README "Upgrading" and `kg migrate` print these).
CHANGES: dict[int, str] = {
    1: "paper graphs, link nodes, shared entities graph, ontology and vocabulary graphs (no stamp)",
    2: "each paper carries kg:extractorVersion (the extractor version that wrote its links);"
       " the format version is stamped in the meta graph",
    3: "aggregates kept at write time (paper counts per entity and year, the graph's statistics) in"
       " graphs under {base}graph/meta/",
    4: "each entity's papers kept at write time in identifier order (blocks under"
       " {base}graph/meta/papers/), so a page of an entity's papers reads only the blocks it reaches",
    5: "a link's confidence on its shared rule node ({base}rule/{rule}/{version}/{confidence}: kg:confidence,"
       " kg:lowConfidence), not on every link node; a paper's link node is named by its plain link"
       " (kg.rdf.iris.Iris.link) and no longer repeats it as rdf:predicate / rdf:object",
}


class StoreFormatError(StoreError):
    """The store's layout is not the one this code reads (older: migrate it; newer: upgrade paperkg)."""

    def __init__(self, message: str, found: int, expected: int) -> None:
        super().__init__(message)
        self.found = found
        self.expected = expected


def detect_format(store: Store, meta: Meta) -> int | None:
    """The store's format version: its stamp, 1 for an unstamped store holding data, None when empty."""
    found = []
    for row in store.select(meta.format_query()):
        v = row.get("version")
        if isinstance(v, ox.Literal):
            try:
                found.append(int(v.value))
            except ValueError:
                raise StoreError(
                    f"store {store.location} has an unreadable format version {v.value!r}") from None
    if found:
        return max(found)
    if store.select(meta.query()):  # written (a generation token) by a paperkg without format versions
        return 1
    if store.ask(f"ASK {{ GRAPH {meta.ontology_graph} {{ ?s ?p ?o }} }}"):
        return 1
    return None


def check_format(store: Store, meta: Meta, write: Callable[[str], None], *, read_only: bool,
                 upgrade: bool = False) -> int:
    """Check the layout on open; stamp a new (empty) store. Returns the store's format version.

    `upgrade=True` (only `kg migrate`) accepts an older layout; a newer one is always refused.
    """
    found = detect_format(store, meta)
    loc = store.location
    if found is None:
        if not read_only:
            write(meta.stamp(FORMAT_VERSION))
        return FORMAT_VERSION
    if found > FORMAT_VERSION:
        raise StoreFormatError(
            f"store {loc} has format version {found}, newer than this paperkg reads (version"
            f" {FORMAT_VERSION}); upgrade paperkg to use it (the store was not changed)",
            found, FORMAT_VERSION)
    if found < FORMAT_VERSION and not upgrade:
        raise StoreFormatError(
            f"store {loc} has format version {found}; this paperkg reads version {FORMAT_VERSION}:"
            f" run `kg migrate --store {loc}` to upgrade it in place",
            found, FORMAT_VERSION)
    return found
