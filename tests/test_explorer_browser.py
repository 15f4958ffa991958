"""The /explore page in a real headless Chromium (Debian's, driven by playwright) against live servers.

Over the sample, one walk through the page is recorded once per module (search "ImageNet" → pick the
dataset → its co-occurrence map with its one paper is drawn → click the paper → its abstract shows); the
tests check one thing each about it, and others open shared URLs, ask the contract's questions and
download the view. Over a generated graph of 2,000 papers the map must stay readable: no two drawn labels
overlap, expand adds the next ring, papers are paged in the panel. Chromium comes from
scripts/system-deps; no browser is ever downloaded.
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
from fixtures_api import MELON_NAME

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


def _serve(store: Any) -> Iterator[str]:
    import uvicorn

    from api import create_app
    from kg.settings import DEFAULT_BASE_IRI, Settings

    app = create_app(Settings(store=store.location, base_iri=DEFAULT_BASE_IRI), store)
    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120  # a hang guard, not a speed check
    while not srv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "test server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(10)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The real app (GraphQL + explorer) over the sample, built with the real pipeline, on a free port."""
    from kg.build import build_into_store, read_all, unique_last
    from kg.settings import DEFAULT_BASE_IRI
    from kg.store.embedded import EmbeddedStore

    store = EmbeddedStore(None, base_iri=DEFAULT_BASE_IRI)
    problems: list[object] = []
    build_into_store(store, unique_last(read_all([SAMPLE], problems.append)), DEFAULT_BASE_IRI)
    yield from _serve(store)


BIG = 2_000


@pytest.fixture(scope="module")
def big_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app over 2,000 generated papers (bench/synth.py: Zipf-popular entities, links with evidence),
    each with a URL, written through the build's mapping into an on-disk store."""
    import sys
    from dataclasses import replace

    sys.path.insert(0, str(ROOT / "bench"))
    from synth import synth_extractions

    from kg.build import ensure_schema, write_extractions
    from kg.rdf.iris import Iris
    from kg.rdf.mapping import GraphMapper
    from kg.settings import DEFAULT_BASE_IRI
    from kg.store.embedded import EmbeddedStore

    store = EmbeddedStore(str(tmp_path_factory.mktemp("big") / "kg"), base_iri=DEFAULT_BASE_IRI)
    ensure_schema(store, DEFAULT_BASE_IRI)
    exs = (replace(x, paper=replace(x.paper, url=f"https://papers.example.org/{x.paper.id}"))
           for x in synth_extractions(BIG, seed=11))
    write_extractions(store, exs, GraphMapper(Iris(DEFAULT_BASE_IRI)), batch_size=500)
    try:
        yield from _serve(store)
    finally:
        store.close()


@pytest.fixture(scope="module")
def gap_server() -> Iterator[str]:
    """The app over four papers on ImageNet from 2019, 2022 (two) and 2023: none in 2020 or 2021."""
    from kg.build import ensure_schema, write_extractions
    from kg.rdf.iris import Iris
    from kg.rdf.mapping import GraphMapper
    from kg.settings import DEFAULT_BASE_IRI
    from kg.store.embedded import EmbeddedStore
    from kg.types import EntityRef, Evidence, Extraction, Link, Paper

    text = "We evaluate on ImageNet."
    ev = Evidence(text, "ImageNet", 15, 23, 0.9, rule="vocab")
    exs = [Extraction(Paper(f"g{i}", text, title=f"Paper {i}", year=y),
                      (Link("usesDataset", EntityRef("Dataset", "ImageNet"), ev),), extractor_version="t")
           for i, y in enumerate([2019, 2022, 2022, 2023])]
    store = EmbeddedStore(None, base_iri=DEFAULT_BASE_IRI)
    ensure_schema(store, DEFAULT_BASE_IRI)
    write_extractions(store, exs, GraphMapper(Iris(DEFAULT_BASE_IRI)))
    yield from _serve(store)


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
    counts: list[str] = field(default_factory=list)
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
    page = browser.new_context(viewport={"width": 1400, "height": 850}, bypass_csp=True,
                               accept_downloads=True).new_page()
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
_TEXTS = "els => els.map(e => e.textContent)"
_PAPER_IDS = "els => els.map(e => e.dataset.paper)"
_DRAWN = "window.kgExplorer && kgExplorer.ready && kgExplorer.center && kgExplorer.stable"


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


def _settled_labels(page: Any) -> list[dict[str, Any]]:
    """The labels drawn once the picture holds still (the rectangles the page drew its text into)."""
    page.wait_for_function(_DRAWN)
    page.evaluate(_SETTLED_POSITION, page.evaluate("kgExplorer.center"))
    page.evaluate("new Promise((r) => { kgExplorer.network.redraw(); requestAnimationFrame(() => r(1)); })")
    return list(page.evaluate("kgExplorer.labels"))


def _overlapping(labels: list[dict[str, Any]]) -> list[tuple[str, str]]:
    out = []
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            if a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"] and a["y"] < b["y"] + b["h"] \
                    and b["y"] < a["y"] + a["h"]:
                out.append((a["id"], b["id"]))
    return out


@pytest.fixture(scope="module")
def walk(server: str, browser: Any) -> Walk:
    w = Walk()
    page = _new_page(browser, w.errors)
    page.goto(f"{server}/explore")
    page.wait_for_function("window.kgExplorer && window.kgExplorer.ready")
    page.locator("#search").press_sequentially("ImageNet", delay=30)
    page.wait_for_selector(f"#suggestions li[data-id='{DATASET}']")
    w.suggestions = page.eval_on_selector_all("#suggestions li[data-id]", "els => els.map(e => e.dataset.id)")
    w.counts = page.eval_on_selector_all("#suggestions li[data-id] .count", _TEXTS)
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


def test_suggestions_show_paper_counts(walk: Walk) -> None:
    assert walk.counts and walk.counts[0] == "1 paper"


def test_map_holds_dataset_its_cooccurring_entities_and_its_one_paper(walk: Walk) -> None:
    assert {DATASET, PAPER, "dataset/ucf101", "task/video-generation"} <= walk.node_ids


def test_dataset_and_paper_are_drawn(walk: Walk) -> None:
    assert {DATASET, PAPER} <= walk.drawn_ids


def test_url_names_the_current_node(walk: Walk) -> None:
    assert walk.hash_after_pick == "#node=dataset%2Fimagenet&show=30"


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
    page.goto(f"{server}/explore#node={PAPER}&show=15")
    page.wait_for_selector("#panel .abstract")
    assert (page.evaluate("kgExplorer.center"), page.input_value("#limit"), errors) == (PAPER, "15", [])
    page.context.close()


def test_whole_state_comes_back_from_the_url(server: str, browser: Any) -> None:
    errors: list[str] = []
    page = _new_page(browser, errors)
    page.goto(f"{server}/explore#node={DATASET}&show=15&conf=0.50&hide=Metric&expand=method%2Ftransformer"
              "&panel=dataset%2Fucf101")
    page.wait_for_function(_DRAWN + " && kgExplorer.state.rings.has('method/transformer')")
    page.wait_for_selector("#panel h2:text('UCF101')")
    got = page.evaluate("""() => ({
        limit: document.querySelector('#limit').value, conf: document.querySelector('#confidence').value,
        metric: document.querySelector("#legend input[data-type='Metric']").checked,
        expanded: kgExplorer.state.expanded,
        metrics: kgExplorer.nodeView.get().filter((n) => n.type === 'Metric').length,
        hash: location.hash })""")
    assert got == {"limit": "15", "conf": "0.5", "metric": False, "expanded": ["method/transformer"],
                   "metrics": 0, "hash": "#node=dataset%2Fimagenet&show=15&conf=0.50&hide=Metric"
                   "&expand=method%2Ftransformer&panel=dataset%2Fucf101"}
    assert errors == []
    page.context.close()


def test_back_returns_to_the_previous_node(server: str, browser: Any) -> None:
    errors: list[str] = []
    page = _new_page(browser, errors)
    page.goto(f"{server}/explore#node={DATASET}")
    page.wait_for_function(_DRAWN + f" && kgExplorer.center === '{DATASET}'")
    page.evaluate(f"kgExplorer.show('{PAPER}')")  # what picking a suggestion or "Centre here" does
    page.wait_for_function(f"kgExplorer.center === '{PAPER}'")
    page.go_back()
    page.wait_for_function(_DRAWN + f" && kgExplorer.center === '{DATASET}'")
    assert (page.evaluate("location.hash"), errors) == ("#node=dataset%2Fimagenet&show=30", [])
    page.context.close()


def test_the_first_pick_keeps_the_empty_page_in_history(server: str, browser: Any) -> None:
    page = _new_page(browser, [])
    page.goto(f"{server}/explore")
    page.wait_for_function("window.kgExplorer && kgExplorer.ready")
    page.locator("#search").press_sequentially("ImageNet", delay=30)
    page.click(f"#suggestions li[data-id='{DATASET}']")
    page.wait_for_function(_DRAWN + f" && kgExplorer.center === '{DATASET}'")
    page.go_back()
    page.wait_for_function("kgExplorer.center === null")
    assert (page.url, page.evaluate("kgExplorer.nodes.length")) == (f"{server}/explore", 0)
    page.context.close()


def test_a_pasted_url_for_the_same_node_with_other_options_is_honoured(server: str, browser: Any) -> None:
    errors: list[str] = []
    page = _new_page(browser, errors)
    page.goto(f"{server}/explore#node={DATASET}&show=30")
    page.wait_for_function(_DRAWN)
    page.evaluate(f"location.hash = '#node={DATASET}&show=15&conf=0.50&hide=Metric'")
    page.wait_for_function("document.querySelector('#limit').value === '15' && kgExplorer.state.limit === 15")
    page.wait_for_function(_DRAWN)
    got = page.evaluate("""() => ({ conf: kgExplorer.state.minConfidence,
        metric: document.querySelector("#legend input[data-type='Metric']").checked,
        metrics: kgExplorer.nodeView.get().filter((n) => n.type === 'Metric').length })""")
    assert (got, errors) == ({"conf": 0.5, "metric": False, "metrics": 0}, [])
    page.context.close()


def test_expand_adds_the_next_ring_and_the_url_keeps_it(server: str, browser: Any) -> None:
    page = _new_page(browser, [])
    page.goto(f"{server}/explore#node={DATASET}")
    page.wait_for_function(_DRAWN)
    before = set(page.evaluate("kgExplorer.nodes.getIds()"))
    page.evaluate("kgExplorer.expand('method/transformer')")
    page.wait_for_function("kgExplorer.state.rings.has('method/transformer')")
    after = set(page.evaluate("kgExplorer.nodes.getIds()"))
    status = page.inner_text("#status")
    assert (before < after, "expand=method%2Ftransformer" in page.evaluate("location.hash")) == (True, True)
    assert "around ImageNet" in status  # the status names the centre, not the expanded node
    page.context.close()


def test_type_filter_hides_datasets_and_updates_the_status(server: str, browser: Any) -> None:
    page = _new_page(browser, [])
    page.goto(f"{server}/explore#node={PAPER}")
    page.wait_for_function(f"window.kgExplorer.nodes.get('{DATASET}') !== null && kgExplorer.stable")
    before = page.inner_text("#status")
    page.uncheck("#legend input[data-type='Dataset']")
    page.wait_for_function(f"kgExplorer.nodes.get('{DATASET}') === null && kgExplorer.nodes.get('{PAPER}')")
    visible = page.evaluate("kgExplorer.visibleNodeIds()")
    assert (PAPER in visible, DATASET in visible) == (True, False)
    assert page.inner_text("#status") != before and "hide=Dataset" in page.evaluate("location.hash")
    page.context.close()


def test_confidence_slider_hides_weak_links(server: str, browser: Any) -> None:
    page = _new_page(browser, [])
    page.goto(f"{server}/explore#node={PAPER}")
    page.wait_for_function("window.kgExplorer.edges.get().some(e => e.confidence !== null)")
    weak = page.evaluate("kgExplorer.edges.get({ filter: e => e.confidence !== null && e.confidence < 1 })"
                         ".length")
    page.fill("#confidence", "1")  # input (hide at once), then change (the map is counted again)
    page.wait_for_function("kgExplorer.stable && kgExplorer.state.minConfidence === 1 && "
                           "!kgExplorer.edgeView.get().some(e => e.confidence !== null && e.confidence < 1)")
    assert (weak > 0, "conf=1.00" in page.evaluate("location.hash")) == (True, True)
    page.context.close()


def test_zero_paper_vocabulary_entries_are_not_suggested(server: str, browser: Any) -> None:
    # the sample's vocabulary holds "prompt injection" (no paper) and a paper about indirect prompt injection
    page = _new_page(browser, [])
    page.goto(f"{server}/explore")
    page.wait_for_function("window.kgExplorer && window.kgExplorer.ready")
    page.locator("#search").press_sequentially("prompt injection", delay=20)
    page.wait_for_selector("#suggestions li[data-id='threat/indirect-prompt-injection']")
    ids = page.eval_on_selector_all("#suggestions li[data-id]", "els => els.map(e => e.dataset.id)")
    assert "threat/prompt-injection" not in ids and ids[0] == "threat/indirect-prompt-injection"
    page.context.close()


def test_enter_before_suggestions_arrive_opens_the_best_match(server: str, browser: Any) -> None:
    page = _new_page(browser, [])
    page.goto(f"{server}/explore")
    page.wait_for_function("window.kgExplorer && window.kgExplorer.ready")
    page.fill("#search", "UCF101")
    page.press("#search", "Enter")  # at once: the suggestion timer has not fired yet
    page.wait_for_function("kgExplorer.center === 'dataset/ucf101'")
    page.context.close()


def test_defenses_for_a_domain_typed_in_the_box_is_one_click(server: str, browser: Any) -> None:
    page = _new_page(browser, [])
    page.goto(f"{server}/explore")
    page.wait_for_function("window.kgExplorer && window.kgExplorer.ready")
    page.locator("#search").press_sequentially("defenses for LLM agents", delay=10)
    page.click("#suggestions li[data-ask='target']")
    page.wait_for_selector("#panel ul.answer")
    names = page.eval_on_selector_all("#panel ul.answer button.link", "els => els.map(e => e.textContent)")
    assert page.inner_text("#panel h2") == "Defenses for LLM agents" and MELON_NAME in names
    page.context.close()


def test_papers_using_a_dataset_is_one_click_from_its_panel(server: str, browser: Any) -> None:
    page = _new_page(browser, [])
    page.goto(f"{server}/explore#node={DATASET}")
    page.click("#panel button[data-ask='using']")
    page.wait_for_selector("#panel ul.answer li[data-paper]")
    ids = page.eval_on_selector_all("#panel ul.answer li[data-paper]", _PAPER_IDS)
    assert ids == [PAPER]
    page.context.close()


def test_downloads_of_the_view(server: str, browser: Any) -> None:
    page = _new_page(browser, [])
    page.goto(f"{server}/explore#node={DATASET}")
    page.wait_for_function(_DRAWN)
    got = {}
    for kind in ("png", "svg", "turtle", "graphml"):
        with page.expect_download() as info:
            page.select_option("#download", kind)
        got[kind] = Path(info.value.path()).read_bytes()
    assert got["png"][:4] == b"\x89PNG"
    assert got["svg"].startswith(b"<svg") and b">ImageNet</text>" in got["svg"]
    assert b"<https://w3id.org/paperkg/dataset/imagenet>" in got["turtle"]
    assert b"kg:usesDataset" in got["turtle"]
    assert b'<node id="dataset/imagenet">' in got["graphml"]
    assert b'<edge source="dataset/imagenet"' in got["graphml"]
    page.context.close()


# ---- a generated graph of 2,000 papers --------------------------------------------------------------

def _top_entity(big: str) -> tuple[str, int]:
    q = "{ entities(first: 1) { edges { node { id paperCount } } } }"
    node = httpx.post(f"{big}/graphql", json={"query": q}).json()["data"]["entities"]["edges"][0]["node"]
    return node["id"], node["paperCount"]


def test_big_graph_labels_never_overlap(big_server: str, browser: Any) -> None:
    top, papers = _top_entity(big_server)
    errors: list[str] = []
    page = _new_page(browser, errors)
    page.goto(f"{big_server}/explore#node={top}&show=100")
    labels = _settled_labels(page)
    drawn = page.evaluate("kgExplorer.nodeView.length")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "explorer_big.png"))
    assert papers > 500 and drawn == 101  # the centre and its 100 strongest co-occurring entities
    assert len(labels) >= 30 and top in {x["id"] for x in labels}
    assert _overlapping(labels) == []
    assert errors == []
    page.context.close()


def test_big_graph_does_not_draw_hundreds_of_papers(big_server: str, browser: Any) -> None:
    top, _ = _top_entity(big_server)
    page = _new_page(browser, [])
    page.goto(f"{big_server}/explore#node={top}")
    page.wait_for_function(_DRAWN)
    assert page.evaluate("kgExplorer.nodes.get({ filter: (n) => n.type === 'Paper' }).length") == 0
    page.context.close()


def test_big_graph_expand_adds_nodes_and_labels_still_never_overlap(big_server: str, browser: Any) -> None:
    top, _ = _top_entity(big_server)
    page = _new_page(browser, [])
    page.goto(f"{big_server}/explore#node={top}&show=60")
    page.wait_for_function(_DRAWN)
    before = set(page.evaluate("kgExplorer.nodes.getIds()"))
    other = page.evaluate("kgExplorer.state.rings.get(kgExplorer.center).nodes[5].id")
    page.evaluate(f"kgExplorer.expand({other!r})")
    page.wait_for_function(f"kgExplorer.state.rings.has({other!r})")
    after = set(page.evaluate("kgExplorer.nodes.getIds()"))
    labels = _settled_labels(page)
    assert before < after and len(after) - len(before) >= 10
    assert _overlapping(labels) == []
    page.context.close()


def test_big_graph_papers_are_paged_in_the_panel(big_server: str, browser: Any) -> None:
    top, papers = _top_entity(big_server)
    page = _new_page(browser, [])
    page.goto(f"{big_server}/explore#node={top}")
    page.wait_for_selector("#panel ul.papers li[data-paper]")
    first = page.eval_on_selector_all("#panel ul.papers li[data-paper]", _PAPER_IDS)
    page.click("#panel button.more")
    page.wait_for_function("document.querySelectorAll('#panel ul.papers li[data-paper]').length > 20")
    both = page.eval_on_selector_all("#panel ul.papers li[data-paper]", _PAPER_IDS)
    assert (len(first), len(both), len(set(both)), both[:20] == first) == (20, 40, 40, True)
    assert page.inner_text("#panel p.paging") == f"40 of {papers:,} shown"
    page.context.close()


def test_big_graph_paper_panel_links_the_paper_and_lists_its_authors(big_server: str, browser: Any) -> None:
    q = '{ paper(id: "synth-000007") { url authors } }'
    paper = httpx.post(f"{big_server}/graphql", json={"query": q}).json()["data"]["paper"]
    page = _new_page(browser, [])
    page.goto(f"{big_server}/explore#node=synth-000007")
    page.wait_for_selector("#panel p.open a")
    href = page.get_attribute("#panel p.open a", "href")
    assert (href, page.inner_text("#panel .authors")) == (paper["url"], ", ".join(paper["authors"]))
    page.context.close()


def test_big_graph_min_confidence_recounts_the_cooccurrence_map(big_server: str, browser: Any) -> None:
    top, _ = _top_entity(big_server)
    page = _new_page(browser, [])
    page.goto(f"{big_server}/explore#node={top}")
    page.wait_for_function(_DRAWN)
    before = page.evaluate("kgExplorer.nodes.length")
    page.fill("#confidence", "0.95")  # above every generated link's confidence (0.9 and 0.7)
    page.dispatch_event("#confidence", "change")
    page.wait_for_function("kgExplorer.nodes.length === 1")
    ring = page.evaluate(f"kgExplorer.state.rings.get('{top}')")
    assert (before > 12, ring["paperCount"], "conf=0.95" in page.evaluate("location.hash")) == (True, 0, True)
    page.context.close()


def test_big_graph_entity_panel_draws_papers_per_year(big_server: str, browser: Any) -> None:
    top, papers = _top_entity(big_server)
    page = _new_page(browser, [])
    page.goto(f"{big_server}/explore#node={top}")
    page.wait_for_selector("#panel svg.trend-chart rect[data-year]")
    bars = page.eval_on_selector_all("#panel svg.trend-chart rect[data-year]",
                                     "els => els.map(e => Number(e.dataset.papers))")
    assert sum(bars) == papers
    page.context.close()


# ---- GraphiQL from this machine, offline -------------------------------------------------------------

def test_graphiql_works_offline(server: str, browser: Any) -> None:
    """GET /graphql in a browser that can reach nothing but this server: GraphiQL renders and runs a query."""
    from urllib.parse import quote, urlsplit

    errors: list[str] = []
    outside: list[str] = []
    page = _new_page(browser, errors)

    def only_here(route: Any) -> None:
        if urlsplit(route.request.url).hostname == "127.0.0.1" or route.request.url.startswith("data:"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_here)
    query = '{ entity(name: "ImageNet") { name paperCount } }'
    page.goto(f"{server}/graphql?q={quote(query)}")  # ?query= would be a GET query (refused)
    page.wait_for_selector(".graphiql-container .graphiql-execute-button")
    page.click(".graphiql-execute-button")
    page.wait_for_function("document.querySelector('.result-window')"
                           " && document.querySelector('.result-window').textContent.includes('paperCount')")
    result = page.inner_text(".result-window")
    assert '"name": "ImageNet"' in result and '"paperCount": 1' in result
    assert (outside, errors) == ([], [])
    page.context.close()


def test_graphiql_without_its_files_says_how_to_install_them(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KG_GRAPHIQL_ASSETS", str(tmp_path))  # read per request; the server runs in-process
    page = httpx.get(f"{server}/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "bash scripts/setup" in page.text and "https://" not in page.text


def test_graphiql_page_and_files_come_from_this_server(server: str) -> None:
    page = httpx.get(f"{server}/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "http://" not in page.text and "https://" not in page.text
    for name in ("react.production.min.js", "react-dom.production.min.js", "graphiql.min.js",
                 "graphiql.min.css", "graphiql-start.js"):
        assert httpx.get(f"{server}/graphiql/static/{name}").status_code == 200, name
    assert httpx.get(f"{server}/graphiql/static/package.json").status_code == 404


def test_papers_per_year_leaves_empty_slots_for_years_without_papers(gap_server: str, browser: Any) -> None:
    page = _new_page(browser, [])
    page.goto(f"{gap_server}/explore#node={DATASET}")
    page.wait_for_selector("#panel svg.trend-chart rect[data-year]")
    bars = page.eval_on_selector_all("#panel svg.trend-chart rect[data-year]",
                                     "els => els.map(e => [Number(e.dataset.year), Number(e.dataset.papers),"
                                     " Number(e.getAttribute('x'))])")
    assert [(y, n) for y, n, _ in bars] == [(2019, 1), (2022, 2), (2023, 1)]
    slot = bars[2][2] - bars[1][2]
    assert round(bars[1][2] - bars[0][2], 3) == round(3 * slot, 3)  # 2020 and 2021 stay empty
    page.context.close()


def test_trending_view_lists_rising_entities_each_with_its_chart(big_server: str, browser: Any) -> None:
    errors: list[str] = []
    page = _new_page(browser, errors)
    page.goto(f"{big_server}/explore")
    page.wait_for_function("window.kgExplorer && kgExplorer.ready")
    page.click("#trending-open")
    page.wait_for_selector("#panel ol.trending li[data-id] svg.spark polyline")
    q = "{ trending(type: METHOD, first: 10) { entity { id } } }"
    want = [t["entity"]["id"] for t in httpx.post(f"{big_server}/graphql", json={"query": q}).json()[
        "data"]["trending"]]
    shown = page.eval_on_selector_all("#panel ol.trending li[data-id]", "els => els.map(e => e.dataset.id)")
    charts = page.locator("#panel ol.trending li[data-id] svg.spark polyline").count()
    assert (shown, charts >= len(want), errors) == (want, True, [])
    page.context.close()


def test_trending_view_opens_an_entity_from_its_row(big_server: str, browser: Any) -> None:
    page = _new_page(browser, [])
    page.goto(f"{big_server}/explore")
    page.wait_for_function("window.kgExplorer && kgExplorer.ready")
    page.click("#trending-open")
    row = page.locator("#panel ol.trending li[data-id]").first
    row.wait_for()
    name = row.locator("button.link").inner_text()
    row.locator("button.link").click()
    page.wait_for_selector(f"#panel h2:text-is('{name}')")
    page.context.close()
