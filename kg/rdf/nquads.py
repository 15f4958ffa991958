"""Extractions as N-Quads text: the mapping a worker process does for `kg build --out`, a fresh build and
the cluster, so the parent only appends text (one GraphMapper per process and base IRI)."""

from __future__ import annotations

from kg.rdf.iris import Iris
from kg.rdf.mapping import GraphMapper
from kg.types import Extraction

_MAPPERS: dict[str, GraphMapper] = {}


def nquads_records(exs: list[Extraction], base_iri: str) -> list[tuple[Extraction, str, int]]:
    """Each extraction with its paper's N-Quads text (graph and entity descriptions) and quad count."""
    mapper = _MAPPERS.get(base_iri)
    if mapper is None:
        mapper = _MAPPERS[base_iri] = GraphMapper(Iris(base_iri))
    out: list[tuple[Extraction, str, int]] = []
    for ex in exs:
        quads = mapper.paper_quads(ex)
        out.append((ex, "".join(f"{q} .\n" for q in quads), len(quads)))
    return out
