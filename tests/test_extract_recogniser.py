"""The trained phrase recogniser: shipped weights load offline, and it finds names no vocabulary holds from
their context alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kg.extract import Extractor
from kg.extract.fields import join_fields
from kg.extract.recogniser import (
    CLASSES,
    MODEL_FILE,
    Recogniser,
    features,
    hashed,
    load_recogniser,
    run_candidates,
    word_shape,
)
from kg.types import Paper

DATA = Path(__file__).parent / "data" / "mine"
UNSEEN = Paper(
    id="u1",
    title="Learning with Flimsy Marginals",
    abstract=(
        "We address flimsy marginal estimation, a problem that arises in surveys. Flimsy marginal estimation "
        "is hard. Experiments on the Vortigen corpus show gains in BLEU. We compare with Trellis-GPT."
    ),
)


@pytest.fixture(scope="module")
def with_model() -> Extractor:
    return Extractor(with_linker=False)  # the rule components' own mentions, the linker's candidates


@pytest.fixture(scope="module")
def without_model() -> Extractor:
    return Extractor(with_recogniser=False, with_linker=False)


def _links(ex: Extractor) -> set[tuple[str, str, str]]:
    return {(lk.entity.type, lk.entity.name, lk.evidence.rule) for lk in ex.extract_one(UNSEEN).links}


def test_the_shipped_weights_load_offline() -> None:
    model = load_recogniser()
    assert model is not None and model.weights.shape[1] == len(CLASSES) and 0.5 <= model.threshold < 1.0
    assert MODEL_FILE.stat().st_size < 30 * 2**20


def test_an_unseen_task_phrase_is_typed_task_from_its_context(without_model: Extractor) -> None:
    model = load_recogniser()
    assert model is not None
    doc = without_model.nlp(join_fields(UNSEEN.title, UNSEEN.abstract))
    phrases = {ph.text: ph for ph in run_candidates(doc)}
    ph = phrases["flimsy marginal estimation"]
    p = model.probs(hashed(features(doc, ph, in_title=False)))
    assert CLASSES[int(p.argmax())] == "Task" and p.max() >= model.threshold


def test_an_unseen_compared_method_is_found_only_by_the_recogniser(
    with_model: Extractor, without_model: Extractor
) -> None:
    assert ("Method", "Trellis-GPT", "recogniser") in _links(with_model)
    assert not any(name == "Trellis-GPT" for _, name, _ in _links(without_model))


def test_recogniser_links_say_where_they_come_from(with_model: Extractor) -> None:
    links = [lk for lk in with_model.extract_one(UNSEEN).links if lk.evidence.rule == "recogniser"]
    assert links and {lk.evidence.tier for lk in links} == {"model"}
    assert all(0.5 <= lk.evidence.confidence <= 0.7 for lk in links)


def test_word_shapes_collapse_character_classes() -> None:
    assert [word_shape(w) for w in ("CoSQL", "ImageNet-1k", "bert")] == ["XxX", "XxXx-dx", "x"]


def test_probabilities_are_a_distribution() -> None:
    model = Recogniser(np.zeros((8, len(CLASSES)), dtype=np.float32), np.zeros(len(CLASSES)), 0.7)
    p = model.probs(np.array([1, 2, 3]))
    assert p.shape == (len(CLASSES),) and abs(float(p.sum()) - 1.0) < 1e-6


def test_training_reads_corpus_text_only_and_writes_loadable_weights(tmp_path: Path) -> None:
    out = tmp_path / "rec.npz"
    cmd = [sys.executable, "-m", "kg", "train-recogniser", str(DATA / "corpus.jsonl"), "-o", str(out),
           "--exclude", str(DATA / "heldout.jsonl"), "--documents", "100", "--workers", "1"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=True)
    report = json.loads(done.stdout)
    assert report["documents"] == 7  # eight fixture abstracts, the held-out one never read
    assert load_recogniser(out) is not None


def test_the_cli_defaults_name_the_shipped_files() -> None:
    from kg.cli import mining
    from kg.extract.corpus_words import WORDS_FILE
    from kg.extract.terms import TIER_FILE

    assert (mining.TIER_FILE, mining.WORDS_FILE, mining.MODEL_FILE) == (TIER_FILE, WORDS_FILE, MODEL_FILE)
