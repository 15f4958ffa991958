"""kg.store.types: every backend declares the Store protocol's capability flags; the API reads the flags."""

from __future__ import annotations

from pathlib import Path

from api.sparql import SparqlEndpoint
from kg.query.search import SearchIndex
from kg.rdf.iris import Iris
from kg.settings import DEFAULT_BASE_IRI, Settings
from kg.store import open_store
from kg.store.remote import RemoteStore
from kg.store.types import Store

FLAGS = ("in_process", "directory")


def test_the_protocol_declares_the_flags() -> None:
    assert set(FLAGS) <= set(Store.__annotations__)


def test_embedded_on_disk_is_in_process_with_a_directory(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "kg"), base_iri=DEFAULT_BASE_IRI)
    try:
        assert (store.in_process, store.directory) == (True, str(tmp_path / "kg"))
    finally:
        store.close()


def test_embedded_in_memory_has_no_directory() -> None:
    store = open_store("memory:", base_iri=DEFAULT_BASE_IRI)
    assert (store.in_process, store.directory) == (True, None)


def test_remote_is_neither() -> None:
    assert (RemoteStore.in_process, RemoteStore.directory) == (False, None)


def test_sparql_workers_only_over_a_directory(tmp_path: Path) -> None:
    settings = Settings(sparql_workers=2)
    on_disk = open_store(str(tmp_path / "kg"), base_iri=DEFAULT_BASE_IRI)
    try:
        endpoint = SparqlEndpoint(on_disk, settings)
        assert endpoint.pool is not None and endpoint.pool.size == 2
        endpoint.close()
    finally:
        on_disk.close()
    in_memory = SparqlEndpoint(open_store("memory:", base_iri=DEFAULT_BASE_IRI), settings)
    assert in_memory.pool is None


def test_the_search_index_sits_beside_a_directory_only(tmp_path: Path) -> None:
    iris = Iris(DEFAULT_BASE_IRI)
    on_disk = open_store(str(tmp_path / "kg"), base_iri=DEFAULT_BASE_IRI)
    try:
        index = SearchIndex.for_store(on_disk, iris)
        assert index.path == str(tmp_path / "kg.search.sqlite")
        index.close()
    finally:
        on_disk.close()
    assert SearchIndex.for_store(open_store("memory:", base_iri=DEFAULT_BASE_IRI), iris).path == ":memory:"
