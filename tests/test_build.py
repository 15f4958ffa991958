"""kg.build: batches written atomically, and the full-text index kept in step by the build itself."""

from __future__ import annotations

from pathlib import Path

from kg.build import build_into_store, local_search_index
from kg.query.search import SearchIndex
from kg.rdf.iris import Iris
from kg.settings import DEFAULT_BASE_IRI
from kg.store.embedded import EmbeddedStore
from kg.types import Paper

PAPERS = [
    Paper(id="p1", title="QuuxNet for coral reef segmentation", abstract="We propose QuuxNet, a new model."),
    Paper(id="p2", title="Zorblax", abstract="We evaluate Zorblax on ImageNet and CIFAR-10."),
]


def test_build_leaves_the_search_index_at_the_store_generation(tmp_path: Path) -> None:
    store = EmbeddedStore(str(tmp_path / "s"))
    build_into_store(store, PAPERS, DEFAULT_BASE_IRI, batch_size=1)
    index = SearchIndex.for_store(store, Iris(DEFAULT_BASE_IRI))
    assert index._meta("generation") == store.generation()


def test_built_papers_are_searchable_without_a_full_resync(tmp_path: Path) -> None:
    store = EmbeddedStore(str(tmp_path / "s"))
    build_into_store(store, PAPERS, DEFAULT_BASE_IRI, batch_size=1)
    index = SearchIndex.for_store(store, Iris(DEFAULT_BASE_IRI))
    hits = index.paper_ids(store, "coral reef")
    assert hits == ["p1"]


def test_memory_stores_have_no_index_file() -> None:
    assert local_search_index(EmbeddedStore(None), Iris(DEFAULT_BASE_IRI)) is None
