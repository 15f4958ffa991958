"""Writes that tell the truth, over real HTTP: addPapers goes through the library's one write path (search
finds entities it added, also after a restart; entities no paper links leave the graph on replace and
delete), a batch is capped and committed within the limit or not at all, aliased mutations are refused."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fixtures_api import TOKEN, Server, pipeline_available, sample_store, serve

from kg.query import QueryContext
from kg.store.embedded import EmbeddedStore

pytestmark = pytest.mark.skipif(not pipeline_available(), reason="needs the extraction pipeline")
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ADD = "mutation($p: [PaperInput!]!) { addPapers(papers: $p) { id title } }"
NOVEL = "We propose Zorblaxnet, a novel architecture for image classification. We evaluate it on ImageNet."
PLAIN = "We study image classification on ImageNet with a standard Transformer."


@pytest.fixture()
def store_dir(tmp_path: Path) -> Path:
    path = tmp_path / "store"
    sample_store(str(path)).close()
    return path


@pytest.fixture()
def server(store_dir: Path) -> Iterator[Server]:
    store = EmbeddedStore(str(store_dir))
    yield from serve(store, api_token=TOKEN)
    store.close()


def gql(server: Server, query: str, auth: bool = True, **variables: Any) -> dict[str, Any]:
    r = httpx.post(server.url + "/graphql", json={"query": query, "variables": variables},
                   headers=AUTH if auth else {}, timeout=120)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def search_names(server: Server, text: str) -> set[str]:
    hits = gql(server, "query($t: String!) { search(text: $t) { entity { name } } }", t=text)
    return {h["entity"]["name"] for h in hits["data"]["search"] if h["entity"]}


def entity(server: Server, name: str) -> dict[str, Any] | None:
    found: dict[str, Any] | None = gql(server, "query($n: String!) { entity(name: $n) { name paperCount } }",
                                      n=name)["data"]["entity"]
    return found


def test_search_finds_an_entity_first_added_by_add_papers(server: Server, store_dir: Path) -> None:
    assert search_names(server, "Zorblaxnet") == set()
    added = gql(server, ADD, p=[{"id": "z-1", "title": "Zorblaxnet", "abstract": NOVEL}])
    assert added == {"data": {"addPapers": [{"id": "z-1", "title": "Zorblaxnet"}]}}
    assert "Zorblaxnet" in search_names(server, "Zorblaxnet")
    # another process (a restart) reads the same index file and finds it too
    reader = EmbeddedStore(str(store_dir), read_only=True)
    ctx = QueryContext.open(reader)
    assert ("entity", "method/zorblaxnet") in {d for d, _ in ctx.index.search(reader, "zorblaxnet")}
    ctx.index.close()


def test_replace_and_delete_remove_entities_no_paper_links(server: Server) -> None:
    gql(server, ADD, p=[{"id": "z-1", "abstract": NOVEL}])
    assert entity(server, "Zorblaxnet") == {"name": "Zorblaxnet", "paperCount": 1}
    gql(server, ADD, p=[{"id": "z-1", "abstract": PLAIN}])  # replaced: Zorblaxnet is no longer mentioned
    assert entity(server, "Zorblaxnet") is None and search_names(server, "Zorblaxnet") == set()
    gql(server, ADD, p=[{"id": "z-2", "abstract": NOVEL}])
    assert entity(server, "Zorblaxnet") == {"name": "Zorblaxnet", "paperCount": 1}
    assert gql(server, 'mutation { deletePaper(id: "z-2") }') == {"data": {"deletePaper": True}}
    assert entity(server, "Zorblaxnet") is None and search_names(server, "Zorblaxnet") == set()
    imagenet = entity(server, "ImageNet")  # still linked by the sample papers
    assert imagenet is not None and imagenet["paperCount"] >= 1


def test_aliased_mutations_are_refused_whole(server: Server) -> None:
    before = server.store.generation()
    q = ("mutation($p: [PaperInput!]!) { a: addPapers(papers: $p) { id } b: addPapers(papers: $p) { id } "
         'c: deletePaper(id: "seed-01") }')
    body = gql(server, q, p=[{"id": "al-1", "abstract": PLAIN}])
    assert body == {"errors": [
        {"message": "one mutation field per request (got 3); send each write as its own request"}]}
    assert server.store.generation() == before


def test_batches_are_capped_and_the_cap_is_stated(server: Server) -> None:
    before = server.store.generation()
    papers = [{"id": f"cap-{i}", "abstract": PLAIN} for i in range(21)]
    body = gql(server, ADD, p=papers)
    assert [e["message"] for e in body["errors"]] == ["`number of papers` must be between 1 and 20 (got 21)"]
    assert server.store.generation() == before
    body = gql(server, ADD, p=papers[:20])
    assert len(body["data"]["addPapers"]) == 20
    again = gql(server, ADD, p=papers[:20])  # a retry with the same ids writes the same papers
    assert again == body
    assert gql(server, "{ stats { papers } }")["data"]["stats"]["papers"] == 19 + 20


def test_a_write_is_never_reported_failed_after_it_committed(store_dir: Path) -> None:
    """Under a time limit too short for extraction plus commit, every answer still tells the truth: a
    failure means nothing was written, a success means everything was (before: 503 and every paper
    stored). The first request also pays for loading the extractor, so both outcomes occur."""
    store = EmbeddedStore(str(store_dir))
    running = serve(store, api_token=TOKEN, query_timeout_s=3.0)  # a write must commit within 2 s
    server = next(running)
    outcomes = []
    try:
        for attempt in range(4):
            ids = [f"t{attempt}-{i}" for i in range(20)]
            r = httpx.post(server.url + "/graphql", headers=AUTH, timeout=120, json={
                "query": ADD, "variables": {"p": [{"id": i, "abstract": f"{PLAIN} Run {i}."} for i in ids]}})
            body = r.json()
            ok = r.status_code == 200 and body.get("data") is not None and "errors" not in body
            one = "query($i: ID!) { paper(id: $i) { id } }"
            present = [gql(server, one, i=i)["data"]["paper"] is not None for i in ids]
            outcomes.append(ok)
            if ok:
                assert all(present), (attempt, present)
            else:
                messages = " ".join(e["message"] for e in body["errors"])
                assert "nothing was written" in messages, messages
                assert not any(present), (attempt, present)
    finally:
        next(running, None)
        store.close()
    assert any(outcomes)  # once the extractor is loaded, 20 papers take ~0.3 s: they fit the 2 s


# --- issue 25, items 5 and 7: every field bounded, and cleaned as the file readers clean it --------------
@pytest.mark.parametrize(("paper", "message"), [
    ({"id": "many", "abstract": PLAIN, "authors": ["x"] * 150_000},
     "papers[0].authors has 150,000 names; at most 2,000"),
    ({"id": "long", "abstract": "a " * 50_001}, "papers[0].abstract has 100,002 characters; at most 100,000"),
    ({"id": "t", "abstract": PLAIN, "title": "t" * 2_001},
     "papers[0].title has 2,001 characters; at most 2,000"),
    ({"id": "n", "abstract": PLAIN, "authors": ["n" * 2_001]},
     "papers[0].authors[0] has 2,001 characters; at most 2,000"),
    ({"id": "i" * 2_001, "abstract": PLAIN}, "papers[0].id has 2,001 characters; at most 2,000"),
    ({"id": "nul\u0000id", "abstract": PLAIN},
     "papers[0].id 'nul\\x00id' is empty or holds a control or invisible character"),
    ({"id": "old", "abstract": PLAIN, "year": -5}, "papers[0].year -5 is outside 1800-2100"),
    ({"id": "far", "abstract": PLAIN, "year": 2147483647}, "papers[0].year 2147483647 is outside 1800-2100"),
    ({"id": "blank", "abstract": "   "}, "papers[0].abstract is empty; each paper needs an abstract"),
], ids=["150k-authors", "abstract", "title", "author-name", "id-length", "nul-id", "year-5", "year-max",
        "blank"])
def test_an_unfit_paper_is_a_400_before_anything_runs(server: Server, paper: dict[str, Any],
                                                      message: str) -> None:
    before = server.store.generation()
    r = httpx.post(server.url + "/graphql", json={"query": ADD, "variables": {"p": [paper]}},
                   headers={**AUTH, "Accept": "application/graphql-response+json"}, timeout=120)
    assert (r.status_code, r.json()) == (400, {"errors": [{"message": message}]})
    assert server.store.generation() == before


def test_an_unfit_inline_paper_is_refused_too(server: Server) -> None:
    body = gql(server, 'mutation { addPapers(papers: [{id: "x", abstract: "   "}]) { id } }')
    assert body == {"errors": [{"message": "papers[0].abstract is empty; each paper needs an abstract"}]}


def test_without_the_token_the_refusal_is_the_tokens(server: Server) -> None:
    body = gql(server, ADD, auth=False, p=[{"id": "many", "abstract": PLAIN, "authors": ["x"] * 3_000}])
    assert [e["message"] for e in body["errors"]] == ["mutation refused: missing or invalid bearer token"]


def test_api_text_is_cleaned_as_file_text_is(server: Server) -> None:
    paper = {"id": "clean-1", "title": "Nul\u0000 in a \\emph{title}", "year": 2024,
             "abstract": "We evaluate on Image\u0000Net.",
             "authors": ["Ada\u200b Lovelace", "  Alan   Turing "]}
    gql(server, ADD, p=[paper])
    found = gql(server, '{ paper(id: "clean-1") { title authors year links { entity { name } } } }')
    got = found["data"]["paper"]
    assert (got["title"], got["authors"], got["year"]) == ("Nul in a title", ["Ada Lovelace", "Alan Turing"],
                                                           2024)
    assert "ImageNet" in {link["entity"]["name"] for link in got["links"]}


def test_a_paper_without_an_id_is_identified_as_the_readers_identify_it(server: Server) -> None:
    from kg.io.identity import content_hash_id

    body = gql(server, ADD, p=[{"title": "No id", "abstract": PLAIN}])
    assert body["data"]["addPapers"] == [{"id": content_hash_id("No id", PLAIN), "title": "No id"}]
