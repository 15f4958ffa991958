"""The GraphQL contract over real HTTP on the sample corpus (uvicorn on a free loopback port)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fixtures_api import MELON_ID, MELON_NAME, Server, sample_store, serve


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    yield from serve(sample_store())


def gql(server: Server, query: str, **variables: Any) -> dict[str, Any]:
    r = httpx.post(server.url + "/graphql", json={"query": query, "variables": variables}, timeout=30)
    body = r.json()
    assert r.status_code == 200 and "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


def test_papers_by_dataset_imagenet(server: Server) -> None:
    data = gql(server, '{ papers(dataset: "ImageNet") { totalCount edges { node { id } } } }')
    assert data["papers"] == {"totalCount": 1, "edges": [{"node": {"id": "seed-01"}}]}


def test_papers_by_dataset_lower_case_alias(server: Server) -> None:
    data = gql(server, '{ papers(dataset: "imagenet") { edges { node { title } } } }')
    assert [e["node"]["title"] for e in data["papers"]["edges"]] == [
        "Masked Generative Nested Transformers with Decode Time Scaling"
    ]


def test_defenses_for_llm_agents(server: Server) -> None:
    data = gql(server, '{ defenses(target: "LLM agents") { name kind papers { edges { node { id } } } } }')
    assert data["defenses"][0] == {
        "name": MELON_NAME,
        "kind": "Defense",
        "papers": {"edges": [{"node": {"id": "seed-12"}}]},
    }


def test_neighborhood_of_agentdojo_reaches_melon(server: Server) -> None:
    data = gql(server, '{ neighborhood(id: "dataset/agentdojo", depth: 2) { nodes { id type } truncated } }')
    assert {"id": MELON_ID, "type": "Method"} in data["neighborhood"]["nodes"]


def test_pagination_walks_all_19_papers(server: Server) -> None:
    seen: list[str] = []
    after = None
    for _ in range(10):
        page = gql(
            server,
            "query($after: String) { papers(first: 5, after: $after) { totalCount "
            "edges { node { id } } pageInfo { hasNextPage endCursor } } }",
            after=after,
        )["papers"]
        seen += [e["node"]["id"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == [f"seed-{i:02d}" for i in range(1, 20)]


def test_entity_by_alias_ipi(server: Server) -> None:
    data = gql(server, '{ entity(name: "IPI") { id name type } }')
    assert data["entity"] == {
        "id": "threat/indirect-prompt-injection",
        "name": "indirect prompt injection",
        "type": "THREAT",
    }


def test_entities_ranked_by_paper_count(server: Server) -> None:
    data = gql(server, "{ entities(type: METHOD, first: 3) { edges { node { name paperCount } } } }")
    # seed-15's "multimodal transformer" is its own (mined) entity since extractor 0.2.0
    assert data["entities"]["edges"][0]["node"] == {"name": "Transformer", "paperCount": 3}


def test_paper_links_with_evidence(server: Server) -> None:
    data = gql(
        server,
        '{ paper(id: "seed-12") { codeUrls '
        "links(type: DATASET) { relation confidence entity { id } evidence } } }",
    )
    assert data["paper"]["codeUrls"] == ["https://github.com/kaijiezhu11/MELON"]
    (link,) = [x for x in data["paper"]["links"] if x["entity"]["id"] == "dataset/agentdojo"]
    assert link["relation"] == "usesDataset" and 0.5 <= link["confidence"] <= 1.0
    assert link["evidence"] == (
        "Extensive evaluation on the IPI benchmark AgentDojo demonstrates that MELON outperforms "
        "SOTA defenses in both attack prevention and utility preservation."
    )


def test_min_confidence_keeps_exactly_the_links_at_or_above_it(server: Server) -> None:
    query = '{ paper(id: "seed-12") { links(minConfidence: %s) { relation confidence entity { id } } } }'
    every = gql(server, query % "0.0")["paper"]["links"]
    cut = sorted({x["confidence"] for x in every})[len({x["confidence"] for x in every}) // 2]
    kept = gql(server, query % cut)["paper"]["links"]
    assert kept == [x for x in every if x["confidence"] >= cut] and 0 < len(kept) < len(every)


def test_search_ranks_paper_hits(server: Server) -> None:
    data = gql(server, '{ search(text: "coastal ocean", first: 5) { score paper { id } entity { id } } }')
    assert [h["paper"]["id"] for h in data["search"] if h["paper"]] == ["seed-03"]


def test_entity_broader_narrower_related(server: Server) -> None:
    data = gql(server, '{ entity(id: "dataset/imagenet") { related(first: 2) { name } narrower { id } } }')
    assert data["entity"]["related"] == [{"name": "Kinetics-600"}, {"name": "UCF101"}]


def test_missing_paper_is_null(server: Server) -> None:
    assert gql(server, '{ paper(id: "no-such-paper") { id } }') == {"paper": None}


def test_get_opens_graphiql(server: Server) -> None:
    r = httpx.get(server.url + "/graphql", headers={"Accept": "text/html"})
    assert r.status_code == 200 and "graphiql" in r.text.lower()


def test_healthz(server: Server) -> None:
    assert httpx.get(server.url + "/healthz").json() == {"status": "ok"}
