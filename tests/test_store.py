"""open_store picks the backend from the location; errors are one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kg.store import open_store, register_backend
from kg.store.embedded import EmbeddedStore
from kg.store.types import StoreError

BASE = "https://w3id.org/paperkg/"


def test_memory_location_is_in_memory_embedded() -> None:
    store = open_store("memory:", base_iri=BASE)
    assert isinstance(store, EmbeddedStore) and store.location == "memory:"


def test_directory_path_is_embedded_on_disk(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "kg"), base_iri=BASE)
    store.close()
    assert isinstance(store, EmbeddedStore) and (tmp_path / "kg" / "CURRENT").is_file()


def test_file_url_is_a_directory(tmp_path: Path) -> None:
    store = open_store(f"file://{tmp_path / 'kg'}", base_iri=BASE)
    store.close()
    assert store.location == str(tmp_path / "kg")


def test_registered_backend_gets_the_options(monkeypatch: pytest.MonkeyPatch) -> None:
    import kg.store

    # a private copy of the registry for this test: the fake backend must not outlive it
    monkeypatch.setattr(kg.store, "_BACKENDS", kg.store._BACKENDS.copy())
    seen: dict[str, Any] = {}

    def factory(location: str, **options: Any) -> EmbeddedStore:
        seen.update(options, location=location)
        return EmbeddedStore(base_iri=options["base_iri"])

    register_backend("fake", factory)
    open_store("fake://x", base_iri=BASE, read_only=True)
    assert seen == {"location": "fake://x", "base_iri": BASE, "read_only": True, "create": True}


def test_no_test_leaves_a_backend_registered() -> None:
    with pytest.raises(StoreError, match="no store backend for fake"):
        open_store("fake://x", base_iri=BASE)


def test_unknown_scheme_is_one_line() -> None:
    with pytest.raises(StoreError, match=r"^no store backend for nope: \(known: .*\)$"):
        open_store("nope://x", base_iri=BASE)


def test_http_location_is_the_remote_backend() -> None:
    with pytest.raises(StoreError, match="cannot reach SPARQL endpoint http://127.0.0.1:9/query"):
        open_store("http://127.0.0.1:9", base_iri=BASE)
