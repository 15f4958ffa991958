"""kg.query.guard: read-only SPARQL refused with domain errors (no HTTP in them); api/errors.py maps them."""

from __future__ import annotations

import pytest

import kg.query.guard as guard
from api.errors import QUERY_STATUS, query_status
from kg.query.guard import MalformedQuery, QueryRefused, ServiceRefused, UpdateRefused, classify


@pytest.mark.parametrize(("text", "kind", "status"), [
    ("SELEC ?s WHERE {", MalformedQuery, 400),
    ("INSERT DATA { <urn:a> <urn:b> <urn:c> }", UpdateRefused, 403),
    ("LOAD <http://example.org/x.ttl>", UpdateRefused, 403),
    ("SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }", ServiceRefused, 403),
])
def test_refusals_are_domain_errors(text: str, kind: type[QueryRefused], status: int) -> None:
    with pytest.raises(kind) as caught:
        classify(text)
    assert not hasattr(caught.value, "status")  # HTTP lives in api/, not in the library
    assert "\n" not in str(caught.value)
    assert query_status(caught.value) == status


def test_every_refusal_kind_has_a_status() -> None:
    kinds = {v for v in vars(guard).values() if isinstance(v, type) and issubclass(v, QueryRefused)}
    assert kinds - {QueryRefused} == set(QUERY_STATUS)


def test_queries_pass_with_their_form_and_projection() -> None:
    form = classify("SELECT ?s ?label WHERE { ?s ?p ?label }")
    assert (form.form, form.variables) == ("SelectQuery", ["s", "label"])
    assert classify("ASK { ?s ?p ?o }").form == "AskQuery"
