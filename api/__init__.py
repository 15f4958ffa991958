"""The HTTP API: GraphQL, SPARQL protocol, RDF export and a health check (`create_app`).

`create_app` is imported on first use, so a SPARQL worker process (api.sparql_worker) starts without
loading the GraphQL schema and the web stack it never uses."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from api.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from api.app import create_app

        return create_app
    raise AttributeError(f"module 'api' has no attribute {name!r}")
