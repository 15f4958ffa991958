"""The `kg` command line end to end, in real subprocesses over a real on-disk store."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import rdflib

ROOT = Path(__file__).resolve().parent.parent
SEED_TXT = ROOT / "data" / "icml2025_seed.txt"
SEED_JSONL = ROOT / "data" / "icml2025_seed.jsonl"
KG = "https://w3id.org/paperkg/ontology#"


def kg(
    *args: str | Path, check: bool = True, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "kg", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        timeout=600,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"kg {args} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


@pytest.fixture(scope="module")
def seed_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("cli") / "store"
    kg("build", SEED_TXT, "--store", store)
    return store


@pytest.fixture(scope="module")
def seed_turtle(seed_store: Path) -> rdflib.Graph:
    out = seed_store.parent / "seed.ttl"
    kg("export", "--format", "turtle", "-o", out, "--store", seed_store)
    return rdflib.Graph().parse(out, format="turtle")


def papers_using(graph: rdflib.Graph, label: str) -> set[str]:
    rows = graph.query(
        "SELECT ?abs WHERE { ?p ?rel ?e . ?e skos:prefLabel ?l . ?p dcterms:abstract ?abs ."
        " FILTER(STR(?l) = ?label) }",
        initNs={"skos": rdflib.SKOS, "dcterms": rdflib.DCTERMS},
        initBindings={"label": rdflib.Literal(label)},
    )
    return {str(r[0]) for r in rows}  # type: ignore[index]


@pytest.mark.parametrize("dataset", ["ImageNet", "UCF101", "AgentDojo", "CIFAR-10-LT", "GenImage", "ETTh2"])
def test_seed_datasets_are_linked_to_the_abstracts_that_use_them(
    seed_turtle: rdflib.Graph, dataset: str
) -> None:
    abstracts = papers_using(seed_turtle, dataset)
    token = dataset if dataset != "ImageNet" else "ImageNet256"
    assert abstracts and all(token in a for a in abstracts)


def test_seed_build_has_19_papers(seed_store: Path) -> None:
    stats = json.loads(kg("stats", "--json", "--store", seed_store).stdout)
    assert stats["papers"] == 19


def test_built_graph_passes_shacl(seed_store: Path) -> None:
    assert "conforms" in kg("validate", "--store", seed_store).stdout


def test_rebuilding_the_same_file_leaves_the_graph_identical(tmp_path: Path) -> None:
    store = tmp_path / "s"
    kg("build", SEED_TXT, "--store", store)
    first = kg("export", "--format", "nquads", "--store", store).stdout
    kg("build", SEED_TXT, "--store", store)
    second = kg("export", "--format", "nquads", "--store", store).stdout
    assert sorted(first.splitlines()) == sorted(second.splitlines())


def test_reingesting_an_edited_paper_replaces_its_links(tmp_path: Path) -> None:
    store, src = tmp_path / "s", tmp_path / "p.jsonl"
    src.write_text(json.dumps({"id": "p1", "abstract": "We evaluate our method on ImageNet."}) + "\n")
    kg("build", src, "--store", store)
    src.write_text(json.dumps({"id": "p1", "abstract": "We evaluate our method on CIFAR-10."}) + "\n")
    kg("build", src, "--store", store)
    dump = kg("export", "--format", "nt", "--store", store).stdout
    used = {line.split()[2] for line in dump.splitlines() if line.split()[1:2] == [f"<{KG}usesDataset>"]}
    assert used == {"<https://w3id.org/paperkg/dataset/cifar-10>"}


def test_extract_prints_one_json_object_per_paper_in_input_order() -> None:
    lines = kg("extract", SEED_JSONL, "--format", "jsonl").stdout.splitlines()
    ids = [json.loads(line)["id"] for line in lines]
    assert ids == [f"seed-{i:02d}" for i in range(1, 20)]


def test_extract_entities_have_the_stable_shape() -> None:
    first = json.loads(kg("extract", SEED_JSONL, "--format", "jsonl").stdout.splitlines()[0])
    keys = {"name", "type", "kind", "relation", "mention", "evidence", "start", "end", "confidence"}
    assert first["entities"] and all(keys <= set(e) for e in first["entities"])


def test_bad_records_are_reported_and_good_ones_kept(tmp_path: Path) -> None:
    src, store = tmp_path / "mixed.jsonl", tmp_path / "s"
    src.write_text(
        json.dumps({"id": "ok1", "abstract": "We train on MNIST."})
        + "\n{broken\n"
        + json.dumps({"id": "ok2", "abstract": "We train on CIFAR-10."})
        + "\n"
    )
    proc = kg("build", src, "--store", store)
    assert "mixed.jsonl:line 2" in proc.stderr and "Traceback" not in proc.stderr
    assert json.loads(kg("stats", "--json", "--store", store).stdout)["papers"] == 2


def test_nothing_readable_fails_with_one_line(tmp_path: Path) -> None:
    src = tmp_path / "empty.jsonl"
    src.write_text("")
    proc = kg("build", src, "--store", tmp_path / "s", check=False)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert len([ln for ln in proc.stderr.splitlines() if ln.startswith("error")]) == 1


def test_missing_store_for_export_is_a_clear_error(tmp_path: Path) -> None:
    proc = kg("export", "--store", tmp_path / "nowhere", check=False)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr


def test_shards_load_into_the_same_graph_as_a_direct_build(tmp_path: Path) -> None:
    shard, direct, loaded = tmp_path / "seed.nq", tmp_path / "direct", tmp_path / "loaded"
    kg("build", SEED_JSONL, "--out", shard)
    kg("build", SEED_JSONL, "--store", direct)
    kg("load", shard, "--store", loaded)
    a = kg("export", "--format", "nquads", "--store", direct).stdout.splitlines()
    b = kg("export", "--format", "nquads", "--store", loaded).stdout.splitlines()
    paper_quads = lambda lines: sorted(x for x in lines if "/graph/paper/" in x)  # noqa: E731
    assert paper_quads(a) == paper_quads(b)


def test_killed_build_leaves_each_paper_whole_or_absent(tmp_path: Path) -> None:
    """kill -9 a build mid-way: the store opens, validates, and every paper graph is complete or missing."""
    src = tmp_path / "many.jsonl"
    seed = [json.loads(line) for line in SEED_JSONL.read_text().splitlines()]
    with src.open("w") as fh:
        for i in range(40):
            for rec in seed:
                fh.write(json.dumps({**rec, "id": f"{rec['id']}-{i}"}) + "\n")
    reference = tmp_path / "ref.nq"
    kg("build", SEED_JSONL, "--out", reference)
    expected = Counter(
        line.rsplit(" ", 2)[-2].rsplit("/", 1)[-1].rstrip(">") for line in reference.read_text().splitlines()
    )
    store = tmp_path / "s"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kg", "build", str(src), "--store", str(store), "--batch", "25"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 120
    while time.time() < deadline and not (store / "CURRENT").exists():
        time.sleep(0.1)
    time.sleep(6)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    dump = kg("export", "--format", "nquads", "--store", store).stdout.splitlines()
    got = Counter(
        line.rsplit(" ", 2)[-2].rsplit("/", 1)[-1].rstrip(">") for line in dump if "/graph/paper/" in line
    )
    assert got, "the build was killed before its first batch; raise the sleep"
    for graph, n in got.items():
        assert n == expected[graph.rsplit("-", 1)[0]], graph
    assert "conforms" in kg("validate", "--store", store).stdout


def test_warnings_print_bracketed_file_names_verbatim(tmp_path: Path) -> None:
    src = tmp_path / "[red]odd.jsonl"
    src.write_text(json.dumps({"id": "ok1", "abstract": "We train on MNIST."}) + "\n{broken\n")
    proc = kg("extract", src)
    assert "[red]odd.jsonl:line 2" in proc.stderr


def test_sparql_select_prints_rows(seed_store: Path) -> None:
    q = "SELECT (COUNT(DISTINCT ?p) AS ?n) WHERE { ?p a <https://w3id.org/paperkg/ontology#Paper> }"
    assert json.loads(kg("sparql", q, "--store", seed_store).stdout) == [{"n": "19"}]


def test_sparql_update_is_refused_and_writes_nothing(seed_store: Path) -> None:
    proc = kg("sparql", "DROP ALL", "--store", seed_store, check=False)
    assert proc.returncode != 0 and "read-only" in proc.stderr
    assert json.loads(kg("stats", "--json", "--store", seed_store).stdout)["papers"] == 19


def test_viz_writes_an_svg_holding_the_dataset(seed_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "imagenet.svg"
    kg("viz", "ImageNet", "-o", out, "--store", seed_store)
    assert "ImageNet" in out.read_text()


def test_export_graphml_for_graph_tools(seed_store: Path, tmp_path: Path) -> None:
    import networkx as nx

    out = tmp_path / "kg.graphml"
    kg("export", "--format", "graphml", "-o", out, "--store", seed_store)
    types = {d.get("type") for _, d in nx.read_graphml(out).nodes(data=True)}
    assert {"Paper", "Dataset", "Task"} <= types


def test_stats_count_only_entities_that_papers_link_to(seed_store: Path) -> None:
    stats = json.loads(kg("stats", "--json", "--store", seed_store).stdout)
    linked = kg(
        "sparql",
        f"SELECT (COUNT(DISTINCT ?e) AS ?n) WHERE {{ ?p a <{KG}Paper> ; "
        f"<{KG}usesDataset>|<{KG}introducesDataset> ?e }}",
        "--store",
        seed_store,
    ).stdout
    assert stats["entities_per_type"]["Dataset"] == int(json.loads(linked)[0]["n"])
