"""The store format version: stamped at creation, checked on every open; older layouts name `kg migrate`,
newer ones are refused and never written. Also the helpers the migrate/reextract tests share."""

from __future__ import annotations

import functools
import importlib
import multiprocessing
import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import pyoxigraph as ox
import pytest

from kg.store import FORMAT_VERSION, StoreFormatError, open_store
from kg.store.embedded import EmbeddedStore
from kg.store.writes import Meta

ROOT = Path(__file__).resolve().parent.parent
SEED_JSONL = ROOT / "data" / "icml2025_seed.jsonl"
BASE = "https://w3id.org/paperkg/"
KG = BASE + "ontology#"
META = ox.NamedNode(BASE + "graph/meta")
FORMAT = ox.NamedNode(KG + "formatVersion")
EXTRACTOR_VERSION = ox.NamedNode(KG + "extractorVersion")
ONTOLOGY = ox.NamedNode(BASE + "graph/ontology")
P = ParamSpec("P")
T = TypeVar("T")


# --- helpers shared with test_migrate.py and test_reextract.py -----------------------------------------
def kg(*args: str | Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the real `kg` command in a subprocess."""
    proc = subprocess.run([sys.executable, "-m", "kg", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=900)
    if check and proc.returncode != 0:
        raise AssertionError(f"kg {args} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


def in_own_process(rewrite: Callable[P, T]) -> Callable[P, T]:
    """Run a raw rewrite of a store directory in a fresh child process, as the older paperkg or other
    tool it stands for would have: the test process never holds the store read-write itself. Why: a
    pyoxigraph Store keeps RocksDB's in-process LOCK until its last reference goes, and one CI run saw the
    next opening in the same process fail with "lock hold by current process"; a process's exit always
    releases it. `rewrite` must be a module-level function of a test module."""

    @functools.wraps(rewrite)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as child:
            done: T = child.submit(_unwrapped, rewrite.__module__, rewrite.__name__, args, kwargs).result()
        return done

    return run


def _unwrapped(module: str, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """In the child: call the function `in_own_process` wrapped, by its module and name."""
    return getattr(importlib.import_module(module), name).__wrapped__(*args, **kwargs)


@in_own_process
def downgrade_to_v1(path: Path) -> int:
    """Rewrite a current store into the format-1 layout (what paperkg wrote before format versions):
    no stamp, no kg:extractorVersion on papers, and the ontology graph of that time (its declaration of
    the new properties gone, an older source fingerprint). Returns the number of papers touched."""
    store = ox.Store(str(path))
    stamps = list(store.quads_for_pattern(META, FORMAT, None, META))
    versions = list(store.quads_for_pattern(None, EXTRACTOR_VERSION, None, None))
    old_schema = [q for q in store.quads_for_pattern(None, None, None, ONTOLOGY)
                  if q.subject in (EXTRACTOR_VERSION, FORMAT) or q.predicate.value == KG + "sourceHash"]
    for q in stamps + versions + old_schema + aggregates(store):
        store.remove(q)
    store.add(ox.Quad(ONTOLOGY, ox.NamedNode(KG + "sourceHash"), ox.Literal("format-1-fixture"), ONTOLOGY))
    store.flush()
    del store
    return len(versions)


def aggregates(store: ox.Store) -> list[ox.Quad]:
    """The quads of the aggregate graphs (format 3) under {base}graph/meta/."""
    return [q for q in store if isinstance(q.graph_name, ox.NamedNode)
            and q.graph_name.value.startswith(META.value + "/")]


@in_own_process
def set_stamp(path: Path, version: int) -> None:
    """Stamp a store directory with another format version."""
    store = ox.Store(str(path))
    stamp(store, version)
    store.flush()


def stamp(store: ox.Store, version: int) -> None:
    """Replace an open store's format version stamp."""
    for q in list(store.quads_for_pattern(META, FORMAT, None, META)):
        store.remove(q)
    store.add(ox.Quad(META, FORMAT, ox.Literal(str(version), datatype=ox.NamedNode(
        "http://www.w3.org/2001/XMLSchema#integer")), META))


def dataset(path: Path) -> Counter[str]:
    """Every quad of a store but its meta graph (generation token), blank node labels normalised: two
    stores with the same content compare equal whatever their blank node ids (the ontology has some)."""
    store = ox.Store.read_only(str(path))
    out: Counter[str] = Counter()
    for q in store.quads_for_pattern(None, None, None, None):
        if q.graph_name != META:
            out[re.sub(r"_:[A-Za-z0-9]+", "_:b", str(q))] += 1
    del store
    return out


# --- tests ----------------------------------------------------------------------------------------------
def _value(term: object) -> str:
    """The lexical form of an IRI or literal."""
    assert isinstance(term, ox.NamedNode | ox.Literal)
    return term.value


def stamps(store: EmbeddedStore) -> list[str]:
    return [_value(q.object) for q in store.oxigraph.quads_for_pattern(META, FORMAT, None, META)]


def test_a_new_store_is_stamped_at_creation_without_looking_written(tmp_path: Path) -> None:
    for loc in (str(tmp_path / "kg"), "memory:"):
        store = open_store(loc, base_iri=BASE)
        assert isinstance(store, EmbeddedStore)
        assert store.format_version == FORMAT_VERSION
        assert stamps(store) == [str(FORMAT_VERSION)]
        assert store.generation() == "0" and store.named_graphs() == [] and store.triple_count() == 0
        store.close()
    again = open_store(str(tmp_path / "kg"), base_iri=BASE, read_only=True)
    assert again.format_version == FORMAT_VERSION


def test_the_stamp_lives_in_the_hidden_meta_graph(tmp_path: Path) -> None:
    store = EmbeddedStore(str(tmp_path / "kg"), base_iri=BASE)
    out = __import__("io").BytesIO()
    store.dump(out, "nquads")
    assert b"formatVersion" not in out.getvalue()
    assert Meta(BASE).format_predicate == FORMAT


def test_an_unstamped_store_with_data_is_format_1_and_names_kg_migrate(tmp_path: Path) -> None:
    loc = tmp_path / "kg"
    write_unstamped(loc)
    for read_only in (False, True):
        with pytest.raises(StoreFormatError) as err:
            open_store(str(loc), base_iri=BASE, read_only=read_only)
        msg = str(err.value)
        assert (err.value.found, err.value.expected) == (1, FORMAT_VERSION)
        assert "\n" not in msg and "format version 1" in msg and f"version {FORMAT_VERSION}" in msg
        assert f"kg migrate --store {loc}" in msg
    opened = open_store(str(loc), base_iri=BASE, upgrade=True)  # only kg migrate opens it
    assert opened.format_version == 1 and isinstance(opened, EmbeddedStore)
    assert stamps(opened) == []  # opening for an upgrade writes nothing by itself
    opened.close()


@in_own_process
def write_unstamped(loc: Path) -> None:
    """What an older paperkg left: a generation token, no stamp."""
    raw = ox.Store(str(loc))
    raw.add(ox.Quad(META, ox.NamedNode(KG + "generation"), ox.Literal("old"), META))
    raw.flush()


def test_the_cli_gives_one_line_for_an_old_store(tmp_path: Path) -> None:
    loc = tmp_path / "kg"
    kg("build", SEED_JSONL, "--store", loc)
    downgrade_to_v1(loc)
    for args in (("stats",), ("validate",), ("build", SEED_JSONL), ("reextract", "--dry-run")):
        proc = kg(*args, "--store", loc, check=False)
        assert proc.returncode == 1, args
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in proc.stderr, (args, proc.stderr)
        assert "format version 1" in lines[0] and "kg migrate" in lines[0]


def test_a_newer_store_is_refused_and_never_written(tmp_path: Path) -> None:
    loc = tmp_path / "kg"
    kg("build", SEED_JSONL, "--store", loc)
    set_stamp(loc, FORMAT_VERSION + 1)
    before = dataset(loc)
    gen = [_value(q.object) for q in _quads(loc, KG + "generation")]
    for kwargs in ({}, {"read_only": True}, {"upgrade": True}):
        with pytest.raises(StoreFormatError) as err:
            open_store(str(loc), base_iri=BASE, **kwargs)
        assert f"format version {FORMAT_VERSION + 1}, newer" in str(err.value)
        assert "\n" not in str(err.value)
    for args in (("migrate",), ("build", SEED_JSONL), ("reextract", "--force")):
        proc = kg(*args, "--store", loc, check=False)
        assert proc.returncode == 1 and "newer than this paperkg" in proc.stderr, (args, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1
    assert dataset(loc) == before
    assert [_value(q.object) for q in _quads(loc, KG + "generation")] == gen
    assert [_value(q.object) for q in _quads(loc, FORMAT.value)] == [str(FORMAT_VERSION + 1)]


def _quads(loc: Path, predicate: str) -> list[ox.Quad]:
    store = ox.Store.read_only(str(loc))
    out = list(store.quads_for_pattern(META, ox.NamedNode(predicate), None, META))
    del store
    return out


def test_a_fresh_build_writes_the_extractor_version_on_every_paper(tmp_path: Path) -> None:
    from kg.extract.extractor import VERSION

    loc = tmp_path / "kg"
    kg("build", SEED_JSONL, "--store", loc)
    store = open_store(str(loc), base_iri=BASE, read_only=True)
    rows = store.select(
        f"SELECT ?g ?v WHERE {{ GRAPH ?g {{ ?p a <{KG}Paper> ; <{KG}extractorVersion> ?v }} }}")
    assert len(rows) == 19 and {r["v"].value for r in rows} == {VERSION}
    assert all(r["g"].value.startswith(BASE + "graph/paper/") for r in rows)
    declared = store.ask(f"ASK {{ GRAPH <{ONTOLOGY.value}> {{ <{KG}extractorVersion> ?p ?o }} }}")
    assert declared
    stats = kg("stats", "--json", "--store", loc)
    assert __import__("json").loads(stats.stdout)["papers_per_extractor"] == {VERSION: 19}


def test_remote_stores_check_the_stamp_too(tmp_path: Path) -> None:
    """A real `oxigraph serve` over HTTP: an empty endpoint is stamped, an old one is refused."""
    import shutil
    import socket
    import time

    exe = shutil.which("oxigraph") or str(Path(sys.executable).parent / "oxigraph")
    if not Path(exe).exists():
        pytest.skip("no oxigraph server binary")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [exe, "serve", "--location", str(tmp_path / "srv"), "--bind", f"127.0.0.1:{port}"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                store = open_store(url, base_iri=BASE)
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        assert store.format_version == FORMAT_VERSION
        assert store.select(Meta(BASE).format_query())[0]["version"].value == str(FORMAT_VERSION)
        # turn it into a format-1 store: drop the stamp, keep a generation token
        store._update(f"DELETE WHERE {{ GRAPH {META} {{ {META} {FORMAT} ?v }} }}")  # type: ignore[attr-defined]
        store._update(Meta(BASE).bump())  # type: ignore[attr-defined]
        store.close()
        with pytest.raises(StoreFormatError) as err:
            open_store(url, base_iri=BASE)
        assert "format version 1" in str(err.value) and "kg migrate" in str(err.value)
        proc_m = kg("migrate", "--store", url)
        assert f"to {FORMAT_VERSION}" in proc_m.stdout
        assert open_store(url, base_iri=BASE).format_version == FORMAT_VERSION
    finally:
        proc.terminate()
        proc.wait(timeout=30)
