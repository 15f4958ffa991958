"""The one write path (kg.write): entities no paper links leave the graph on replace and delete, the full-text
index follows every write (also across a reopen), and `kg load` goes through the same path."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from fixtures_api import BASE, gold_extractions

from kg.build import ensure_schema, load_shards, schema_graphs, write_shard
from kg.query import QueryContext, entity
from kg.query.search import SearchIndex
from kg.rdf.iris import Iris
from kg.rdf.mapping import GraphMapper
from kg.rdf.nquads import nquads_records
from kg.store.embedded import EmbeddedStore
from kg.types import EntityRef, EntityType, Evidence, Extraction, Link, Paper
from kg.write import delete_papers, write_extractions, write_new_store

IRIS = Iris(BASE)


def paper(pid: str, *names: str) -> Extraction:
    """A paper linking to one invented method per name (no extractor involved)."""
    text = "We propose " + " and ".join(names) + "." if names else "Nothing to see."
    links = tuple(
        Link("proposes", EntityRef("Method", n), Evidence(text, n, 0, len(n), 0.9, rule="test"))
        for n in names
    )
    return Extraction(Paper(id=pid, abstract=text, title=f"Paper {pid}"), links, extractor_version="test")


def described(store: EmbeddedStore, name: str) -> bool:
    iri = IRIS.entity(EntityRef("Method", name))
    return store.ask(f"ASK {{ GRAPH <{IRIS.entities_graph}> {{ <{iri}> ?p ?o }} }}")


def found(ctx: QueryContext, text: str) -> set[str]:
    return {key for (_, key), _ in ctx.index.search(ctx.store, text, 20)}


def test_replace_drops_entities_only_that_paper_linked(tmp_path: Path) -> None:
    store = EmbeddedStore(str(tmp_path / "s"), base_iri=BASE)
    ctx = QueryContext.open(store, BASE)
    mapper = GraphMapper(IRIS)
    write_extractions(store, [paper("a", "Zorblax", "Shared"), paper("b", "Shared")], mapper, index=ctx.index)
    assert described(store, "Zorblax") and "method/zorblax" in found(ctx, "zorblax")
    written = write_extractions(store, [paper("a", "Quuxnet")], mapper, index=ctx.index)
    assert written[0].removed_entities == ("method/zorblax",)
    assert not described(store, "Zorblax") and described(store, "Shared") and described(store, "Quuxnet")
    assert entity(ctx, None, "Zorblax") is None
    assert "method/zorblax" not in found(ctx, "zorblax") and "method/quuxnet" in found(ctx, "quuxnet")
    shared = entity(ctx, None, "Shared")
    assert shared is not None and shared.paper_count == 1


def test_delete_drops_entities_only_that_paper_linked(tmp_path: Path) -> None:
    store = EmbeddedStore(str(tmp_path / "s"), base_iri=BASE)
    ctx = QueryContext.open(store, BASE)
    write_extractions(store, [paper("a", "Zorblax", "Shared"), paper("b", "Shared")], GraphMapper(IRIS),
                      index=ctx.index)
    written = delete_papers(store, IRIS, ["a"], index=ctx.index)
    assert written.removed_entities == ("method/zorblax",)
    assert not described(store, "Zorblax") and described(store, "Shared")
    assert found(ctx, "zorblax") == set() and "b" in found(ctx, "paper")
    delete_papers(store, IRIS, ["b"], index=ctx.index)
    assert not described(store, "Shared") and found(ctx, "shared") == set()


def test_entities_added_by_a_write_are_searchable_after_a_reopen(tmp_path: Path) -> None:
    location = str(tmp_path / "s")
    store = EmbeddedStore(location, base_iri=BASE)
    ctx = QueryContext.open(store, BASE)
    exs = gold_extractions()
    write_extractions(store, exs[:3], GraphMapper(IRIS), index=ctx.index)
    write_extractions(store, [paper("new", "Flibbertigibbet")], GraphMapper(IRIS), index=ctx.index)
    assert "method/flibbertigibbet" in found(ctx, "flibbertigibbet")
    ctx.index.close()
    store.close()
    reopened = EmbeddedStore(location, base_iri=BASE, read_only=True)  # as another process would
    again = SearchIndex.for_store(reopened, IRIS)
    assert "method/flibbertigibbet" in {k for (_, k), _ in again.search(reopened, "flibbertigibbet")}
    again.close()


def test_load_goes_through_the_same_write_path(tmp_path: Path) -> None:
    shard = tmp_path / "a.nq"
    with shard.open("wb") as out:
        write_shard(out, [], BASE)
    mapper = GraphMapper(IRIS)
    shard.write_bytes(b"".join(
        "".join(f"{q} .\n" for q in mapper.paper_quads(ex)).encode() for ex in [paper("a", "Zorblax")]
    ))
    location = str(tmp_path / "s")
    store = EmbeddedStore(location, base_iri=BASE)
    ctx = QueryContext.open(store, BASE)
    write_extractions(store, [paper("a", "Oldthing")], mapper, index=ctx.index)
    assert load_shards(store, [shard], BASE) == 1
    ctx.index.sync(store, force=True)
    assert not described(store, "Oldthing") and described(store, "Zorblax")
    index = SearchIndex.for_store(store, IRIS)  # the file the load kept in step, read without a re-sync
    assert "method/zorblax" in {k for (_, k), _ in index._search("zorblax", 10, None)}
    assert "method/oldthing" not in {k for (_, k), _ in index._search("oldthing", 10, None)}
    index.close()


def test_an_entity_still_linked_elsewhere_or_through_a_variant_stays(tmp_path: Path) -> None:
    store = EmbeddedStore(str(tmp_path / "s"), base_iri=BASE)
    ev = Evidence("CIFAR-10-LT.", "CIFAR-10-LT", 0, 11, 0.9, rule="test")
    cifar = EntityRef("Dataset", "CIFAR-10")
    lt = Link("usesDataset", EntityRef("Dataset", "CIFAR-10-LT"), ev, variant_of=cifar)
    a = dataclasses.replace(paper("a"), links=(lt,))
    write_extractions(store, [a, paper("b", "Other")], GraphMapper(IRIS))
    base = IRIS.entity(EntityRef("Dataset", "CIFAR-10"))
    write_extractions(store, [paper("b", "Changed")], GraphMapper(IRIS))  # b's change must not touch a's
    assert store.ask(f"ASK {{ GRAPH <{IRIS.entities_graph}> {{ <{base}> ?p ?o }} }}")
    delete_papers(store, IRIS, ["a"])
    assert not store.ask(f"ASK {{ GRAPH <{IRIS.entities_graph}> {{ <{base}> ?p ?o }} }}")


# --- one description per entity (kg.rdf.descriptions) -------------------------------------------------
def named(pid: str, etype: EntityType, name: str, kind: str | None = None) -> Extraction:
    """A paper linking one entity by exactly this name."""
    text = f"We study {name}."
    rel = {"Task": "addressesTask", "Dataset": "usesDataset", "Model": "evaluatesModel"}[etype]
    ev = Evidence(text, name, 9, 9 + len(name), 0.9, rule="test")
    return Extraction(Paper(id=pid, abstract=text, title=f"Paper {pid}"),
                      (Link(rel, EntityRef(etype, name, kind), ev),), extractor_version="test")


def labels(store: EmbeddedStore, iri: str) -> tuple[set[str], set[str], set[str]]:
    """An entity's prefLabels, altLabels and kinds over every graph."""
    rows = store.select(f"SELECT ?p ?o WHERE {{ <{iri}> ?p ?o }}")
    by: dict[str, set[str]] = {"prefLabel": set(), "altLabel": set(), "kind": set()}
    for r in rows:
        p = str(r["p"].value).rpartition("#")[2]
        if p in by:
            by[p].add(str(r["o"].value))
    return by["prefLabel"], by["altLabel"], by["kind"]


HIGHLIGHT = IRIS.base + "task/highlight-detection"


def test_an_entity_named_two_ways_in_one_write_keeps_the_first_name(tmp_path: Path) -> None:
    store = EmbeddedStore(str(tmp_path / "s"), base_iri=BASE)
    exs = [named("a", "Task", "Highlight Detection"), named("b", "Task", "highlight detection")]
    write_extractions(store, exs, GraphMapper(IRIS))
    assert labels(store, HIGHLIGHT) == ({"Highlight Detection"}, {"highlight detection"}, set())


def test_a_later_write_never_renames_an_entity(tmp_path: Path) -> None:
    store = EmbeddedStore(str(tmp_path / "s"), base_iri=BASE)
    ctx = QueryContext.open(store, BASE)
    write_extractions(store, [named("a", "Task", "highlight detection")], GraphMapper(IRIS))
    write_extractions(store, [named("b", "Task", "Highlight Detection")], GraphMapper(IRIS))
    assert labels(store, HIGHLIGHT) == ({"highlight detection"}, {"Highlight Detection"}, set())
    found = entity(ctx, None, "Highlight Detection")
    assert found is not None and found.name == "highlight detection" and found.paper_count == 2


def test_a_curated_concept_keeps_its_vocabulary_name_and_kind(tmp_path: Path) -> None:
    store = EmbeddedStore(str(tmp_path / "s"), base_iri=BASE)
    ensure_schema(store, BASE)
    write_extractions(store, [named("a", "Model", "GPT 3.5"), named("b", "Dataset", "Davis", "Dataset")],
                      GraphMapper(IRIS))
    assert labels(store, IRIS.base + "model/gpt-3-5") == ({"GPT-3.5"}, {"GPT-3.5-turbo", "GPT 3.5"}, set())
    assert labels(store, IRIS.base + "dataset/davis") == ({"DAVIS"}, {"Davis"}, {"Benchmark"})


def test_a_fresh_build_settles_names_as_a_write_does(tmp_path: Path) -> None:
    exs = [named("a", "Task", "Highlight Detection"), named("b", "Task", "highlight detection"),
           named("c", "Model", "GPT 3.5"), named("d", "Dataset", "Davis", "Dataset")]
    into = EmbeddedStore(str(tmp_path / "into"), base_iri=BASE)
    ensure_schema(into, BASE)
    write_extractions(into, exs, GraphMapper(IRIS))
    fresh = EmbeddedStore(str(tmp_path / "fresh"), base_iri=BASE)
    index = SearchIndex(str(tmp_path / "fresh.search.sqlite"), IRIS)
    write_new_store(fresh, IRIS, nquads_records(exs, BASE), lambda ex, n: None, spool=tmp_path / "spool.nq",
                    schema=schema_graphs(BASE), index=index)
    index.close()
    for iri in (HIGHLIGHT, IRIS.base + "model/gpt-3-5", IRIS.base + "dataset/davis"):
        assert labels(fresh, iri) == labels(into, iri)
    assert labels(fresh, HIGHLIGHT) == ({"Highlight Detection"}, {"highlight detection"}, set())
