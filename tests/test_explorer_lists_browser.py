"""The explorer's paper lists in a real headless Chromium against a live server: each list has a sort (ID,
newest first, title, link confidence; kept in the URL) and CSV/BibTeX links whose downloads (/export/papers)
hold the same papers in the same order as the list shown."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from bibtexparser.entrypoint import parse_string
from fixtures_api import serve, store_from
from test_explorer_browser import _new_page, browser  # noqa: F401  (the browser fixture, shared)
from test_paper_confidence_order import BY_CONFIDENCE, extractions

YEARS = {"c-1": 2021, "c-2": 2019, "c-3": 2023, "c-4": 2022, "c-5": 2020, "c-6": 2024}
ENTITY = "dataset/imagenet"
SHOWN = "#panel ul.papers li[data-paper]"


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    exs = [replace(x, paper=replace(x.paper, year=YEARS[x.paper.id])) for x in extractions()]
    for s in serve(store_from(exs)):
        yield s.url


def shown(page: Any, selector: str = SHOWN) -> list[str]:
    page.wait_for_selector("#panel .paper-list p.paging")
    return list(page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.paper)"))


def download(page: Any, fmt: str) -> str:
    with page.expect_download() as info:
        page.click(f"#panel .list-tools a.export[data-format='{fmt}']")
    return Path(info.value.path()).read_text(encoding="utf-8")


def csv_ids(text: str) -> list[str]:
    return [row["id"] for row in csv.DictReader(io.StringIO(text))]


def entity_panel(
    server: str, browser: Any, extra: str = "", errors: list[str] | None = None  # noqa: F811
) -> Any:
    page = _new_page(browser, [] if errors is None else errors)
    page.goto(f"{server}/explore#node={ENTITY}{extra}")
    return page


def test_entity_list_csv_download_is_the_list_shown(server: str, browser: Any) -> None:  # noqa: F811
    page = entity_panel(server, browser)
    ids = shown(page)
    assert csv_ids(download(page, "csv")) == ids == ["c-1", "c-2", "c-3", "c-4"]
    page.context.close()


def test_entity_list_bibtex_download_is_the_list_shown(server: str, browser: Any) -> None:  # noqa: F811
    page = entity_panel(server, browser)
    ids = shown(page)
    lib = parse_string(download(page, "bibtex"))
    assert [e.key for e in lib.entries] == ids
    page.context.close()


def test_sorting_by_confidence_reorders_the_list_its_downloads_and_the_url(
    server: str, browser: Any  # noqa: F811
) -> None:
    errors: list[str] = []
    page = entity_panel(server, browser, errors=errors)
    shown(page)
    page.select_option("#panel select.paper-order", "CONFIDENCE")
    ids = shown(page)
    assert ids == ["c-2", "c-4", "c-1", "c-3"]
    assert csv_ids(download(page, "csv")) == ids
    assert [e.key for e in parse_string(download(page, "bibtex")).entries] == ids
    assert "order=CONFIDENCE" in page.evaluate("location.hash")
    assert errors == []
    page.context.close()


def test_order_in_the_url_is_restored(server: str, browser: Any) -> None:  # noqa: F811
    page = entity_panel(server, browser, "&order=YEAR")
    ids = shown(page)
    assert (ids, page.input_value("#panel select.paper-order")) == (["c-3", "c-4", "c-1", "c-2"], "YEAR")
    assert csv_ids(download(page, "csv")) == ids
    page.context.close()


def test_papers_using_answer_sorts_and_downloads_the_same_list(
    server: str, browser: Any  # noqa: F811
) -> None:
    page = entity_panel(server, browser)
    page.click("#panel button[data-ask='using']")
    answer = "#panel ul.answer li[data-paper]"
    page.wait_for_selector(answer)
    page.select_option("#panel select.paper-order", "CONFIDENCE")
    ids = shown(page, answer)
    assert ids == BY_CONFIDENCE  # the name filter includes ImageNet's variant ImageNet-1k (c-5)
    assert csv_ids(download(page, "csv")) == ids
    page.context.close()
