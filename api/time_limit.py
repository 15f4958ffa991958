"""ASGI middleware: answer with a GraphQL-shaped 503 when a request runs past its time budget."""

from __future__ import annotations

import asyncio
import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class TimeLimit:
    """Cancels the handler after `seconds`; blocking store calls run in threads and are abandoned."""

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

        try:
            await asyncio.wait_for(self.app(scope, receive, tracked), self.seconds)
        except TimeoutError:
            if started:
                return
            msg = f"query time limit of {self.seconds:g} s exceeded"
            body = json.dumps({"data": None, "errors": [{"message": msg}]}).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 503,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
