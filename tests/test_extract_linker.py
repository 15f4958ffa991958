"""The trained linker: shipped weights load offline, names it has never seen are found from their context,
confidences are the calibrated probabilities, and labels come from the gold alone."""

from __future__ import annotations

import numpy as np
import pytest

from kg.extract import Extractor, to_json
from kg.extract.linker import FEATURES_VERSION, LABELS, MODEL_FILE, RULE, LinkerModel, decide
from kg.types import Extraction, Paper


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(with_linker=True)


@pytest.fixture(scope="module")
def model() -> LinkerModel:
    return LinkerModel.load()


def linked(extractor: Extractor, abstract: str, title: str | None = None) -> list[dict[str, object]]:
    return list(to_json(extractor.extract_one(Paper(id="t", abstract=abstract, title=title)))["entities"])


# Names no vocabulary, gold file or corpus abstract holds: only their context says what they are.
UNSEEN = (
    "Segmenting thin structures in aerial imagery remains difficult. We propose Quorvex, a hierarchical "
    "transformer that fuses multi-scale features with a boundary-aware decoder. We also release Plimbra-9K, "
    "a benchmark of 9,000 annotated aerial images. On Plimbra-9K and Cityscapes, Quorvex improves mean "
    "intersection over union by 3.1 points over SegFormer and Mask2Former."
)


def test_shipped_weights_load_from_the_package_with_their_provenance(model: LinkerModel) -> None:
    assert MODEL_FILE.parent.name == "models" and MODEL_FILE.is_file()
    assert model.info["features_version"] == FEATURES_VERSION
    assert int(model.info["gold_abstracts"]) == 1129
    assert model.embed.shape == (len(model.features), model.w1.shape[0])
    assert model.w2.shape[1] == len(LABELS)


def test_an_unseen_proposed_name_is_found_from_its_context(extractor: Extractor) -> None:
    got = {(e["relation"], e["name"]) for e in linked(extractor, UNSEEN)}
    assert ("proposes", "Quorvex") in got


def test_an_unseen_benchmark_is_linked_as_a_dataset(extractor: Extractor) -> None:
    got = {(e["type"], e["name"]) for e in linked(extractor, UNSEEN)}
    assert ("Dataset", "Plimbra-9K") in got


def test_baselines_named_in_a_comparison_are_methods(extractor: Extractor) -> None:
    got = {(e["type"], e["name"]) for e in linked(extractor, UNSEEN) if e["type"] in ("Method", "Model")}
    assert "Mask2Former" in {n for _, n in got}


def test_linked_mentions_name_the_model_as_their_extractor(extractor: Extractor) -> None:
    ex = extractor.extract_one(Paper(id="t", abstract=UNSEEN))
    quorvex = next(lk for lk in ex.links if lk.entity.name == "Quorvex")
    assert quorvex.evidence.rule == RULE and quorvex.evidence.tier == "model"


def test_a_linked_name_clears_the_cross_validated_threshold(extractor: Extractor) -> None:
    linker = extractor.nlp.get_pipe("paperkg_linker")
    conf = next(e["confidence"] for e in linked(extractor, UNSEEN) if e["name"] == "Quorvex")
    assert min(linker.model.thresholds[:-1]) < conf <= 1.0


def test_calibration_maps_raw_scores_monotonically_into_zero_one(model: LinkerModel) -> None:
    raw = np.tile(np.linspace(0.0, 1.0, 101)[:, None], (1, len(LABELS)))
    cal = model.calibrated(raw)
    assert cal.min() >= 0.0 and cal.max() <= 1.0
    assert (np.diff(cal, axis=0) >= -1e-12).all()


def test_calibration_comes_from_out_of_fold_predictions_per_label(model: LinkerModel) -> None:
    assert len(model.calibration) == len(LABELS)
    assert all(len(x) >= 2 and len(x) == len(y) for x, y in model.calibration)


def test_thresholds_are_the_cross_validated_values_per_label(model: LinkerModel) -> None:
    recorded = [float(x) for x in model.info["thresholds"].split(",")]
    assert model.thresholds.tolist() == recorded and len(recorded) == len(LABELS)


def test_a_candidate_below_every_threshold_is_not_linked() -> None:
    d = decide(np.full(len(LABELS), 0.1), np.full(len(LABELS), 0.4))
    assert (d.label, d.proposed) == (None, False)


def test_a_proposed_candidate_that_is_mostly_a_dataset_is_a_proposed_dataset() -> None:
    p = np.array([0.9, 0.0, 0.8, 0.1, 0.0, 0.0, 0.0, 0.0])
    d = decide(p, np.full(len(LABELS), 0.4))
    assert (d.label, d.proposed, d.confidence) == ("datasets", True, 0.9)


def test_a_method_the_model_label_holds_strongly_is_a_model() -> None:
    p = np.array([0.0, 0.0, 0.0, 0.7, 0.0, 0.0, 0.0, 0.6])
    assert decide(p, np.full(len(LABELS), 0.4)).label == "models"


def test_the_linker_is_the_default_and_each_choice_writes_its_own_version(
    extractor: Extractor, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kg.extract.extractor import RULES_VERSION, VERSION

    paper = Paper(id="t", abstract=UNSEEN)
    monkeypatch.delenv("KG_LINKER", raising=False)
    assert Extractor().with_linker and extractor.extract_one(paper).extractor_version == VERSION
    monkeypatch.setenv("KG_LINKER", "0")
    rules = Extractor()
    assert not rules.with_linker and rules.extract_one(paper).extractor_version == RULES_VERSION
    assert RULES_VERSION == VERSION + "+rules"


def test_a_result_under_the_linker_names_its_measure_as_the_vocabulary_does(extractor: Extractor) -> None:
    ex = extractor.extract_one(
        Paper(id="t", abstract="DaViT-Tiny reaches 82.8% top-1 accuracy on ImageNet.", title="DaViT")
    )
    assert [(r.value, r.metric.name, r.dataset.name) for r in ex.results if r.metric and r.dataset] == [
        (82.8, "top-1 accuracy", "ImageNet")
    ]


def test_a_device_after_on_the_is_no_dataset_of_a_result_under_the_linker(extractor: Extractor) -> None:
    ex = extractor.extract_one(
        Paper(id="t", abstract="It achieves a top-1 accuracy of around 80% at 1.0 frame/sec on the SBC.")
    )
    assert [(r.value, r.dataset) for r in ex.results] == [(80, None)]


def test_a_quoted_definition_leaves_its_task_linked_without_the_quote(extractor: Extractor) -> None:
    ex = extractor.extract_one(Paper(
        id="vos", title="Box-supervised tracking of object masks",
        abstract='"Video Object Segmentation (VOS) is central to video editing. We study video object '
        'segmentation with only box supervision and reach strong results on DAVIS 2017."',
    ))
    [vos] = [lk for lk in ex.links if lk.entity.name == "video object segmentation"]
    assert vos.aliases == ("Video Object Segmentation", "VOS")


def test_a_piece_of_a_proposal_is_no_second_proposal(extractor: Extractor) -> None:
    ex = extractor.extract_one(Paper(
        id="mpl",
        abstract="We propose **M**asked **P**rompt **L**earning (MPL), a framework for few-shot "
        "classification. MPL improves accuracy on five benchmarks.",
    ))
    proposed = [lk.entity.name for lk in ex.links if lk.relation == "proposes"]
    assert proposed == ["MPL (Masked Prompt Learning)"]


def test_a_proposal_named_by_its_long_form_keeps_the_kind_its_acronym_was_given(extractor: Extractor) -> None:
    ex = extractor.extract_one(Paper(
        id="melon",
        title="MELON: Provable Defense Against Indirect Prompt Injection Attacks in AI Agents",
        abstract="Recent research has explored that LLM agents are vulnerable to indirect prompt injection "
        "(IPI) attacks. We present MELON (Masked re-Execution and TooL comparisON), a novel IPI defense. "
        "MELON re-executes the agent's trajectory with a masked user prompt.",
    ))
    [own] = [lk for lk in ex.links if lk.relation == "proposes" and lk.entity.name.startswith("MELON")]
    assert own.entity.kind == "Defense"


# One sentence of a real abstract (ICML 2025), written with TeX or as the readers give it (×).
EXPERIMENTS = (
    "We rigorously experiment with ImageNet256{times}256 , UCF101, and Kinetics600 to showcase the efficacy "
    "of the proposed method for image/video generation and frame prediction."
)


def extracted(extractor: Extractor, abstract: str) -> Extraction:
    return extractor.extract_one(Paper(id="t", abstract=abstract))


def test_a_benchmark_written_inside_a_longer_token_is_linked(extractor: Extractor) -> None:
    ex = extracted(extractor, EXPERIMENTS.format(times="$\\times$"))
    datasets = {lk.entity.name for lk in ex.links if lk.entity.type == "Dataset"}
    assert {"ImageNet", "UCF101", "Kinetics-600"} <= datasets


def test_a_benchmark_written_with_its_resolution_is_the_benchmark(extractor: Extractor) -> None:
    ex = extracted(extractor, EXPERIMENTS.format(times="×"))
    assert [lk.entity.name for lk in ex.links if lk.evidence.mention.startswith("ImageNet")] == ["ImageNet"]


def test_a_coordinated_phrase_the_rules_split_stays_two_entities(extractor: Extractor) -> None:
    ex = extracted(extractor, EXPERIMENTS.format(times="×"))
    tasks = {lk.entity.name for lk in ex.links if lk.evidence.mention == "image/video generation"}
    assert tasks == {"image generation", "video generation"}
