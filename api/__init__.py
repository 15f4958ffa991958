"""The HTTP API: GraphQL, SPARQL protocol, RDF export and a health check (`create_app`)."""

from api.app import create_app

__all__ = ["create_app"]
