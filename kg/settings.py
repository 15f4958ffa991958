"""One settings object for store location, base IRI, API token and public limits (CLI flags over env)."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any

DEFAULT_BASE_IRI = "https://w3id.org/paperkg/"


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    try:
        return int(raw) if raw else default
    except ValueError:
        return default


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    try:
        return float(raw) if raw else default
    except ValueError:
        return default


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

    @classmethod
    def from_env(cls, **overrides: Any) -> Settings:
        """Settings from KG_* environment variables, then explicit (non-None) overrides such as CLI flags."""
        d = cls()
        base = cls(
            store=os.environ.get("KG_STORE") or d.store,
            base_iri=os.environ.get("KG_BASE_IRI") or DEFAULT_BASE_IRI,
            api_token=os.environ.get("KG_API_TOKEN") or None,
            max_depth=_env_int("KG_MAX_DEPTH", d.max_depth),
            max_aliases=_env_int("KG_MAX_ALIASES", d.max_aliases),
            max_tokens=_env_int("KG_MAX_TOKENS", d.max_tokens),
            max_page=_env_int("KG_MAX_PAGE", d.max_page),
            query_timeout_s=_env_float("KG_QUERY_TIMEOUT", d.query_timeout_s),
            sparql_row_cap=_env_int("KG_SPARQL_ROW_CAP", d.sparql_row_cap),
            sparql_workers=_env_int("KG_SPARQL_WORKERS", d.sparql_workers),
        )
        given = {k: v for k, v in overrides.items() if v is not None}
        return replace(base, **given)
