"""kg.query.guard: read-only SPARQL refused with domain errors (no HTTP in them); api/errors.py maps them."""

from __future__ import annotations

import re

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


def test_a_syntax_error_says_where_it_is() -> None:
    with pytest.raises(MalformedQuery) as caught:
        classify("SELECT ?s\nWHERE { ?s ?p }")
    assert str(caught.value) == "malformed SPARQL query at line 2, column 9, near '?s ?p }'"


def test_a_misspelt_keyword_says_where_it_is() -> None:
    with pytest.raises(MalformedQuery) as caught:
        classify("SELEC ?s WHERE { ?s ?p ?o }")
    assert str(caught.value) == ("malformed SPARQL query at line 1, column 1, "
                                 "near 'SELEC ?s WHERE { ?s ?p ?o }'")


@pytest.mark.parametrize(("text", "decoded"), [
    (r'SELECT * { ?s ?p "\u0041" }', 'SELECT * { ?s ?p "A" }'),
    (r"SELECT * { ?s ?p <urn:\U0000006A> }", "SELECT * { ?s ?p <urn:j> }"),
    (r'SELECT * { ?s ?p "\uD83D\uDE00" }', 'SELECT * { ?s ?p "\U0001F600" }'),
    (r'SELECT * { ?s ?p "\\n" }', r'SELECT * { ?s ?p "\\n" }'),
])
def test_the_form_carries_the_text_with_its_escapes_decoded(text: str, decoded: str) -> None:
    assert classify(text).text == decoded


@pytest.mark.parametrize(("text", "message"), [
    (r'SELECT * { ?s ?p "\u005Cu0041" }', r"its escapes decode to another escape (\u0041)"),
    (r'SELECT * { ?s ?p "\uDFFF" }', r"escape \uDFFF is not a Unicode character"),
    (r'SELECT * { ?s ?p "\uD83D" }', r"escape \uD83D is a lone surrogate"),
    (r'SELECT * { ?s ?p "\U00110000" }', r"escape \U00110000 is not a Unicode character"),
])
def test_escapes_that_are_no_character_are_malformed(text: str, message: str) -> None:
    with pytest.raises(MalformedQuery, match=re.escape(message)):
        classify(text)
