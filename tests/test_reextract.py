"""`kg reextract`: a store whose links were written by a deliberately altered extraction (links dropped,
a bogus link added, relations dropped, another version string) is diffed exactly by `--dry-run`, which
writes nothing, and `kg reextract` then makes the store equal to a fresh build of the same papers."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest
from fixtures_api import pipeline_available, serve
from test_store_format import BASE, SEED_JSONL, dataset, kg

from kg.rdf.iris import Iris
from kg.types import EntityRef, Evidence, Extraction, Link

ALTERED = "0.0.1-altered"
BOGUS = EntityRef("Dataset", "Bogus Bench", "Benchmark")
IRIS = Iris(BASE)

pytestmark = pytest.mark.skipif(not pipeline_available(), reason="spaCy pipeline not installed")


def alter(i: int, ex: Extraction) -> Extraction:
    """What a different extractor configuration might have written for paper number i."""
    kept = tuple(link for j, link in enumerate(ex.links) if j % 2 == 0)
    if i % 3 == 0:
        ev = Evidence(ex.paper.title or "", "Bogus Bench", 0, 5, 0.4, "title", "altered")
        kept += (Link("usesDataset", BOGUS, ev, aliases=("BogusB",)),)
    # an older results reader: a paper's results lost, and another's kinds read wrongly (a delta ranked)
    results = () if i % 4 == 1 else tuple(replace(r, kind="absolute") for r in ex.results)
    return replace(ex, links=kept, relations=ex.relations if i % 2 else (), extractor_version=ALTERED,
                   results=results)


def triples(ex: Extraction) -> set[tuple[str, str, str, str]]:
    """(subject, relation, object, object type) of every link, straight from the Extraction records."""
    paper = IRIS.paper(ex.paper.id)
    out: set[tuple[str, str, str, str]]
    out = {(paper, x.relation, IRIS.entity(x.entity), x.entity.type) for x in ex.links}
    out |= {(IRIS.entity(r.subject), r.relation, IRIS.entity(r.object), r.object.type) for r in ex.relations}
    return out


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A fresh build of the sample, and the same papers written from altered extractions."""
    from kg.build import ensure_schema, extractions, read_all, unique_last, write_extractions
    from kg.rdf.mapping import GraphMapper
    from kg.store import open_store

    root = tmp_path_factory.mktemp("reextract")
    fresh, altered = root / "fresh", root / "altered"
    kg("build", SEED_JSONL, "--store", fresh)
    papers = unique_last(read_all([SEED_JSONL], lambda p: None))
    exs = list(extractions(papers, BASE))
    alt = [alter(i, ex) for i, ex in enumerate(exs)]
    st = open_store(str(altered), base_iri=BASE)
    ensure_schema(st, BASE)
    write_extractions(st, alt, GraphMapper(IRIS), batch_size=7)
    st.close()
    del st
    yield {"fresh": fresh, "altered": altered, "exs": exs, "alt": alt, "root": root}


def expected_diff(exs: list[Extraction], alt: list[Extraction]) -> dict[str, Any]:
    """The diff computed independently from the two lists of Extractions."""
    added: Counter[tuple[str, str]] = Counter()
    removed: Counter[tuple[str, str]] = Counter()
    gained: Counter[str] = Counter()
    lost: Counter[str] = Counter()
    names = {IRIS.entity(x.entity): x.entity.name for ex in exs for x in ex.links}
    names[IRIS.entity(BOGUS)] = BOGUS.name
    changed: list[dict[str, Any]] = []
    for new, old in zip(exs, alt, strict=True):
        plus, minus = triples(new) - triples(old), triples(old) - triples(new)
        added.update((r, t) for _, r, _, t in plus)
        removed.update((r, t) for _, r, _, t in minus)
        before = {IRIS.entity(x.entity) for x in old.links}
        after = {IRIS.entity(x.entity) for x in new.links}
        gained.update(after - before)
        lost.update(before - after)
        if plus or minus:
            changed.append({"id": new.paper.id, "title": new.paper.title, "added": len(plus),
                            "removed": len(minus)})

    def top(c: Counter[str]) -> list[dict[str, Any]]:
        best = sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
        return [{"id": IRIS.entity_id_of(e), "name": names[e], "papers": n} for e, n in best]

    return {
        "by_relation": [{"relation": r, "type": t, "added": added[(r, t)], "removed": removed[(r, t)]}
                        for r, t in sorted(set(added) | set(removed))],
        "links": {"added": sum(added.values()), "removed": sum(removed.values())},
        "entities_gained": top(gained),
        "entities_lost": top(lost),
        "papers_changed": sorted(changed, key=lambda c: (-(c["added"] + c["removed"]), c["id"]))[:10],
        "changed": len(changed),
    }


def test_dry_run_reports_the_exact_diff_and_writes_nothing(stores: dict[str, Any]) -> None:
    from kg.extract.extractor import VERSION

    altered = stores["altered"]
    before = dataset(altered)
    proc = kg("reextract", "--store", altered, "--dry-run", "--json")
    report = json.loads(proc.stdout)
    want = expected_diff(stores["exs"], stores["alt"])
    assert want["links"]["added"] > 20 and want["links"]["removed"] == 7  # the fixture really differs
    assert report["extractor_version"] == VERSION and report["dry_run"] is True
    assert report["papers"] == {"in_store": 19, "selected": 19, "skipped_current": 0, "reextracted": 19,
                                "changed": want["changed"], "unchanged": 19 - want["changed"]}
    assert report["versions_before"] == {ALTERED: 19}
    for key in ("by_relation", "links", "entities_gained", "entities_lost", "papers_changed"):
        assert report[key] == want[key], key
    assert report["entities_lost"] == [{"id": "dataset/bogus-bench", "name": "Bogus Bench", "papers": 7}]
    assert dataset(altered) == before


def test_the_text_diff_is_readable(stores: dict[str, Any]) -> None:
    out = kg("reextract", "--store", stores["altered"], "--dry-run", "--top", "3").stdout
    assert "19 re-extracted (dry run: nothing written)" in out
    assert f"versions before: {ALTERED} × 19" in out
    assert "entities that lost most papers:\n  -7     Bogus Bench (dataset/bogus-bench)" in out
    assert "relation" in out and "entity type" in out and "papers whose links changed most:" in out


def test_where_selects_papers_and_bad_conditions_are_one_line(stores: dict[str, Any]) -> None:
    alt = stores["alt"]
    pid = alt[3].paper.id
    report = json.loads(kg("reextract", "--store", stores["altered"], "--dry-run", "--json",
                           "--where", f"id={pid}").stdout)
    assert report["papers"]["selected"] == 1 and report["papers"]["reextracted"] == 1
    assert report["links"] == {"added": len(triples(stores["exs"][3]) - triples(alt[3])),
                               "removed": len(triples(alt[3]) - triples(stores["exs"][3]))}
    none = json.loads(kg("reextract", "--store", stores["altered"], "--dry-run", "--json",
                         "--where", "extractor=9.9").stdout)
    assert none["papers"]["selected"] == 0 and none["papers"]["reextracted"] == 0
    bad = kg("reextract", "--store", stores["altered"], "--where", "colour=red", check=False)
    assert bad.returncode == 1 and len(bad.stderr.strip().splitlines()) == 1 and "KEY=VALUE" in bad.stderr


def test_reextract_makes_the_store_equal_to_a_fresh_build(stores: dict[str, Any]) -> None:
    from kg.extract.extractor import VERSION

    work = stores["root"] / "work"
    shutil.copytree(stores["altered"], work)
    assert dataset(work) != dataset(stores["fresh"])
    assert [ex.results for ex in stores["alt"]] != [ex.results for ex in stores["exs"]]  # results differ too
    first = json.loads(kg("reextract", "--store", work, "--json", "--workers", "2", "--batch", "5").stdout)
    assert first["dry_run"] is False and first["papers"]["reextracted"] == 19
    assert first["entities_graph_rebuilt"] is True
    assert first["links"] == expected_diff(stores["exs"], stores["alt"])["links"]
    assert dataset(work) == dataset(stores["fresh"])
    assert "conforms" in kg("validate", "--store", work).stdout
    stats = json.loads(kg("stats", "--json", "--store", work).stdout)
    assert stats["papers_per_extractor"] == {VERSION: 19}
    # everything is current now: nothing to do unless forced, and forcing changes nothing
    again = json.loads(kg("reextract", "--store", work, "--json").stdout)
    assert again["papers"]["skipped_current"] == 19 and again["papers"]["reextracted"] == 0
    forced = json.loads(kg("reextract", "--store", work, "--json", "--force",
                           "--where", "title~agent").stdout)
    assert forced["papers"]["reextracted"] >= 1 and forced["papers"]["changed"] == 0
    assert forced["entities_graph_rebuilt"] is False
    assert dataset(work) == dataset(stores["fresh"])


def test_the_extractor_version_is_queryable_over_sparql_and_graphql(stores: dict[str, Any]) -> None:
    from kg.store.embedded import EmbeddedStore

    altered = stores["altered"]
    rows = json.loads(kg("sparql", "--store", altered, f"SELECT ?v (COUNT(?p) AS ?n) WHERE {{ ?p <{BASE}"
                         "ontology#extractorVersion> ?v } GROUP BY ?v").stdout)
    assert rows == [{"v": ALTERED, "n": "19"}]
    pid = stores["alt"][0].paper.id
    for server in serve(EmbeddedStore(str(altered), base_iri=BASE, read_only=True)):
        query = "query($id: ID!) { paper(id: $id) { id extractorVersion } }"
        body = httpx.post(server.url + "/graphql", timeout=30,
                          json={"query": query, "variables": {"id": pid}}).json()
        assert body == {"data": {"paper": {"id": pid, "extractorVersion": ALTERED}}}
