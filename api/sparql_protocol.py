"""The SPARQL 1.1 Protocol around one query: reading the request (query, its RDF dataset, Accept), evaluating
it against that dataset, content negotiation with q-values (406 when nothing offered is acceptable), the
Service Description served at GET /sparql without a query, and the VoID description of the dataset.

The dataset: `default-graph-uri` / `named-graph-uri` when given (they override FROM / FROM NAMED); else the
query's own FROM / FROM NAMED; else the default graph is the union of the named graphs — a set, since the
store keeps no triple in two graphs (kg.rdf.mapping, kg.write).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import parse_qs

import pyoxigraph as ox
from starlette.requests import Request

from api.errors import Refused, query_status
from api.negotiation import choose
from api.sparql_results import GRAPH_TYPES, SELECT_TYPES, ask_media, ask_result, negotiate, select_results
from kg.query.guard import QueryForm, QueryRefused
from kg.query.guard import classify as classify_query
from kg.rdf.iris import Iris
from kg.store.formats import prefixes
from kg.store.types import BadQuery, Row, Store, StoreError, TooManyRows

Reply = tuple[int, str, bytes]  # HTTP status, media type, body
_FORM = "application/x-www-form-urlencoded"


def _rdf_format(media: str) -> ox.RdfFormat:
    """pyoxigraph's format for a negotiated graph media type (GRAPH_TYPES are all RDF media types)."""
    fmt = ox.RdfFormat.from_media_type(media)
    if fmt is None:
        raise ValueError(f"not an RDF media type: {media}")
    return fmt

_DIRECT = "application/sparql-query"
_UPDATE = "application/sparql-update"
_READ_ONLY = "this endpoint is read-only: updates are refused"


@dataclass(frozen=True, slots=True)
class SparqlRequest:
    """One protocol request: the query text, the Accept header and the RDF dataset it names (None: not
    given; an empty tuple is an empty graph list)."""

    text: str
    accept: str = ""
    default_graphs: tuple[str, ...] | None = None
    named_graphs: tuple[str, ...] | None = None
    base: str | None = None  # relative IRIs in the query resolve against the endpoint's URL

    @property
    def has_dataset(self) -> bool:
        return self.default_graphs is not None or self.named_graphs is not None


def _one_query(values: list[str]) -> str | None:
    if len(values) > 1:
        raise Refused(400, "give one `query` parameter, not several")
    return values[0] if values else None


def _graphs(params: dict[str, list[str]], name: str) -> tuple[str, ...] | None:
    """The IRIs of a dataset parameter, each checked to be an IRI (400 otherwise)."""
    if name not in params:
        return None
    out = []
    for value in params[name]:
        try:
            out.append(ox.NamedNode(value).value)
        except ValueError:
            raise Refused(400, f"`{name}` is not an IRI: {value[:100]!r}") from None
    return tuple(out)


def _decode(body: bytes, charset: str | None) -> str:
    if charset and charset.lower().replace("-", "") != "utf8":
        raise Refused(415, f"charset {charset} is not supported: send the query in UTF-8")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(400, f"the request body is not UTF-8 (byte {exc.start})") from None


async def read_request(request: Request) -> SparqlRequest | None:
    """The protocol request, or None for a GET (or HEAD) without `query` (answered with the Service
    Description); refusals (two queries, updates, wrong media types, non-UTF-8 bodies) raise Refused."""
    params = parse_qs(request.url.query, keep_blank_values=True, max_num_fields=1000)
    accept = request.headers.get("accept", "")
    if request.method in ("GET", "HEAD"):
        if "update" in params:
            raise Refused(403, _READ_ONLY)
        text = _one_query(params.get("query", []))
        if text is None:
            return None
    elif request.method == "POST":
        ctype, _, rest = request.headers.get("content-type", "").partition(";")
        ctype = ctype.strip().lower()
        match = re.search(r"charset\s*=\s*\"?([\w.:-]+)", rest, re.IGNORECASE)
        charset = match.group(1) if match else None
        body = await request.body()
        if ctype == _UPDATE:
            raise Refused(403, _READ_ONLY)
        if ctype == _FORM:
            form = parse_qs(_decode(body, charset), keep_blank_values=True, max_num_fields=1000)
            if "update" in form:
                raise Refused(403, _READ_ONLY)
            if "query" in params:
                raise Refused(400, "a form POST carries `query` in its body, not in the URL")
            text = _one_query(form.get("query", []))
            for key in ("default-graph-uri", "named-graph-uri"):
                params.setdefault(key, []).extend(form.get(key, []))
                if not params[key]:
                    del params[key]
        elif ctype == _DIRECT:
            text = _decode(body, charset)
        else:
            raise Refused(415, f"POST a form ({_FORM}) or {_DIRECT}")
    else:
        raise Refused(405, "use GET or POST")
    if not text:
        raise Refused(400, "missing `query` parameter")
    default, named = _graphs(params, "default-graph-uri"), _graphs(params, "named-graph-uri")
    return SparqlRequest(text, accept, default, named, str(request.url.replace(query="", fragment="")))


_STRIP = re.compile(r"#[^\n]*|<[^>\s]*>|\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|\"(?:[^\"\\\n]|\\.)*\"|"
                    r"'(?:[^'\\\n]|\\.)*'")
_FROM = re.compile(r"(?<![\w?$:])FROM(?![\w:-])", re.IGNORECASE)


def names_dataset(text: str) -> bool:
    """Whether the query text has a FROM or FROM NAMED clause (comments, IRIs and strings ignored)."""
    return bool(_FROM.search(_STRIP.sub(" ", text)))


def _dataset(req: SparqlRequest) -> dict[str, Any]:
    """Keyword arguments of pyoxigraph's Store.query for the request's dataset."""
    if req.has_dataset:
        return {"default_graph": [ox.NamedNode(g) for g in req.default_graphs or ()],
                "named_graphs": [ox.NamedNode(g) for g in req.named_graphs or ()]}
    if names_dataset(req.text):
        return {}  # the query's FROM / FROM NAMED
    return {"use_default_graph_as_union": True}


def _evaluate(store: Store, req: SparqlRequest, cap: int) -> Any:
    """Run the query on `store` against the request's dataset: QuerySolutions, a bool or triples."""
    native: ox.Store | None = getattr(store, "oxigraph", None)
    if native is None:  # a remote endpoint gets the query as it is (its FROM clauses included)
        if req.has_dataset:
            raise Refused(400, "default-graph-uri / named-graph-uri are not supported over a remote store")
        return None
    try:
        return native.query(req.text, base_iri=req.base, **_dataset(req))
    except SyntaxError as exc:
        raise BadQuery(f"bad SPARQL: {' '.join(str(exc).split())[:300]}") from None
    except OSError as exc:
        raise StoreError(f"query failed: {exc}") from None


def _rows(solutions: ox.QuerySolutions, cap: int) -> tuple[list[str], list[Row]]:
    names = [v.value for v in solutions.variables]
    rows: list[Row] = []
    for sol in solutions:
        if len(rows) >= cap:
            raise TooManyRows(f"query returned more than {cap} rows; add a LIMIT or narrow it")
        rows.append({n: v for n in names if (v := sol[n]) is not None})
    return names, rows


def _projection(text: str) -> list[str]:
    """SELECT *'s variables from rdflib's algebra (for stores that give rows only)."""
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    algebra: Any = translateQuery(parseQuery(text)).algebra
    return [str(v) for v in algebra.get("PV") or []]


def answer(store: Store, req: SparqlRequest, cap: int, base_iri: str) -> Reply:
    """Guard, evaluate and serialise one query: (status, media type, body); refusals as plain text. The
    engine runs the text the guard read (kg.query.guard.classify: codepoint escapes decoded once)."""
    try:
        form = classify_query(req.text)
    except QueryRefused as exc:
        return _plain(query_status(exc), str(exc))
    return execute(store, form, replace(req, text=form.text), cap, base_iri)


def execute(store: Store, form: QueryForm, req: SparqlRequest, cap: int, base_iri: str) -> Reply:
    """Evaluate and serialise a query the guard passed as `form`; every failure is a reply, never an
    exception (a worker answers the next query whatever this one did). The result object is released on
    this thread whatever happens (see kg.store.limits._drain: pyoxigraph's are thread-bound, and one
    dropped on another thread is leaked with its store)."""
    result: Any = None
    try:
        if form.form in ("SelectQuery", "AskQuery"):
            media = negotiate(req.accept, SELECT_TYPES)
            if media is None:
                return _plain(406, "acceptable: " + ", ".join(SELECT_TYPES))
            result = _evaluate(store, req, cap)
            if form.form == "AskQuery":
                value = bool(result) if result is not None else store.ask(req.text)
                media = ask_media(media)
                return 200, media, ask_result(value, media)
            if result is not None:
                names, rows = _rows(result, cap)
                variables = form.variables or names
            else:
                rows = store.select(req.text, None, None, cap)
                variables = form.variables or _projection(req.text)
            return 200, media, select_results(variables, rows, media)
        media = choose(req.accept, GRAPH_TYPES)
        if media is None:
            return _plain(406, "acceptable: " + ", ".join(GRAPH_TYPES))
        result = _evaluate(store, req, cap)
        triples = list(result) if result is not None else store.construct(req.text)
        triples = list(dict.fromkeys(triples))  # an RDF graph is a set
        if len(triples) > cap:
            raise TooManyRows(f"query returned more than {cap} triples; add a LIMIT or narrow it")
        body = ox.serialize(triples, format=_rdf_format(media), prefixes=prefixes(base_iri))
        return 200, media, body or b""
    except Refused as exc:
        return _plain(exc.status, str(exc))
    except TooManyRows as exc:  # well-formed, but more than this endpoint answers: change the request
        return _plain(422, str(exc))
    except BadQuery as exc:
        return _plain(400, str(exc))
    except (StoreError, OSError):  # OSError: raised while iterating a result (the engine's I/O)
        return _plain(500, "the store could not answer this query")
    finally:
        result = None


def _plain(status: int, message: str) -> Reply:
    return status, "text/plain", message.encode("utf-8")


SD = "http://www.w3.org/ns/sparql-service-description#"
FORMATS = "http://www.w3.org/ns/formats/"
VOID = "http://rdfs.org/ns/void#"
_RESULT_FORMATS = ("SPARQL_Results_JSON", "SPARQL_Results_XML", "SPARQL_Results_CSV", "SPARQL_Results_TSV",
                   "Turtle", "N-Triples", "JSON-LD", "RDF_XML")


def _named_graph(ds: ox.BlankNode, node: ox.BlankNode, name: str) -> list[ox.Triple]:
    """`ds sd:namedGraph [ a sd:NamedGraph ; sd:name <name> ]`: one of the graphs the default graph holds."""
    n = ox.NamedNode
    return [ox.Triple(ds, n(SD + "namedGraph"), node),
            ox.Triple(node, n("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), n(SD + "NamedGraph")),
            ox.Triple(node, n(SD + "name"), n(name))]


def service_description(store: Store, settings: Any, request: Request) -> Reply:
    """The SPARQL 1.1 Service Description of this endpoint (GET /sparql without a query), in the RDF format
    the Accept header prefers (Turtle by default). Static: no store access, so it is cheap on the loop."""
    media = choose(request.headers.get("accept"), GRAPH_TYPES)
    if media is None:
        return _plain(406, "acceptable: " + ", ".join(GRAPH_TYPES))
    endpoint = str(request.url.replace(query="", fragment=""))
    root = str(request.base_url)
    n = ox.NamedNode
    me, ds, dg = n(endpoint), ox.BlankNode("dataset"), ox.BlankNode("defaultGraph")
    a = n("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
    triples = [
        ox.Triple(me, a, n(SD + "Service")),
        ox.Triple(me, n(SD + "endpoint"), me),
        ox.Triple(me, n(SD + "supportedLanguage"), n(SD + "SPARQL11Query")),
        ox.Triple(me, n(SD + "feature"), n(SD + "UnionDefaultGraph")),
        ox.Triple(me, n(SD + "defaultEntailmentRegime"), n("http://www.w3.org/ns/entailment/Simple")),
        ox.Triple(me, n("http://www.w3.org/2000/01/rdf-schema#comment"), ox.Literal(
            "Read-only: updates, LOAD and SERVICE are refused. The default graph is the union of every named "
            "graph: one per paper (graph/paper/{id}), graph/entities, graph/vocab, graph/ontology, and the "
            "graph/meta graphs (the store's generation and the aggregates under graph/meta/, which the "
            "data dump leaves out); /.well-known/void counts it. default-graph-uri and named-graph-uri are "
            f"honoured. At most {settings.sparql_row_cap} rows and {settings.query_timeout_s:g} s per "
            "query.")),
        ox.Triple(me, n(SD + "defaultDataset"), ds),
        ox.Triple(ds, a, n(SD + "Dataset")),
        ox.Triple(ds, n(SD + "defaultGraph"), dg),
        ox.Triple(dg, a, n(SD + "Graph")),
        *(t for i, name in enumerate(("graph/entities", "graph/vocab", "graph/ontology", "graph/meta"))
          for t in _named_graph(ds, ox.BlankNode(f"named{i}"), Iris(settings.base_iri).base + name)),
        ox.Triple(ds, n("http://www.w3.org/2000/01/rdf-schema#seeAlso"), n(root + ".well-known/void")),
        *(ox.Triple(me, n(SD + "resultFormat"), n(FORMATS + f)) for f in _RESULT_FORMATS),
    ]
    pfx = {"sd": SD, "formats": FORMATS, "rdfs": "http://www.w3.org/2000/01/rdf-schema#"}
    return 200, media, ox.serialize(triples, format=_rdf_format(media), prefixes=pfx) or b""
