"""`kg export --format graphml|gexf|cyjs`: the graph projection round-trips through networkx readers."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest

from kg import graphio
from kg.build import write_extractions
from kg.query import QueryContext
from kg.rdf.iris import Iris
from kg.rdf.mapping import GraphMapper
from kg.settings import DEFAULT_BASE_IRI
from kg.store.embedded import EmbeddedStore
from kg.types import EntityRef, Evidence, Extraction, Link, Paper, Relation

IMAGENET = EntityRef("Dataset", "ImageNet")
MELON = EntityRef("Method", "MELON", "Defense")
IPI = EntityRef("Threat", "indirect prompt injection")

TYPES = {
    "p-gen": "Paper",
    "p-melon": "Paper",
    "dataset/imagenet": "Dataset",
    "task/image-generation": "Task",
    "method/melon": "Method",
    "threat/indirect-prompt-injection": "Threat",
}
EDGES = {
    ("p-gen", "dataset/imagenet", "usesDataset", 0.9),
    ("p-gen", "task/image-generation", "addressesTask", 0.45),
    ("p-melon", "method/melon", "proposes", 0.9),
    ("p-melon", "threat/indirect-prompt-injection", "studiesThreat", 0.9),
    ("method/melon", "threat/indirect-prompt-injection", "defendsAgainst", 0.8),
}


def _link(relation: str, entity: EntityRef, confidence: float = 0.9) -> Link:
    return Link(
        relation, entity, Evidence(f"We use {entity.name}.", entity.name, 7, 7 + len(entity.name), confidence)
    )


@pytest.fixture(scope="module")
def graph() -> nx.MultiDiGraph:
    exs = [
        Extraction(
            Paper("p-gen", "We generate images on ImageNet.", title="Masked Generative Transformers"),
            (
                _link("usesDataset", IMAGENET),
                _link("addressesTask", EntityRef("Task", "image generation"), 0.45),
            ),
        ),
        Extraction(
            Paper("p-melon", "MELON defends agents.", title="MELON: Provable Defense"),
            (_link("proposes", MELON), _link("studiesThreat", IPI)),
            (Relation(MELON, "defendsAgainst", IPI, Evidence("MELON defends.", "MELON", 0, 5, 0.8)),),
        ),
    ]
    store = EmbeddedStore(None, base_iri=DEFAULT_BASE_IRI)
    mapper = GraphMapper(Iris(DEFAULT_BASE_IRI))
    write_extractions(store, exs, mapper)
    return graphio.project(QueryContext.open(store, DEFAULT_BASE_IRI))


def _edges(g: nx.Graph) -> set[tuple[str, str, str, float]]:
    return {(u, v, d["relation"], round(float(d["confidence"]), 4)) for u, v, d in g.edges(data=True)}


def test_projection_has_typed_nodes(graph: nx.MultiDiGraph) -> None:
    assert dict(graph.nodes(data="type")) == TYPES


def test_projection_has_links_and_entity_relations(graph: nx.MultiDiGraph) -> None:
    assert _edges(graph) == EDGES


def test_projection_labels_papers_by_title_and_entities_by_name(graph: nx.MultiDiGraph) -> None:
    assert (
        graph.nodes["p-melon"]["label"],
        graph.nodes["method/melon"]["label"],
        graph.nodes["method/melon"]["kind"],
    ) == ("MELON: Provable Defense", "MELON", "Defense")


@pytest.mark.parametrize("fmt", graphio.FORMATS)
def test_round_trip_keeps_node_types(graph: nx.MultiDiGraph, fmt: str, tmp_path: Path) -> None:
    back = graphio.read(fmt, graphio.write(graph, fmt, tmp_path / f"kg.{fmt}"))
    assert {str(n): t for n, t in back.nodes(data="type")} == TYPES


@pytest.mark.parametrize("fmt", graphio.FORMATS)
def test_round_trip_keeps_edges(graph: nx.MultiDiGraph, fmt: str, tmp_path: Path) -> None:
    back = graphio.read(fmt, graphio.write(graph, fmt, tmp_path / f"kg.{fmt}"))
    assert (back.is_directed(), _edges(back)) == (True, EDGES)


@pytest.mark.parametrize("fmt", graphio.FORMATS)
def test_round_trip_keeps_labels(graph: nx.MultiDiGraph, fmt: str, tmp_path: Path) -> None:
    back = graphio.read(fmt, graphio.write(graph, fmt, tmp_path / f"kg.{fmt}"))
    assert back.nodes["dataset/imagenet"]["label"] == "ImageNet"


def test_cyjs_names_nodes_by_label_for_cytoscape(graph: nx.MultiDiGraph, tmp_path: Path) -> None:
    import json

    data = json.loads(graphio.write(graph, "cyjs", tmp_path / "kg.cyjs").read_text("utf-8"))
    names = {n["data"]["id"]: n["data"]["name"] for n in data["elements"]["nodes"]}
    assert names["task/image-generation"] == "image generation"


def test_export_writes_the_file_it_returns(tmp_path: Path) -> None:
    store = EmbeddedStore(None, base_iri=DEFAULT_BASE_IRI)
    mapper = GraphMapper(Iris(DEFAULT_BASE_IRI))
    ex = Extraction(Paper("p1", "On ImageNet.", title="T"), (_link("usesDataset", IMAGENET),))
    write_extractions(store, [ex], mapper)
    g = graphio.export(QueryContext.open(store, DEFAULT_BASE_IRI), "graphml", tmp_path / "kg.graphml")
    assert (
        sorted(nx.read_graphml(tmp_path / "kg.graphml").nodes)
        == sorted(g.nodes)
        == ["dataset/imagenet", "p1"]
    )


def test_unknown_format_is_refused(graph: nx.MultiDiGraph, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="graphml, gexf, cyjs"):
        graphio.write(graph, "dot", tmp_path / "kg.dot")


@pytest.fixture(scope="module")
def with_vocabulary() -> QueryContext:
    """A store with the ontology and vocabulary graphs (as kg build writes them) and papers linking a few
    concepts: the vocabulary's relations reach many concepts no paper links."""
    from kg.build import ensure_schema

    store = EmbeddedStore(None, base_iri=DEFAULT_BASE_IRI)
    ensure_schema(store, DEFAULT_BASE_IRI)
    agents = EntityRef("Domain", "LLM agents")
    link = Link("targetsDomain", agents, Evidence("For LLM agents.", "LLM agents", 4, 14, 0.9),
                broader=(EntityRef("Domain", "large language models"),))
    exs = [Extraction(Paper("p-agents", "For LLM agents.", title="Agents"), (link,)),
           Extraction(Paper("p-gen", "We generate images on ImageNet.", title="Gen"),
                      (_link("usesDataset", IMAGENET),))]
    write_extractions(store, exs, GraphMapper(Iris(DEFAULT_BASE_IRI)))
    return QueryContext.open(store, DEFAULT_BASE_IRI)


def test_only_linked_entities_unless_asked(with_vocabulary: QueryContext) -> None:
    g = graphio.project(with_vocabulary)
    entities = {n for n, t in g.nodes(data="type") if t != "Paper"}
    assert entities == {"dataset/imagenet", "domain/llm-agents"}
    for component in nx.weakly_connected_components(g):
        assert any(g.nodes[n]["type"] == "Paper" for n in component)
    everything = graphio.project(with_vocabulary, unlinked=True)
    assert "domain/large-language-models" in everything  # the broader concept, reached by a relation
    assert everything.number_of_nodes() > g.number_of_nodes()


def test_cytoscape_js_reads_the_graph_data_as_an_object(graph: nx.MultiDiGraph, tmp_path: Path) -> None:
    import json
    import shutil
    import subprocess

    path = graphio.write(graph, "cyjs", tmp_path / "kg.cyjs")
    data = json.loads(path.read_text("utf-8"))
    assert data["data"] == {"name": "paperkg"}
    node = shutil.which("node")
    js = Path(__file__).parent / "js"
    if node is None:
        pytest.skip("node is not installed")
    assert (js / "node_modules" / "cytoscape").is_dir(), "run scripts/setup: npm ci --prefix tests/js"
    proc = subprocess.run([node, str(js / "cyjs.mjs"), str(path)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    assert seen["data"]["name"] == "paperkg"
    assert (seen["nodes"], seen["edges"]) == (graph.number_of_nodes(), graph.number_of_edges())
    assert all(n >= 1 for n in seen["paperNeighbours"])  # every entity is linked by some paper
