"""Fixtures shared by the test modules (pytest finds them here; no import needed).

The builders behind them stay in tests/fixtures_api.py (stores from the gold annotations or the real
pipeline, a live uvicorn server): a module that needs a differently configured server still calls
`serve(...)` from there. Each fixture here is module-scoped, so a module gets its own store and server.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from fixtures_api import BASE, TOKEN, Server, gold_extractions, sample_store, serve, store_from

from kg.query import QueryContext
from kg.store.embedded import EmbeddedStore


@pytest.fixture(scope="module")
def gold_store() -> EmbeddedStore:
    """An in-memory store of the 19 sample papers' gold annotations (no extractor involved)."""
    return store_from(gold_extractions())


@pytest.fixture(scope="module")
def gold_ctx(gold_store: EmbeddedStore) -> QueryContext:
    """The query layer over `gold_store`."""
    return QueryContext.open(gold_store, BASE)


@pytest.fixture(scope="module")
def sample_server() -> Iterator[Server]:
    """The API over the bundled sample as `kg build` stores it, read-only (no API token)."""
    yield from serve(sample_store())


@pytest.fixture(scope="module")
def token_server() -> Iterator[Server]:
    """The API over the bundled sample with writes on: mutations need `Authorization: Bearer TOKEN`."""
    yield from serve(sample_store(), api_token=TOKEN)


@pytest.fixture(scope="module")
def gold_token_server(gold_store: EmbeddedStore) -> Iterator[Server]:
    """The API over `gold_store` with writes on (fast to build: no extractor)."""
    yield from serve(gold_store, api_token=TOKEN)


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    """One keep-alive HTTP client for a module's requests."""
    with httpx.Client(timeout=60) as c:
        yield c
