"""kg.store.sparql: values are bound as escaped terms, never as syntax."""

import pyoxigraph as ox
import pytest

from kg.store.sparql import bind


def test_no_bindings_leaves_query_unchanged() -> None:
    assert bind("SELECT * WHERE { ?s ?p ?o }", None) == "SELECT * WHERE { ?s ?p ?o }"


def test_hostile_literal_stays_one_literal() -> None:
    store = ox.Store()
    store.add(ox.Quad(ox.NamedNode("http://a"), ox.NamedNode("http://p"), ox.Literal("x"), ox.NamedNode("http://g")))
    q = bind("SELECT ?s WHERE { ?s <http://p> ?o }", {"o": ox.Literal('x" } ; DROP ALL ; { "')})
    found = store.query(q, use_default_graph_as_union=True)
    assert isinstance(found, ox.QuerySolutions) and list(found) == []
    assert len(store) == 1


def test_variable_names_are_checked() -> None:
    with pytest.raises(ValueError):
        bind("SELECT * WHERE { ?s ?p ?o }", {"o) } DROP ALL {": ox.Literal("x")})
