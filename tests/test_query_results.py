"""kg/query/results.py on hand-made Extractions with results in a real embedded store: leaderboard order by
metric direction (absolute apart from deltas), paging, filters, dataset metrics, paper results, compare."""

from __future__ import annotations

import pytest
from fixtures_api import BASE, store_from

from kg.query import BadCursor, QueryContext
from kg.query import results as qr
from kg.query.model import Page
from kg.types import EntityRef, Evidence, Extraction, Link, Paper, Result

IMAGENET = EntityRef("Dataset", "ImageNet", "Benchmark")
IMAGENET_LT = EntityRef("Dataset", "ImageNet-LT", "Dataset")
CIFAR = EntityRef("Dataset", "CIFAR-10", "Dataset")
ACC = EntityRef("Metric", "top-1 accuracy")
FID = EntityRef("Metric", "Frechet Inception Distance")
CLS = EntityRef("Task", "image classification")
GEN = EntityRef("Task", "image generation")


def _ev(sentence: str, mention: str, conf: float = 0.9) -> Evidence:
    s = sentence.find(mention)
    return Evidence(sentence, mention, s, s + len(mention), conf, rule="result-tight")


def _paper(
    pid: str, method: str, task: EntityRef, rows: list[tuple[float, str, str, EntityRef, EntityRef]]
) -> Extraction:
    sentences, results = [], []
    own = EntityRef("Method", method)
    for value, unit, kind, metric, dataset in rows:
        mention = f"{value:g}{unit if unit in ('%', 'x') else ''}"
        sent = f"{method} reaches {mention} {metric.name} on {dataset.name}."
        sentences.append(sent)
        results.append(Result(value, unit, kind, metric, _ev(sent, mention), dataset=dataset, method=own))  # type: ignore[arg-type]
    abstract = " ".join(sentences)
    links = (
        Link("proposes", own, _ev(abstract, method)),
        Link("addressesTask", task, _ev(abstract, method, 0.6)),
        Link("usesDataset", rows[0][4], _ev(abstract, rows[0][4].name)),
        Link("reportsMetric", rows[0][3], _ev(abstract, rows[0][3].name)),
    )
    fixed = tuple(
        Result(
            r.value,
            r.unit,
            r.kind,
            r.metric,
            Evidence(
                r.evidence.sentence,
                r.evidence.mention,
                abstract.find(r.evidence.sentence) + r.evidence.start,
                abstract.find(r.evidence.sentence) + r.evidence.end,
                0.9,
                rule="result-tight",
            ),
            dataset=r.dataset,
            method=r.method,
        )
        for r in results
    )
    return Extraction(
        Paper(pid, abstract, title=f"{method} paper", year=2024), links, extractor_version="t", results=fixed
    )


@pytest.fixture(scope="module")
def ctx() -> QueryContext:
    papers = [
        _paper(
            "a",
            "AlphaNet",
            CLS,
            [(84.3, "%", "absolute", ACC, IMAGENET), (2.0, "points", "delta", ACC, IMAGENET)],
        ),
        _paper(
            "b", "BetaNet", CLS, [(86.1, "%", "absolute", ACC, IMAGENET), (95.0, "%", "absolute", ACC, CIFAR)]
        ),
        _paper(
            "c",
            "GammaGAN",
            GEN,
            [(2.1, "", "absolute", FID, IMAGENET), (1.58, "", "absolute", FID, IMAGENET_LT)],
        ),
        _paper(
            "d",
            "DeltaGAN",
            GEN,
            [(3.4, "", "absolute", FID, IMAGENET), (0.851, "", "absolute", ACC, IMAGENET)],
        ),
    ]
    # ImageNet-LT is a variant of ImageNet
    papers[2] = Extraction(
        papers[2].paper,
        papers[2].links
        + (Link("usesDataset", IMAGENET_LT, papers[2].links[0].evidence, variant_of=IMAGENET),),
        extractor_version="t",
        results=papers[2].results,
    )
    return QueryContext.open(store_from(papers), BASE)


def rows(page: Page[qr.ResultInfo]) -> list[tuple[str, str, float, str, int | None]]:
    return [(r.paper.id, r.metric.name, r.value, r.kind, r.rank) for r in page.items]


def test_accuracy_leaderboard_is_higher_first_with_fractions_on_the_percent_scale(ctx: QueryContext) -> None:
    page = qr.leaderboard(ctx, "ImageNet", metric="top-1 accuracy")
    assert rows(page) == [
        ("b", "top-1 accuracy", 86.1, "absolute", 1),
        ("d", "top-1 accuracy", 0.851, "absolute", 2),
        ("a", "top-1 accuracy", 84.3, "absolute", 3),
        ("a", "top-1 accuracy", 2.0, "delta", None),
    ]
    assert page.items[0].higher_is_better is True and page.items[0].method is not None
    assert page.items[0].method.name == "BetaNet" and page.items[0].evidence.startswith("BetaNet reaches")


def test_fid_leaderboard_is_lower_first_and_includes_variants(ctx: QueryContext) -> None:
    page = qr.leaderboard(ctx, "imagenet", metric="frechet inception distance")
    # ImageNet-LT is a board of its own: its numbers do not compete with ImageNet's
    assert rows(page) == [
        ("c", "Frechet Inception Distance", 2.1, "absolute", 1),
        ("d", "Frechet Inception Distance", 3.4, "absolute", 2),
        ("c", "Frechet Inception Distance", 1.58, "absolute", 1),
    ]
    assert [r.board for r in page.items] == [
        "Frechet Inception Distance · ImageNet",
        "Frechet Inception Distance · ImageNet",
        "Frechet Inception Distance · ImageNet-LT",
    ]
    assert page.items[0].higher_is_better is False


def test_pages_walk_the_board_once(ctx: QueryContext) -> None:
    every = qr.leaderboard(ctx, "ImageNet", first=100)
    seen, after = [], None
    while True:
        page = qr.leaderboard(ctx, "ImageNet", first=2, after=after)
        seen += [r.id for r in page.items]
        if not page.has_next:
            break
        after = page.end_cursor
    assert seen == [r.id for r in every.items] and len(seen) == every.total == 7
    with pytest.raises(BadCursor):
        qr.leaderboard(ctx, "ImageNet", after="bm9wZQ")


def test_task_filter_and_unknown_names(ctx: QueryContext) -> None:
    assert {r.paper.id for r in qr.leaderboard(ctx, "ImageNet", task="image generation").items} == {"c", "d"}
    assert qr.leaderboard(ctx, "no such dataset").total == 0
    assert qr.leaderboard(ctx, 'ImageNet" } ?x ?y ?z { "', metric="x").total == 0  # data, never syntax
    assert qr.leaderboard(ctx, "dataset/cifar-10").total == 1


def test_dataset_metrics(ctx: QueryContext) -> None:
    found = [
        (m.metric.name, m.results, m.papers, m.higher_is_better) for m in qr.dataset_metrics(ctx, "ImageNet")
    ]
    assert found == [("top-1 accuracy", 4, 3, True), ("Frechet Inception Distance", 3, 2, False)]


def test_paper_results_in_text_order(ctx: QueryContext) -> None:
    assert [(r.value, r.unit, r.kind) for r in qr.paper_results(ctx, "a")] == [
        (84.3, "%", "absolute"),
        (2.0, "points", "delta"),
    ]
    assert qr.paper_results(ctx, "nope") == []


def test_compare_puts_papers_side_by_side(ctx: QueryContext) -> None:
    cmp = qr.compare(ctx, ["b", "c", "missing", "b"])
    assert [c.paper.id for c in cmp.papers] == ["b", "c"] and cmp.missing == ("missing",)
    b, c = cmp.papers
    assert [lk.entity.name for lk in b.tasks] == ["image classification"]
    assert [lk.entity.name for lk in b.methods] == ["BetaNet"]
    assert {lk.entity.name for lk in c.datasets} == {"ImageNet", "ImageNet-LT"}
    assert [(r.value, r.dataset.name if r.dataset else None) for r in b.results] == [
        (86.1, "ImageNet"),
        (95.0, "CIFAR-10"),
    ]
    assert all(lk.evidence for lk in b.tasks + b.metrics)


# ---- issue 28: boards of one metric on one dataset and split, improvements apart, ties, doubt ----------

SST2 = EntityRef("Dataset", "SST-2", "Dataset")
SPEEDUP = EntityRef("Metric", "speedup")
FIXMATCH = EntityRef("Method", "FixMatch")


def _stated(
    pid: str,
    method: str,
    rows: list[tuple[float, str, str, EntityRef, EntityRef | None, str | None, float, EntityRef | None]],
) -> Extraction:
    """A paper stating `rows` (value, unit, kind, metric, dataset, split, confidence, baseline), one sentence
    each, as the extractor would record them."""
    own = EntityRef("Method", method)
    sentences, results, at = [], [], 0
    for value, unit, kind, metric, dataset, split, conf, base in rows:
        mention = ("+" if kind == "delta" else "") + f"{value:g}{unit if unit in ('%', 'x') else ''}"
        on = f" on {dataset.name}" if dataset else ""
        over = f" over {base.name}" if base else ""
        sent = f"{method} reaches {mention} {metric.name}{on}{over}."
        s = at + len(method) + 9
        ev = Evidence(sent, mention, s, s + len(mention), conf, rule="result-tight")
        results.append(
            Result(value, unit, kind, metric, ev, dataset=dataset, method=own, baseline=base, split=split)  # type: ignore[arg-type]
        )
        sentences.append(sent)
        at += len(sent) + 1
    abstract = " ".join(sentences)
    links = (Link("proposes", own, _ev(abstract, method)),)
    return Extraction(
        Paper(pid, abstract, title=f"{method} paper", year=2025), links, extractor_version="t",
        results=tuple(results),
    )


@pytest.fixture(scope="module")
def boards() -> QueryContext:
    papers = [
        _stated("p1", "KappaNet", [
            (95.1, "%", "absolute", ACC, CIFAR, None, 0.9, None),
            (14.0, "%", "delta", ACC, CIFAR, None, 0.85, FIXMATCH),  # "boosts FixMatch by 10% (14%)"
        ]),
        _stated("p2", "LambdaNet", [
            (95.1, "%", "absolute", ACC, CIFAR, None, 0.9, None),  # a tie with KappaNet
            (2.69, "%", "delta", ACC, CIFAR, None, 0.9, None),  # "2.69% relative accuracy improvement"
            (3.0, "x", "ratio", SPEEDUP, CIFAR, None, 0.9, None),
        ]),
        _stated("p3", "MuNet", [(94.0, "%", "absolute", ACC, CIFAR, None, 0.9, None)]),
        _stated("p4", "NuNet", [
            (97.5, "%", "absolute", ACC, CIFAR, None, 0.7, None),  # tied loosely: lower confidence
            (93.0, "%", "absolute", ACC, CIFAR, "test", 0.9, None),
            (91.0, "%", "absolute", ACC, SST2, None, 0.9, None),
        ]),
    ]
    return QueryContext.open(store_from(papers), BASE)


def brows(rs: list[qr.ResultInfo]) -> list[tuple[str, float, str, int | None, str | None]]:
    return [(r.paper.id, r.value, r.kind, r.rank, r.board) for r in rs]


def test_a_board_ranks_absolute_results_of_one_metric_dataset_and_split(boards: QueryContext) -> None:
    b = qr.board(boards, "CIFAR-10", metric="top-1 accuracy")
    assert brows(list(b.page.items)) == [
        ("p1", 95.1, "absolute", 1, "top-1 accuracy · CIFAR-10"),
        ("p2", 95.1, "absolute", 1, "top-1 accuracy · CIFAR-10"),  # ties share a rank
        ("p3", 94.0, "absolute", 3, "top-1 accuracy · CIFAR-10"),
        ("p4", 93.0, "absolute", 1, "top-1 accuracy · CIFAR-10 · test"),  # a split is a board of its own
        ("p1", 14.0, "delta", None, None),  # improvements apart, largest first, never ranked
        ("p2", 2.69, "delta", None, None),
    ]
    assert b.hidden == 1 and b.page.total == 6  # NuNet's loosely tied 97.5% is left out, and counted


def test_improvements_are_never_ranked_and_name_their_baseline(boards: QueryContext) -> None:
    imp = qr.board(boards, "CIFAR-10", section="improvement").page.items
    assert [(r.paper.id, r.value, r.kind, r.rank) for r in imp] == [
        ("p1", 14.0, "delta", None),
        ("p2", 2.69, "delta", None),
        ("p2", 3.0, "ratio", None),
    ]
    assert [qr.improvement_text(r) for r in imp] == [
        "+14% top-1 accuracy over FixMatch",
        "+2.69% top-1 accuracy",
        "3x speedup",
    ]
    ranked = qr.board(boards, "CIFAR-10", section="absolute").page.items
    assert all(r.kind == "absolute" and r.rank is not None for r in ranked)


def test_low_confidence_rows_are_shown_on_request(boards: QueryContext) -> None:
    b = qr.board(boards, "CIFAR-10", metric="top-1 accuracy", section="absolute", include_low=True)
    assert brows(list(b.page.items))[:4] == [
        ("p4", 97.5, "absolute", 1, "top-1 accuracy · CIFAR-10"),
        ("p1", 95.1, "absolute", 2, "top-1 accuracy · CIFAR-10"),
        ("p2", 95.1, "absolute", 2, "top-1 accuracy · CIFAR-10"),
        ("p3", 94.0, "absolute", 4, "top-1 accuracy · CIFAR-10"),
    ]
    assert b.hidden == 0
    with pytest.raises(ValueError):
        qr.board(boards, "CIFAR-10", section="scores")
