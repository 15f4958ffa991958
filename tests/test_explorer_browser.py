"""The /explore page in a real headless Chromium (Debian's, driven by playwright) against a live server.

One walk through the page is recorded once per module (search "ImageNet" → pick the dataset → its
neighbourhood is drawn → click the visual-generation paper → its abstract shows); the tests check one
thing each about it. Chromium comes from scripts/system-deps; no browser is ever downloaded.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "icml2025_seed.jsonl"
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
PAPER = "seed-01"  # Masked Generative Nested Transformers: the visual-generation paper that uses ImageNet
DATASET = "dataset/imagenet"
TIMEOUT_MS = 20_000

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The real app (GraphQL + explorer) over the sample, built with the real pipeline, on a free port."""
    import uvicorn

    from api import create_app
    from kg.build import build_into_store, read_all, unique_last
    from kg.settings import DEFAULT_BASE_IRI, Settings
    from kg.store.embedded import EmbeddedStore

    store = EmbeddedStore(None, base_iri=DEFAULT_BASE_IRI)
    problems: list[object] = []
    build_into_store(store, unique_last(read_all([SAMPLE], problems.append)), DEFAULT_BASE_IRI)
    app = create_app(Settings(store=store.location, base_iri=DEFAULT_BASE_IRI), store)
    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "test server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(10)


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


@dataclass
class Walk:
    """What the browser saw on one walk through the page."""

    suggestions: list[str] = field(default_factory=list)
    node_ids: set[str] = field(default_factory=set)
    drawn_ids: set[str] = field(default_factory=set)
    hash_after_pick: str = ""
    panel_title: str = ""
    abstract: str = ""
    marks: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    screenshot: Path | None = None


def _new_page(browser: Any, errors: list[str]) -> Any:
    # bypass_csp lets playwright evaluate its probes; the page itself runs under its strict CSP header.
    page = browser.new_context(viewport={"width": 1400, "height": 850}, bypass_csp=True).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    return page


_SETTLED_POSITION = """(id) => new Promise((resolve) => {
  // the node's place on screen once it has held still for 10 animation frames (physics and the fit
  // animation that follows stabilisation both move it after `stable` turns true)
  const n = kgExplorer.network;
  let last = null, still = 0;
  const look = () => {
    const p = n.canvasToDOM(n.getPositions([id])[id]);
    still = last && Math.abs(p.x - last.x) < 0.5 && Math.abs(p.y - last.y) < 0.5 ? still + 1 : 0;
    last = p;
    if (still >= 10) resolve(p); else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})"""


def _click_node(page: Any, node_id: str, shows: str) -> None:
    """Click a node where vis-network drew it, like a person would: where it stands still, and once more
    if the page did not react (a person clicks again too); `shows` is what the click must bring up."""
    for attempt in range(5):
        page.wait_for_function("window.kgExplorer && window.kgExplorer.stable")
        pos = page.evaluate(_SETTLED_POSITION, node_id)
        box = page.locator("#graph canvas").bounding_box()
        page.mouse.click(box["x"] + pos["x"], box["y"] + pos["y"])
        try:
            page.wait_for_selector(shows, timeout=5_000)
            return
        except Exception:  # playwright's TimeoutError: the click landed beside the node
            if attempt == 4:
                raise


@pytest.fixture(scope="module")
def walk(server: str, browser: Any) -> Walk:
    w = Walk()
    page = _new_page(browser, w.errors)
    page.goto(f"{server}/explore")
    page.wait_for_function("window.kgExplorer && window.kgExplorer.ready")
    page.locator("#search").press_sequentially("ImageNet", delay=30)
    page.wait_for_selector(f"#suggestions li[data-id='{DATASET}']")
    w.suggestions = page.eval_on_selector_all("#suggestions li[data-id]", "els => els.map(e => e.dataset.id)")
    page.click(f"#suggestions li[data-id='{DATASET}']")
    page.wait_for_function(f"window.kgExplorer.nodes.get('{PAPER}') !== null && window.kgExplorer.stable")
    w.node_ids = set(page.evaluate("kgExplorer.nodes.getIds()"))
    w.drawn_ids = set(page.evaluate("Object.keys(kgExplorer.network.getPositions())"))
    w.hash_after_pick = page.evaluate("location.hash")
    _click_node(page, PAPER, "#panel .abstract")
    w.panel_title = page.inner_text("#panel h2")
    w.abstract = page.inner_text("#panel .abstract")
    w.marks = page.eval_on_selector_all("#panel .abstract mark", "els => els.map(e => e.textContent)")
    page.mouse.move(5, 400)  # no tooltip in the picture
    page.wait_for_timeout(300)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    w.screenshot = ARTIFACTS / "explorer.png"
    page.screenshot(path=str(w.screenshot))
    page.context.close()
    return w


def test_page_and_vis_network_are_served_locally(server: str) -> None:
    from kg.viz import vis_asset

    js = httpx.get(f"{server}/explore/static/vis/vis-network.min.js")
    assert (js.status_code, js.content) == (200, vis_asset("vis-network.min.js").read_bytes())


def test_page_loads_no_third_party_resources(server: str) -> None:
    html = httpx.get(f"{server}/explore").text
    assert "http://" not in html and "https://" not in html


def test_search_suggests_the_dataset_first(walk: Walk) -> None:
    assert walk.suggestions[0] == DATASET


def test_neighbourhood_holds_dataset_and_paper(walk: Walk) -> None:
    assert {DATASET, PAPER} <= walk.node_ids


def test_dataset_and_paper_are_drawn(walk: Walk) -> None:
    assert {DATASET, PAPER} <= walk.drawn_ids


def test_url_names_the_current_node(walk: Walk) -> None:
    assert walk.hash_after_pick == "#node=dataset%2Fimagenet&depth=2"


def test_clicking_the_paper_shows_its_title(walk: Walk) -> None:
    assert walk.panel_title == "Masked Generative Nested Transformers with Decode Time Scaling"


def test_clicking_the_paper_shows_its_abstract(walk: Walk) -> None:
    assert walk.abstract.startswith("Recent advances in visual generation have made significant strides")


def test_abstract_highlights_the_linked_dataset(walk: Walk) -> None:
    assert "UCF101" in walk.marks


def test_no_console_errors(walk: Walk) -> None:
    assert walk.errors == []


def test_screenshot_is_saved(walk: Walk) -> None:
    assert walk.screenshot is not None and walk.screenshot.read_bytes()[:4] == b"\x89PNG"


def test_shared_url_opens_the_node(server: str, browser: Any) -> None:
    errors: list[str] = []
    page = _new_page(browser, errors)
    page.goto(f"{server}/explore#node={PAPER}&depth=1")
    page.wait_for_selector("#panel .abstract")
    assert (page.evaluate("kgExplorer.center"), page.input_value("#depth"), errors) == (PAPER, "1", [])
    page.context.close()


def test_type_filter_hides_datasets(server: str, browser: Any) -> None:
    page = _new_page(browser, [])
    page.goto(f"{server}/explore#node={PAPER}&depth=1")
    page.wait_for_function(f"window.kgExplorer.nodes.get('{DATASET}') !== null")
    page.uncheck("#legend input[data-type='Dataset']")
    visible = page.evaluate("kgExplorer.visibleNodeIds()")
    assert (PAPER in visible, DATASET in visible) == (True, False)
    page.context.close()


def test_confidence_slider_hides_weak_links(server: str, browser: Any) -> None:
    page = _new_page(browser, [])
    page.goto(f"{server}/explore#node={PAPER}&depth=1")
    page.wait_for_function("window.kgExplorer.edges.get().some(e => e.confidence !== null)")
    page.fill("#confidence", "1")
    page.dispatch_event("#confidence", "input")
    weak = page.evaluate("kgExplorer.edges.get({ filter: e => e.confidence !== null && e.confidence < 1 })"
                         ".length")
    shown = page.evaluate("kgExplorer.edgeView.getIds().length")
    total = page.evaluate("kgExplorer.edges.length")
    assert (weak > 0, shown) == (True, total - weak)
    page.context.close()
