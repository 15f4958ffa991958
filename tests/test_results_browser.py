"""The explorer's leaderboard and comparison (api/explorer/static/results.js) in a real headless Chromium
(Debian's, driven by playwright) against a live server: the sample built by the real pipeline plus papers
with ImageNet results. A dataset's panel shows its leaderboard (metric picker, rows best first, evidence on
click); ticked papers are compared side by side and exported as CSV."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixtures_api import ACC, FID, results_paper, sample_store_with, serve

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 20_000


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    gen = "image generation"
    store = sample_store_with(
        results_paper("x-1", "OmegaGAN", [(2.7, "", FID), (80.1, "%", ACC)], "OmegaGAN: a generator", gen,
                      2024),
        results_paper("x-2", "SigmaGAN", [(1.9, "", FID), (82.4, "%", ACC), (3.3, "", FID)],
                      "SigmaGAN: a generator", gen, 2024),
        results_paper("x-3", "TauGAN", [(4.4, "", FID)], "TauGAN: a generator", gen, 2024),
        # a score tied loosely to its metric (lower confidence) and a gain, which no board ranks
        results_paper("x-4", "PhiGAN", [(84.0, "%", ACC, "absolute", 0.7), (1.3, "points", ACC, "delta")],
                      "PhiGAN: a generator", gen, 2025),
    )
    for s in serve(store):
        yield s.url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), f"{CHROMIUM} missing: run scripts/system-deps (Debian's chromium)"
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def page(server: str, browser: Any) -> Iterator[Any]:
    errors: list[str] = []
    ctx = browser.new_context(viewport={"width": 1400, "height": 900}, bypass_csp=True, accept_downloads=True)
    p: Any = ctx.new_page()  # Any: the fixture hangs the collected errors on it
    p.set_default_timeout(TIMEOUT_MS)
    p.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    p.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    p.goto(f"{server}/explore")
    p.wait_for_function("window.kgExplorer && kgExplorer.ready && window.kgResults")
    p.evaluate("kgExplorer.openPanel('dataset/imagenet')")
    p.wait_for_selector(".kg-leaderboard tbody tr.lb-row")
    p.errors = errors
    yield p
    ctx.close()


def show(page: Any, metric: str, first_value: str) -> None:
    """Pick `metric` and wait for its board (whose first value is `first_value`); tests share one page, so a
    comparison left open by another test is closed first."""
    if page.locator("#kg-compare").count():
        page.click("#kg-compare-close")
    page.select_option(".lb-metric", metric)
    page.wait_for_function(
        "document.querySelector('.kg-leaderboard tr.lb-row td:nth-child(2)')?.textContent === "
        + repr(first_value)
    )


_TEXTS_JS = "els => els.map(e => e.textContent)"
_ROWS = """els => els.map(r => [r.dataset.paper, r.children[0].textContent, r.children[1].textContent])"""


def test_dataset_panel_shows_its_leaderboard_best_first(page: Any) -> None:
    options = page.eval_on_selector_all(".lb-metric option", "els => els.map(e => e.value)")
    assert options == ["Frechet Inception Distance", "top-1 accuracy"]  # most results first
    show(page, "Frechet Inception Distance", "1.9")
    rows = page.eval_on_selector_all(".kg-leaderboard tr.lb-row", _ROWS)
    assert rows == [["x-2", "1", "1.9"], ["x-1", "2", "2.7"], ["x-2", "3", "3.3"], ["x-3", "4", "4.4"]]
    assert page.errors == []


def test_metric_picker_reorders_by_direction(page: Any) -> None:
    show(page, "top-1 accuracy", "82.4%")
    rows = page.eval_on_selector_all(".kg-leaderboard tr.lb-row", _ROWS)
    assert rows == [["x-2", "1", "82.4%"], ["x-1", "2", "80.1%"]]
    show(page, "Frechet Inception Distance", "1.9")


def test_value_click_shows_its_evidence_sentence(page: Any) -> None:
    show(page, "Frechet Inception Distance", "1.9")
    value = page.locator(".kg-leaderboard tr.lb-row .lb-value").first
    assert value.get_attribute("title") == "SigmaGAN reaches 1.9 Frechet Inception Distance on ImageNet."
    value.click()
    detail = page.locator(".kg-leaderboard tr.lb-detail").first
    detail.wait_for(state="visible")
    assert detail.locator("mark").inner_text() == "1.9"
    assert "SigmaGAN reaches" in detail.inner_text()


def test_ticked_papers_are_compared_and_exported(page: Any) -> None:
    show(page, "Frechet Inception Distance", "1.9")
    page.locator(".lb-tick[data-paper='x-2']").first.check()
    page.locator(".lb-tick[data-paper='x-3']").first.check()
    assert page.locator(".lb-tick[data-paper='x-2']").nth(1).is_checked()  # every row of that paper
    page.click("#kg-compare-open")
    page.wait_for_selector("#kg-compare table")
    heads = page.eval_on_selector_all(
        "#kg-compare thead th[data-paper]", "els => els.map(e => e.dataset.paper)"
    )
    assert heads == ["x-2", "x-3"]
    results = page.inner_text("#kg-compare tr[data-row='results']")
    assert "Frechet Inception Distance 1.9 on ImageNet" in results and "4.4" in results
    methods = page.inner_text("#kg-compare tr[data-row='methods']")
    assert "SigmaGAN" in methods and "TauGAN" in methods
    with page.expect_download() as dl:
        page.click("#kg-compare-csv")
    text = Path(dl.value.path()).read_text(encoding="utf-8")
    table = list(csv.reader(io.StringIO(text)))
    assert table[0] == ["property", "x-2", "x-3"]
    assert [r[0] for r in table[1:]] == [
        "title",
        "year",
        "tasks",
        "datasets",
        "methods",
        "models",
        "metrics",
        "results",
        "improvements",
    ]
    assert "82.4%" in table[-2][1] and table[5][2] == "TauGAN" and table[-1][1:] == ["", ""]
    assert page.errors == []


_GAINS = """els => els.map(r => [r.dataset.paper, r.children[0].textContent, r.children[1].textContent])"""


def test_improvements_are_listed_apart_and_never_ranked(page: Any) -> None:
    show(page, "top-1 accuracy", "82.4%")
    gains = page.eval_on_selector_all(".kg-leaderboard tr.lb-gain", _GAINS)
    assert gains == [["x-4", "Δ", "+1.3 points top-1 accuracy"]]
    heads = page.eval_on_selector_all(".kg-leaderboard tr.lb-board th", "els => els.map(e => e.textContent)")
    assert heads == ["Improvements (not ranked)"]
    assert page.errors == []


def test_low_confidence_rows_are_hidden_counted_and_shown_on_request(page: Any) -> None:
    show(page, "top-1 accuracy", "82.4%")
    assert page.inner_text(".kg-leaderboard .lb-low").startswith("1 more, lower confidence.")
    page.click(".kg-leaderboard .lb-show-low")
    page.wait_for_function(
        "document.querySelector('.kg-leaderboard tr.lb-row td:nth-child(2)')?.textContent === '84%'"
    )
    rows = page.eval_on_selector_all(".kg-leaderboard tr.lb-row", _ROWS)
    assert rows == [["x-4", "1", "84%"], ["x-2", "2", "82.4%"], ["x-1", "3", "80.1%"]]
    page.click(".kg-leaderboard .lb-show-low")  # hide them again
    page.wait_for_function(
        "document.querySelector('.kg-leaderboard tr.lb-row td:nth-child(2)')?.textContent === '82.4%'"
    )
    assert page.inner_text(".kg-leaderboard .lb-low").startswith("1 more, lower confidence.")
    assert page.errors == []


def test_compare_tray_never_covers_the_legend(page: Any) -> None:
    show(page, "Frechet Inception Distance", "1.9")
    page.locator(".lb-tick[data-paper='x-1']").first.check()
    page.wait_for_selector("#kg-compare-tray")
    tray = page.locator("#kg-compare-tray").bounding_box()
    legend = page.locator("#legend").bounding_box()
    apart = (tray["x"] + tray["width"] <= legend["x"] or legend["x"] + legend["width"] <= tray["x"]
             or tray["y"] + tray["height"] <= legend["y"] or legend["y"] + legend["height"] <= tray["y"])
    page.locator(".lb-tick[data-paper='x-1']").first.uncheck()
    assert apart, (tray, legend)


@pytest.fixture(scope="module")
def many_server() -> Iterator[str]:
    """The sample plus 25 papers each reaching a different top-1 accuracy on ImageNet (60.0% to 84.0%)."""
    store = sample_store_with(*(
        results_paper(f"m-{i:02d}", f"Net{i}", [(60.0 + i, "%", ACC)], f"Net{i}: a classifier", None, 2024)
        for i in range(25)))
    for s in serve(store):
        yield s.url


def test_leaderboard_pages_through_every_row(many_server: str, browser: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1400, "height": 900}, bypass_csp=True)
    p = ctx.new_page()
    p.set_default_timeout(TIMEOUT_MS)
    p.goto(f"{many_server}/explore")
    p.wait_for_function("window.kgExplorer && kgExplorer.ready && window.kgResults")
    p.evaluate("kgExplorer.openPanel('dataset/imagenet')")
    p.wait_for_selector(".kg-leaderboard tbody tr.lb-row")
    first = p.locator(".kg-leaderboard tr.lb-row").count()
    p.click(".kg-leaderboard .lb-more")
    p.wait_for_function("document.querySelectorAll('.kg-leaderboard tr.lb-row').length === 25")
    values = p.eval_on_selector_all(".kg-leaderboard tr.lb-row td:nth-child(2)", _TEXTS_JS)
    more = p.locator(".kg-leaderboard .lb-more").count()
    ctx.close()
    assert (first, more) == (20, 0)
    assert values == [f"{84 - i}%" for i in range(25)]  # best first, across both pages
