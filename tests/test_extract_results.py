"""Result extraction (kg/extract/results.py): value kinds, units, ties to metrics and datasets, refusals,
and the stable `results` shape of `kg extract --format jsonl`. Inline texts only."""

from __future__ import annotations

from typing import Any

import pytest

from kg.extract import Extractor, to_json
from kg.types import Paper

KEYS = [
    "value",
    "unit",
    "kind",
    "metric",
    "dataset",
    "method",
    "baseline",
    "split",
    "evidence",
    "start",
    "end",
    "confidence",
]


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(with_recogniser=False)


@pytest.fixture(scope="module")
def rules() -> Extractor:
    return Extractor(with_recogniser=False, with_linker=False)


def results(extractor: Extractor, abstract: str, title: str = "ZetaNet: a test") -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = to_json(extractor.extract_one(Paper("t", abstract, title=title)))["results"]
    return out


def one(rs: list[dict[str, Any]], value: float) -> dict[str, Any]:
    hits = [r for r in rs if r["value"] == value]
    assert len(hits) == 1, rs
    return hits[0]


def test_percent_absolute_with_metric_and_dataset(extractor: Extractor) -> None:
    text = "Our method achieves 84.3% top-1 accuracy on ImageNet."
    r = one(results(extractor, text), 84.3)
    assert (r["unit"], r["kind"], r["metric"], r["dataset"]) == (
        "%",
        "absolute",
        "top-1 accuracy",
        "ImageNet",
    )
    assert list(r) == KEYS
    assert text[r["start"] : r["end"]] == "84.3%"
    assert r["evidence"] == text and 0.5 <= r["confidence"] <= 1.0


def test_from_a_to_b_reports_b(extractor: Extractor) -> None:
    rs = results(extractor, "It reduces FID from 2.10 to 1.58 on ImageNet 256×256 with the same sampler.")
    r = one(rs, 1.58)
    assert (r["metric"], r["dataset"], r["kind"], r["unit"]) == (
        "Frechet Inception Distance",
        "ImageNet",
        "absolute",
        "",
    )
    assert not [x for x in rs if x["value"] in (2.1, 256)]


def test_points_delta(extractor: Extractor) -> None:
    r = one(
        results(extractor, "ZetaNet improves the attack success rate by 12 points over prior attacks."), 12
    )
    assert (r["unit"], r["kind"], r["metric"]) == ("points", "delta", "attack success rate")
    r = one(results(extractor, "It gains 2.5 percentage points of accuracy on CIFAR-10."), 2.5)
    assert (r["unit"], r["kind"], r["metric"], r["dataset"]) == ("points", "delta", "accuracy", "CIFAR-10")


def test_percent_delta_by(extractor: Extractor) -> None:
    r = one(results(extractor, "Our approach lowers the word error rate by 15% relative to Whisper."), 15)
    assert (r["unit"], r["kind"], r["metric"]) == ("%", "delta", "word error rate")
    assert r["baseline"] == "Whisper"


def test_factor_ratio_with_baseline(extractor: Extractor) -> None:
    rs = results(extractor, "ZetaNet gives a 3× speed-up over FlashAttention-2 at equal quality.")
    r = one(rs, 3)
    assert (r["unit"], r["kind"], r["metric"], r["baseline"]) == ("x", "ratio", "speedup", "FlashAttention-2")
    r = one(results(extractor, "Decoding is 2.5x faster than with greedy search."), 2.5)
    assert (r["unit"], r["kind"]) == ("x", "ratio")


def test_decibels_and_bare_scores(extractor: Extractor) -> None:
    r = one(results(extractor, "The restored images reach a PSNR of 32.4 dB on Set14 benchmark."), 32.4)
    assert (r["unit"], r["metric"]) == ("dB", "peak signal-to-noise ratio")
    r = one(results(extractor, "We obtain a BLEU score of 34.5 on WMT14 and a METEOR of 0.31."), 34.5)
    assert (r["unit"], r["kind"], r["metric"]) == ("", "absolute", "BLEU")


def test_respectively_maps_values_to_datasets(extractor: Extractor) -> None:
    rs = results(
        extractor, "ZetaNet reaches 91.2% and 85.0% accuracy on CIFAR-10 and CIFAR-100, respectively."
    )
    assert (one(rs, 91.2)["dataset"], one(rs, 85)["dataset"]) == ("CIFAR-10", "CIFAR-100")
    assert {r["metric"] for r in rs} == {"accuracy"}


def test_values_listed_per_dataset_share_the_metric(extractor: Extractor) -> None:
    rs = results(
        extractor, "It attains an accuracy of 78.9% on CIFAR-10, 60.2% on CIFAR-100 and 40.1% on SVHN."
    )
    assert [(r["value"], r["metric"], r["dataset"]) for r in rs] == [
        (78.9, "accuracy", "CIFAR-10"),
        (60.2, "accuracy", "CIFAR-100"),
        (40.1, "accuracy", "SVHN"),
    ]


def test_ranges_report_the_upper_bound(extractor: Extractor) -> None:
    rs = results(extractor, "The network has 14%-38% lower error rates than previous work.")
    assert [(r["value"], r["unit"], r["kind"], r["metric"]) for r in rs] == [(38, "%", "delta", "error rate")]


def test_numbers_without_a_metric_are_refused(extractor: Extractor) -> None:
    text = (
        "We collect 10,000 images from 25 cities in 2023 and label only 10% of the data. "
        "The 7B model runs on 8 GPUs with a batch size of 256 and 3 layers. "
        "About 40% of the users prefer longer answers. Code: see Section 4.2 and [12]."
    )
    assert results(extractor, text) == []


def test_names_with_digits_are_not_values(extractor: Extractor) -> None:
    rs = results(extractor, "On CIFAR-10 with GPT-4 and ResNet-50, top-1 accuracy rises to 96.1%.")
    assert [r["value"] for r in rs] == [96.1]


def test_title_numbers_are_not_results(extractor: Extractor) -> None:
    assert results(extractor, "We study calibration.", title="A 95% accuracy model for ImageNet") == []


def test_own_method_and_no_cross_value_baseline(extractor: Extractor) -> None:
    rs = results(
        extractor,
        "We propose ZetaNet, a sparse attention model. ZetaNet gives a 3× speed-up over FlashAttention-2 "
        "and a BLEU score of 34.5 on WMT14.",
    )
    bleu = one(rs, 34.5)
    assert bleu["method"] == "ZetaNet" and bleu["baseline"] is None


def test_offsets_are_in_the_abstract(extractor: Extractor) -> None:
    abstract = (
        "We study object detection in crowded scenes. Experiments show 71.3% mean average precision on COCO."
    )
    ex = extractor.extract_one(Paper("t", abstract, title="A long title with 5 words"))
    (r,) = ex.results
    assert abstract[r.evidence.start : r.evidence.end] == "71.3%"
    assert r.evidence.sentence == "Experiments show 71.3% mean average precision on COCO."


def test_dataset_named_where_datasets_go(rules: Extractor) -> None:
    # on the rules' mentions: the trained linker reads this invented "ZetaNet" as a proposed dataset
    extractor = rules
    rs = results(
        extractor,
        "On QuuxQA, ZetaNet increases the F1 score from 46.6% to 51.4%; on BlorpSent, it boosts "
        "the F1 score from 56.0% to 60.7%.",
    )
    assert [(r["value"], r["dataset"]) for r in rs] == [(51.4, "QuuxQA"), (60.7, "BlorpSent")]
    r = one(
        results(extractor, "On the large-scale Zorb review dataset, ZetaNet reaches 89.4% test accuracy."),
        89.4,
    )
    assert r["dataset"] == "Zorb"


def test_one_dataset_in_the_sentence_holds_for_every_value(extractor: Extractor) -> None:
    rs = results(
        extractor,
        "On the QuuxQA dataset, our model is 3x to 13x faster in training and 4x to 9x faster "
        "in inference, and reaches an F1 score of 84.6.",
    )
    assert [(r["value"], r["unit"], r["dataset"]) for r in rs] == [
        (13, "x", "QuuxQA"),
        (9, "x", "QuuxQA"),
        (84.6, "", "QuuxQA"),
    ]


def test_shares_and_compared_names_are_not_results(extractor: Extractor) -> None:
    assert (
        results(extractor, "Backpropagation consumes around 70% of the training time in such models.") == []
    )
    rs = results(extractor, "ZetaNet reaches 84.2% top-1 accuracy on ImageNet, outperforming MAE by +0.8%.")
    assert {r["metric"] for r in rs} == {"top-1 accuracy"}


def test_respectively_with_datasets_before_the_values(extractor: Extractor) -> None:
    rs = results(
        extractor,
        "We improve the perplexities on Penn Treebank and WikiText-2 to 47.69 and 40.68, respectively.",
    )
    assert [(r["value"], r["metric"]) for r in rs] == [(47.69, "perplexity"), (40.68, "perplexity")]
    assert rs[0]["dataset"] != rs[1]["dataset"] and None not in {rs[0]["dataset"], rs[1]["dataset"]}


def test_metrics_listed_without_commas_keep_their_own_values(extractor: Extractor) -> None:
    rs = results(
        extractor, "It reaches an average MAE of 5.64 RMSE of 7.15 accuracy of 74.19 and F1 of 0.7376."
    )
    assert [(r["value"], r["metric"]) for r in rs] == [
        (5.64, "mean absolute error"),
        (7.15, "root mean squared error"),
        (74.19, "accuracy"),
        (0.7376, "F1 score"),
    ]


def test_a_metric_is_not_carried_to_a_value_naming_its_own_measure(extractor: Extractor) -> None:
    rs = results(
        extractor,
        "Our model shows increases of 3.1% in ROUGE-L, 4.6% in correctness and 4.5% in faithfulness.",
    )
    assert [(r["value"], r["metric"]) for r in rs] == [(3.1, "ROUGE")]


def test_speed_up_spellings(extractor: Extractor) -> None:
    rs = results(extractor, "This gives a 2.5x speed up and 3-35x measured speedup over the planner.")
    assert [(r["value"], r["metric"]) for r in rs] == [(2.5, "speedup"), (35, "speedup")]


def test_words_after_of_are_not_datasets(extractor: Extractor) -> None:
    rs = results(
        extractor, "The best macro F1 scores of PLM and LLM baselines are 77.21% and 51.77%, respectively."
    )
    assert {r["dataset"] for r in rs} == {None}


def test_bare_counts_after_a_metric_are_not_scores(extractor: Extractor) -> None:
    rs = results(
        extractor, "ZetaNet reaches 72.3% top-1 accuracy on ImageNet with 512 batch size in 400 epochs."
    )
    assert [r["value"] for r in rs] == [72.3]


def test_a_value_naming_its_own_measure_takes_no_earlier_metric(extractor: Extractor) -> None:
    rs = results(
        extractor, "We observe a success rate of 73.2% and a 15.15% decrease in the average time steps."
    )
    assert [(r["value"], r["metric"]) for r in rs] == [(73.2, "task success rate")]


def test_ranges_whose_dash_was_lost(extractor: Extractor) -> None:
    rs = results(extractor, "Our method reduces about 40% 60% FLOPs for various segmentation transformers.")
    assert [(r["value"], r["metric"]) for r in rs] == [(60, "FLOPs")]
    rs = results(extractor, "It achieves an accuracy of 13.64 55.53% between English and Thai.")
    assert 13.64 not in [r["value"] for r in rs]


def test_devices_after_on_the_are_not_datasets(extractor: Extractor) -> None:
    r = one(results(extractor, "It achieves a top-1 accuracy of around 80% at 1.0 frame/sec on the SBC."), 80)
    assert r["dataset"] is None
    r = one(results(extractor, "On QuuxAVQA v2.0, this model improves accuracy by 2% over all baselines."), 2)
    assert r["dataset"] == "QuuxAVQA v2.0"


def test_enumerators_and_bounds_are_not_scores(extractor: Extractor) -> None:
    text = (
        "We consider two cases where the censoring time (1) is independent of the event "
        "and (2) depends on it. "
        "Feldman proved that many points are necessary (where ε > 0 is the accuracy parameter)."
    )
    assert results(extractor, text) == []


def test_a_resolution_after_the_dataset_is_its_split(extractor: Extractor) -> None:
    r = one(results(extractor, "ZetaNet reaches an FID of 1.58 on ImageNet 256×256."), 1.58)
    assert (r["metric"], r["dataset"], r["split"]) == ("Frechet Inception Distance", "ImageNet", "256x256")


def test_a_named_split_after_the_dataset_is_kept(extractor: Extractor) -> None:
    r = one(results(extractor, "ZetaNet reaches 84.3% top-1 accuracy on the ImageNet validation set."), 84.3)
    assert (r["dataset"], r["split"]) == ("ImageNet", "val")


def test_no_split_when_none_is_stated(extractor: Extractor) -> None:
    assert one(results(extractor, "ZetaNet reaches 90.1% accuracy on CIFAR-10."), 90.1)["split"] is None


def test_a_percent_loosely_after_a_metric_that_names_its_own_noun_is_a_setting(extractor: Extractor) -> None:
    text = "ZetaNet gives a +1.3 increase in top-1 accuracy over prior art at 90% ERK sparsity on ImageNet."
    assert [r["value"] for r in results(extractor, text)] == [1.3]


def test_a_factor_before_the_measure_it_multiplies_stays_a_result(extractor: Extractor) -> None:
    text = "ZetaNet gives a speedup of between 2.30 to 3.70 times the speed of the baseline."
    assert [(r["value"], r["metric"]) for r in results(extractor, text)] == [(3.7, "speedup")]


# ---- issue 28: improvements read as improvements, "respectively" pairing, the row's model ----------------


def rows(rs: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    keys = ("value", "unit", "kind", "metric", "dataset", "method", "baseline")
    return [tuple(r[k] for k in keys) for r in rs]


def test_glued_setting_noun_is_no_score(extractor: Extractor) -> None:
    rs = results(
        extractor,
        "We study sparse training of vision transformers. Our method achieves an +1.3 increase in Top-1 "
        "accuracy over prior art at 90% ERKsparsity on ImageNet.",
    )
    assert rows(rs) == [(1.3, "", "delta", "top-1 accuracy", "ImageNet", "ZetaNet", None)]


def test_restated_gain_in_parentheses_is_a_delta(extractor: Extractor) -> None:
    rs = results(
        extractor,
        "We propose SimMatch for semi-supervised learning. On CIFAR-10 with 40 labels, SimMatch boosts "
        "FixMatch by 10% (14%) in accuracy.",
        title="SimMatch: semi-supervised learning",
    )
    assert [(r["value"], r["kind"], r["metric"], r["dataset"], r["method"]) for r in rs] == [
        (10, "delta", "accuracy", "CIFAR-10", "SimMatch"),
        (14, "delta", "accuracy", "CIFAR-10", "SimMatch"),
    ]


def test_relative_metric_improvement_is_a_delta(extractor: Extractor) -> None:
    rs = results(
        extractor,
        "We propose ZetaAug, a data augmentation. ZetaAug yields a 2.69% relative accuracy improvement on "
        "CIFAR-10 over the baseline.",
        title="ZetaAug: augmentation for classification",
    )
    assert rows(rs) == [(2.69, "%", "delta", "accuracy", "CIFAR-10", "ZetaAug", None)]


def test_increase_in_metric_of_value_is_a_delta(extractor: Extractor) -> None:
    rs = results(
        extractor,
        "We propose EtaReg, a regulariser. EtaReg gives an increase in accuracy of 0.54% on CIFAR-10 "
        "compared to dropout.",
        title="EtaReg: a regulariser",
    )
    assert rows(rs) == [(0.54, "%", "delta", "accuracy", "CIFAR-10", "EtaReg", "dropout")]


def test_respectively_pairs_values_with_variants_in_order(extractor: Extractor) -> None:
    rs = results(
        extractor,
        "We propose DaViT, a vision transformer with dual attention. DaViT-Tiny, DaViT-Small and DaViT-Base "
        "achieve 82.8%, 84.2% and 84.6% top-1 accuracy on ImageNet-1K, respectively.",
        title="DaViT: Dual Attention Vision Transformers",
    )
    assert [(r["value"], r["kind"], r["metric"], r["dataset"], r["method"]) for r in rs] == [
        (82.8, "absolute", "top-1 accuracy", "ImageNet", "DaViT-Tiny"),
        (84.2, "absolute", "top-1 accuracy", "ImageNet", "DaViT-Small"),
        (84.6, "absolute", "top-1 accuracy", "ImageNet", "DaViT-Base"),
    ]


def test_variant_subject_is_credited_and_baselines_pair_respectively(extractor: Extractor) -> None:
    rs = results(
        extractor,
        "We propose UniNet, found by searching over convolution, transformer and MLP operators with DSMs. "
        "UniNet-B5 achieves 84.9% top-1 accuracy on ImageNet, outperforming EfficientNet-B7 and BoTNet-T7 "
        "with 44% and 55% fewer FLOPs respectively.",
        title="UniNet: unified architecture search",
    )
    assert rows(rs) == [
        (84.9, "%", "absolute", "top-1 accuracy", "ImageNet", "UniNet-B5", "EfficientNet-B7"),
        (44, "%", "delta", "FLOPs", "ImageNet", "UniNet-B5", "EfficientNet-B7"),
        (55, "%", "delta", "FLOPs", "ImageNet", "UniNet-B5", "BoTNet-T7"),
    ]


def test_an_improvement_with_no_measure_named_is_a_performance_delta(extractor: Extractor) -> None:
    rs = results(
        extractor,
        "We propose PolyGuard, a multilingual safety classifier. Through extensive evaluations across "
        "multiple safety and toxicity benchmarks, we demonstrate that PolyGuard outperforms existing "
        "state-of-the-art open-weight and commercial safety classifiers by 5.5%.",
        title="PolyGuard: multilingual safety moderation",
    )
    assert [(r["value"], r["unit"], r["kind"], r["metric"], r["method"], r["confidence"]) for r in rs] == [
        (5.5, "%", "delta", "performance", "PolyGuard", 0.7)
    ]
    # a measure named after the value, even one nobody lists, is not "performance"
    assert results(extractor, "CoARL shows an average improvement of 3 points in intent-conformity.") == []


def test_parallel_gains_and_colon_decimals_and_enumerators(extractor: Extractor) -> None:
    rs = results(
        extractor,
        "Extensive experimental results show that our approach can lead to 2.3 mAP and 7.0 mAP improvements "
        "on the KITTI and nuScenes datasets respectively.",
    )
    assert [(r["value"], r["kind"], r["metric"]) for r in rs] == [
        (2.3, "delta", "mean average precision"),
        (7, "delta", "mean average precision"),
    ]
    rs = results(
        extractor, "Based on VGG16, it achieves an F-measure of 84:3% on ICDAR2015 and 81:5% on MSRA-TD500."
    )
    assert [(r["value"], r["metric"], r["dataset"]) for r in rs] == [
        (84.3, "F1 score", "ICDAR2015"),
        (81.5, "F1 score", "MSRA-TD500"),
    ]
    assert results(
        extractor,
        "Overall we found that 1) expanding language coverage proves to be beneficial; 2) accuracy often "
        "improves if the test language appears in the instruction mixture.",
    ) == []


def test_at_k_measures_are_metrics(extractor: Extractor) -> None:
    rs = results(
        extractor,
        "ReasonIR-8B achieves a new state-of-the-art of 29.9 nDCG@10 on BRIGHT, a widely-used "
        "reasoning-intensive information retrieval benchmark.",
        title="ReasonIR: training retrievers for reasoning tasks",
    )
    assert rows(rs) == [(29.9, "", "absolute", "nDCG@10", "BRIGHT", "ReasonIR-8B", None)]


def test_a_backbone_or_an_adjective_is_not_the_rows_method(extractor: Extractor) -> None:
    rs = results(
        extractor,
        "We propose ZetaText, a scene text detector. Based on VGG16, it achieves an F-measure of 84.3% on "
        "ICDAR2015.",
        title="ZetaText: arbitrary-shaped scene text detection",
    )
    assert [(r["value"], r["method"]) for r in rs] == [(84.3, "ZetaText")]


def test_improvements_worded_loosely_are_never_scores(extractor: Extractor) -> None:
    def kinds(text: str) -> list[tuple[float, str, str]]:
        return [(r["value"], r["kind"], r["metric"]) for r in results(extractor, text)]

    assert kinds(
        "Experiments show that our method surpasses existing methods over 30% in accuracy on CIFAR-10."
    ) == [(30, "delta", "accuracy")]
    assert kinds("We find accuracy drops of 3% - 15% on CIFAR-10.") == [(15, "delta", "accuracy")]
    assert kinds("Our approach achieves improvements of 4.0 accuracy points on CIFAR-10.") == [
        (4, "delta", "accuracy")
    ]
    assert kinds(
        "PFPNet increases the performance of the single-shot multi-box detector (SSD) by mAP of 6.4% AP and "
        "especially, 7.8% AP_small on the MS-COCO dataset."
    ) == [(6.4, "delta", "average precision"), (7.8, "delta", "average precision")]
    assert kinds("Our method improves state-of-the-art SSOD performance by 1-2% AP on COCO.") == [
        (2, "delta", "average precision")
    ]
    assert kinds(
        "Our method outperforms the state-of-the-art methods by, on average 23.97% and 9.31% mean average "
        "precision (mAP) points on MS-COCO, respectively."
    ) == [(23.97, "delta", "mean average precision"), (9.31, "delta", "mean average precision")]
    assert kinds("It shows a reduction in performance decline from 1.5 mAP to 0.3 mAP on COCO.") == [
        (0.3, "delta", "mean average precision")
    ]


def test_datasets_of_parenthesised_values_and_of_respectively_lists(extractor: Extractor) -> None:
    rs = results(
        extractor,
        "Our models achieve state-of-the-art accuracy on datasets such as Stanford Cars (96.0%), CIFAR-10 "
        "(99.0%) and CIFAR-100 (91.5%).",
    )
    assert [(r["value"], r["dataset"]) for r in rs] == [
        (96, "Stanford Cars"),
        (99, "CIFAR-10"),
        (91.5, "CIFAR-100"),
    ]
    rs = results(
        extractor,
        "Our method achieves mAPs of 85.2%, 96.0%, and 95.5% on MS-COCO, VOC2007, and VOC2012, respectively.",
    )
    assert [(r["value"], r["dataset"]) for r in rs] == [(85.2, "COCO"), (96, None), (95.5, None)]
