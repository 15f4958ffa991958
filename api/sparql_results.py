"""SPARQL 1.1 result serialisations (JSON, XML, CSV, TSV) of rows from the Store protocol."""

from __future__ import annotations

import csv
import io
import json
from xml.sax.saxutils import escape, quoteattr

from pyoxigraph import BlankNode, Literal, NamedNode, QueryResultsFormat

from api.negotiation import choose
from kg.rdf.iris import XSD
from kg.store.formats import media_type
from kg.store.types import Row, Term


def _results_type(fmt: QueryResultsFormat | None) -> str | None:
    """pyoxigraph's media type for a results format, without the `; charset=utf-8` it adds to CSV/TSV (the
    response adds the charset; negotiation compares bare types)."""
    return fmt.media_type.partition(";")[0] if fmt is not None else None


JSON, XML, CSV, TSV = (
    str(_results_type(f))
    for f in (QueryResultsFormat.JSON, QueryResultsFormat.XML, QueryResultsFormat.CSV, QueryResultsFormat.TSV)
)
# Offered per query form, in the server's order of preference; the generic aliases (pyoxigraph reads them as
# JSON or XML results) answer as the SPARQL type.
_ALIASES = ("application/json", "application/xml", "text/xml")
SELECT_TYPES = (JSON, XML, CSV, TSV, *_ALIASES)
ASK_TYPES = SELECT_TYPES
GRAPH_TYPES = tuple(media_type(name) for name in ("turtle", "nt", "jsonld", "xml"))
_STRING = XSD + "string"


def negotiate(accept: str | None, offered: tuple[str, ...] = SELECT_TYPES) -> str | None:
    """The results media type the Accept header prefers (q-values honoured), JSON for no header or
    `*/*`; None when nothing offered is acceptable (the endpoint answers 406)."""
    media = choose(accept, offered)
    if media is None:
        return None
    return _results_type(QueryResultsFormat.from_media_type(media)) or media


def _json_term(t: Term) -> dict[str, str]:
    if isinstance(t, NamedNode):
        return {"type": "uri", "value": t.value}
    if isinstance(t, BlankNode):
        return {"type": "bnode", "value": t.value}
    out = {"type": "literal", "value": t.value}
    if t.language:
        out["xml:lang"] = t.language
    elif t.datatype.value != _STRING:
        out["datatype"] = t.datatype.value
    return out


def _xml_term(t: Term) -> str:
    if isinstance(t, NamedNode):
        return f"<uri>{escape(t.value)}</uri>"
    if isinstance(t, BlankNode):
        return f"<bnode>{escape(t.value)}</bnode>"
    assert isinstance(t, Literal)
    if t.language:
        return f"<literal xml:lang={quoteattr(t.language)}>{escape(t.value)}</literal>"
    if t.datatype.value != _STRING:
        return f"<literal datatype={quoteattr(t.datatype.value)}>{escape(t.value)}</literal>"
    return f"<literal>{escape(t.value)}</literal>"


def _csv_value(t: Term) -> str:
    """A CSV field: IRIs and literals as their plain text, blank nodes as `_:label` (SPARQL 1.1 CSV §2.3)."""
    return f"_:{t.value}" if isinstance(t, BlankNode) else t.value


def select_results(variables: list[str], rows: list[Row], media: str) -> bytes:
    if media == XML:
        results = "".join(
            "<result>"
            + "".join(
                f"<binding name={quoteattr(v)}>{_xml_term(r[v])}</binding>" for v in variables if v in r
            )
            + "</result>"
            for r in rows
        )
        head = "".join(f"<variable name={quoteattr(v)}/>" for v in variables)
        return (
            f'<?xml version="1.0"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head>{head}</head>'
            f"<results>{results}</results></sparql>\n"
        ).encode()
    if media in (CSV, TSV):
        buf = io.StringIO()
        if media == CSV:
            w = csv.writer(buf, lineterminator="\r\n")
            w.writerow(variables)
            w.writerows([_csv_value(r[v]) if v in r else "" for v in variables] for r in rows)
        else:
            buf.write("\t".join("?" + v for v in variables) + "\n")
            buf.writelines("\t".join(str(r[v]) if v in r else "" for v in variables) + "\n" for r in rows)
        return buf.getvalue().encode()
    return json.dumps(
        {
            "head": {"vars": variables},
            "results": {"bindings": [{v: _json_term(t) for v, t in r.items()} for r in rows]},
        }
    ).encode()


def ask_media(media: str) -> str:
    """The media type an ASK answers in: SPARQL's CSV and TSV results formats define no boolean, so a client
    that asked for one gets the JSON boolean (RFC 9110 lets a server disregard Accept rather than answer
    406), which clients parse by its Content-Type (rdflib's SPARQLStore failed on a bare `true`)."""
    return JSON if media in (CSV, TSV) else media


def ask_result(value: bool, media: str) -> bytes:
    if media == XML:
        return (
            f'<?xml version="1.0"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head/>'
            f"<boolean>{str(value).lower()}</boolean></sparql>\n"
        ).encode()
    return json.dumps({"head": {}, "boolean": value}).encode()
