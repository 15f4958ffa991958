"""`kg viz` through the real command on a store the real `kg build` made from the sample: an entity draws the
explorer's co-occurrence map (`kg.query.ring`: the entities sharing most papers with it), `--first` and
`--type` shape it, a paper id still draws its neighbourhood."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from fixtures_api import run_kg

from kg.query import QueryContext, neighborhood, ring
from kg.settings import DEFAULT_BASE_IRI
from kg.store.embedded import EmbeddedStore
from kg.viz import short_label

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "icml2025_seed.jsonl"
T = TypeVar("T")
PAPERS = ["seed-01", "seed-08", "seed-17"]  # Transformer's papers, drawn: it has fewer than 12


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("viz") / "store"
    run_kg("build", SAMPLE, "--store", path)
    return path


def read(store: Path, ask: Callable[[QueryContext], T]) -> T:
    """`ask` on the built store opened read-only (closed again before the next command)."""
    st = EmbeddedStore(str(store), base_iri=DEFAULT_BASE_IRI, read_only=True)
    try:
        return ask(QueryContext.open(st, DEFAULT_BASE_IRI))
    finally:
        st.close()


def drawn(path: Path) -> dict[str, Any]:
    """The nodes and edges inside a `kg viz` HTML page."""
    found = re.search(r'<script id="kg-data" type="application/json">(.*?)</script>', path.read_text(), re.S)
    assert found is not None
    return json.loads(found.group(1))  # type: ignore[no-any-return]


def viz(store: Path, out: Path, *args: str) -> dict[str, Any]:
    run_kg("viz", *args, "-o", out, "--store", store)
    return drawn(out) if out.suffix == ".html" else {}


def test_an_entity_draws_every_node_of_its_ring(store: Path, tmp_path: Path) -> None:
    expected = read(store, lambda ctx: ring(ctx, "method/transformer"))
    assert expected is not None
    nodes = viz(store, tmp_path / "map.html", "Transformer")["nodes"]
    assert [n["id"] for n in nodes] == [n.id for n in expected.nodes]
    assert len(nodes) == 18


def test_first_keeps_the_entities_sharing_most_papers(store: Path, tmp_path: Path) -> None:
    data = viz(store, tmp_path / "top.html", "Transformer", "--first", "5")
    assert [n["id"] for n in data["nodes"]] == [
        "method/transformer", "model/gpt", "dataset/imagenet", "dataset/kinetics-600", "model/llama-3",
        "model/mistral", *PAPERS,
    ]
    assert "(9 more not shown)" in (tmp_path / "top.html").read_text()


def test_map_edges_are_papers_shared_without_direction(store: Path, tmp_path: Path) -> None:
    edges = viz(store, tmp_path / "w.html", "method/transformer", "--first", "2")["edges"]
    shared = [(e["from"], e["to"], e["label"], e["arrows"], e["value"]) for e in edges if "value" in e]
    assert shared == [("method/transformer", "model/gpt", "1 paper", "", 1),
                      ("method/transformer", "dataset/imagenet", "1 paper", "", 1)]


def test_type_keeps_only_entities_of_that_type(store: Path, tmp_path: Path) -> None:
    data = viz(store, tmp_path / "tasks.html", "Transformer", "--type", "task")
    assert [n["id"] for n in data["nodes"]] == [
        "method/transformer", "task/video-generation", "task/video-prediction", "task/visual-generation",
        *PAPERS,
    ]


def test_svg_names_the_top_co_occurring_entities(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "map.svg"
    viz(store, out, "Transformer", "--first", "5")
    texts = {t.text for t in ET.parse(out).iter("{http://www.w3.org/2000/svg}text")}
    names = ["Transformer", "GPT", "ImageNet", "Kinetics-600", "Llama 3", "Mistral"]
    assert {short_label(n) for n in names} <= texts
    assert "1 paper" in texts


def test_a_paper_id_still_draws_its_neighbourhood(store: Path, tmp_path: Path) -> None:
    expected = read(store, lambda ctx: neighborhood(ctx, "seed-08"))
    assert expected is not None
    nodes = viz(store, tmp_path / "paper.html", "seed-08")["nodes"]
    assert sorted(n["id"] for n in nodes) == sorted(n.id for n in expected.nodes)


def test_unknown_type_is_one_line_naming_the_types(store: Path, tmp_path: Path) -> None:
    proc = run_kg("viz", "Transformer", "--type", "gadget", "-o", tmp_path / "x.html", "--store", store,
                  check=False)
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines() == [
        "error: --type must be one of Task, Dataset, Method, Metric, Model, Domain, Threat, not 'gadget'"]
