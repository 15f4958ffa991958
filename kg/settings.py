"""One settings object for store location, base IRI, API token and public limits (CLI flags over env)."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any

from starlette.config import Config

DEFAULT_BASE_IRI = "https://w3id.org/paperkg/"


class SettingsError(ValueError):
    """A KG_* variable holds a value its setting cannot take; the one-line message names the variable."""


def _environment() -> Config:
    """The KG_* variables as a starlette Config; an empty value counts as unset (`KG_MAX_PAGE= kg serve`)."""
    return Config(environ={k: v for k, v in os.environ.items() if k.startswith("KG_") and v.strip()})


@dataclass(frozen=True, slots=True)
class Settings:
    """Configuration shared by the CLI, the library and the API."""

    store: str = "./kg-data"  # a directory (embedded Oxigraph) or an http(s):// SPARQL endpoint
    base_iri: str = DEFAULT_BASE_IRI
    api_token: str | None = None  # mutations are off without it
    max_depth: int = 8  # GraphQL query depth
    max_aliases: int = 15
    max_tokens: int = 2000
    max_page: int = 100  # largest `first`
    max_neighborhood_depth: int = 3
    max_neighborhood_limit: int = 500
    query_timeout_s: float = 5.0  # SPARQL and GraphQL execution time
    sparql_row_cap: int = 10_000
    max_body_bytes: int = 1_000_000
    sparql_workers: int = 2  # /sparql worker processes over an on-disk store (0: answer in threads)
    sparql_light_workers: int = 2  # ... and the light lane's, for queries of addresses that run no heavy ones
    # None: the variable, else the default, read where the limit applies (api.schema, api.sparql)
    max_cost: float | None = None  # GraphQL cost limit (KG_MAX_COST)
    sparql_per_client: int | None = None  # /sparql queries one client address may run at once
    sparql_memory_mb: int | None = None  # resident memory of a /sparql worker process
    cors_origins: str = "*"  # origins allowed to read the public endpoints cross-origin ("a,b"; "none": off)

    @classmethod
    def from_env(cls, **overrides: Any) -> Settings:
        """Settings from KG_* environment variables, then explicit (non-None) overrides such as CLI flags;
        SettingsError (naming the variable) for a value that is not a number where one is needed."""
        d, env = cls(), _environment()
        try:
            base = cls(
                store=env("KG_STORE", default=d.store),
                base_iri=env("KG_BASE_IRI", default=DEFAULT_BASE_IRI),
                api_token=env("KG_API_TOKEN", default=None),
                max_depth=env("KG_MAX_DEPTH", cast=int, default=d.max_depth),
                max_aliases=env("KG_MAX_ALIASES", cast=int, default=d.max_aliases),
                max_tokens=env("KG_MAX_TOKENS", cast=int, default=d.max_tokens),
                max_page=env("KG_MAX_PAGE", cast=int, default=d.max_page),
                query_timeout_s=env("KG_QUERY_TIMEOUT", cast=float, default=d.query_timeout_s),
                sparql_row_cap=env("KG_SPARQL_ROW_CAP", cast=int, default=d.sparql_row_cap),
                sparql_workers=env("KG_SPARQL_WORKERS", cast=int, default=d.sparql_workers),
                sparql_light_workers=env("KG_SPARQL_LIGHT_WORKERS", cast=int, default=d.sparql_light_workers),
                max_cost=env("KG_MAX_COST", cast=float, default=None),
                sparql_per_client=env("KG_SPARQL_PER_CLIENT", cast=int, default=None),
                sparql_memory_mb=env("KG_SPARQL_MEMORY_MB", cast=int, default=None),
                cors_origins=env("KG_CORS_ORIGINS", default=d.cors_origins),
            )
        except ValueError as exc:  # starlette: "Config 'KG_MAX_DEPTH' has value 'deep'. Not a valid int."
            raise SettingsError(str(exc)) from None
        given = {k: v for k, v in overrides.items() if v is not None}
        return replace(base, **given)
