"""/export: the whole graph (store.dump) or one paper's / entity's subgraph (CONSTRUCT) in any RDF format."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from typing import BinaryIO, cast

import pyoxigraph as ox
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response

from kg.query import QueryContext
from kg.query.sparql import iri_or_none, values
from kg.store.formats import FORMAT_NAMES, media_type, prefixes, rdf_format

MEDIA = {name: media_type(name) for name in FORMAT_NAMES}  # pyoxigraph names the media types


class Export:
    """The /export request handler over one query context. Whole-graph dumps are made once per store
    generation and format into a file and served from it to every client (a dump is a pass over every
    quad, and eight clients downloading at once had cost everyone else's latency); `close()` removes the
    files."""

    def __init__(self, ctx: QueryContext) -> None:
        self.ctx = ctx
        self._dir = tempfile.mkdtemp(prefix="kg-export-")
        self._lock = threading.Lock()
        self._files: dict[tuple[str, str], str] = {}

    async def handle(self, request: Request) -> Response:
        params = request.query_params
        fmt = params.get("format", "turtle").lower()
        if fmt not in MEDIA:
            return PlainTextResponse(f"unknown format; use one of: {', '.join(MEDIA)}", status_code=400)
        if "paper" in params and "entity" in params:
            return PlainTextResponse("give `paper` or `entity`, not both", status_code=400)
        media = MEDIA[fmt] + ("; charset=utf-8" if fmt in ("turtle", "nt", "trig", "nquads") else "")
        if "paper" in params or "entity" in params:
            paper, entity = params.get("paper"), params.get("entity")
            body = await run_in_threadpool(_subgraph, self.ctx, fmt, paper, entity)
            if body is None:
                return PlainTextResponse("no such paper or entity", status_code=404)
            return Response(body, media_type=media)
        path = await run_in_threadpool(self.dump, fmt)
        return FileResponse(path, media_type=media)

    def dump(self, fmt: str) -> str:
        """The file holding the whole graph in `fmt` at the store's generation, made if need be (one at a
        time: a client arriving meanwhile waits for it rather than making another). Only the files of the
        two latest generations are kept (a download still reading an older one keeps it open)."""
        with self._lock:
            key = (self.ctx.store.generation(), fmt)
            found = self._files.get(key)
            if found is not None and os.path.exists(found):
                return found
            path = os.path.join(self._dir, f"dump-{len(os.listdir(self._dir))}-{key[0][:16]}.{fmt}")
            with open(path + ".part", "wb") as out:
                self.ctx.store.dump(cast(BinaryIO, out), fmt)
            os.replace(path + ".part", path)
            self._files[key] = path
            recent = list(dict.fromkeys(k[0] for k in self._files))[-2:]
            for old in [k for k in self._files if k[0] not in recent]:
                with contextlib.suppress(OSError):
                    os.remove(self._files.pop(old))
            return path

    def close(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)


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
