"""`kg migrate`: a store in the previous layout (built now, rewritten into format 1) is upgraded in place
to exactly what a fresh build writes; a migration killed with SIGKILL resumes and finishes."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from test_store_format import (
    BASE,
    EXTRACTOR_VERSION,
    FORMAT,
    META,
    ROOT,
    SEED_JSONL,
    aggregates,
    dataset,
    downgrade_to_v1,
    in_own_process,
    kg,
    stamp,
)

from kg.query import (
    QueryContext,
    defenses,
    entities,
    entity,
    links,
    neighborhood,
    paper,
    papers,
    search,
    stats,
)
from kg.store import FORMAT_VERSION, StoreFormatError, open_store


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A fresh build of the sample, and a copy of it rewritten into format 1."""
    root = tmp_path_factory.mktemp("migrate")
    fresh, old = root / "fresh", root / "old"
    kg("build", SEED_JSONL, "--store", fresh)
    shutil.copytree(fresh, old)
    fatten_to_format_2(old)  # the evidence layout format 1 and 2 stores have
    assert downgrade_to_v1(old) == 19
    return fresh, old


def answers(path: Path) -> dict[str, Any]:
    """The same questions the CLI and the API ask, answered from one store."""
    st = open_store(str(path), base_iri=BASE, read_only=True)
    ctx = QueryContext.open(st, BASE)
    some = papers(ctx, first=100).items
    out: dict[str, Any] = {
        "stats": stats(ctx),
        "papers": some,
        "imagenet": papers(ctx, dataset="imagenet", first=100).items,
        "entities": [entities(ctx, t, first=100).items for t in ("Task", "Dataset", "Method", "Threat")],
        "ipi": entity(ctx, name="IPI"),
        "defenses": defenses(ctx, target="LLM agents"),
        "links": [links(ctx, p.id) for p in some],
        "paper": [paper(ctx, p.id) for p in some],
        "neighborhood": neighborhood(ctx, "dataset/imagenet", depth=2),
        "search": search(ctx, "prompt injection", first=10),
    }
    ctx.index.close()
    st.close()
    return out


def test_opening_the_old_layout_names_migrate(built: tuple[Path, Path], tmp_path: Path) -> None:
    _, old = built
    probe = tmp_path / "probe"
    shutil.copytree(old, probe)
    with pytest.raises(StoreFormatError) as err:
        open_store(str(probe), base_iri=BASE)
    assert str(err.value) == (f"store {probe} has format version 1; this paperkg reads version"
                              f" {FORMAT_VERSION}: run `kg migrate --store {probe}` to upgrade it in place")


def test_migrate_makes_the_store_equal_to_a_fresh_build(built: tuple[Path, Path], tmp_path: Path) -> None:
    fresh, shared_old = built
    old = tmp_path / "old"
    shutil.copytree(shared_old, old)  # migrate a copy: the module's old store stays old for other tests
    assert dataset(old) != dataset(fresh)
    proc = kg("migrate", "--store", old)
    assert f"from format version 1 to {FORMAT_VERSION}: 19 papers for version 2" in proc.stdout
    assert "ontology and vocabulary graphs rewritten" in proc.stdout
    assert "version 2: 19/19 papers" in proc.stderr
    assert dataset(old) == dataset(fresh)
    assert answers(old) == answers(fresh)
    assert "conforms" in kg("validate", "--store", old).stdout
    again = kg("migrate", "--store", old)
    assert f"at format version {FORMAT_VERSION} already; nothing to do" in again.stdout
    assert dataset(old) == dataset(fresh)


def test_migrated_papers_carry_the_version_of_their_links_agent(tmp_path: Path) -> None:
    """The derivation reads each paper's own prov:SoftwareAgent, so papers of two versions stay apart."""
    from kg.build import ensure_schema, write_extractions
    from kg.rdf.iris import Iris
    from kg.rdf.mapping import GraphMapper
    from kg.types import EntityRef, Evidence, Extraction, Link, Paper

    loc = tmp_path / "kg"
    st = open_store(str(loc), base_iri=BASE)
    ensure_schema(st, BASE)
    ev = Evidence("We use ImageNet.", "ImageNet", 7, 15, 0.9)
    link = Link("usesDataset", EntityRef("Dataset", "ImageNet"), ev)
    exs = [Extraction(Paper(f"p{i}", "We use ImageNet."), (link,), extractor_version=v)
           for i, v in enumerate(["0.0.9", "0.1.0", "0.0.9", ""])]
    write_extractions(st, exs, GraphMapper(Iris(BASE)), batch_size=2)
    st.close()
    del st  # let RocksDB release the directory
    downgrade_to_v1(loc)
    kg("migrate", "--store", loc, "--batch", "1")
    st = open_store(str(loc), base_iri=BASE, read_only=True)
    rows = st.select(f"SELECT ?id ?v WHERE {{ ?p <http://purl.org/dc/terms/identifier> ?id ;"
                     f" {EXTRACTOR_VERSION} ?v }}")
    assert sorted((r["id"].value, r["v"].value) for r in rows) == [
        ("p0", "0.0.9"), ("p1", "0.1.0"), ("p2", "0.0.9"), ("p3", "unknown")]
    assert st.format_version == FORMAT_VERSION
    st.close()


def _synthetic_v1_store(loc: Path, n: int) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from synth import synth_extractions

    from kg.build import ensure_schema, write_extractions
    from kg.rdf.iris import Iris
    from kg.rdf.mapping import GraphMapper

    st = open_store(str(loc), base_iri=BASE)
    ensure_schema(st, BASE)
    write_extractions(st, synth_extractions(n, seed=3), GraphMapper(Iris(BASE)), batch_size=500)
    st.close()
    del st  # let RocksDB release the directory
    assert downgrade_to_v1(loc) == n


def _v(term: object) -> str:
    """The lexical form of an IRI, blank node or literal (narrows pyoxigraph's term union)."""
    assert isinstance(term, ox.NamedNode | ox.BlankNode | ox.Literal), term
    return term.value


def _migrated(loc: Path) -> tuple[int, int, list[str]]:
    """(papers, papers with kg:extractorVersion, format stamps) read straight from the RocksDB files."""
    raw = ox.Store.read_only(str(loc))
    total = len({q.graph_name for q in raw.quads_for_pattern(
        None, ox.NamedNode("http://purl.org/dc/terms/identifier"), None, None)})
    done = sum(1 for _ in raw.quads_for_pattern(None, EXTRACTOR_VERSION, None, None))
    stamps = [_v(q.object) for q in raw.quads_for_pattern(META, FORMAT, None, META)]
    del raw
    return total, done, stamps


def test_a_killed_migration_leaves_whole_papers_and_resumes(tmp_path: Path) -> None:
    loc, n, batch = tmp_path / "kg", 500, 2
    _synthetic_v1_store(loc, n)
    cmd = [sys.executable, "-m", "kg", "migrate", "--store", str(loc), "--batch", str(batch)]
    proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:  # progress is printed after each committed batch; 250 batches
        if line.startswith("version 2: "):
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    total, done, stamps = _migrated(loc)
    assert total == n and stamps == []
    assert 0 < done < n  # killed mid-migration
    assert done % batch == 0  # every transaction carried whole batches of papers: none half-written
    with pytest.raises(StoreFormatError):
        open_store(str(loc), base_iri=BASE, read_only=True)  # still format 1 until the job is finished
    rerun = kg("migrate", "--store", loc, "--batch", "500")
    assert f"{n - done} papers for version 2" in rerun.stdout
    total, done, stamps = _migrated(loc)
    assert (total, done, stamps) == (n, n, [str(FORMAT_VERSION)])
    assert open_store(str(loc), base_iri=BASE, read_only=True).format_version == FORMAT_VERSION
    assert "conforms" in kg("validate", "--store", loc).stdout


def test_migrate_from_format_2_computes_the_aggregates(built: tuple[Path, Path], tmp_path: Path) -> None:
    """A format-2 store (no aggregates) gets exactly the aggregates a fresh build keeps, the same answers."""
    fresh, _ = built
    old = tmp_path / "v2"
    shutil.copytree(fresh, old)
    assert drop_aggregates(old) > 0
    assert dataset(old) != dataset(fresh)
    proc = kg("migrate", "--store", old)
    assert f"from format version 2 to {FORMAT_VERSION}" in proc.stdout
    assert dataset(old) == dataset(fresh)
    assert answers(old) == answers(fresh)


def test_migrate_from_format_3_lists_each_entitys_papers(built: tuple[Path, Path], tmp_path: Path) -> None:
    """A format-3 store (counts, no paper lists) gets exactly the lists a fresh build keeps, the same
    answers; no paper graph is rewritten."""
    fresh, _ = built
    old = tmp_path / "v3"
    shutil.copytree(fresh, old)
    blocks, lists = drop_paper_lists(old)
    assert blocks > 0 and lists > 0
    assert dataset(old) != dataset(fresh)
    proc = kg("migrate", "--store", old)
    assert f"from format version 3 to {FORMAT_VERSION}: 0 papers for version 4" in proc.stdout
    assert dataset(old) == dataset(fresh)
    assert answers(old) == answers(fresh)


@in_own_process
def drop_aggregates(path: Path) -> int:
    """Rewrite a store into format 2: no aggregate graphs. Returns the quads removed."""
    raw = ox.Store(str(path))
    gone = aggregates(raw)
    for q in gone:
        raw.remove(q)
    stamp(raw, 2)
    raw.flush()
    return len(gone)


@in_own_process
def drop_paper_lists(path: Path) -> tuple[int, int]:
    """Rewrite a store into format 3: entity paper counts kept, their paper lists gone. Returns the
    kg:paperBlocks quads and the paper-list quads removed."""
    raw = ox.Store(str(path))
    blocks = BASE + "ontology#paperBlocks"
    gone = [q for q in aggregates(raw) if "/graph/meta/papers/" in str(q.graph_name)
            or q.predicate.value == blocks]
    for q in gone:
        raw.remove(q)
    stamp(raw, 3)
    raw.flush()
    n_blocks = sum(q.predicate.value == blocks for q in gone)
    return n_blocks, len(gone) - n_blocks


@in_own_process
def fatten_to_format_2(path: Path) -> int:
    """Rewrite a current store into the format-2 layout: papers also typed schema:ScholarlyArticle,
    authors as dcterms:creator, link nodes carrying their evidence as text (kg:Link, rdf:subject,
    kg:mention, kg:evidence, kg:field, kg:start, kg:end, kg:rule, kg:tier, prov:wasDerivedFrom and
    prov:wasGeneratedBy), no rule nodes, no aggregates, stamp 2. Returns the link nodes rewritten."""
    kgns, rdf = BASE + "ontology#", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    prov, dc = "http://www.w3.org/ns/prov#", "http://purl.org/dc/terms/"
    store = ox.Store(str(path))
    n = ox.NamedNode
    rules = {q.subject for q in store.quads_for_pattern(None, n(rdf + "type"), n(kgns + "Rule"), None)}
    rule_props = {r: {q.predicate.value: q.object for q in store.quads_for_pattern(r, None, None, None)}
                  for r in rules}
    nodes = {q.subject for q in store.quads_for_pattern(None, n(kgns + "span"), None, None)}
    from kg.rdf.iris import Iris

    iris, statement = Iris(BASE), {}  # format 5 names a paper's link node by its plain link (Iris.link)
    for q in store.quads_for_pattern(None, None, None, None):
        pid = iris.paper_id(q.subject.value) if isinstance(q.subject, ox.NamedNode) else None
        if pid is not None and q.predicate.value.startswith(kgns) and isinstance(q.object, ox.NamedNode):
            link = iris.link(pid, q.predicate.value.removeprefix(kgns), q.object.value)
            statement[link] = (q.predicate, q.object)
    old = aggregates(store) + [q for r in rules for q in store.quads_for_pattern(r, None, None, None)]
    new: list[ox.Quad] = []
    for p in {q.subject for q in store.quads_for_pattern(None, n(rdf + "type"), n(kgns + "Paper"), None)}:
        g = next(store.quads_for_pattern(p, n(rdf + "type"), n(kgns + "Paper"), None)).graph_name
        new.append(ox.Quad(p, n(rdf + "type"), n("https://schema.org/ScholarlyArticle"), g))
        for q in store.quads_for_pattern(p, n("http://purl.org/ontology/bibo/authorList"), None, g):
            old.append(q)
            assert isinstance(q.object, ox.NamedNode | ox.BlankNode)
            for m in store.quads_for_pattern(q.object, None, None, g):
                old.append(m)
                new.append(ox.Quad(p, n(dc + "creator"), m.object, g))
    for node in nodes:
        props = {q.predicate.value: q for q in store.quads_for_pattern(node, None, None, None)}
        g = props[kgns + "span"].graph_name
        paper = n(_v(node).partition("/link/")[0])
        field, ss, se, ms, me = _v(props[kgns + "span"].object).split()
        text = _v(next(store.quads_for_pattern(paper, n(dc + field), None, g)).object)
        given = {k: _v(props[kgns + k].object) for k in ("evidence", "mention") if kgns + k in props}
        sentence = given.get("evidence", text[int(ss) if ss != "-" else 0:int(se) if se != "-" else 0])
        mention = given.get("mention", text[int(ms):int(me)])
        by = props[kgns + "by"].object
        assert isinstance(by, ox.NamedNode | ox.BlankNode)
        rule = rule_props[by]
        old += [props[kgns + k] for k in ("span", "by", "evidence", "mention") if kgns + k in props]
        subject = props[rdf + "subject"].object if rdf + "subject" in props else paper
        int_t = n("http://www.w3.org/2001/XMLSchema#integer")
        values: list[tuple[str, ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple]]
        values = [(rdf + "type", n(kgns + "Link")), (kgns + "mention", ox.Literal(mention)),
                  (kgns + "evidence", ox.Literal(sentence)), (kgns + "field", ox.Literal(field)),
                  (kgns + "start", ox.Literal(ms, datatype=int_t)),
                  (kgns + "end", ox.Literal(me, datatype=int_t)),
                  (kgns + "tier", rule[kgns + "tier"]), (prov + "wasDerivedFrom", paper),
                  (prov + "wasGeneratedBy", rule[prov + "wasGeneratedBy"])]
        if rdf + "subject" not in props:
            values.append((rdf + "subject", subject))
        if rdf + "predicate" not in props:  # format 5 leaves them implicit ...
            rel, obj = statement[_v(node)]
            values += [(rdf + "predicate", rel), (rdf + "object", obj)]
        if kgns + "confidence" not in props:  # ... and keeps the confidence on the shared rule node
            values.append((kgns + "confidence", rule[kgns + "confidence"]))
        if kgns + "rule" in rule:
            values.append((kgns + "rule", rule[kgns + "rule"]))
        new += [ox.Quad(node, n(k), v, g) for k, v in values]
    for q in old:
        store.remove(q)
    store.extend(new)
    stamp(store, 2)
    store.flush()
    return len(nodes)


def test_migrate_from_format_2_rewrites_papers_into_the_lean_layout(built: tuple[Path, Path],
                                                                   tmp_path: Path) -> None:
    """Format-2 papers (evidence as text, agent per link, unordered creators) become exactly what a fresh
    build writes: offsets into the abstract, shared rule nodes, the same answers, a valid store."""
    fresh, _ = built
    old = tmp_path / "fat"
    shutil.copytree(fresh, old)
    assert fatten_to_format_2(old) > 19
    assert dataset(old) != dataset(fresh)
    proc = kg("migrate", "--store", old, "--batch", "7")
    assert f"from format version 2 to {FORMAT_VERSION}: 19 papers for version 3" in proc.stdout
    assert dataset(old) == dataset(fresh)
    assert answers(old) == answers(fresh)
    assert "conforms" in kg("validate", "--store", old).stdout
