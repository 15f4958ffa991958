"""kg.build: batches written atomically, the full-text index kept in step by the build itself, and a
fresh build equal to a build into an empty store, never left half-written."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
from pyoxigraph import BlankNode, Quad

from kg.build import build_fresh, build_into_store, is_fresh, local_search_index
from kg.extract import Extractor
from kg.query.search import SearchIndex
from kg.rdf.iris import Iris
from kg.settings import DEFAULT_BASE_IRI
from kg.store.embedded import EmbeddedStore
from kg.store.writes import Meta
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


# --- a fresh build: made beside the store, bulk-loaded, renamed into place ---------------------------------

MORE = [
    *PAPERS,
    Paper(id="p3", title="Learning to rank", abstract="We propose RankFormer and evaluate it on MS MARCO."),
    # read again: the last version wins
    Paper(id="p2", title="Zorblax again", abstract="We evaluate Zorblax on CIFAR-100 with accuracy."),
]


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(DEFAULT_BASE_IRI)


def _content(store: EmbeddedStore) -> tuple[set[Quad], Counter[str]]:
    """The store's quads but the generation token; quads with blank nodes (the ontology's lists, new ids in
    every store) are compared by count per graph."""
    meta = Meta(DEFAULT_BASE_IRI)
    plain: set[Quad] = set()
    blank: Counter[str] = Counter()
    for q in store.oxigraph:
        if q.graph_name == meta.graph and q.predicate == meta.predicate:
            continue
        if isinstance(q.subject, BlankNode) or isinstance(q.object, BlankNode):
            blank[str(q.graph_name)] += 1
        else:
            plain.add(q)
    return plain, blank


def test_a_fresh_build_stores_what_a_build_into_an_empty_store_does(
    tmp_path: Path, extractor: Extractor
) -> None:
    into = EmbeddedStore(str(tmp_path / "into"))
    build_into_store(into, MORE, DEFAULT_BASE_IRI, batch_size=2, extractor=extractor)
    summary = build_fresh(str(tmp_path / "fresh"), MORE, DEFAULT_BASE_IRI, extractor=extractor)
    fresh = EmbeddedStore(str(tmp_path / "fresh"))
    assert summary.papers == 3  # p2 once, its last version
    assert _content(fresh) == _content(into)
    assert len(_content(fresh)[0]) > 100
    index = SearchIndex.for_store(fresh, Iris(DEFAULT_BASE_IRI))
    assert index._meta("generation") == fresh.generation()  # made once, at the store's generation
    assert index.paper_ids(fresh, "RankFormer") == ["p3"]
    assert index.paper_ids(fresh, "ImageNet") == []  # p2's first version is not stored
    assert not (tmp_path / "fresh.building").exists()


def _indexed(index: SearchIndex) -> dict[tuple[str, str], tuple[str, str]]:
    """Every document of an index file with its indexed text."""
    rows = index._db.execute("SELECT kind, key, name, body FROM docs JOIN fts ON fts.rowid = docs.id")
    return {(kind, key): (name, body) for kind, key, name, body in rows}


def test_a_fresh_build_indexes_exactly_what_the_index_reads_from_its_store(
    tmp_path: Path, extractor: Extractor
) -> None:
    """The index filled while the spool is written holds the documents (vocabulary entities too) that
    reading the built store gives, each with its text, so the store and its index agree from the start."""
    build_fresh(str(tmp_path / "kg"), MORE, DEFAULT_BASE_IRI, extractor=extractor)
    store = EmbeddedStore(str(tmp_path / "kg"), read_only=True)
    index = SearchIndex.for_store(store, Iris(DEFAULT_BASE_IRI))
    from_store = index._read(store)
    assert _indexed(index) == from_store
    assert from_store[("paper", "p2")] == ("Zorblax again", "We evaluate Zorblax on CIFAR-100 with accuracy.")
    assert sum(kind == "entity" for kind, _ in from_store) > 100  # the vocabulary's entities as well


def test_an_interrupted_fresh_build_leaves_no_store(tmp_path: Path, extractor: Extractor) -> None:
    where = tmp_path / "kg-data"

    def stop(_: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_fresh(str(where), MORE, DEFAULT_BASE_IRI, extractor=extractor, progress=stop)
    assert sorted(os.listdir(tmp_path)) == []  # no store, no index, no spooled N-Quads
    assert is_fresh(str(where))
    build_fresh(str(where), MORE, DEFAULT_BASE_IRI, extractor=extractor)  # the leftover is cleared first
    assert EmbeddedStore(str(where)).ask("ASK { ?p <http://purl.org/dc/terms/identifier> \"p3\" }")
    assert sorted(os.listdir(tmp_path)) == ["kg-data", "kg-data.search.sqlite"]


def test_only_new_local_directories_are_fresh(tmp_path: Path) -> None:
    assert is_fresh(str(tmp_path / "absent"))
    (tmp_path / "empty").mkdir()
    assert is_fresh(str(tmp_path / "empty")) and is_fresh(f"file:{tmp_path / 'empty'}")
    EmbeddedStore(str(tmp_path / "made")).close()
    assert not is_fresh(str(tmp_path / "made"))
    assert not is_fresh("memory:") and not is_fresh("http://localhost:7878")


def test_a_fresh_build_keeps_an_abstract_with_unicode_line_separators(
    tmp_path: Path, extractor: Extractor
) -> None:
    """N-Quads leaves U+2028 unescaped inside a literal: the spool must still be read one quad a line."""
    abstract = "We evaluate on ImageNet.\u2028Results\x0c improve."
    build_fresh(str(tmp_path / "kg"), [Paper(id="p-ls", title="Separators", abstract=abstract)],
                DEFAULT_BASE_IRI, extractor=extractor)
    store = EmbeddedStore(str(tmp_path / "kg"))
    rows = store.select('SELECT ?a WHERE { ?p <http://purl.org/dc/terms/identifier> "p-ls" ; '
                        "<http://purl.org/dc/terms/abstract> ?a }")
    assert [str(r["a"].value) for r in rows] == [abstract]
