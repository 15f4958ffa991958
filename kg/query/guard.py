"""Read-only SPARQL: classify a query text and refuse updates, LOAD and SERVICE before it reaches a store."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rdflib.plugins.sparql.parser import parseQuery, parseUpdate
from rdflib.plugins.sparql.parserutils import CompValue


class QueryRefused(Exception):
    """A query that may not run here; the message is one line for the user (the API maps each kind to an
    HTTP status in api/errors.py: the library knows nothing of HTTP)."""


class MalformedQuery(QueryRefused):
    """Neither a SPARQL query nor a SPARQL update."""


class UpdateRefused(QueryRefused):
    """A SPARQL update (INSERT, DELETE, LOAD, DROP...) where only queries may run."""


class ServiceRefused(QueryRefused):
    """A federated query (SERVICE), which would make this machine call other endpoints."""


ReadOnlyViolation = QueryRefused  # the name `kg sparql` catches


@dataclass(frozen=True, slots=True)
class QueryForm:
    """What a query is: "SelectQuery", "AskQuery", "ConstructQuery" or "DescribeQuery", and its projection."""

    form: str
    variables: list[str] | None


def _walk(node: Any) -> Iterator[Any]:
    yield node
    children = node.values() if isinstance(node, dict) else node if isinstance(node, list | tuple) else ()
    if hasattr(node, "asList") and not isinstance(node, dict):
        children = list(node)
    for child in children:
        yield from _walk(child)


def classify(text: str) -> QueryForm:
    """Parse `text` as a SPARQL query; updates (INSERT, DELETE, LOAD, DROP...) and SERVICE are refused."""
    try:
        parsed = parseQuery(text)
    except Exception as exc:
        try:
            parseUpdate(text)
        except Exception:
            raise MalformedQuery("malformed SPARQL query") from None
        raise UpdateRefused(
            "this endpoint is read-only: SPARQL updates (INSERT, DELETE, LOAD, DROP...) are refused"
        ) from exc
    if any(isinstance(n, CompValue) and n.name == "ServiceGraphPattern" for n in _walk(parsed)):
        raise ServiceRefused("SERVICE (federated queries) is not allowed on this endpoint")
    query = parsed[1]
    variables = None
    if query.name == "SelectQuery" and "projection" in query:
        variables = [str(p["var"] if "var" in p else p["evar"]) for p in query["projection"]]
    return QueryForm(query.name, variables)
