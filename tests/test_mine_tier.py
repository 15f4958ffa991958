"""Corpus mining (`kg mine`) on a small fixture corpus, and the rules the shipped mined tier obeys."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyoxigraph as ox
import pytest

from kg.mine.corpus import corpus_records, held_out_from
from kg.mine.run import mine
from kg.names import match_key
from kg.settings import DEFAULT_BASE_IRI
from kg.vocab import load_vocabulary
from ontology import VOCAB_DIR

DATA = Path(__file__).parent / "data"
FIXTURE = DATA / "mine" / "corpus.jsonl"
HELD_OUT = DATA / "mine" / "heldout.jsonl"
TIER = VOCAB_DIR / "mined.ttl.gz"
KG = DEFAULT_BASE_IRI + "ontology#"
SKOS = "http://www.w3.org/2004/02/skos/core#"


def _concepts(path: Path) -> dict[str, dict[str, list[str]]]:
    """Subject IRI → predicate → values, from a gzipped tier."""
    out: dict[str, dict[str, list[str]]] = {}
    for q in ox.parse(
        gzip.decompress(path.read_bytes()), format=ox.RdfFormat.TURTLE, base_iri=DEFAULT_BASE_IRI
    ):
        out.setdefault(q.subject.value, {}).setdefault(q.predicate.value, []).append(q.object.value)
    return {s: p for s, p in out.items() if SKOS + "prefLabel" in p and KG + "support" in p}


@pytest.fixture(scope="module")
def fixture_tier(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mine") / "mined.ttl.gz"
    mine([FIXTURE], out, held_out_paths=[HELD_OUT], workers=1, min_support=3)
    return out


def _by_label(tier: Path) -> dict[str, dict[str, list[str]]]:
    return {p[SKOS + "prefLabel"][0]: p for p in _concepts(tier).values()}


def test_a_method_used_in_three_abstracts_is_mined_as_a_method(fixture_tier: Path) -> None:
    c = _by_label(fixture_tier)["negative sampling"]
    assert (c[KG + "support"], c[KG + "minedBy"]) == (["3"], ["term"])
    assert DEFAULT_BASE_IRI + "method/negative-sampling" in _concepts(fixture_tier)


def test_a_task_addressed_in_three_abstracts_is_mined_as_a_task(fixture_tier: Path) -> None:
    assert DEFAULT_BASE_IRI + "task/gesture-generation" in _concepts(fixture_tier)


def test_a_single_word_metric_in_measurement_contexts_is_mined(fixture_tier: Path) -> None:
    assert DEFAULT_BASE_IRI + "metric/latency" in _concepts(fixture_tier)


def test_held_out_abstracts_never_count_toward_support(fixture_tier: Path) -> None:
    # "quux gradient estimation" is in m6, m7 and the held-out m8: two counted abstracts are not enough
    assert "quux gradient estimation" not in {k.lower() for k in _by_label(fixture_tier)}


def test_held_out_records_are_not_read(tmp_path: Path) -> None:
    held = held_out_from([HELD_OUT])
    assert [r["id"] for r in corpus_records([FIXTURE], held)] == [f"m{i}" for i in range(1, 8)]


def test_a_concept_records_the_abstracts_it_was_mined_from(fixture_tier: Path) -> None:
    c = _by_label(fixture_tier)["negative sampling"]
    assert c[KG + "minedFrom"] == ["m1 m2 m3"]


def test_mining_is_deterministic(fixture_tier: Path, tmp_path: Path) -> None:
    again = tmp_path / "again.ttl.gz"
    mine([FIXTURE], again, held_out_paths=[HELD_OUT], workers=1, min_support=3)
    assert again.read_bytes() == fixture_tier.read_bytes()


# --- the shipped tier ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def shipped() -> dict[str, dict[str, list[str]]]:
    return _concepts(TIER)


def test_shipped_tier_holds_at_least_5000_typed_concepts(shipped: dict[str, dict[str, list[str]]]) -> None:
    types = {
        t
        for p in shipped.values()
        for t in p[ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type").value]
        if t.startswith(KG)
    }
    assert len(shipped) >= 5000
    assert types == {KG + t for t in ("Task", "Method", "Metric", "Dataset")}


def test_every_mined_concept_has_support_in_three_abstracts(shipped: dict[str, dict[str, list[str]]]) -> None:
    weak = [
        s for s, p in shipped.items() if int(p[KG + "support"][0]) < 3 and p[KG + "minedBy"] != ["acronym"]
    ]
    assert weak == []


def test_no_mined_concept_was_read_in_a_held_out_abstract(shipped: dict[str, dict[str, list[str]]]) -> None:
    lines = (DATA / "heldout_corpus_ids.txt").read_text().splitlines()
    held = {line.strip() for line in lines if line.strip() and not line.startswith("#")}
    read_in = {i for p in shipped.values() for i in p[KG + "minedFrom"][0].split()}
    assert len(held) >= 60
    assert read_in & held == set()


def test_curated_concepts_win_over_mined_ones() -> None:
    vocab = load_vocabulary()
    curated = {k for e in vocab.entries if not e.scheme.endswith("vocab/mined") for k in e.keys}
    mined = [e for e in vocab.entries if e.scheme.endswith("vocab/mined")]
    assert mined and [e.name for e in mined if match_key(e.name) in curated] == []


def test_the_vocabulary_loads_the_mined_tier_as_its_own_scheme() -> None:
    schemes = {e.scheme for e in load_vocabulary().entries}
    assert DEFAULT_BASE_IRI + "vocab/mined" in schemes


def test_meta_line_names_the_corpus_size() -> None:
    text = gzip.decompress(TIER.read_bytes()).decode()
    meta_line = next(line for line in text.splitlines() if line.startswith("# {"))
    meta = json.loads(json.loads('"' + meta_line[2:] + '"'))
    assert meta["abstracts"] > 40000 and meta["min_support"] == 3
