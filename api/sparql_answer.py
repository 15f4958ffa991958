"""One SPARQL query answered (parse, evaluate, serialise), by the /sparql handler's threads and by its worker
processes alike: both import it from here, so neither imports the other."""

from __future__ import annotations

import pyoxigraph as ox

from api.errors import Refused as Refused  # re-exported for api/sparql.py
from api.errors import query_status
from api.sparql_results import ask_result, negotiate, select_results
from kg.query.guard import QueryRefused
from kg.query.guard import classify as classify_query
from kg.store.formats import prefixes
from kg.store.types import BadQuery, Store, StoreError, TooManyRows

Reply = tuple[int, str, bytes]  # HTTP status, media type, body

_GRAPH_TYPES = {
    "text/turtle": ox.RdfFormat.TURTLE,
    "application/n-triples": ox.RdfFormat.N_TRIPLES,
    "application/ld+json": ox.RdfFormat.JSON_LD,
    "application/rdf+xml": ox.RdfFormat.RDF_XML,
}


def classify(text: str) -> tuple[str, list[str] | None]:
    """("SelectQuery" | "AskQuery" | "ConstructQuery" | "DescribeQuery", projected variables or None);
    updates, LOAD and SERVICE are refused by the library's read-only guard (kg.query.guard)."""
    form = classify_query(text)
    return form.form, form.variables


def respond(store: Store, text: str, accept: str, cap: int, base_iri: str) -> Reply:
    """Parse, evaluate and serialise one query: (status, media type, body), errors as plain text."""
    try:
        form, variables = classify(text)
        if form == "SelectQuery":
            rows = store.select(text, None, None, cap)
            if variables is None:
                variables = list(dict.fromkeys(v for r in rows for v in r))
            media = negotiate(accept)
            return 200, media, _bytes(select_results(variables, rows, media))
        if form == "AskQuery":
            media = negotiate(accept)
            return 200, media, _bytes(ask_result(store.ask(text), media))
        triples = store.construct(text)
        if len(triples) > cap:
            raise TooManyRows(f"query returned more than {cap} triples; add a LIMIT or narrow it")
        media = next((m for m in _GRAPH_TYPES if m in accept), "text/turtle")
        body = ox.serialize(triples, format=_GRAPH_TYPES[media], prefixes=prefixes(base_iri))
        return 200, media, body or b""
    except QueryRefused as exc:
        return _plain(query_status(exc), str(exc))
    except TooManyRows as exc:
        return _plain(413, str(exc))
    except BadQuery as exc:
        return _plain(400, str(exc))
    except StoreError:
        return _plain(500, "the store could not answer this query")


def _bytes(body: str | bytes) -> bytes:
    return body.encode("utf-8") if isinstance(body, str) else body


def _plain(status: int, message: str) -> Reply:
    return status, "text/plain", message.encode("utf-8")
