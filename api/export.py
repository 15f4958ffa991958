"""/export: the whole graph (store.dump) or one paper's / entity's subgraph (CONSTRUCT) in any RDF format."""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from typing import Any, BinaryIO, cast

import pyoxigraph as ox
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse

from kg.query import QueryContext
from kg.query.sparql import iri_or_none, values
from kg.store.formats import FORMAT_NAMES, media_type, prefixes, rdf_format

MEDIA = {name: media_type(name) for name in FORMAT_NAMES}  # pyoxigraph names the media types
_CHUNK = 1 << 16


def make_export(ctx: QueryContext) -> Any:
    """The /export request handler over one query context."""

    async def export(request: Request) -> Response:
        params = request.query_params
        fmt = params.get("format", "turtle").lower()
        if fmt not in MEDIA:
            return PlainTextResponse(f"unknown format; use one of: {', '.join(MEDIA)}", status_code=400)
        if "paper" in params and "entity" in params:
            return PlainTextResponse("give `paper` or `entity`, not both", status_code=400)
        media = MEDIA[fmt] + ("; charset=utf-8" if fmt in ("turtle", "nt", "trig", "nquads") else "")
        if "paper" in params or "entity" in params:
            body = await run_in_threadpool(_subgraph, ctx, fmt, params.get("paper"), params.get("entity"))
            if body is None:
                return PlainTextResponse("no such paper or entity", status_code=404)
            return Response(body, media_type=media)
        spool = await run_in_threadpool(_dump, ctx, fmt)
        return StreamingResponse(_stream(spool), media_type=media)

    return export


def _dump(ctx: QueryContext, fmt: str) -> Any:
    spool = tempfile.SpooledTemporaryFile(max_size=8 << 20)  # noqa: SIM115 (closed by _stream)
    ctx.store.dump(cast(BinaryIO, spool), fmt)
    spool.seek(0)
    return spool


async def _stream(spool: Any) -> AsyncIterator[bytes]:
    try:
        while chunk := await run_in_threadpool(spool.read, _CHUNK):
            yield chunk
    finally:
        spool.close()


def _subgraph(ctx: QueryContext, fmt: str, paper: str | None, entity: str | None) -> bytes | None:
    """One paper's named graph, or an entity's own triples plus the links pointing at it; None if empty."""
    if paper is not None:
        graph = iri_or_none(ctx.iris.paper_graph(paper))
        where = f"{values('g', [graph] if graph else [])} GRAPH ?g {{ ?s ?p ?o }}"
        template = "?s ?p ?o"
    else:
        eid = entity or ""
        node = iri_or_none(ctx.iris.entity_from_id(eid)) if ctx.iris.type_of_entity_id(eid) else None
        graph = None
        where = f"{values('e', [node] if node else [])} {{ ?e ?p ?o }} UNION {{ ?s ?r ?e }}"
        template = "?e ?p ?o . ?s ?r ?e"
    triples = ctx.store.construct(ctx.prologue + f"CONSTRUCT {{ {template} }} WHERE {{ {where} }}")
    if not triples:
        return None
    rdf = rdf_format(fmt)
    pfx = prefixes(ctx.iris.base)
    if rdf.supports_datasets:
        g = graph or ox.DefaultGraph()
        return ox.serialize(
            [ox.Quad(t.subject, t.predicate, t.object, g) for t in triples], format=rdf, prefixes=pfx
        )
    return ox.serialize(triples, format=rdf, prefixes=pfx)
