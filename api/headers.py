"""ASGI middleware: security headers on every response (nosniff everywhere; the explorer's CSP on every HTML
page that sets none of its own: the explorer, its static copy, the home page and every Linked Data page)."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.explorer import CSP


class SecurityHeaders:
    """Adds `X-Content-Type-Options: nosniff` to every HTTP response and the explorer's
    Content-Security-Policy to every HTML response without one (GraphiQL's page brings its own)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.lower() != b"x-content-type-options"]
                headers.append((b"x-content-type-options", b"nosniff"))
                html = any(k.lower() == b"content-type" and v.startswith(b"text/html") for k, v in headers)
                has_csp = any(k.lower() == b"content-security-policy" for k, _ in headers)
                if html and not has_csp:
                    headers.append((b"content-security-policy", CSP.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
