"""Store format 4 -> 5 (kg.migrate_links): a store built now and rewritten into the format-4 link
layout (confidence and statement on every link node, one rule node per rule and version) is upgraded by
`kg migrate` to exactly what a fresh build writes, with the same answers and a valid graph."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyoxigraph as ox
import pytest
from test_migrate import answers
from test_store_format import BASE, SEED_JSONL, dataset, in_own_process, kg, stamp

from kg.query import QueryContext, links
from kg.rdf.iris import Iris
from kg.store import FORMAT_VERSION, open_store

KG = BASE + "ontology#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
N = ox.NamedNode


@in_own_process
def to_format_4(path: Path) -> int:
    """Rewrite a format-5 store into the format-4 link layout; returns the paper link nodes rewritten."""
    store = ox.Store(str(path))
    iris = Iris(BASE)
    rules = {q.subject for q in store.quads_for_pattern(None, N(RDF + "type"), N(KG + "Rule"), None)}
    rule_quads = {r: list(store.quads_for_pattern(r, None, None, None)) for r in rules}
    relations = {q.predicate for q in store if q.predicate.value.startswith(KG)
                 and isinstance(q.object, ox.NamedNode) and q.subject.value.startswith(BASE + "paper/")
                 and "/" not in q.subject.value.removeprefix(BASE + "paper/")}
    named: dict[str, tuple[ox.NamedNode, ox.NamedNode]] = {}
    for rel in relations:
        for q in store.quads_for_pattern(None, rel, None, None):
            pid = iris.paper_id(q.subject.value) if isinstance(q.subject, ox.NamedNode) else None
            if pid is not None and isinstance(q.object, ox.NamedNode):
                named[iris.link(pid, rel.value.removeprefix(KG), q.object.value)] = (rel, q.object)
    old: list[ox.Quad] = [q for qs in rule_quads.values() for q in qs]
    new: list[ox.Quad] = []
    for r, qs in rule_quads.items():  # one rule node per (rule, version), without the confidence
        assert isinstance(r, ox.NamedNode)
        four = N(r.value.rsplit("/", 1)[0])
        new += [ox.Quad(four, q.predicate, q.object, q.graph_name) for q in qs
                if q.predicate.value not in (KG + "confidence", KG + "lowConfidence")]
    plain = 0
    for by in store.quads_for_pattern(None, N(KG + "by"), None, None):
        link, rule, g = by.subject, by.object, by.graph_name
        assert isinstance(rule, ox.NamedNode) and isinstance(link, ox.NamedNode)
        props = {q.predicate.value: q.object for q in rule_quads[rule]}
        old.append(by)
        new += [ox.Quad(link, N(KG + "by"), N(rule.value.rsplit("/", 1)[0]), g),
                ox.Quad(link, N(KG + "confidence"), props[KG + "confidence"], g)]
        if KG + "lowConfidence" in props:
            new.append(ox.Quad(link, N(KG + "lowConfidence"), props[KG + "lowConfidence"], g))
        if not any(store.quads_for_pattern(link, N(RDF + "subject"), None, None)):
            rel, entity = named[link.value]
            new += [ox.Quad(link, N(RDF + "predicate"), rel, g), ox.Quad(link, N(RDF + "object"), entity, g)]
            plain += 1
    for q in old:
        store.remove(q)
    store.extend(new)
    stamp(store, 4)
    store.flush()
    return plain


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("format5")
    fresh, old = root / "fresh", root / "old"
    kg("build", SEED_JSONL, "--store", fresh)
    shutil.copytree(fresh, old)
    assert to_format_4(old) > 19
    return fresh, old


def test_fresh_link_nodes_carry_no_confidence_or_statement(built: tuple[Path, Path]) -> None:
    fresh, old = built
    assert FORMAT_VERSION == 5
    counts = []
    for path in (fresh, old):
        store = ox.Store.read_only(str(path))
        stated = {q.subject for q in store.quads_for_pattern(None, N(RDF + "subject"), None, None)}
        counts.append(sum(1 for q in store if "/link/" in q.subject.value and q.subject not in stated
                          and q.predicate.value in (KG + "confidence", RDF + "predicate", RDF + "object")))
        del store
    assert counts[0] == 0 and counts[1] > 3 * 19


def test_migrate_from_format_4_equals_a_fresh_build(built: tuple[Path, Path], tmp_path: Path) -> None:
    fresh, shared_old = built
    old = tmp_path / "old"
    shutil.copytree(shared_old, old)
    assert dataset(old) != dataset(fresh)
    proc = kg("migrate", "--store", old)
    assert "from format version 4 to 5: 19 papers for version 5" in proc.stdout
    assert dataset(old) == dataset(fresh)
    assert answers(old) == answers(fresh)  # every link's evidence sentence and confidence as before
    assert "conforms" in kg("validate", "--store", old).stdout
    assert "nothing to do" in kg("migrate", "--store", old).stdout


def test_readme_sparql_for_link_evidence_matches_the_api(built: tuple[Path, Path]) -> None:
    """README's SPARQL example reaches each link's evidence sentence and confidence in the format-5 layout,
    the same ones the API returns."""
    fresh, _ = built
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    query = next(block.split("```", 1)[0] for block in readme.split("```sparql\n")[1:]
                 if "kg:by/kg:confidence" in block)
    rows = json.loads(kg("sparql", "--store", fresh, query).stdout)
    assert rows
    st = open_store(str(fresh), base_iri=BASE, read_only=True)
    ctx = QueryContext.open(st, BASE)
    try:
        expected = sorted((x.paper_iri, x.confidence, x.evidence)
                          for row in rows for x in links(ctx, row["paper"].rsplit("/", 1)[1])
                          if x.relation == "usesDataset" and x.entity.id == "dataset/imagenet")
    finally:
        ctx.index.close()
        st.close()
    assert sorted((r["paper"], float(r["confidence"]), r["sentence"]) for r in rows) == expected
