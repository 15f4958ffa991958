"""The Python API (`paperkg`): a store built from researchers' files, asked locally, beside a running server
and over HTTP, with the answers as records, DataFrames, networkx graphs and an rdflib Dataset."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import rdflib
from fixtures_api import BASE, MELON_NAME, ROOT, Server, pipeline_available, serve

import paperkg
from kg.store.embedded import EmbeddedStore
from paperkg.results import columns_of

pytestmark = pytest.mark.skipif(not pipeline_available(), reason="needs the spaCy pipeline")

# the arXiv record and the first OpenAlex work share a DOI: one paper, the OpenAlex record (read last) kept
INPUTS = [ROOT / "data" / "icml2025_seed.jsonl", ROOT / "tests" / "data" / "io" / "arxiv_metadata.jsonl",
          ROOT / "tests" / "data" / "io" / "openalex_works.jsonl"]
PAPERS = "SELECT (COUNT(?p) AS ?n) WHERE { ?p a kg:Paper }"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, paperkg.Built]:
    """The 19 sample abstracts, 2 arXiv records and 2 OpenAlex works (each file with one bad record)."""
    path = tmp_path_factory.mktemp("paperkg") / "kg-data"
    return path, paperkg.build(INPUTS, path)


@pytest.fixture(scope="module")
def kg(built: tuple[Path, paperkg.Built]) -> Iterator[paperkg.Graph]:
    with paperkg.open(built[0]) as graph:
        yield graph


@pytest.fixture(scope="module")
def server(built: tuple[Path, paperkg.Built], kg: paperkg.Graph) -> Iterator[Server]:
    """`kg serve` over the same directory, holding it open for writing while `kg` reads it."""
    yield from serve(EmbeddedStore(str(built[0]), base_iri=BASE))


@pytest.fixture(scope="module")
def remote(server: Server) -> Iterator[paperkg.Graph]:
    with paperkg.connect(server.url) as graph:
        yield graph


def ids(papers: paperkg.Results[paperkg.PaperInfo]) -> list[str]:
    return [p.id for p in papers]


def test_build_names_each_bad_record_by_file_and_line_and_keeps_the_others(
        built: tuple[Path, paperkg.Built]) -> None:
    assert built[1].papers == 22
    assert built[1].problems == (
        "arxiv_metadata.jsonl:line 2: invalid JSON: Unterminated string starting at (column 86)",
        "openalex_works.jsonl:line 3: record has neither a title nor an abstract; skipped",
    )


def test_papers_filtered_by_a_dataset_name(kg: paperkg.Graph) -> None:
    assert ids(kg.papers(dataset="ImageNet")) == ["10.5555/paperkg.2024.001", "seed-01"]


def test_a_year_is_an_int(kg: paperkg.Graph) -> None:
    found = kg.paper("arXiv:2501.00042")
    assert found is not None and found.year == 2024


def test_a_year_column_is_integer_and_nullable(kg: paperkg.Graph) -> None:
    frame = kg.papers().to_pandas()
    assert str(frame["year"].dtype) == "Int64"
    assert frame.set_index("id")["year"].dropna().to_dict() == {
        "10.5555/paperkg.2024.001": 2024, "arXiv:2501.00042": 2024, "https://openalex.org/W4409876543": 2025}


def test_papers_by_year_come_newest_first(kg: paperkg.Graph) -> None:
    assert ids(kg.papers(order="YEAR", first=3)) == [
        "https://openalex.org/W4409876543", "10.5555/paperkg.2024.001", "arXiv:2501.00042"]


def test_papers_of_one_year(kg: paperkg.Graph) -> None:
    assert ids(kg.papers(year=2025)) == ["https://openalex.org/W4409876543"]


def test_a_list_collected_page_by_page_equals_one_page(kg: paperkg.Graph) -> None:
    whole = ids(kg.papers())
    kg.page_size = 4
    try:
        assert ids(kg.papers()) == whole
    finally:
        kg.page_size = 100
    assert len(whole) == 22


def test_first_cuts_the_list_and_total_counts_every_match(kg: paperkg.Graph) -> None:
    cut = kg.papers(first=5)
    assert (len(cut), cut.total) == (5, 22)


def test_an_empty_list_has_the_columns_of_a_full_one(kg: paperkg.Graph) -> None:
    frame = kg.papers(dataset="a dataset nobody has").to_pandas()
    assert (len(frame), list(frame.columns)) == (0, columns_of(paperkg.PaperInfo))


def test_a_nested_record_becomes_its_key_columns(kg: paperkg.Graph) -> None:
    row = kg.leaderboard(metric="accuracy").to_pandas().iloc[0]
    wanted = ["paper_id", "value", "unit", "metric_name", "dataset_name", "rank"]
    assert list(row[wanted]) == ["seed-07", 98.0, "%", "accuracy", "GenImage", 1]


def test_a_leaderboard_needs_something_to_rank(kg: paperkg.Graph) -> None:
    with pytest.raises(paperkg.QueryError, match="^leaderboard needs at least one of dataset, metric, task$"):
        kg.leaderboard()


def test_sparql_counts_are_ints(kg: paperkg.Graph) -> None:
    rows = kg.sparql(PAPERS)
    assert rows.rows == ({"n": 22},)
    assert str(rows.to_pandas()["n"].dtype) == "int64"


def test_sparql_refuses_an_update_in_one_line(kg: paperkg.Graph) -> None:
    with pytest.raises(paperkg.QueryError) as err:
        kg.sparql("DELETE WHERE { ?s ?p ?o }")
    assert "\n" not in str(err.value) and str(err.value)


def test_defenses_are_found_by_the_threat_they_defend_against(kg: paperkg.Graph) -> None:
    names = {e.name for e in kg.defenses(against="indirect prompt injection")}
    assert MELON_NAME in names


def test_the_cooccurrence_map_is_a_weighted_networkx_graph(kg: paperkg.Graph) -> None:
    g = kg.cooccurrence("ImageNet")
    assert g.graph["center"] == "dataset/imagenet"
    assert g.edges["dataset/imagenet", "method/transformer"]["weight"] == 2
    assert g.edges["dataset/imagenet", "task/image-generation"]["weight"] == 1


def test_a_papers_neighbourhood_holds_its_linked_entities(kg: paperkg.Graph) -> None:
    g = kg.neighborhood("seed-01")
    linked = {link.entity.id for link in kg.links("seed-01")}
    assert set(g.nodes) == linked | {"seed-01"}


def test_an_unknown_name_is_one_clear_error(kg: paperkg.Graph) -> None:
    with pytest.raises(paperkg.QueryError, match="^no entity named 'no such thing'$"):
        kg.trend("no such thing")


def test_a_missing_store_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(paperkg.QueryError, match=f"^{tmp_path / 'absent'}: "):
        paperkg.open(tmp_path / "absent")


def count(dataset: rdflib.Dataset) -> list[object]:
    return [row[0].toPython() for row in dataset.query(PAPERS)]  # type: ignore[index,union-attr]


def test_the_dataset_is_the_store_in_rdflib_with_the_prefixes_bound(kg: paperkg.Graph) -> None:
    assert count(kg.dataset) == [22]


def test_a_store_opens_read_only_beside_a_running_server(built: tuple[Path, paperkg.Built],
                                                         server: Server) -> None:
    query = '{ papers(dataset: "ImageNet") { edges { node { id } } } }'
    body = httpx.post(server.url + "/graphql", json={"query": query}, timeout=60).json()
    served = [e["node"]["id"] for e in body["data"]["papers"]["edges"]]
    with paperkg.open(built[0]) as beside:
        assert served == ids(beside.papers(dataset="ImageNet"))


def test_connected_over_http_papers_are_the_local_ones(kg: paperkg.Graph, remote: paperkg.Graph) -> None:
    assert remote.papers(order="TITLE").items == kg.papers(order="TITLE").items


def test_connected_over_http_entities_are_the_local_ones(kg: paperkg.Graph, remote: paperkg.Graph) -> None:
    assert remote.entities(first=None).items == kg.entities(first=None).items


def test_connected_over_http_the_map_is_the_local_one(kg: paperkg.Graph, remote: paperkg.Graph) -> None:
    assert sorted(remote.cooccurrence("ImageNet").edges(data="weight")) == \
        sorted(kg.cooccurrence("ImageNet").edges(data="weight"))


def test_connected_the_dataset_queries_the_server(remote: paperkg.Graph) -> None:
    assert count(remote.dataset) == [22]


def test_connecting_to_nothing_is_one_clear_error() -> None:
    with pytest.raises(paperkg.QueryError, match=r"^http://127\.0\.0\.1:9/sparql: "):
        paperkg.connect("http://127.0.0.1:9")


def test_a_servers_row_cap_is_one_clear_error(built: tuple[Path, paperkg.Built], kg: paperkg.Graph) -> None:
    for capped in serve(EmbeddedStore(str(built[0]), base_iri=BASE, read_only=True), sparql_row_cap=50):
        with paperkg.connect(capped.url) as remote, pytest.raises(paperkg.QueryError) as err:
            remote.entities(first=None)
        assert str(err.value) == (f"{capped.url}/sparql answered HTTP 422: query returned more than 50 rows;"
                                  " add a LIMIT or narrow it")


def test_connected_search_ranks_as_the_local_index(kg: paperkg.Graph, remote: paperkg.Graph) -> None:
    assert [(h.paper, h.entity) for h in remote.search("prompt injection")] == \
        [(h.paper, h.entity) for h in kg.search("prompt injection")]


def test_connected_papers_by_full_text_are_the_local_ones(kg: paperkg.Graph, remote: paperkg.Graph) -> None:
    remote.page_size = 2
    try:
        assert ids(remote.papers(search="flow matching", order="TITLE")) == \
            ids(kg.papers(search="flow matching", order="TITLE"))
    finally:
        remote.page_size = 100
    assert ids(kg.papers(search="flow matching", order="TITLE")) == ["seed-16", "10.5555/paperkg.2024.001",
                                                                     "seed-09"]


def test_papers_in_confidence_order_come_strongest_link_first(kg: paperkg.Graph) -> None:
    found = kg.papers(dataset="ImageNet", order="CONFIDENCE")
    strength = {p.id: max(lk.confidence or 0.0 for lk in kg.links(p.id) if lk.entity.id == "dataset/imagenet")
                for p in found}
    assert ids(found) == sorted(strength, key=lambda i: (-strength[i], i))


def test_confidence_order_without_an_entity_is_one_clear_error(kg: paperkg.Graph) -> None:
    with pytest.raises(paperkg.QueryError, match="^orderBy CONFIDENCE needs an entity filter"):
        kg.papers(order="CONFIDENCE")


def test_papers_by_citations_come_most_cited_first_and_uncounted_last(kg: paperkg.Graph) -> None:
    found = kg.papers(order="CITATIONS", first=3)
    assert [(p.id, p.citations) for p in found] == [
        ("10.5555/paperkg.2024.001", 12), ("https://openalex.org/W4409876543", 0), ("arXiv:2501.00042", None)]


def test_graphql_orders_by_citations_and_shows_the_count(server: Server) -> None:
    query = "{ papers(orderBy: CITATIONS, first: 2) { edges { node { id citations } } } }"
    body = httpx.post(server.url + "/graphql", json={"query": query}, timeout=60).json()
    assert [e["node"] for e in body["data"]["papers"]["edges"]] == [
        {"id": "10.5555/paperkg.2024.001", "citations": 12},
        {"id": "https://openalex.org/W4409876543", "citations": 0}]




def test_defenses_are_graphqls(kg: paperkg.Graph, server: Server) -> None:
    body = httpx.post(server.url + "/graphql", json={"query": "{ defenses { id } }"}, timeout=60).json()
    assert [e["id"] for e in body["data"]["defenses"]] == [e.id for e in kg.defenses()] != []


def test_attacks_are_found_by_the_threat_they_realise(tmp_path: Path) -> None:
    paper = {"id": "attack-1", "title": "ShadowPoison: Stealthy Backdoor Attacks on Large Language Models",
             "abstract": "Backdoor attacks threaten large language models. We propose ShadowPoison, a "
                         "backdoor attack that poisons a small fraction of the instruction-tuning data and "
                         "evades existing defenses. ShadowPoison reaches a 95% attack success rate."}
    source = tmp_path / "attack.jsonl"
    source.write_text(json.dumps(paper) + "\n", encoding="utf-8")
    paperkg.build([source], tmp_path / "kg-data")
    with paperkg.open(tmp_path / "kg-data") as graph:
        assert [e.name for e in graph.attacks(against="backdoor attack")] == ["ShadowPoison"]
        assert [e.name for e in graph.defenses()] == []


def test_a_leaderboard_counts_the_rows_of_low_confidence_it_leaves_out(kg: paperkg.Graph) -> None:
    shown, everything = kg.leaderboard("Exchange"), kg.leaderboard("Exchange", include_low_confidence=True)
    assert (len(shown), shown.hidden, len(everything), everything.hidden) == (0, 1, 1, 0)
