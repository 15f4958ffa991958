"""The entity panel's counts in a real headless Chromium say what they count and equal GraphQL's answer for
the same entity on the same server: ImageNet is linked by two papers, three with its variant ImageNet-LT, and
two results are reported on them (real extractor, real store, real HTTP server)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fixtures_api import BASE, Server, serve, store_from
from test_explorer_browser import _new_page, browser  # noqa: F401  (the shared Chromium fixture)

from kg.extract import Extractor
from kg.types import Paper

ABSTRACTS = {
    "c1": "We propose FastNet for image classification. FastNet reaches 81.2% top-1 accuracy on ImageNet.",
    "c2": "We study long-tailed recognition on ImageNet-LT. Our method reaches 55.1% top-1 accuracy on "
    "ImageNet-LT.",
    "c3": "We pretrain a vision transformer on ImageNet and fine-tune it for object detection on COCO.",
}
COUNTS = "{ paperCount paperCountWithNarrower resultCount }"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    papers = [Paper(id=k, abstract=v, title=f"Paper {k}") for k, v in ABSTRACTS.items()]
    yield from serve(store_from(list(Extractor(BASE, with_linker=False).extract(papers))))


def graphql_counts(server: Server, entity_id: str) -> dict[str, Any]:
    query = f'{{ entity(id: "{entity_id}") {COUNTS} }}'
    return httpx.post(server.url + "/graphql", json={"query": query}, timeout=30).json()["data"]["entity"]  # type: ignore[no-any-return]


def panel_counts(server: Server, browser: Any, entity_id: str) -> dict[str, str]:  # noqa: F811
    errors: list[str] = []
    page = _new_page(browser, errors)
    page.goto(f"{server.url}/explore#node={entity_id}")
    page.wait_for_selector("#panel dd.counts [data-count]")
    found = page.eval_on_selector_all(
        "#panel dd.counts [data-count]", "els => els.map(e => [e.dataset.count, e.textContent])"
    )
    line = page.inner_text("#panel dd.counts")
    page.context.close()
    assert errors == []
    return {**dict(found), "line": line}


def test_graphql_counts_papers_narrower_and_results_of_a_dataset(server: Server) -> None:
    assert graphql_counts(server, "dataset/imagenet") == {
        "paperCount": 2, "paperCountWithNarrower": 3, "resultCount": 2,
    }


def test_the_panel_shows_the_graphql_counts_of_a_dataset_with_what_they_count(
    server: Server, browser: Any  # noqa: F811
) -> None:
    want = graphql_counts(server, "dataset/imagenet")
    shown = panel_counts(server, browser, "dataset/imagenet")
    assert shown == {
        "papers": f"{want['paperCount']} papers link it",
        "narrower": f"{want['paperCountWithNarrower']} with narrower",
        "results": f"{want['resultCount']} results",
        "line": "2 papers link it · 3 with narrower · 2 results",
    }


def test_the_panel_of_a_task_shows_only_the_counts_that_apply(
    server: Server, browser: Any  # noqa: F811
) -> None:
    want = graphql_counts(server, "task/object-detection")
    assert want == {"paperCount": 1, "paperCountWithNarrower": 1, "resultCount": None}
    assert panel_counts(server, browser, "task/object-detection") == {
        "papers": "1 paper links it", "line": "1 paper links it",
    }
