"""Linked Data: every paper, entity, link node and ontology IRI of the graph dereferences on this server.

A request path maps to `{base}{path}`: with `kg serve --base-iri http://host:port/` the IRIs are the
server's own URLs; with a w3id-style base (https://w3id.org/paperkg/) the redirect rule
`https://w3id.org/paperkg/(.*) -> https://host/$1` makes them resolve here. Each answer is the node's
concise bounded description (its triples, blank nodes followed) plus its links with their evidence (link
nodes naming it as rdf:subject or rdf:object, at most LINKS of them) and the labels of the nodes it names,
negotiated between Turtle, N-Triples, JSON-LD (compacted against the published /context.jsonld), RDF/XML and
HTML. `/` and `/.well-known/void` describe the dataset and the service (VoID, with its endpoints).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote, unquote

import pyoxigraph as ox
import rdflib
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from api.negotiation import choose
from api.sparql_results import GRAPH_TYPES
from kg.query import QueryContext
from kg.query.sparql import values
from kg.rdf.iris import DCTERMS, PROV, RDF, RDFS, SCHEMA, SKOS, XSD
from kg.store.formats import media_type, prefixes
from kg.types import ENTITY_TYPES

LINKS = 300  # link nodes described with a node, at most
LABELS = 600  # nodes named by a description whose labels come along, at most
VOID = "http://rdfs.org/ns/void#"
_RDF_NAMES = ("turtle", "nt", "jsonld", "xml")  # `?format=` names of the RDF answers, in order of preference
RDF_TYPES = GRAPH_TYPES  # the SPARQL endpoint's graph types: Turtle, N-Triples, JSON-LD, RDF/XML
OFFERED = (*RDF_TYPES, "text/html")  # Turtle for `*/*`; browsers ask for text/html by name
_FORMAT = {name: media_type(name) for name in (*_RDF_NAMES, "ttl", "rdf")} | {"html": "text/html"}
_LABEL_PREDICATES = (SKOS + "prefLabel", DCTERMS + "title", RDFS + "label")


def context_document(base: str) -> dict[str, Any]:
    """The published JSON-LD @context: the prefixes plus short names for the common properties."""
    kg = base + "ontology#"
    terms: dict[str, Any] = {
        "kg": kg, "dcterms": DCTERMS, "schema": SCHEMA, "skos": SKOS, "prov": PROV, "rdf": RDF, "rdfs": RDFS,
        "xsd": XSD, "void": VOID,
        "title": DCTERMS + "title", "abstract": DCTERMS + "abstract", "creator": DCTERMS + "creator",
        "identifier": DCTERMS + "identifier", "prefLabel": SKOS + "prefLabel", "altLabel": SKOS + "altLabel",
        "evidence": kg + "evidence", "mention": kg + "mention",
        "confidence": {"@id": kg + "confidence", "@type": XSD + "double"},
    }
    return {"@context": terms}


def _described_iri(base: str, request: Request, ctx: QueryContext | None = None) -> str:
    """The IRI a request path names: `{base}` + the path without its leading slash; a paper's id (and what
    follows it: `/link/…`) is read from the raw path and encoded as kg.rdf.iris mints it, so `/paper/a%20b`
    and `/paper/a%22b` name the papers `a b` and `a"b` (and `/` inside an id, `%2F`, stays in the id)."""
    raw = request.scope.get("raw_path")
    if ctx is not None and isinstance(raw, bytes) and raw.startswith(b"/paper/"):
        first, slash, rest = raw[len(b"/paper/"):].decode("latin-1").partition("/")
        return ctx.iris.paper(unquote(first, errors="strict")) + slash + rest
    return base + request.url.path.lstrip("/")


def _local(base: str, iri: str) -> str:
    """Where `iri` dereferences on this server: a path for IRIs under the base, else the IRI itself."""
    return "/" + iri[len(base):] if iri.startswith(base) else iri


def describe(ctx: QueryContext, iri: str, graph: str | None = None) -> list[ox.Triple]:
    """The concise bounded description of `iri` (or, with `graph`, that named graph's triples), its link
    nodes with their evidence (at most LINKS) and the labels of the nodes they name."""
    node = ox.NamedNode(iri)
    store = ctx.store
    if graph is not None:
        g = ox.NamedNode(graph)
        found = store.construct(f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH {g} {{ ?s ?p ?o }} }}")
    else:
        found = store.construct(
            f"CONSTRUCT {{ ?n ?p ?o . ?o ?p2 ?o2 . ?o2 ?p3 ?o3 }} WHERE {{ {values('n', [node])} ?n ?p ?o "
            "OPTIONAL { FILTER(isBlank(?o)) ?o ?p2 ?o2 OPTIONAL { FILTER(isBlank(?o2)) ?o2 ?p3 ?o3 } } }")
        own = ""  # a paper's link nodes live in its graph (their statement is left implicit)
        if (pid := ctx.iris.paper_id(iri)) is not None:
            pg = ox.NamedNode(ctx.iris.paper_graph(pid))
            own = f"UNION {{ GRAPH {pg} {{ ?l <{ctx.iris.ns}span> ?r }} }}"
        nodes = {r["l"].value for r in store.select(
            f"SELECT DISTINCT ?l WHERE {{ {values('n', [node])} "
            f"{{ ?l <{RDF}subject> ?n }} UNION {{ ?l <{RDF}object> ?n }} {own} }} ORDER BY ?l LIMIT {LINKS}")
            if isinstance(r.get("l"), ox.NamedNode)}
        nodes |= set(_paper_link_nodes(ctx, node))
        chosen = sorted(nodes)[:LINKS]
        if chosen:
            found += store.construct(f"CONSTRUCT {{ ?l ?lp ?lo }} WHERE {{ "
                                     f"{values('l', [ox.NamedNode(n) for n in chosen])} ?l ?lp ?lo }}")
    found += _readable_evidence(ctx, found)
    named = sorted({t.value for tr in found for t in (tr.subject, tr.object)
                    if isinstance(t, ox.NamedNode) and t != node}, key=str)[:LABELS]
    if named:
        found += store.construct(
            f"CONSTRUCT {{ ?x ?lp ?label }} WHERE {{ {values('x', [ox.NamedNode(x) for x in named])} "
            f"{values('lp', [ox.NamedNode(p) for p in _LABEL_PREDICATES])} ?x ?lp ?label }}")
    return list(dict.fromkeys(found))


def _span(value: str) -> tuple[str, int | None, int | None, int, int] | None:
    """(field, sentence start, sentence end, mention start, mention end) of a `kg:span` literal."""
    parts = value.split()
    if len(parts) != 5 or parts[0] not in ("title", "abstract"):
        return None
    try:
        ss, se = (None if x == "-" else int(x) for x in parts[1:3])
        return parts[0], ss, se, int(parts[3]), int(parts[4])
    except ValueError:
        return None


def _paper_link_nodes(ctx: QueryContext, entity: ox.NamedNode) -> list[str]:
    """The link nodes of the papers linking `entity` (store format 5 names them from the plain link,
    kg.rdf.iris.Iris.link, instead of stating rdf:object on each)."""
    rows = ctx.store.select(f"SELECT ?p ?r WHERE {{ {values('r', ctx.relations)} ?p ?r {entity} }}")
    return [ctx.iris.link(pid, r["r"].value.removeprefix(ctx.iris.ns), entity.value) for r in rows
            if isinstance(r.get("p"), ox.NamedNode) and (pid := ctx.iris.paper_id(r["p"].value)) is not None]


def _statements(ctx: QueryContext, nodes: dict[str, dict[str, Any]]) -> list[ox.Triple]:
    """rdf:predicate and rdf:object of paper link nodes that leave them implicit (format 5): found by
    naming the link nodes of their papers' plain links."""
    span = ctx.iris.ns + "span"
    bare = {n for n, props in nodes.items() if RDF + "predicate" not in props and span in props}
    papers = sorted({n.rsplit("/link/", 1)[0] for n in bare})
    if not papers:
        return []
    rows = ctx.store.select(f"SELECT ?p ?r ?e WHERE {{ {values('p', [ox.NamedNode(p) for p in papers])} "
                            f"{values('r', ctx.relations)} ?p ?r ?e }}")
    out = []
    for r in rows:
        p, rel, e = r.get("p"), r.get("r"), r.get("e")
        if not (isinstance(p, ox.NamedNode) and isinstance(rel, ox.NamedNode)
                and isinstance(e, ox.NamedNode)):
            continue
        pid = ctx.iris.paper_id(p.value)
        n = ctx.iris.link(pid, rel.value.removeprefix(ctx.iris.ns), e.value) if pid is not None else ""
        if n in bare:
            me = ox.NamedNode(n)
            out += [ox.Triple(me, ox.NamedNode(RDF + "predicate"), rel),
                    ox.Triple(me, ox.NamedNode(RDF + "object"), e)]
    return out


def _readable_evidence(ctx: QueryContext, triples: list[ox.Triple]) -> list[ox.Triple]:
    """Triples a reader needs that a lean store leaves implicit: a paper link node's rdf:subject (the paper
    its IRI starts with) and its kg:evidence / kg:mention text where only a kg:span into the paper's title
    or abstract is stored."""
    kg = ctx.iris.ns
    nodes: dict[str, dict[str, Any]] = {}
    for t in triples:
        if isinstance(t.subject, ox.NamedNode) and "/link/" in t.subject.value:
            nodes.setdefault(t.subject.value, {})[t.predicate.value] = t.object
    papers = {n: n.rsplit("/link/", 1)[0] for n, props in nodes.items()
              if RDF + "predicate" in props or kg + "span" in props}
    texts: dict[tuple[str, str], str] = {}
    wanted = sorted({p for n, p in papers.items() if kg + "span" in nodes[n]})
    if wanted:
        rows = ctx.store.select(
            f"SELECT ?p ?f ?t WHERE {{ {values('p', [ox.NamedNode(p) for p in wanted])} "
            f"VALUES (?f ?prop) {{ (\"title\" <{DCTERMS}title>) (\"abstract\" <{DCTERMS}abstract>) }} "
            "?p ?prop ?t }")
        texts = {(r["p"].value, r["f"].value): r["t"].value for r in rows}
    out = _rule_confidence(ctx, nodes) + _statements(ctx, nodes)
    for n, paper in papers.items():
        props, me = nodes[n], ox.NamedNode(n)
        if RDF + "subject" not in props and ctx.iris.paper_id(paper) is not None:
            out.append(ox.Triple(me, ox.NamedNode(RDF + "subject"), ox.NamedNode(paper)))
        span = props.get(kg + "span")
        parsed = _span(span.value) if isinstance(span, ox.Literal) else None
        if parsed is None:
            continue
        field, ss, se, ms, me_ = parsed
        text = texts.get((paper, field), "")
        if kg + "evidence" not in props and ss is not None and se is not None and text:
            out.append(ox.Triple(me, ox.NamedNode(kg + "evidence"), ox.Literal(text[ss:se])))
        if kg + "mention" not in props and text and 0 <= ms < me_ <= len(text):
            out.append(ox.Triple(me, ox.NamedNode(kg + "mention"), ox.Literal(text[ms:me_])))
    return out


def _rule_confidence(ctx: QueryContext, nodes: dict[str, dict[str, Any]]) -> list[ox.Triple]:
    """A link node's kg:confidence and kg:lowConfidence, which store format 5 keeps on its shared rule
    node (`kg:by`), stated on the link node as before."""
    kg = ctx.iris.ns
    by = {n: props[kg + "by"] for n, props in nodes.items()
          if kg + "confidence" not in props and isinstance(props.get(kg + "by"), ox.NamedNode)}
    if not by:
        return []
    rows = ctx.store.select(
        f"SELECT ?b ?p ?v WHERE {{ {values('b', sorted(set(by.values()), key=str))} "
        f"{values('p', [ox.NamedNode(kg + 'confidence'), ox.NamedNode(kg + 'lowConfidence')])} ?b ?p ?v }}")
    found: dict[str, list[tuple[ox.NamedNode, ox.Literal]]] = {}
    for r in rows:
        if isinstance(b := r.get("b"), ox.NamedNode) and isinstance(p := r.get("p"), ox.NamedNode) \
                and isinstance(v := r.get("v"), ox.Literal):
            found.setdefault(b.value, []).append((p, v))
    return [ox.Triple(ox.NamedNode(n), p, v) for n, b in by.items() for p, v in found.get(b.value, [])]


def _jsonld(triples: list[ox.Triple], base: str, context_url: str) -> bytes:
    """JSON-LD compacted against the published context, which the document names by its URL."""
    g = rdflib.Graph()
    g.parse(data=ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES) or b"", format="nt")
    doc = json.loads(g.serialize(format="json-ld", context=context_document(base)["@context"],
                                 auto_compact=True))
    doc["@context"] = context_url
    return json.dumps(doc, ensure_ascii=False, indent=1).encode()


def _curie(iri: str, pfx: dict[str, str]) -> str:
    for name, ns in sorted(pfx.items(), key=lambda kv: -len(kv[1])):
        if iri.startswith(ns) and iri != ns:
            return f"{name}:{iri[len(ns):]}"
    return iri


def _term_html(t: Any, base: str, pfx: dict[str, str], labels: dict[str, str]) -> str:
    if isinstance(t, ox.NamedNode):
        text = labels.get(t.value) or _curie(t.value, pfx)
        if not t.value.startswith((base, "http://", "https://")):  # no javascript: or data: links
            return f"<code>{html.escape(t.value)}</code>"
        return f'<a href="{html.escape(_local(base, t.value))}">{html.escape(text)}</a>'
    if isinstance(t, ox.Literal):
        return f"<span>{html.escape(t.value)}</span>"
    return f"<code>{html.escape(str(t))}</code>"


def page(title: str, body: str, alternates: Iterable[tuple[str, str]] = ()) -> bytes:
    """A small self-contained HTML page (no scripts)."""
    links = "".join(f'<link rel="alternate" type="{html.escape(m)}" href="{html.escape(h)}">'
                    for m, h in alternates)
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{html.escape(title)} · paperkg</title>{links}<style>"
        "body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}"
        "table{border-collapse:collapse;width:100%}td,th{border-top:1px solid #ddd;padding:.3rem;"
        "vertical-align:top;text-align:left}th{width:14rem;font-weight:600}mark{background:#ffe58a}"
        "li{margin:.4rem 0}small{color:#666}</style></head><body>"
        f"{body}</body></html>"
    ).encode()


def _html(iri: str, triples: list[ox.Triple], base: str, request: Request) -> bytes:
    pfx = prefixes(base)
    labels = {t.subject.value: t.object.value for t in triples
              if isinstance(t.subject, ox.NamedNode) and t.predicate.value in _LABEL_PREDICATES
              and isinstance(t.object, ox.Literal)}
    title = labels.get(iri) or _curie(iri, pfx)
    own = [t for t in triples if isinstance(t.subject, ox.NamedNode) and t.subject.value == iri]
    rows = "".join(
        f"<tr><th>{html.escape(_curie(t.predicate.value, pfx))}</th>"
        f"<td>{_term_html(t.object, base, pfx, labels)}</td></tr>"
        for t in sorted(own, key=lambda t: (t.predicate.value, str(t.object))))
    by_node: dict[str, dict[str, Any]] = {}
    for t in triples:
        if isinstance(t.subject, ox.NamedNode) and t.subject.value != iri:
            by_node.setdefault(t.subject.value, {})[t.predicate.value] = t.object
    items = []
    for props in by_node.values():
        s, p, o = (props.get(RDF + k) for k in ("subject", "predicate", "object"))
        if s is None or p is None or o is None:
            continue
        sentence = str(getattr(props.get(base + "ontology#evidence"), "value", ""))
        mention = str(getattr(props.get(base + "ontology#mention"), "value", ""))
        shown = html.escape(sentence)
        if mention:
            shown = shown.replace(html.escape(mention), f"<mark>{html.escape(mention)}</mark>", 1)
        conf = getattr(props.get(base + "ontology#confidence"), "value", "")
        items.append(f"<li>{_term_html(s, base, pfx, labels)} <b>{html.escape(_curie(p.value, pfx))}</b> "
                     f"{_term_html(o, base, pfx, labels)} <small>confidence {html.escape(conf)}</small>"
                     f"<br><q>{shown}</q></li>")
    here = request.url.path
    alternates = [(_FORMAT[f], f"{here}?format={f}") for f in _RDF_NAMES]
    formats = " · ".join(f'<a href="{html.escape(h)}">{m}</a>' for m, h in alternates)
    eid = iri[len(base):] if iri.startswith(base) else ""
    explore = (f' · <a href="/explore#node={quote(eid, safe="/")}">open in the explorer</a>'
               if eid.partition("/")[0] in {t.lower() for t in ENTITY_TYPES} else "")
    body = (f"<h1>{html.escape(title)}</h1><p><code>{html.escape(iri)}</code>{explore}</p>"
            f"<table>{rows}</table>"
            + (f"<h2>Links with evidence ({len(items)})</h2><ol>{''.join(items)}</ol>" if items else "")
            + f"<p><small>Also as {formats}</small></p>")
    return page(title, body, alternates)


def _media(request: Request, offered: tuple[str, ...] = OFFERED) -> str | None:
    """The media type to answer in: `?format=` when given, else the Accept header's choice (None: 406)."""
    forced = request.query_params.get("format")
    if forced is not None:
        return _FORMAT.get(forced.lower())
    return choose(request.headers.get("accept"), offered)


def _answer(iri: str, triples: list[ox.Triple], media: str, base: str, request: Request) -> Response:
    headers = {"Vary": "Accept"}
    if media == "text/html":
        return Response(_html(iri, triples, base, request), media_type="text/html; charset=utf-8",
                        headers=headers)
    if media == "application/ld+json":
        body = _jsonld(triples, base, str(request.base_url) + "context.jsonld")
    else:
        fmt = ox.RdfFormat.from_media_type(media)  # one of RDF_TYPES: Turtle, N-Triples or RDF/XML here
        assert fmt is not None
        body = ox.serialize(triples, format=fmt, prefixes=prefixes(base)) or b""
    charset = "; charset=utf-8" if media in ("text/turtle", "application/n-triples") else ""
    return Response(body, media_type=media + charset, headers=headers)


def _not_acceptable() -> Response:
    return PlainTextResponse("acceptable: " + ", ".join(OFFERED), status_code=406)


def endpoint_counts(ctx: QueryContext) -> tuple[int, dict[str, int]]:
    """(triples, instances per class) of the default graph /sparql answers from (the union of every named
    graph: papers, entities, vocabularies, ontology and the aggregates under graph/meta), counted by the
    very queries a client would send; remembered per store generation."""
    def compute() -> tuple[int, dict[str, int]]:
        total = ctx.store.select("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
        classes = ctx.store.select(f"SELECT ?c (COUNT(DISTINCT ?e) AS ?n) WHERE {{ ?e <{RDF}type> ?c }} "
                                   "GROUP BY ?c")
        per_class = {r["c"].value: int(r["n"].value) for r in classes if isinstance(r.get("c"), ox.NamedNode)}
        return int(total[0]["n"].value) if total else 0, dict(sorted(per_class.items()))

    return ctx.memo.get(ctx.store, ("void-counts",), compute, lambda found: 1 + len(found[1]))


def void_triples(ctx: QueryContext, request: Request) -> list[ox.Triple]:
    """The VoID description of the dataset (its IRI is the base IRI) and where this service serves it: its
    triples and class partitions are what COUNT queries at its SPARQL endpoint answer."""
    base, root = ctx.iris.base, str(request.base_url)
    n, lit = ox.NamedNode, ox.Literal
    ds, a = n(base), n(RDF + "type")
    triples, per_class = endpoint_counts(ctx)
    xsd_int = n(XSD + "integer")
    out = [
        ox.Triple(ds, a, n(VOID + "Dataset")),
        ox.Triple(ds, n(DCTERMS + "title"), lit("paperkg: a knowledge graph of machine-learning research")),
        ox.Triple(ds, n(DCTERMS + "description"), lit(
            "Papers linked to the tasks, datasets, methods, models, metrics, domains and threats they "
            "are about, each link with its evidence (sentence, mention, confidence, extractor). The counts "
            "are those of the SPARQL endpoint's default graph, the union of every named graph (the "
            "aggregates under graph/meta included, which the data dump leaves out).")),
        ox.Triple(ds, n(VOID + "uriSpace"), lit(base)),
        ox.Triple(ds, n(VOID + "sparqlEndpoint"), n(root + "sparql")),
        ox.Triple(ds, n(VOID + "dataDump"), n(root + "export?format=nquads")),
        ox.Triple(ds, n(VOID + "rootResource"), n(base + "ontology")),
        ox.Triple(ds, n(VOID + "triples"), lit(str(triples), datatype=xsd_int)),
        ox.Triple(ds, n(DCTERMS + "hasPart"), n(root + "graphql")),
        ox.Triple(ds, n(RDFS + "seeAlso"), n(root + "sparql")),
        *(ox.Triple(ds, n(VOID + "vocabulary"), n(v))
          for v in (base + "ontology#", DCTERMS, SKOS, PROV, SCHEMA)),
        *(ox.Triple(ds, n(VOID + "feature"), n("http://www.w3.org/ns/formats/" + f))
          for f in ("Turtle", "N-Triples", "JSON-LD", "RDF_XML", "N-Quads", "TriG")),
    ]
    for i, (cls, count) in enumerate(per_class.items()):
        part = ox.BlankNode(f"class{i}")
        out += [ox.Triple(ds, n(VOID + "classPartition"), part),
                ox.Triple(part, n(VOID + "class"), n(cls)),
                ox.Triple(part, n(VOID + "entities"), lit(str(count), datatype=xsd_int))]
    return out


GRAPH_TRIPLES = 10_000  # a named graph's IRI answers its triples up to this many, else its description


def describe_graph(ctx: QueryContext, iri: str) -> list[ox.Triple]:
    """What a named graph's IRI dereferences to: the graph as a sd:NamedGraph with its triple count and the
    dataset it belongs to, and its triples when it has at most GRAPH_TRIPLES (a paper's graph, the
    ontology, an aggregate graph); empty when no such graph exists."""
    g = ox.NamedNode(iri)
    rows = ctx.store.select(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH {g} {{ ?s ?p ?o }} }}")
    count = int(rows[0]["n"].value) if rows else 0
    if count == 0:
        return []
    n, sd = ox.NamedNode, "http://www.w3.org/ns/sparql-service-description#"
    out = [ox.Triple(g, n(RDF + "type"), n(sd + "NamedGraph")),
           ox.Triple(g, n(VOID + "triples"), ox.Literal(str(count), datatype=n(XSD + "integer"))),
           ox.Triple(g, n(VOID + "inDataset"), n(ctx.iris.base))]
    if count <= GRAPH_TRIPLES:
        out += ctx.store.construct(f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH {g} {{ ?s ?p ?o }} }}")
    return list(dict.fromkeys(out))


def _home_html(ctx: QueryContext, triples: list[ox.Triple]) -> bytes:
    base = ctx.iris.base
    figures = {t.object.value for t in triples
               if t.predicate.value == VOID + "triples" and isinstance(t.object, ox.Literal)}
    count = next(iter(figures), "?")
    endpoints = [
        ("/explore", "the explorer: neighbourhoods of papers and entities in the browser"),
        ("/graphql", "GraphQL (POST; GET opens GraphiQL)"),
        ("/sparql", "SPARQL 1.1 Protocol, read-only (GET without a query: the Service Description)"),
        ("/export?format=turtle", "the whole graph as RDF (turtle, nt, nquads, trig, jsonld, xml)"),
        ("/.well-known/void", "VoID description of the dataset"),
        ("/ontology", "the ontology (classes and properties)"),
        ("/context.jsonld", "the JSON-LD @context of the JSON-LD descriptions"),
    ]
    items = "".join(
        f'<li><a href="{html.escape(p)}"><code>{html.escape(p)}</code></a> — {html.escape(d)}</li>'
        for p, d in endpoints)
    body = (
        "<h1>paperkg</h1><p>A knowledge graph of machine-learning research: papers linked to what they are "
        "about, every link with its evidence. "
        f"{html.escape(str(count))} triples under <code>{html.escape(base)}</code>; every IRI there "
        "dereferences here (HTML, Turtle, N-Triples, JSON-LD, RDF/XML by content negotiation), e.g. "
        f'<a href="{html.escape(_local(base, base + "dataset/imagenet"))}">dataset/imagenet</a>.</p>'
        f"<ul>{items}</ul>")
    return page("paperkg", body, [("text/turtle", "/.well-known/void")])


def routes(ctx: QueryContext) -> list[Route]:
    """The Linked Data routes: `/`, `/.well-known/void`, `/context.jsonld`, `/ontology`, papers, link nodes,
    entities and extractor agents."""
    base = ctx.iris.base

    async def void(request: Request) -> Response:
        home = request.url.path == "/"  # `/` is also the service's home page; the VoID document is RDF
        media = _media(request, OFFERED if home else RDF_TYPES)
        if media is None or (media == "text/html" and not home):
            return _not_acceptable()
        triples = await run_in_threadpool(void_triples, ctx, request)
        if media == "text/html":
            return Response(_home_html(ctx, triples), media_type="text/html; charset=utf-8",
                            headers={"Vary": "Accept"})
        return _answer(base, triples, media, base, request)

    async def context(request: Request) -> Response:
        body = json.dumps(context_document(base), indent=1).encode()
        return Response(body, media_type="application/ld+json")

    def resource(graph_of: Callable[[str], str | None],
                 describer: Callable[[QueryContext, str, str | None], list[ox.Triple]] = describe,
                 ) -> Callable[[Request], Any]:
        async def handler(request: Request) -> Response:
            media = _media(request)
            if media is None:
                return _not_acceptable()
            iri = _described_iri(base, request, ctx)
            try:
                ox.NamedNode(iri)
            except ValueError:
                return PlainTextResponse("not an IRI of this graph", status_code=404)
            triples = await run_in_threadpool(describer, ctx, iri, graph_of(iri))
            if not triples:
                return PlainTextResponse(f"nothing is known about {iri}", status_code=404)
            return _answer(iri, triples, media, base, request)

        return handler

    def ontology_graph(iri: str) -> str | None:
        return ctx.iris.ontology_graph

    def no_graph(iri: str) -> str | None:
        return None

    methods = ["GET", "HEAD"]
    out = [
        Route("/", void, methods=methods),
        Route("/.well-known/void", void, methods=methods),
        Route("/context.jsonld", context, methods=methods),
        Route("/ontology", resource(ontology_graph), methods=methods),
        Route("/paper/{rest:path}", resource(no_graph), methods=methods),
        Route("/extractor/{version}", resource(no_graph), methods=methods),
        Route("/rule/{rest:path}", resource(no_graph), methods=methods),  # the kg:by of every link
        Route("/vocab/{rest:path}", resource(no_graph), methods=methods),  # the concept schemes
        Route("/graph/{rest:path}", resource(no_graph, lambda c, iri, _: describe_graph(c, iri)),
              methods=methods),
        Route("/stats/{rest:path}", resource(no_graph), methods=methods),  # the aggregates' nodes
    ]
    out += [Route(f"/{t.lower()}/{{name}}", resource(no_graph), methods=methods) for t in ENTITY_TYPES]
    return out
