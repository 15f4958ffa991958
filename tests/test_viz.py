"""`kg viz` logic: neighbourhood pictures as standalone HTML, SVG and PNG hold the expected nodes."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from kg.build import write_extractions
from kg.query import QueryContext
from kg.query.model import Edge, Node
from kg.rdf.iris import Iris
from kg.rdf.mapping import GraphMapper
from kg.settings import DEFAULT_BASE_IRI
from kg.store.embedded import EmbeddedStore
from kg.types import EntityRef, Evidence, Extraction, Link, Paper, Relation
from kg.viz import VizGraph, neighborhood_graph, render, short_label, viz

SVG = "{http://www.w3.org/2000/svg}"
IMAGENET = EntityRef("Dataset", "ImageNet")
MELON = EntityRef("Method", "MELON", "Defense")
IPI = EntityRef("Threat", "indirect prompt injection")


def _link(relation: str, entity: EntityRef, confidence: float = 0.9) -> Link:
    return Link(
        relation, entity, Evidence(f"We use {entity.name}.", entity.name, 7, 7 + len(entity.name), confidence)
    )


def extractions() -> list[Extraction]:
    """Two papers sharing ImageNet, plus a defense paper with an entity→entity relation."""
    gen = Paper("p-gen", "We generate images on ImageNet.", title="Masked Generative Transformers")
    cls = Paper("p-cls", "We classify ImageNet images.", title="Robust Image Classifiers")
    melon = Paper("p-melon", "MELON defends agents.", title="MELON: Provable Defense")
    return [
        Extraction(
            gen,
            (_link("usesDataset", IMAGENET), _link("addressesTask", EntityRef("Task", "image generation"))),
        ),
        Extraction(
            cls,
            (_link("usesDataset", IMAGENET), _link("reportsMetric", EntityRef("Metric", "accuracy"), 0.4)),
        ),
        Extraction(
            melon,
            (_link("proposes", MELON), _link("studiesThreat", IPI)),
            (Relation(MELON, "defendsAgainst", IPI, Evidence("MELON defends.", "MELON", 0, 5, 0.8)),),
        ),
    ]


@pytest.fixture(scope="module")
def ctx() -> QueryContext:
    store = EmbeddedStore(None, base_iri=DEFAULT_BASE_IRI)
    mapper = GraphMapper(Iris(DEFAULT_BASE_IRI))
    write_extractions(store, extractions(), mapper)
    return QueryContext.open(store, DEFAULT_BASE_IRI)


def _html_nodes(path: Path) -> set[str]:
    found = re.search(
        r'<script id="kg-data" type="application/json">(.*?)</script>', path.read_text("utf-8"), re.S
    )
    assert found is not None
    return {n["id"] for n in json.loads(found.group(1))["nodes"]}


def _svg_texts(path: Path) -> list[str]:
    return [t.text or "" for t in ET.parse(path).iter(SVG + "text")]


def test_neighbourhood_by_name_resolves_the_entity(ctx: QueryContext) -> None:
    g = neighborhood_graph(ctx, "imagenet", depth=1)
    assert (g.center, {n.id for n in g.nodes}) == ("dataset/imagenet", {"dataset/imagenet", "p-gen", "p-cls"})


def test_neighbourhood_by_id_at_depth_two(ctx: QueryContext) -> None:
    g = neighborhood_graph(ctx, "p-gen", depth=2)
    assert {n.id for n in g.nodes} == {"p-gen", "dataset/imagenet", "task/image-generation", "p-cls"}


def test_neighbourhood_of_unknown_name_raises(ctx: QueryContext) -> None:
    with pytest.raises(LookupError):
        neighborhood_graph(ctx, "no such thing zzzz", depth=1)


def test_html_is_standalone_and_holds_the_entity_map(ctx: QueryContext, tmp_path: Path) -> None:
    out = viz(ctx, "ImageNet", tmp_path / "n.html", depth=1)
    text = out.read_text("utf-8")
    assert _html_nodes(out) == {
        "dataset/imagenet", "task/image-generation", "metric/accuracy", "p-gen", "p-cls"}
    assert (
        "http://" not in text.split("<script>", 1)[0] and "<script src" not in text
    )  # no CDN, nothing fetched
    assert "vis-network" in text  # the library is inlined


def test_svg_of_a_paper_holds_the_node_labels(ctx: QueryContext, tmp_path: Path) -> None:
    out = viz(ctx, "p-melon", tmp_path / "m.svg", depth=2)
    texts = _svg_texts(out)
    assert {"MELON", "indirect prompt", "injection", "MELON: Provable", "Defense"} <= set(
        texts
    )  # labels wrap
    assert "defendsAgainst" in texts


def test_png_is_a_png_picture(ctx: QueryContext, tmp_path: Path) -> None:
    out = viz(ctx, "ImageNet", tmp_path / "n.png", depth=2)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_unknown_suffix_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="use .html, .svg or .png"):
        render(VizGraph((), ()), tmp_path / "x.pdf")


def test_truncated_count_is_shown(tmp_path: Path) -> None:
    g = VizGraph(
        (Node("a", "", "Alpha", "Task"), Node("b", "", "Beta", "Paper")),
        (Edge("b", "a", "addressesTask"),),
        truncated=7,
    )
    assert "Alpha — depth 1  (7 more not shown)" in _svg_texts(
        render(g, tmp_path / "t.svg", "Alpha — depth 1")
    )


def test_fifty_nodes_draw_every_label(tmp_path: Path) -> None:
    nodes = tuple(Node(f"task/t{i}", "", f"task {i}", "Task") for i in range(49)) + (
        Node("p", "", "Hub", "Paper"),
    )
    edges = tuple(Edge("p", f"task/t{i}", "addressesTask") for i in range(49))
    texts = _svg_texts(render(VizGraph(nodes, edges, center="p"), tmp_path / "big.svg"))
    assert {f"task {i}" for i in range(49)} | {"Hub"} <= set(texts)


def test_short_label_wraps_and_cuts() -> None:
    assert short_label("Masked Generative Nested Transformers with Decode Time Scaling") == (
        "Masked Generative\nNested Transformers…"
    )


def test_png_legend_stays_off_the_drawing_and_the_centre(ctx: QueryContext, tmp_path: Path) -> None:
    from kg.viz import draw

    graph = neighborhood_graph(ctx, "ImageNet", depth=2)
    kept: dict[str, object] = {}
    draw(graph, tmp_path / "x.png", "ImageNet", keep=kept)
    fig, ax, pos = kept["figure"], kept["axes"], kept["pos"]
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    legend = ax.get_legend().get_window_extent(renderer)  # type: ignore[attr-defined]
    drawing = ax.get_window_extent(renderer)  # type: ignore[attr-defined]
    cx, cy = ax.transData.transform(pos[graph.center])  # type: ignore[attr-defined,index]
    assert legend.x0 >= drawing.x1 and not legend.contains(cx, cy)
    assert not (tmp_path / "x.png").exists()


def test_png_is_written_with_the_legend_inside_the_picture(ctx: QueryContext, tmp_path: Path) -> None:
    import matplotlib.image

    out = viz(ctx, "ImageNet", tmp_path / "n.png")
    height, width = matplotlib.image.imread(out).shape[:2]
    assert width > height > 100  # the legend column widens the picture; bbox_inches keeps it whole


def test_trend_chart_draws_a_line_per_entity(tmp_path: Path) -> None:
    from kg.viz import draw_trend

    series = [("ImageNet (5)", [(2023, 1, 0.1), (2024, 3, 0.3), (2025, 1, 0.1)]),
              ("UCF101 (2)", [(2023, 0, 0.0), (2024, 1, 0.1), (2025, 1, 0.1)])]
    out = draw_trend(series, tmp_path / "t.svg")
    texts = _svg_texts(out)
    assert {"ImageNet (5)", "UCF101 (2)", "papers", "year"} <= set(texts)
    assert draw_trend(series, tmp_path / "t.png", share=True).read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="use .png or .svg"):
        draw_trend(series, tmp_path / "t.html")


def test_trend_chart_breaks_the_line_where_a_year_has_no_papers(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    from kg.viz import draw_trend

    out = draw_trend([("NER (3)", [(2019, 1, 0.25), (2022, 1, 0.25), (2023, 1, 0.25)])], tmp_path / "t.svg")
    ns = {"s": "http://www.w3.org/2000/svg"}
    lines = [p for p in ET.parse(out).getroot().iterfind(".//s:path", ns)
             if p.get("clip-path") and "stroke-width: 2" in (p.get("style") or "")]  # the data line
    assert len(lines) == 1
    d = lines[0].get("d") or ""
    # 2019 alone, then 2022-2023: two pieces (two move-tos), not one line across 2020 and 2021
    assert d.count("M") == 2 and d.count("L") == 1, d
