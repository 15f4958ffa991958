"""SPARQL text helpers: prefixes, VALUES blocks built from pyoxigraph terms, and term conversion.

Every value that came from a user becomes a pyoxigraph term first (NamedNode validates the IRI,
Literal escapes quotes, braces and newlines) and is written with `str(term)`, its N-Triples form:
user text is never SPARQL syntax. Multi-row VALUES blocks sit inside WHERE, where FILTERs see them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar

from pyoxigraph import Literal, NamedNode

from kg.rdf.iris import DCTERMS, PROV, RDF, SCHEMA, SKOS, XSD, Iris
from kg.store.types import Row, Term
from kg.types import PAPER_RELATIONS


def prefixes(iris: Iris) -> str:
    return (
        f"PREFIX kg: <{iris.ns}>\nPREFIX dcterms: <{DCTERMS}>\nPREFIX skos: <{SKOS}>\n"
        f"PREFIX rdf: <{RDF}>\nPREFIX schema: <{SCHEMA}>\nPREFIX prov: <{PROV}>\nPREFIX xsd: <{XSD}>\n"
    )


T = TypeVar("T")
CHUNK = 200  # nodes per VALUES block when describing many: each answer stays far below a row cap (10,000)


def chunks(items: Sequence[T], size: int = CHUNK) -> Iterator[Sequence[T]]:
    """`items` in slices of `size`: a remote endpoint's row cap bounds each query, not the whole question."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def values(var: str, terms: Iterable[NamedNode | Literal]) -> str:
    """`VALUES ?var { t1 t2 ... }`; an empty list yields a block that matches nothing."""
    body = " ".join(str(t) for t in terms if isinstance(t, NamedNode | Literal))
    return f"VALUES ?{var} {{ {body} }}"


def one_of(var: str, terms: Iterable[NamedNode | Literal]) -> str:
    """`FILTER(?var IN (...))`: cheaper than a second VALUES block when the pattern's other end is bound."""
    return f"FILTER(?{var} IN ({', '.join(str(t) for t in terms)}))"


def iri_or_none(value: str) -> NamedNode | None:
    """A NamedNode for `value`, or None when it is not a valid IRI (user ids are data, never syntax)."""
    try:
        return NamedNode(value)
    except ValueError:
        return None


def paper_relations(iris: Iris) -> list[NamedNode]:
    return [NamedNode(iris.term(r)) for r in PAPER_RELATIONS]


def text(row: Row, var: str) -> str | None:
    term: Term | None = row.get(var)
    return None if term is None else term.value


def integer(row: Row, var: str) -> int:
    raw = text(row, var)
    try:
        return int(raw) if raw is not None else 0
    except ValueError:
        return 0


def number(row: Row, var: str) -> float | None:
    raw = text(row, var)
    try:
        return float(raw) if raw is not None else None
    except ValueError:
        return None
