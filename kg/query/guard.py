"""Read-only SPARQL: classify a query text and refuse updates, LOAD and SERVICE before it reaches a store.

The guard and the engine must read the same characters. SPARQL 1.1 (section 19.2) processes the codepoint
escapes `\\uXXXX` and `\\UXXXXXXXX` anywhere in the text before parsing; rdflib does that, Oxigraph only
inside strings and IRIs, so `"\\u0022 … # …" SERVICE <…>` was a comment to one and a federated query to the
other. `classify` decodes the escapes once, as the specification says, and returns the decoded text: the
guard parses it and the engine runs it, and a text whose decoding still holds an escape (`\\u005Cu0022`,
which either parser would decode a second time, differently) is refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pyparsing import ParseBaseException
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
    """What a query is: "SelectQuery", "AskQuery", "ConstructQuery" or "DescribeQuery", its projection, and
    the text to run (its codepoint escapes decoded: exactly what the guard read)."""

    form: str
    variables: list[str] | None
    text: str = ""


# SPARQL 1.1 section 19.2: \u with exactly four hex digits, \U with exactly eight.
_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
# What any parser might still read as an escape after decoding (rdflib takes \u and \U with 4 or 8 digits).
_LEFT_OVER = re.compile(r"\\[uU][0-9A-Fa-f]{4}")


def decode_escapes(text: str) -> str:
    """`text` with its codepoint escapes replaced by their characters (a UTF-16 surrogate pair written as two
    escapes becomes its one character); an escape of a lone surrogate or past U+10FFFF, or a decoding that
    spells another escape, is refused as malformed."""
    if "\\" not in text:
        return text
    out: list[str] = []
    last = 0
    pending_high: tuple[int, int] | None = None  # (code, position) of a high surrogate awaiting its pair
    for m in _ESCAPE.finditer(text):
        code = int(m.group(1) or m.group(2), 16)
        if pending_high is not None:
            high, at = pending_high
            pending_high = None
            if 0xDC00 <= code <= 0xDFFF and m.start() == at:
                out.append(chr(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)))
                last = m.end()
                continue
            raise MalformedQuery(f"malformed SPARQL query: escape {text[at - 6:at]} is a lone surrogate, "
                                 "not a character")
        out.append(text[last:m.start()])
        last = m.end()
        if 0xD800 <= code <= 0xDBFF:
            pending_high = (code, m.end())
        elif 0xDC00 <= code <= 0xDFFF or code > 0x10FFFF:
            raise MalformedQuery(f"malformed SPARQL query: escape {m.group(0)} is not a Unicode character")
        else:
            out.append(chr(code))
    if pending_high is not None:
        at = pending_high[1]
        raise MalformedQuery(f"malformed SPARQL query: escape {text[at - 6:at]} is a lone surrogate, "
                             "not a character")
    out.append(text[last:])
    decoded = "".join(out)
    if (left := _LEFT_OVER.search(decoded)) is not None:
        raise MalformedQuery(f"malformed SPARQL query: its escapes decode to another escape "
                             f"({left.group(0)}); write the character itself")
    return decoded


def _walk(node: Any) -> Iterator[Any]:
    yield node
    children = node.values() if isinstance(node, dict) else node if isinstance(node, list | tuple) else ()
    if hasattr(node, "asList") and not isinstance(node, dict):
        children = list(node)
    for child in children:
        yield from _walk(child)


def _where(exc: ParseBaseException) -> str:
    """Where pyparsing stopped, as a line and column and the text there."""
    near = " ".join(exc.line[max(0, exc.col - 1):exc.col + 80].split())[:40]
    return f"line {exc.lineno}, column {exc.col}" + (f", near {near!r}" if near else "")


def classify(text: str) -> QueryForm:
    """Parse `text` as a SPARQL query; updates (INSERT, DELETE, LOAD, DROP...) and SERVICE are refused, and
    a syntax error says where it is. The returned form carries the decoded text the engine must run."""
    decoded = decode_escapes(text)
    try:
        parsed = parseQuery(decoded)
    except Exception as exc:
        try:
            parseUpdate(decoded)
        except Exception:
            where = f" at {_where(exc)}" if isinstance(exc, ParseBaseException) else ""
            raise MalformedQuery(f"malformed SPARQL query{where}") from None
        raise UpdateRefused(
            "this endpoint is read-only: SPARQL updates (INSERT, DELETE, LOAD, DROP...) are refused"
        ) from exc
    if any(isinstance(n, CompValue) and n.name == "ServiceGraphPattern" for n in _walk(parsed)):
        raise ServiceRefused("SERVICE (federated queries) is not allowed on this endpoint")
    query = parsed[1]
    variables = None
    if query.name == "SelectQuery" and "projection" in query:
        variables = [str(p["var"] if "var" in p else p["evar"]) for p in query["projection"]]
    return QueryForm(query.name, variables, decoded)
