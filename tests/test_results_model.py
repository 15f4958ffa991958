"""kg/extract/results_model.py, the learned re-scorer of the results rules (issue 28, opt-in with
KG_RESULTS_MODEL=1): the shipped weights load offline with numpy alone, the calibration is monotone, a
result's confidence is the model's calibrated probability, a delta is never ranked on a board, and the rules
alone stay the default."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from fixtures_api import BASE, store_from

from kg.extract import Extractor, results_model
from kg.extract.common import doc_text
from kg.extract.extractor import VERSION
from kg.extract.results import abstract_start, find_results
from kg.query import QueryContext
from kg.query import results as qr
from kg.types import Paper

ABSTRACT = (
    "We propose SparseNet, a sparse vision transformer. SparseNet achieves 84.3% top-1 accuracy on ImageNet, "
    "outperforming DeiT-S by 2.5% top-1 accuracy. On CIFAR-10 it reaches an accuracy of 98.1%, and it runs "
    "3x faster than ViT-B."
)
PAPER = Paper(id="rm-1", title="SparseNet: sparse vision transformers", abstract=ABSTRACT)


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(BASE)


@pytest.fixture
def learned(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("KG_RESULTS_MODEL", "1")
    yield


def test_the_shipped_weights_load_offline_with_numpy_alone() -> None:
    with np.load(results_model.MODEL_FILE, allow_pickle=False) as d:
        assert str(d["features_version"]) == results_model.FEATURES_VERSION
    m = results_model.load()
    assert m.names[0] == "bias"
    assert len(set(m.names)) == len(m.names) == m.weights.shape[0]
    assert 0.0 <= m.threshold < 1.0
    assert np.isfinite(m.weights).all()


def test_the_calibration_map_is_monotone_and_a_probability() -> None:
    m = results_model.shipped()
    assert (np.diff(m.iso_x) > 0).all()
    assert (np.diff(m.iso_y) >= 0).all()
    assert m.iso_y.min() >= 0.0 and m.iso_y.max() <= 1.0
    grid = [m.calibrate(float(x)) for x in np.linspace(0.0, 1.0, 201)]
    assert all(b >= a for a, b in zip(grid, grid[1:], strict=False))


def test_the_rules_alone_are_the_default(extractor: Extractor, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KG_RESULTS_MODEL", raising=False)
    assert results_model.mode() == ("learned" if results_model.DEFAULT_ON else "rules")
    assert extractor.version == VERSION
    rules = {r.evidence.rule for r in extractor.extract_one(PAPER).results}
    assert rules <= {"result-tight", "result-near", "result-performance"}


def test_a_result_confidence_is_the_model_probability(
    extractor: Extractor, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KG_RESULTS_MODEL", "0")
    doc = extractor.nlp(extractor._prepare(PAPER)[0])
    text = doc_text(doc)
    found = find_results(doc)
    assert len(found) >= 3
    m = results_model.shipped()
    expected = {
        (r["start"], r["end"]): round(
            m.probability(results_model.features(text, r, abstract_start(doc), len(text.rstrip()))), 3
        )
        for r in found
    }
    rules_conf = {(r["start"], r["end"]): r["confidence"] for r in found}
    monkeypatch.setenv("KG_RESULTS_MODEL", "1")
    got = extractor.nlp(extractor._prepare(PAPER)[0])._.kg_results
    assert {(r["start"], r["end"]): r["confidence"] for r in got} == {
        k: p for k, p in expected.items() if p >= m.threshold
    }
    assert got and any(r["confidence"] != rules_conf[r["start"], r["end"]] for r in got)
    assert Extractor(BASE).version == VERSION + "+results"


def test_a_delta_is_never_ranked_on_a_board(extractor: Extractor, learned: None) -> None:
    ex = extractor.extract_one(PAPER)
    kinds = {(r.value, r.kind) for r in ex.results}
    assert (2.5, "delta") in kinds and (84.3, "absolute") in kinds
    ctx = QueryContext.open(store_from([ex]), BASE)
    ranked = qr.board(ctx, "ImageNet", section="absolute", include_low=True).page.items
    improvements = qr.board(ctx, "ImageNet", section="improvement", include_low=True).page.items
    assert [(r.value, r.kind, r.rank) for r in ranked] == [(84.3, "absolute", 1)]
    assert [(r.value, r.kind, r.rank) for r in improvements] == [(2.5, "delta", None)]


def test_features_name_rule_kind_words_and_cues() -> None:
    text = "T. We improve accuracy to 84.3% on ImageNet, outperforming DeiT by 2.5%, respectively."
    r = {
        "value": 84.3,
        "unit": "%",
        "kind": "absolute",
        "metric": ["Metric", "accuracy", None],
        "dataset": ["Dataset", "ImageNet", "Benchmark"],
        "split": None,
        "method": None,
        "baseline": None,
        "start": 26,
        "end": 31,
        "sentence": [3, len(text)],
        "confidence": 0.9,
        "rule": "result-near",
    }
    assert text[26:31] == "84.3%"
    f = results_model.features(text, r, 3, len(text))
    for name in (
        "rule=result-near",
        "kind=absolute",
        "unit=%",
        "conf=0.90",
        "metric_src=extra",
        "dataset=True",
        "dataset_at=after",
        "own=True",
        "magnitude=3",
        "numbers=1",
        "cue=improve",
        "cue=outperform",
        "cue=respectively",
        "cue=by",
        "b1=to",
        "b2=accuracy",
        "a1=on",
        "a2=imagenet",
        "sent_pos=0",
    ):
        assert name in f, name


def test_the_refused_candidates_are_emitted_only_on_request(extractor: Extractor) -> None:
    paper = Paper(
        id="rm-2", title="T", abstract="We study accuracy, however our method gets 84.3% on ImageNet."
    )
    doc = extractor.nlp(extractor._prepare(paper)[0])
    assert find_results(doc) == []
    [r] = find_results(doc, refused=True)
    assert (r["value"], r["metric"][1], r["dataset"][1], r["rule"], r["confidence"]) == (
        84.3,
        "accuracy",
        "ImageNet",
        "result-loose",
        0.5,
    )
