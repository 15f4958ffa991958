"""GraphQL results, Paper.results, Entity.metrics and compare over real HTTP: the bundled sample built by
the real pipeline plus hand-made papers with results, in one embedded store."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fixtures_api import ACC, FID, Server, results_paper, sample_store_with, serve


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    store = sample_store_with(
        results_paper("x-1", "OmegaGAN", [(2.7, "", FID), (80.1, "%", ACC)], "OmegaGAN: a test"),
        results_paper("x-2", "SigmaGAN", [(1.9, "", FID)], "SigmaGAN: a test"),
        results_paper("x-3", "TauGAN", [(4.4, "", FID)], "TauGAN: a test"),
        # a tie with OmegaGAN's 80.1%, and a gain tied loosely to its metric (lower confidence)
        results_paper(
            "x-4", "PhiNet", [(80.1, "%", ACC), (1.3, "points", ACC, "delta", 0.7)], "PhiNet: a test"
        ),
    )
    yield from serve(store)


def post(server: Server, query: str, **variables: Any) -> dict[str, Any]:
    r = httpx.post(server.url + "/graphql", json={"query": query, "variables": variables}, timeout=60)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def gql(server: Server, query: str, **variables: Any) -> dict[str, Any]:
    body = post(server, query, **variables)
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


BOARD = """query($d: String, $m: String, $first: Int!, $after: String) {
  results(dataset: $d, metric: $m, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { cursor node { value unit kind rank higherIsBetter metric { name } dataset { name }
                          method { name } paper { id } evidence start end confidence } } } }"""


def test_fid_leaderboard_lower_first(server: Server) -> None:
    data = gql(server, BOARD, d="imagenet", m="FID", first=10)["results"]
    nodes = [e["node"] for e in data["edges"]]
    assert [(n["paper"]["id"], n["value"], n["rank"]) for n in nodes] == [
        ("x-2", 1.9, 1),
        ("x-1", 2.7, 2),
        ("x-3", 4.4, 3),
    ]
    assert nodes[0]["higherIsBetter"] is False and nodes[0]["method"]["name"] == "SigmaGAN"
    assert nodes[0]["evidence"] == "SigmaGAN reaches 1.9 Frechet Inception Distance on ImageNet."


def test_pages_follow_cursors(server: Server) -> None:
    first = gql(server, BOARD, d="ImageNet", m="FID", first=2)["results"]
    assert first["totalCount"] == 3 and first["pageInfo"]["hasNextPage"] is True
    rest = gql(server, BOARD, d="ImageNet", m="FID", first=2, after=first["pageInfo"]["endCursor"])["results"]
    assert [e["node"]["value"] for e in rest["edges"]] == [4.4] and rest["pageInfo"]["hasNextPage"] is False


def test_sample_result_from_the_real_pipeline(server: Server) -> None:
    data = gql(server, BOARD, d="GenImage", m=None, first=5)["results"]
    node = data["edges"][0]["node"]
    assert (node["value"], node["unit"], node["metric"]["name"], node["paper"]["id"]) == (
        98.0,
        "%",
        "accuracy",
        "seed-07",
    )
    assert "98% accuracy" in node["evidence"]


def test_paper_results_and_dataset_metrics(server: Server) -> None:
    data = gql(
        server,
        '{ paper(id: "x-1") { results { value unit metric { name } dataset { id } } } '
        'entity(id: "dataset/imagenet") { metrics { metric { name } results papers higherIsBetter } } '
        'other: entity(id: "metric/accuracy") { metrics { results } } }',
    )
    assert [(r["value"], r["unit"], r["metric"]["name"]) for r in data["paper"]["results"]] == [
        (2.7, "", "Frechet Inception Distance"),
        (80.1, "%", "top-1 accuracy"),
    ]
    assert data["entity"]["metrics"][0] == {
        "metric": {"name": "Frechet Inception Distance"},
        "results": 3,
        "papers": 3,
        "higherIsBetter": False,
    }
    assert data["other"]["metrics"] == []


def test_compare_side_by_side_with_evidence(server: Server) -> None:
    data = gql(
        server,
        '{ compare(papers: ["x-1", "seed-07"]) { paper { id } methods { entity { name } } '
        "datasets { entity { name } evidence } results { value metric { name } } } }",
    )
    a, b = data["compare"]
    assert (a["paper"]["id"], b["paper"]["id"]) == ("x-1", "seed-07")
    assert [m["entity"]["name"] for m in a["methods"]] == ["OmegaGAN"]
    assert b["datasets"][0]["entity"]["name"] == "GenImage" and b["datasets"][0]["evidence"]
    assert [r["value"] for r in b["results"]] == [98.0]


def test_bad_requests_are_clear_errors(server: Server) -> None:
    body = post(server, '{ compare(papers: ["x-1", "no-such"]) { paper { id } } }')
    assert "no paper with id 'no-such'" in body["errors"][0]["message"]
    body = post(server, "{ results { totalCount } }")
    assert "at least one of dataset, metric, task" in body["errors"][0]["message"]
    body = post(server, BOARD, d="ImageNet", m=None, first=2, after="forged")
    assert body["errors"]


SECTIONED = """query($m: String, $section: String, $low: Boolean!) {
  results(dataset: "ImageNet", metric: $m, section: $section, includeLowConfidence: $low, first: 10) {
    totalCount hiddenCount
    edges { node { paper { id } value unit kind rank board improvement confidence } } } }"""


def _rows(data: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (n["paper"]["id"], n["value"], n["kind"], n["rank"], n["board"], n["improvement"])
        for n in (e["node"] for e in data["results"]["edges"])
    ]


def test_ties_share_a_rank_and_low_confidence_rows_are_hidden_and_counted(server: Server) -> None:
    data = gql(server, SECTIONED, m="top-1 accuracy", section=None, low=False)
    assert _rows(data) == [
        ("x-1", 80.1, "absolute", 1, "top-1 accuracy · ImageNet", None),
        ("x-4", 80.1, "absolute", 1, "top-1 accuracy · ImageNet", None),
    ]
    assert (data["results"]["totalCount"], data["results"]["hiddenCount"]) == (2, 1)
    data = gql(server, SECTIONED, m="top-1 accuracy", section=None, low=True)
    assert _rows(data)[2:] == [("x-4", 1.3, "delta", None, None, "+1.3 points top-1 accuracy")]
    assert data["results"]["hiddenCount"] == 0


def test_improvements_are_a_section_of_their_own_never_ranked(server: Server) -> None:
    data = gql(server, SECTIONED, m=None, section="improvement", low=True)
    assert _rows(data) == [("x-4", 1.3, "delta", None, None, "+1.3 points top-1 accuracy")]
    ranked = gql(server, SECTIONED, m=None, section="absolute", low=True)
    assert {n["node"]["kind"] for n in ranked["results"]["edges"]} == {"absolute"}
    assert all(n["node"]["rank"] for n in ranked["results"]["edges"])
    body = post(server, SECTIONED, m=None, section="scores", low=False)
    assert "section must be one of absolute, improvement" in body["errors"][0]["message"]
