"""papers(year:, venue:, orderBy:) over real HTTP: filters, the three orders, and keyset cursors per order."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest
from fixtures_api import Server, gold_extractions, serve, store_from


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    exs = gold_extractions()  # venue "ICML"; years 2019..2022 by position, the last one without a year
    dated = [replace(ex, paper=replace(ex.paper, year=2019 + i % 4 if i < len(exs) - 1 else None))
             for i, ex in enumerate(exs)]
    yield from serve(store_from(dated))


def post(server: Server, query: str) -> dict[str, Any]:
    return httpx.post(server.url + "/graphql", json={"query": query}, timeout=30).json()  # type: ignore[no-any-return]


def ids(server: Server, args: str) -> list[str]:
    body = post(server, f"{{ papers({args}) {{ edges {{ node {{ id }} }} }} }}")
    return [e["node"]["id"] for e in body["data"]["papers"]["edges"]]


def walk(server: Server, args: str, first: int) -> list[str]:
    """Every id of the list, read `first` at a time through endCursor."""
    out: list[str] = []
    after = ""
    while True:
        fields = "pageInfo { hasNextPage endCursor } edges { node { id } }"
        q = f"{{ papers({args} first: {first} {after}) {{ {fields} }} }}"
        page = post(server, q)["data"]["papers"]
        out += [e["node"]["id"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            return out
        after = f'after: "{page["pageInfo"]["endCursor"]}"'


def test_default_order_is_identifier_order(server: Server) -> None:
    assert ids(server, "first: 3") == ["seed-01", "seed-02", "seed-03"]


def test_order_by_year_is_newest_first_then_id_and_no_year_last(server: Server) -> None:
    assert ids(server, "orderBy: YEAR first: 30") == [
        "seed-04", "seed-08", "seed-12", "seed-16", "seed-03", "seed-07", "seed-11", "seed-15", "seed-02",
        "seed-06", "seed-10", "seed-14", "seed-18", "seed-01", "seed-05", "seed-09", "seed-13", "seed-17",
        "seed-19",
    ]


def test_order_by_title_is_alphabetical_ignoring_case(server: Server) -> None:
    assert ids(server, "orderBy: TITLE first: 4") == ["seed-06", "seed-02", "seed-13", "seed-03"]


def test_year_filter_keeps_that_year_only(server: Server) -> None:
    assert ids(server, "year: 2020") == ["seed-02", "seed-06", "seed-10", "seed-14", "seed-18"]


def test_venue_filter_is_case_insensitive_whole_name(server: Server) -> None:
    assert len(ids(server, 'venue: "icml" first: 30')) == 19
    assert ids(server, 'venue: "NeurIPS"') == []
    assert ids(server, 'venue: "ICM"') == []


def test_year_filter_with_title_order(server: Server) -> None:
    assert ids(server, "year: 2021 orderBy: TITLE") == ["seed-03", "seed-15", "seed-11", "seed-07"]


def test_entity_filter_with_year_order(server: Server) -> None:
    assert ids(server, 'dataset: "ImageNet" orderBy: YEAR') == ["seed-01"]


def test_total_count_counts_the_filtered_list(server: Server) -> None:
    body = post(server, "{ papers(year: 2022 first: 1) { totalCount pageInfo { hasNextPage } } }")
    assert body["data"]["papers"] == {"totalCount": 4, "pageInfo": {"hasNextPage": True}}


@pytest.mark.parametrize(("order", "first"), [("YEAR", 3), ("TITLE", 4), ("ID", 5)])
def test_cursors_walk_each_order_without_gaps_or_repeats(server: Server, order: str, first: int) -> None:
    assert walk(server, f"orderBy: {order}", first) == ids(server, f"orderBy: {order} first: 30")


def test_year_order_cursor_is_refused_by_title_order(server: Server) -> None:
    page = post(server, "{ papers(orderBy: YEAR first: 1) { pageInfo { endCursor } } }")["data"]["papers"]
    end = page["pageInfo"]["endCursor"]
    body = post(server, f'{{ papers(orderBy: TITLE after: "{end}") {{ totalCount }} }}')
    assert body["errors"][0]["message"] == "invalid cursor"
