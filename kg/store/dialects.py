"""Per-engine SPARQL endpoint layout and quirks, kept in one place (Virtuoso will be added here)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True, slots=True)
class Endpoints:
    """Where to send queries, updates and Graph Store Protocol requests (None: not supported)."""

    query: str
    update: str
    store: str | None


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one engine lays out its endpoints and makes the default graph the union of named graphs."""

    name: str
    query_path: str
    update_path: str
    store_path: str | None
    # extra URL parameters sent with every query (Oxigraph: `union-default-graph`)
    union_params: tuple[tuple[str, str], ...] = ()

    def endpoints(self, location: str) -> Endpoints:
        root = location.rstrip("/")
        return Endpoints(root + self.query_path, root + self.update_path,
                         root + self.store_path if self.store_path is not None else None)


# Oxigraph server (`oxigraph serve`): the union default graph is asked for per query, so a server
# started without --union-default-graph still answers like the embedded store.
OxigraphDialect = Dialect("oxigraph", "/query", "/update", "/store",
                          union_params=(("union-default-graph", ""),))

# Any SPARQL 1.1 endpoint at one URL for query and update, without Graph Store Protocol. Its default
# graph must already be the union of the named graphs (a server setting, e.g. Fuseki unionDefaultGraph).
GenericDialect = Dialect("generic", "", "", None)

DIALECTS = {d.name: d for d in (OxigraphDialect, GenericDialect)}


def guess_dialect(location: str) -> Dialect:
    """Oxigraph for a bare `http://host:port`, generic for an explicit endpoint path (`/sparql`)."""
    return OxigraphDialect if urlsplit(location).path in ("", "/") else GenericDialect
