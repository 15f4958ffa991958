"""papers(orderBy: CONFIDENCE): by the confidence of each paper's link to the filtered entity, highest first,
then id; keyset cursors across pages; a clear refusal without an entity filter. Query layer, GraphQL over
real HTTP, /export/papers and `kg papers --order confidence` on a store written through the write path."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fixtures_api import Server, run_kg, serve, store_from

from kg.query import BadOrder, QueryContext, papers
from kg.settings import DEFAULT_BASE_IRI
from kg.store.embedded import EmbeddedStore
from kg.types import EntityRef, Evidence, Extraction, Link, Paper

IMAGENET = EntityRef("Dataset", "ImageNet")
IMAGENET_1K = EntityRef("Dataset", "ImageNet-1k")
CIFAR = EntityRef("Dataset", "CIFAR-10")
# (paper, [(relation, entity, confidence, variant of)]): c-4's best link is its 0.8 proposes; c-5 reaches
# ImageNet through its variant ImageNet-1k; c-1 and c-3 tie at 0.6 (then id order); c-6 never names ImageNet.
LINKS: list[tuple[str, list[tuple[str, EntityRef, float, EntityRef | None]]]] = [
    ("c-1", [("usesDataset", IMAGENET, 0.6, None)]),
    ("c-2", [("usesDataset", IMAGENET, 0.95, None)]),
    ("c-3", [("usesDataset", IMAGENET, 0.6, None), ("usesDataset", CIFAR, 0.99, None)]),
    ("c-4", [("usesDataset", IMAGENET, 0.3, None), ("proposes", IMAGENET, 0.8, None)]),
    ("c-5", [("usesDataset", IMAGENET_1K, 0.99, IMAGENET)]),
    ("c-6", [("usesDataset", CIFAR, 0.7, None)]),
]
BY_CONFIDENCE = ["c-5", "c-2", "c-4", "c-1", "c-3"]


def extraction(pid: str, links: list[tuple[str, EntityRef, float, EntityRef | None]]) -> Extraction:
    abstract = "We train on " + " and ".join(e.name for _, e, _, _ in links) + "."
    out = []
    for rel, ent, conf, variant in links:
        at = abstract.index(ent.name)
        ev = Evidence(abstract, ent.name, at, at + len(ent.name), conf, rule="test")
        out.append(Link(rel, ent, ev, (), variant))
    paper = Paper(pid, abstract, title=f"Paper {pid}", year=2024)
    return Extraction(paper, tuple(out), extractor_version="t")


def extractions() -> list[Extraction]:
    return [extraction(pid, links) for pid, links in LINKS]


@pytest.fixture(scope="module")
def store() -> EmbeddedStore:
    return store_from(extractions())


@pytest.fixture(scope="module")
def on_disk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("confidence") / "store"
    store_from(extractions(), str(path)).close()
    return path


@pytest.fixture(scope="module")
def ctx(store: EmbeddedStore) -> QueryContext:
    return QueryContext.open(store, DEFAULT_BASE_IRI)


@pytest.fixture(scope="module")
def server(store: EmbeddedStore) -> Iterator[Server]:
    yield from serve(store)


def ids_of(page: Any) -> list[str]:
    return [p.id for p in page.items]


def post(server: Server, query: str) -> dict[str, Any]:
    return httpx.post(server.url + "/graphql", json={"query": query}, timeout=30).json()  # type: ignore[no-any-return]


def test_confidence_order_is_highest_link_first_then_id(ctx: QueryContext) -> None:
    assert ids_of(papers(ctx, dataset="ImageNet", order="CONFIDENCE")) == BY_CONFIDENCE


def test_confidence_order_without_narrower_leaves_the_variant_out(ctx: QueryContext) -> None:
    page = papers(ctx, dataset="ImageNet", order="CONFIDENCE", include_narrower=False)
    assert ids_of(page) == ["c-2", "c-4", "c-1", "c-3"]


def test_confidence_order_of_an_entity_id_uses_that_entity_only(ctx: QueryContext) -> None:
    assert ids_of(papers(ctx, entity="dataset/cifar-10", order="CONFIDENCE")) == ["c-3", "c-6"]


def test_entity_id_filter_lists_what_the_entity_papers_field_lists(ctx: QueryContext) -> None:
    assert ids_of(papers(ctx, entity="dataset/imagenet")) == ["c-1", "c-2", "c-3", "c-4"]


def test_confidence_order_without_an_entity_filter_is_refused(ctx: QueryContext) -> None:
    with pytest.raises(BadOrder, match="^orderBy CONFIDENCE needs an entity filter"):
        papers(ctx, search="ImageNet", order="CONFIDENCE")


def test_graphql_confidence_pages_of_two_give_the_one_page_sequence(server: Server) -> None:
    walked: list[str] = []
    after = ""
    while True:
        q = (f'{{ papers(dataset: "ImageNet" orderBy: CONFIDENCE first: 2 {after}) '
             "{ pageInfo { hasNextPage endCursor } edges { node { id } } } }")
        page = post(server, q)["data"]["papers"]
        walked += [e["node"]["id"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = f'after: "{page["pageInfo"]["endCursor"]}"'
    one = post(server, '{ papers(dataset: "ImageNet" orderBy: CONFIDENCE first: 10) '
                       "{ edges { node { id } } } }")
    assert walked == [e["node"]["id"] for e in one["data"]["papers"]["edges"]] == BY_CONFIDENCE


def test_graphql_confidence_without_an_entity_filter_is_one_line_error(server: Server) -> None:
    body = post(server, "{ papers(orderBy: CONFIDENCE) { totalCount } }")
    assert body["data"] is None
    assert [e["message"] for e in body["errors"]] == [
        "orderBy CONFIDENCE needs an entity filter (dataset, task, method, model or domain)"]


def test_graphql_entity_argument_with_confidence_order(server: Server) -> None:
    body = post(server, '{ papers(entity: "dataset/imagenet" orderBy: CONFIDENCE) '
                        "{ edges { node { id } } } }")
    assert [e["node"]["id"] for e in body["data"]["papers"]["edges"]] == ["c-2", "c-4", "c-1", "c-3"]


def test_export_in_confidence_order(server: Server) -> None:
    r = httpx.get(server.url + "/export/papers", params={"dataset": "ImageNet", "order": "confidence"},
                  timeout=30)
    assert [row["id"] for row in csv.DictReader(io.StringIO(r.text))] == BY_CONFIDENCE


def test_export_confidence_without_an_entity_is_a_one_line_400(server: Server) -> None:
    r = httpx.get(server.url + "/export/papers", params={"order": "confidence"}, timeout=30)
    assert (r.status_code, r.text) == (
        400, "orderBy CONFIDENCE needs an entity filter (dataset, task, method, model or domain)")


def test_cli_papers_in_confidence_order(on_disk: Path) -> None:
    out = run_kg("papers", "--dataset", "ImageNet", "--order", "confidence", "--format", "csv",
                 "--store", on_disk).stdout
    assert [row["id"] for row in csv.DictReader(io.StringIO(out))] == BY_CONFIDENCE


def test_cli_confidence_without_an_entity_is_one_line_naming_the_flags(on_disk: Path) -> None:
    proc = run_kg("papers", "--order", "confidence", "--store", on_disk, check=False)
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines() == [
        "error: --order confidence needs --dataset, --task, --method, --model or --domain"]


def test_confidence_order_of_an_entity_in_more_papers_than_one_query_reads() -> None:
    confidences = {f"m-{i:04d}": round(0.5 + (i * 7 % 11) / 25, 4) for i in range(1_100)}  # 500 links a query
    big = store_from([extraction(p, [("usesDataset", IMAGENET, c, None)]) for p, c in confidences.items()])
    ctx = QueryContext.open(big, DEFAULT_BASE_IRI)
    page = papers(ctx, dataset="ImageNet", order="CONFIDENCE", first=2_000)
    assert ids_of(page) == sorted(confidences, key=lambda p: (-confidences[p], p))
