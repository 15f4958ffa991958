"""Binding values into SPARQL safely: values travel in a trailing VALUES clause as N-Triples terms.

pyoxigraph's `substitutions=` only accepts projected variables and remote endpoints have no binding API,
so every backend binds the same way: the query text is ours, each value is serialised by pyoxigraph
(which escapes quotes, newlines and braces), and nothing a user typed becomes SPARQL syntax.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from kg.store.types import Term

_VAR = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def bind(query: str, bindings: Mapping[str, Term] | None) -> str:
    """`query` with a trailing `VALUES (?a ?b) { (t1 t2) }` holding the bound values."""
    if not bindings:
        return query
    names = list(bindings)
    for name in names:
        if not _VAR.match(name):
            raise ValueError(f"not a SPARQL variable name: {name!r}")
    head = " ".join("?" + n for n in names)
    row = " ".join(str(bindings[n]) for n in names)
    return f"{query}\nVALUES ({head}) {{ ({row}) }}"
