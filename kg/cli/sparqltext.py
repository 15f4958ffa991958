"""`kg sparql` helpers: predeclared prefixes, syntax errors with line and column, and warnings for
predicates and classes nothing in the store uses (a misspelt predicate otherwise just returns [])."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pyoxigraph as ox

from kg.store.formats import prefixes
from kg.store.types import Store

OWL = "http://www.w3.org/2002/07/owl#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
_DECLARED = re.compile(r"\bPREFIX\s+([A-Za-z][\w.-]*)?\s*:", re.IGNORECASE)
_POSITION = re.compile(r"error at (\d+):(\d+): (.*)", re.DOTALL)
_PNAME = re.compile(r"([A-Za-z][\w.-]*)?:[\w-]*")


def predeclared(base_iri: str) -> dict[str, str]:
    """The prefixes every `kg sparql` query may use without declaring them (kg:, dcterms:, skos:…)."""
    return {**prefixes(base_iri), "owl": OWL}


def with_prefixes(query: str, base_iri: str) -> tuple[str, int]:
    """`query` with a PREFIX line for each predeclared prefix it does not declare itself, and how many lines
    were added (to report positions in the user's own text)."""
    own = {m.group(1) or "" for m in _DECLARED.finditer(query)}
    lines = [f"PREFIX {p}: <{iri}>" for p, iri in predeclared(base_iri).items() if p not in own]
    return "\n".join([*lines, query]), len(lines)


def syntax_error(query: str, base_iri: str) -> str | None:
    """None if `query` (with the predeclared prefixes) parses; else one line naming line and column."""
    full, added = with_prefixes(query, base_iri)
    try:
        ox.Store().query(full)
    except SyntaxError as exc:
        return explain(str(exc), query, added)
    return None


def explain(message: str, query: str, added: int) -> str:
    """Oxigraph's parser message as one readable line in the user's own line numbers."""
    m = _POSITION.match(message)
    if not m:
        return "SPARQL syntax error: " + " ".join(message.split())[:200]
    line, col, what = int(m.group(1)) - added, int(m.group(2)), " ".join(m.group(3).split())
    lines = query.splitlines() or [""]
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    where = f"line {line}, column {col}"
    if "Prefix not found" in what:
        names = _PNAME.findall(text[:col])
        name = names[-1] if names else ""
        return f"unknown prefix '{name}:' at {where}; declare it with PREFIX {name}: <…>"
    expected = what.removeprefix("expected one of ").split(", ")
    readable = [e for e in expected if re.fullmatch(r"[A-Za-z]+|'[^']+'", e) and e != "_"]
    hint = f"; expected one of {', '.join(readable[:12])}" if what.startswith("expected") and readable else ""
    near = text[max(col - 1, 0):][:30].strip()
    at = f" near {near!r}" if near else " (end of line)"
    return f"SPARQL syntax error at {where}{at}{hint}"


def unknown_terms(store: Store, query: str, base_iri: str) -> list[str]:
    """Warnings for constant predicates no triple uses and classes with no instance (nor a definition)."""
    from rdflib.plugins.sparql import prepareQuery

    full, _ = with_prefixes(query, base_iri)
    try:
        prepared = prepareQuery(full)
    except Exception:  # noqa: BLE001 (rdflib's parser disagrees with Oxigraph's on some valid queries)
        return []
    preds: set[str] = set()
    classes: set[str] = set()
    for _s, p, o in _triples(prepared.algebra):
        if _is_iri(p):
            preds.add(str(p))
            if str(p) == RDF_TYPE and _is_iri(o):
                classes.add(str(o))
    short = {iri: p for p, iri in predeclared(base_iri).items()}
    warnings = []
    for p in sorted(preds):
        if not store.ask(f"ASK {{ ?s <{p}> ?o }}"):
            warnings.append(f"no triple in the store uses the predicate {_name(p, short)}")
    for c in sorted(classes):
        if not store.ask(f"ASK {{ {{ ?s a <{c}> }} UNION {{ <{c}> ?p ?o }} }}"):
            warnings.append(f"nothing in the store is a {_name(c, short)}, nor does the ontology define it")
    return warnings


def _is_iri(term: Any) -> bool:
    from rdflib import URIRef

    return isinstance(term, URIRef)


def _name(iri: str, short: dict[str, str]) -> str:
    for ns, p in sorted(short.items(), key=lambda kv: -len(kv[0])):
        if iri.startswith(ns):
            return f"{p}:{iri[len(ns):]}"
    return f"<{iri}>"


def _triples(node: Any) -> Iterator[tuple[Any, Any, Any]]:
    """Every triple pattern of a translated rdflib algebra tree."""
    if isinstance(node, dict):
        if "triples" in node and isinstance(node["triples"], list):
            for t in node["triples"]:
                if isinstance(t, tuple) and len(t) == 3:
                    yield t
        for v in node.values():
            yield from _triples(v)
    elif isinstance(node, list | tuple):
        for v in node:
            yield from _triples(v)
