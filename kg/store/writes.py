"""SPARQL UPDATE texts shared by every backend: graph replacement, drops and the generation token.

Each write is ONE update request, so on Oxigraph it is one transaction: the old graphs go, the new
quads land and the generation token changes together, or nothing happens. Graph IRIs are validated
by pyoxigraph (`NamedNode`) and quads are serialised by it, so no caller text becomes SPARQL syntax.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Mapping, Sequence

import pyoxigraph as ox


class Meta:
    """The `{base}graph/meta` graph: `<meta> kg:generation "token"` and `<meta> kg:formatVersion N`."""

    def __init__(self, base_iri: str) -> None:
        base = base_iri if base_iri.endswith(("/", "#")) else base_iri + "/"
        self.graph = ox.NamedNode(base + "graph/meta")
        self.predicate = ox.NamedNode(base + "ontology#generation")
        self.format_predicate = ox.NamedNode(base + "ontology#formatVersion")
        self.ontology_graph = ox.NamedNode(base + "graph/ontology")
        self.iri = self.graph.value

    def stamp(self, version: int) -> str:
        """Update text replacing the store's format version stamp (kg.store.version) with `version`."""
        g, p = self.graph, self.format_predicate
        v = ox.Literal(str(int(version)), datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer"))
        return (
            f"DELETE WHERE {{ GRAPH {g} {{ {g} {p} ?old }} }} ;\n"
            f"INSERT DATA {{ GRAPH {g} {{ {g} {p} {v} }} }}"
        )

    def format_query(self) -> str:
        """SELECT ?version stamps (no row in a store written before format versions existed)."""
        g = self.graph
        return f"SELECT ?version WHERE {{ GRAPH {g} {{ {g} {self.format_predicate} ?version }} }}"

    def bump(self) -> str:
        """Update text replacing the generation token with a fresh one (time-ordered, unique)."""
        token = ox.Literal(f"{time.time_ns():x}-{uuid.uuid4().hex[:8]}")
        g, p = self.graph, self.predicate
        return (
            f"DELETE WHERE {{ GRAPH {g} {{ {g} {p} ?old }} }} ;\n"
            f"INSERT DATA {{ GRAPH {g} {{ {g} {p} {token} }} }}"
        )

    def query(self) -> str:
        """SELECT ?token of the current generation (no row when the store was never written)."""
        return f"SELECT ?token WHERE {{ GRAPH {self.graph} {{ {self.graph} {self.predicate} ?token }} }}"


def _iri(graph: str) -> str:
    return str(ox.NamedNode(graph))  # raises ValueError on anything that is not an IRI


def replace_update(
    graphs: Mapping[str, Sequence[ox.Quad]], meta: Meta, shared: Sequence[ox.Quad] = ()
) -> str:
    """One update: delete the content of every graph, insert the new triples, bump the generation.

    The key is the graph; each quad's own graph name is ignored (its triple lands in the key's graph).
    `shared` quads are added to their own graphs (never emptied here) in the same transaction.
    A single `DELETE … WHERE { VALUES ?g {…} }` measured 27% faster than one DROP per graph (500 papers).
    """
    full = {_iri(g): quads for g, quads in graphs.items() if quads}
    empty = [_iri(g) for g, quads in graphs.items() if not quads]
    parts = [f"DROP SILENT GRAPH {g}" for g in empty]
    if full:
        parts.append(
            "DELETE { GRAPH ?g { ?s ?p ?o } } WHERE { VALUES ?g { "
            + " ".join(full)
            + " } GRAPH ?g { ?s ?p ?o } }"
        )
    blocks = [f"GRAPH {g} {{\n{_ntriples(quads)}}}" for g, quads in full.items()]
    blocks += [f"GRAPH {g} {{\n{_ntriples(quads)}}}" for g, quads in group_by_graph(shared).items()]
    if blocks:
        parts.append("INSERT DATA {\n" + "\n".join(blocks) + "\n}")
    parts.append(meta.bump())
    return " ;\n".join(parts)


def group_by_graph(quads: Sequence[ox.Quad]) -> dict[str, list[ox.Quad]]:
    """Quads grouped by their named graph (as serialised IRIs); default-graph quads are refused."""
    out: dict[str, list[ox.Quad]] = {}
    for q in quads:
        if not isinstance(q.graph_name, ox.NamedNode):
            raise ValueError("shared quads must name their graph")
        out.setdefault(str(q.graph_name), []).append(q)
    return out


def _ntriples(quads: Sequence[ox.Quad]) -> str:
    return (ox.serialize([q.triple for q in quads], format=ox.RdfFormat.N_TRIPLES) or b"").decode()


def drop_update(graph_iris: Iterable[str], meta: Meta) -> str | None:
    """One update dropping whole graphs (and bumping the generation), or None when there is none."""
    drops = [f"DROP SILENT GRAPH {_iri(g)}" for g in graph_iris]
    return " ;\n".join([*drops, meta.bump()]) if drops else None
