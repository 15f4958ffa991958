"""ASGI middleware: answer with a GraphQL-shaped 503 when a request runs past its time budget.

A request whose write has started committing (api.writer.WriteGate) is never cut short: its answer says
what was written. Any other request is cancelled at the limit (its blocking store call, if any, runs on
in its thread and stops at the next store query, which the request's deadline refuses)."""

from __future__ import annotations

import asyncio
import contextlib

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class TimeLimit:
    """Cancels the handler after `seconds`, unless a write it started is committing."""

    def __init__(self, app: ASGIApp, seconds: float, paths: tuple[str, ...] = ("/graphql",)) -> None:
        self.app, self.seconds, self.paths = app, seconds, paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") not in self.paths:
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        task = asyncio.ensure_future(self.app(scope, receive, tracked))
        try:
            done, _ = await asyncio.wait({task}, timeout=self.seconds)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if task in done:
            task.result()
            return
        gate = scope.get("state", {}).get("kg_write")
        if gate is not None and not gate.close():  # a commit is under way: its answer is the truth
            await task
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        if started:
            return
        msg = f"query time limit of {self.seconds:g} s exceeded"
        if gate is not None:
            msg += "; nothing was written"
        refusal = JSONResponse({"data": None, "errors": [{"message": msg}]}, status_code=503)
        await refusal(scope, receive, send)
