"""The `kg` command line end to end, in real subprocesses over a real on-disk store."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import rdflib
from fixtures_api import run_kg as kg

ROOT = Path(__file__).resolve().parent.parent
SEED_TXT = ROOT / "data" / "icml2025_seed.txt"
SEED_JSONL = ROOT / "data" / "icml2025_seed.jsonl"
KG = "https://w3id.org/paperkg/ontology#"


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
    out: set[str] = set()
    for r in rows:
        assert isinstance(r, rdflib.query.ResultRow)  # a SELECT yields rows (narrows the bool/triple union)
        out.add(str(r[0]))
    return out


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

    def paper_quads(lines: list[str]) -> list[str]:
        return sorted(x for x in lines if "/graph/paper/" in x)

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
    from kg.store.embedded import EmbeddedStore

    EmbeddedStore(str(store)).close()  # an existing store: transactions per batch (a new one appears whole)
    proc = subprocess.Popen(
        [sys.executable, "-m", "kg", "build", str(src), "--store", str(store), "--batch", "25",
         "--progress-every", "0"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    # a line per paper; paper 40 is asked for only after the first batch of 25 was written
    assert proc.stderr is not None
    for line in proc.stderr:
        if line.startswith("extracted 40/"):
            break
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


# ---- issue 13: a CLI that tells the truth ------------------------------------------------------------

def test_export_picks_the_format_from_the_extension(seed_store: Path, tmp_path: Path) -> None:
    jsonld, nq = tmp_path / "g.jsonld", tmp_path / "g.nq"
    kg("export", "-o", jsonld, "--store", seed_store)
    kg("export", "-o", nq, "--store", seed_store)
    assert isinstance(json.loads(jsonld.read_text()), list | dict)
    ds = rdflib.Dataset()
    ds.parse(nq, format="nquads")
    assert len(ds) > 1000 and len(list(ds.graphs())) > 19  # one named graph per paper, and more


def test_export_refuses_a_format_that_contradicts_the_extension(seed_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "g.nq"
    proc = kg("export", "--format", "turtle", "-o", out, "--store", seed_store, check=False)
    assert proc.returncode != 0 and not out.exists()
    assert proc.stderr.startswith("error: --format turtle does not match 'g.nq'")


def test_export_refuses_an_extension_it_cannot_read(seed_store: Path, tmp_path: Path) -> None:
    proc = kg("export", "-o", tmp_path / "g.data", "--store", seed_store, check=False)
    assert proc.returncode != 0 and "cannot tell the format from 'g.data'" in proc.stderr


def test_sparql_knows_the_usual_prefixes(seed_store: Path) -> None:
    proc = kg("sparql", "SELECT (COUNT(*) AS ?n) WHERE { ?p kg:usesDataset ?d . ?d skos:prefLabel ?l }",
              "--store", seed_store)
    assert int(json.loads(proc.stdout)[0]["n"]) > 0 and proc.stderr == ""


def test_sparql_syntax_error_names_line_and_column(seed_store: Path) -> None:
    query = "SELECT ?p WHERE {\n  ?p kg:usesDataset ?d .\n  FILTER(?d = ) }"
    proc = kg("sparql", query, "--store", seed_store, check=False)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: SPARQL syntax error at line 3, column ")


def test_sparql_unknown_prefix_is_one_line(seed_store: Path) -> None:
    proc = kg("sparql", "SELECT ?p WHERE { ?p foo:bar ?d }", "--store", seed_store, check=False)
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines() == [
        "error: unknown prefix 'foo:' at line 1, column 29; declare it with PREFIX foo: <…>"]


def test_sparql_warns_about_a_misspelt_predicate_and_class(seed_store: Path) -> None:
    proc = kg("sparql", "SELECT ?p WHERE { ?p kg:usesDatset ?d . ?d a kg:Datset }", "--store", seed_store)
    assert json.loads(proc.stdout) == []
    assert "warning: no triple in the store uses the predicate kg:usesDatset" in proc.stderr
    assert "warning: nothing in the store is a kg:Datset" in proc.stderr


def test_version() -> None:
    from kg import __version__

    assert kg("--version").stdout.startswith(f"paperkg {__version__} (store format ")


def test_help_is_not_cut_at_80_columns() -> None:
    out = kg("build", "--help").stdout  # not a terminal: rich would fall back to 80 columns
    assert max(len(line) for line in out.splitlines()) > 100
    assert "…" not in out and "scheduler address (tcp://HOST:8786) or local:N" in out  # one line, uncut


def test_build_with_a_missing_input_fails_before_writing(tmp_path: Path) -> None:
    store = tmp_path / "s"
    proc = kg("build", SEED_JSONL, tmp_path / "missing.jsonl", "--store", store, check=False)
    assert proc.returncode != 0 and not store.exists()
    assert proc.stderr.strip() == f"error: no such input file: {tmp_path / 'missing.jsonl'}"


def test_viz_message_keeps_the_quotes(seed_store: Path, tmp_path: Path) -> None:
    proc = kg("viz", "quantum gravity", "-o", tmp_path / "q.png", "--store", seed_store, check=False)
    assert proc.stderr.strip() == "error: no paper or entity matches 'quantum gravity'"


def test_validate_never_creates_a_store(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    for where in (empty, tmp_path / "absent"):
        proc = kg("validate", "--store", where, check=False)
        assert proc.returncode != 0 and proc.stderr.strip() == f"error: no store at {where}"
    assert list(empty.iterdir()) == [] and not (tmp_path / "absent").exists()


def test_trend_draws_entities_per_year(seed_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "trend.svg"
    proc = kg("trend", "ImageNet", "dataset/ucf101", "-o", out, "--store", seed_store)
    assert proc.stderr.strip() == f"wrote {out}"
    text = out.read_text()
    assert "ImageNet (" in text and "UCF101 (" in text


def test_trend_within_venues_normalised_per_venue(seed_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "trend.svg"
    proc = kg("trend", "ImageNet", "--venue", "ICML 2025", "--per-venue", "-o", out, "--store", seed_store)
    assert proc.stderr.strip() == f"wrote {out}"
    assert "share of the year's papers (%)" in out.read_text()


def test_trend_in_a_venue_without_papers_is_one_line(seed_store: Path, tmp_path: Path) -> None:
    proc = kg("trend", "ImageNet", "--venue", "Nowhere", "-o", tmp_path / "t.png", "--store", seed_store,
              check=False)
    assert proc.returncode != 0
    assert proc.stderr.strip() == "error: none of these entities has a paper with a year in 'Nowhere'"


def test_trend_of_an_unknown_name_is_one_line(seed_store: Path, tmp_path: Path) -> None:
    proc = kg("trend", "quantum gravity", "-o", tmp_path / "t.png", "--store", seed_store, check=False)
    assert proc.returncode != 0 and proc.stderr.strip() == "error: no entity named 'quantum gravity'"


def test_the_sample_is_package_data() -> None:
    import tomllib

    import kg as package
    from kg.cli.common import SAMPLE

    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["kg"]
    inside = SAMPLE.relative_to(Path(package.__file__).parent)
    assert SAMPLE.is_file() and any(inside.match(g) for g in globs)


def test_build_summary_and_stats_agree(tmp_path: Path) -> None:
    store = tmp_path / "s"
    proc = kg("build", SEED_JSONL, "--store", store)
    rows = dict(re.findall(r"│ ([a-zA-Z ]+?)\s+│ (\d+)\s+│", proc.stdout))
    st = json.loads(kg("stats", "--json", "--store", store).stdout)
    assert {k.removeprefix("links "): int(v) for k, v in rows.items() if k.startswith("links ")} \
        == st["links_per_relation"]
    assert {k.removeprefix("entities "): int(v) for k, v in rows.items() if k.startswith("entities ")} \
        == st["entities_per_type"]
    assert (int(rows["triples in store"]), int(rows["papers in store"])) == (st["triples"], st["papers"])
    # off a terminal: plain progress lines, no bar or cursor codes; the rate leaves start-up out
    assert "extracted 19/19 papers (100%)" in proc.stderr and "\x1b" not in proc.stderr
    assert re.search(r"papers/s after \d+\.\d s of start-up", proc.stdout)


def test_progress_rate_leaves_start_up_out() -> None:
    import io

    from rich.console import Console

    from kg.cli.common import BuildProgress

    out = io.StringIO()
    with BuildProgress(100, every_s=3600, tty=False, console=Console(file=out)) as tick:
        time.sleep(0.3)  # "loading the model"
        for _ in range(100):
            tick(1)
    assert tick.startup_s >= 0.3 and tick.done == 100
    assert tick.rate > 100 / (tick.startup_s + 1e-3)  # 99 papers after the first took far less than 0.3 s
    assert out.getvalue().splitlines() == [tick.line()] and "left" not in tick.line()


def test_progress_line_names_elapsed_and_remaining_time() -> None:
    import io

    from rich.console import Console

    from kg.cli.common import BuildProgress

    out = io.StringIO()
    with BuildProgress(4, every_s=0, tty=False, console=Console(file=out, width=200)) as tick:
        for _ in range(4):
            tick(1)
            time.sleep(0.2)
    lines = out.getvalue().splitlines()
    assert re.fullmatch(r"extracted 1/4 papers \(25%\), elapsed 0:00:00", lines[0])
    rate = r"\d+\.\d papers/s"
    assert re.fullmatch(rf"extracted 3/4 papers \(75%\), {rate}, elapsed 0:00:0\d, about 0:00:0\d left",
                        lines[2])
    assert re.fullmatch(rf"extracted 4/4 papers \(100%\), {rate}, elapsed 0:00:0\d", lines[3])  # nothing left
