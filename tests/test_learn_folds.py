"""Cross-validation folds (kg.learn.folds): by document, fixed by seed, committed."""

from __future__ import annotations

import json
from collections import Counter

from kg.learn.folds import FOLDS_FILE, SEED, K, doc_key, make_folds, read_folds


def test_folds_are_the_same_for_the_same_keys_whatever_their_order() -> None:
    keys = [f"doc-{i}" for i in range(23)]
    assert make_folds(keys) == make_folds(list(reversed(keys)))


def test_fold_sizes_differ_by_at_most_one() -> None:
    sizes = Counter(make_folds([f"doc-{i}" for i in range(23)]).values())
    assert sorted(sizes.values()) == [4, 4, 5, 5, 5]


def test_a_record_is_keyed_by_its_corpus_id_else_its_id() -> None:
    assert doc_key({"id": "tr-001", "corpus_id": "eccv2022-9c6e20ff62"}) == "eccv2022-9c6e20ff62"
    assert doc_key({"id": "seed-03"}) == "seed-03"


def test_the_committed_folds_are_the_ones_their_seed_deals() -> None:
    data = json.loads(FOLDS_FILE.read_text(encoding="utf-8"))
    assert (data["k"], data["seed"]) == (K, SEED)
    folds = read_folds()
    assert make_folds(folds) == folds
    assert len(folds) == 1176
