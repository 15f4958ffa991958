"""`kg train`'s parts: labels from the gold alone, seeded training that reproduces its weights, and a model
file that loads back exactly what was trained."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from kg.eval.scoring import score
from kg.extract.linker import LABELS, LinkerModel
from kg.learn.gold import read_gold
from kg.learn.linker_train import (
    Prepared,
    Resources,
    TrainConfig,
    _choose,
    _gold,
    fit,
    fit_calibration,
    prepare,
    raw_probabilities,
    relabel,
    rules_extractor,
    run_tail,
    save_model,
)
from kg.settings import DEFAULT_BASE_IRI

DEV19 = Path(__file__).parent / "data" / "icml2025_seed_gold.jsonl"
SMALL = TrainConfig(hidden=16, epochs=2, batch=64, seeds=(0,), min_feature_count=2)


@pytest.fixture(scope="module")
def prepared() -> list[Prepared]:
    docs = read_gold([DEV19])[:6]
    return prepare(docs, rules_extractor(DEFAULT_BASE_IRI), Resources.load(DEFAULT_BASE_IRI))


def test_a_candidate_is_labelled_only_by_the_gold_items_it_matches(prepared: list[Prepared]) -> None:
    p = prepared[0]
    datasets = {n for it in p.gold.items if it.category == "datasets" for n in it.forms}
    labelled = {c.surface for c, row in zip(p.cands, p.labels, strict=True) if row[LABELS.index("datasets")]}
    assert labelled and all(
        any(s.lower() in f.lower() or f.lower() in s.lower() for f in datasets) for s in labelled
    )


def test_an_abstract_whose_gold_lists_nothing_gives_no_positive_label(prepared: list[Prepared]) -> None:
    # The rules find entities in this abstract, but training labels come from the gold file only.
    empty = dataclasses.replace(prepared[0].gold, items=(), record={"id": prepared[0].gold.id})
    docs = prepare([empty], rules_extractor(DEFAULT_BASE_IRI), Resources.load(DEFAULT_BASE_IRI))
    assert docs[0].mentions and len(docs[0].cands) > 0
    assert docs[0].labels.sum() == 0


def test_training_with_the_same_config_reproduces_the_same_weights(prepared: list[Prepared]) -> None:
    a, b = fit(prepared, SMALL), fit(prepared, SMALL)
    assert a.features == b.features
    assert all(np.array_equal(a.arrays[k], b.arrays[k]) for k in a.arrays)


def test_a_saved_model_loads_back_its_features_and_predictions(
    prepared: list[Prepared], tmp_path: Path
) -> None:
    weights = fit(prepared, SMALL)
    weights.features.append("a1=line\nbreak")  # a context word may hold any character
    weights.arrays["embed"] = np.vstack([weights.arrays["embed"], np.zeros((1, 16), np.float32)])
    raw = raw_probabilities(prepared, weights.model())
    labels = np.concatenate([p.labels for p in prepared])
    cal = fit_calibration(raw, labels)
    thresholds = np.array([0.4, 0.45, 0.5, 0.35, 0.4, 0.3, 0.55, 0.4])
    save_model(tmp_path / "m.npz", weights, cal, thresholds, {"thresholds": "unused here"})
    loaded = LinkerModel.load(tmp_path / "m.npz")
    assert list(loaded.features) == weights.features
    again = raw_probabilities(prepared, loaded)
    assert np.allclose(again, raw, atol=5e-3)  # embeddings are stored as float16
    assert loaded.thresholds.tolist() == thresholds.tolist()


def test_per_label_thresholds_never_score_below_the_best_single_threshold(prepared: list[Prepared]) -> None:
    extractor, res = rules_extractor(DEFAULT_BASE_IRI), Resources.load(DEFAULT_BASE_IRI)
    weights = fit(prepared, SMALL)
    raw = raw_probabilities(prepared, weights.model())
    model = weights.model(fit_calibration(raw, np.concatenate([p.labels for p in prepared])))

    def micro(th: np.ndarray) -> float:
        preds = run_tail(prepared, dataclasses.replace(model, thresholds=th), extractor, res, raw)
        return float(score(_gold(prepared), preds).rows["micro"]["f1"])

    single = _choose(model, prepared, raw, extractor, res, per_label=False)
    per_label = _choose(model, prepared, raw, extractor, res, per_label=True)
    assert len(set(single.tolist())) == 1
    assert micro(per_label) >= micro(single)


FRAGMENT_GOLD = {
    "id": "ssl-1",
    "title": "Views that agree",
    "text": "We study self-supervised representation learning for speech. Our self-supervised objective "
    "contrasts two augmented views of each utterance.",
    "tasks": ["self-supervised learning"],
}


@pytest.fixture(scope="module")
def fragment(tmp_path_factory: pytest.TempPathFactory) -> Prepared:
    path = tmp_path_factory.mktemp("gold") / "gold.jsonl"
    path.write_text(json.dumps(FRAGMENT_GOLD) + "\n", encoding="utf-8")
    (p,) = prepare(read_gold([path]), rules_extractor(DEFAULT_BASE_IRI), Resources.load(DEFAULT_BASE_IRI))
    return p


def positives(p: Prepared, label: str = "tasks") -> set[str]:
    return {c.surface for c, row in zip(p.cands, p.labels, strict=True) if row[LABELS.index(label)]}


def test_the_scorers_labels_count_a_piece_of_the_gold_task_as_positive(fragment: Prepared) -> None:
    assert {"self-supervised", "self-supervised representation learning"} <= positives(fragment)


def test_whole_phrase_labels_drop_the_piece_inside_a_longer_matching_phrase(fragment: Prepared) -> None:
    (whole,) = relabel([fragment], "whole")
    assert "self-supervised representation learning" in positives(whole)
    assert "self-supervised" not in positives(whole)


def test_exact_labels_keep_only_the_gold_names_as_written(fragment: Prepared) -> None:
    (exact,) = relabel([fragment], "exact")
    assert positives(exact) == set()


def test_an_unknown_label_rule_is_refused(fragment: Prepared) -> None:
    with pytest.raises(ValueError, match="unknown labels 'loose'"):
        relabel([fragment], "loose")
