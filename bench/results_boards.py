"""Leaderboards read from a corpus sample, for judging by hand (issue 28).

    python bench/results_boards.py [--n 10000] [--seed 28] [--out bench/results/results_boards.json]

Extracts `n` corpus abstracts that state a digit (seeded sample over every file of
`../shared/data/corpus/`, none of the results or entity gold, none of the held-out dev ids), ranks their
results with the leaderboards' own code (`kg.query.results.shown`: boards of one metric on one dataset and
split, ties sharing a rank, improvements apart, rows below LOW_CONFIDENCE hidden), and writes the top 10
ranked rows of the boards the issue names (ImageNet top-1 accuracy, CIFAR-10 accuracy, COCO average
precision, SQuAD F1, GSM8K and MMLU accuracy) with their evidence sentences, for a reader to judge; the
judgements go in `bench/results/results_boards.md`. Also counts, over every board, the deltas and ratios
(never ranked) and the hidden rows. Takes about 5 minutes of one core for 10,000 abstracts.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from results_cv import SHARED, TRAIN_SETS, _jsonl  # noqa: E402
from results_quality import _paper  # noqa: E402

from kg.types import EntityRef  # noqa: E402

HELD_OUT = ROOT / "tests" / "data" / "heldout_corpus_ids.txt"
OUT = ROOT / "bench" / "results" / "results_boards.json"
BOARDS = (
    ("ImageNet", "top-1 accuracy"),
    ("CIFAR-10", "accuracy"),
    ("COCO", "average precision"),
    ("COCO", "mean average precision"),
    ("SQuAD", "F1 score"),
    ("GSM8K", "accuracy"),
    ("MMLU", "accuracy"),
)


def _excluded() -> set[str]:
    out = set(HELD_OUT.read_text(encoding="utf-8").split()) if HELD_OUT.exists() else set()
    for name in (*TRAIN_SETS, "dev60", "icml2025_seed"):
        path = SHARED / f"{name}_gold.jsonl"
        if path.exists():
            out |= {str(r.get("corpus_id") or r["id"]) for r in _jsonl(path)}
    out |= {r["id"] for r in _jsonl(ROOT / "data" / "results_gold" / "results_gold.jsonl")}
    return out


def sample(n: int, seed: int) -> list[dict[str, Any]]:
    skip = _excluded()
    recs: list[dict[str, Any]] = []
    for f in sorted((SHARED / "corpus").glob("*.jsonl.gz")):
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                rid = str(r.get("id"))
                if rid in skip or rid.endswith("None") or not re.search(r"\d", r.get("abstract") or ""):
                    continue
                recs.append(r)
    random.Random(seed).shuffle(recs)
    seen: set[str] = set()
    out = []
    for r in recs:
        if r["id"] not in seen:
            seen.add(r["id"])
            out.append(r)
        if len(out) >= n:
            break
    return out


def _info(iris: Any, ref: EntityRef | None) -> Any:
    from kg.query.model import EntityInfo

    if ref is None:
        return None
    iri = iris.entity(ref)
    return EntityInfo(iris.entity_id_of(iri) or iri, iri, ref.name, ref.type, ref.kind)


def run(n: int, seed: int, out: Path) -> dict[str, Any]:
    from kg.extract import VERSION, Extractor
    from kg.query.model import PaperInfo
    from kg.query.results import LOW_CONFIDENCE, ResultInfo, board_of, shown
    from kg.rdf.iris import Iris
    from kg.rdf.results import metric_direction
    from kg.settings import DEFAULT_BASE_IRI

    iris = Iris(DEFAULT_BASE_IRI)
    recs = sample(n, seed)
    t0 = time.perf_counter()
    rows: list[ResultInfo] = []
    for ex in Extractor().extract(_paper(r) for r in recs):
        paper = PaperInfo(ex.paper.id, iris.paper(ex.paper.id), title=ex.paper.title)
        for i, r in enumerate(ex.results):
            rows.append(
                ResultInfo(
                    id=f"{ex.paper.id}#{i}", paper=paper, value=r.value, unit=r.unit, kind=r.kind,
                    metric=_info(iris, r.metric), evidence=r.evidence.sentence, mention=r.evidence.mention,
                    start=r.evidence.start, end=r.evidence.end, confidence=r.evidence.confidence,
                    dataset=_info(iris, r.dataset), method=_info(iris, r.method),
                    baseline=_info(iris, r.baseline),
                    higher_is_better=metric_direction(iris, r.metric), split=r.split,
                )
            )
    seconds = time.perf_counter() - t0
    pairs = Counter((r.dataset.name, r.metric.name) for r in rows if r.dataset is not None)
    boards: dict[str, Any] = {}
    for dataset, metric in BOARDS:
        on = [r for r in rows if r.dataset and r.dataset.name == dataset and r.metric.name == metric]
        ranked, hidden = shown(on, "absolute")
        gains, gains_hidden = shown(on, "improvement")
        top = [r for r in ranked if r.split is None][:10]
        boards[f"{metric} · {dataset}"] = {
            "ranked": len([r for r in ranked if r.split is None]),
            "hidden": hidden,
            "improvements": len(gains) + gains_hidden,
            "other metrics on the dataset": [
                f"{m} ({c})" for (d, m), c in pairs.most_common() if d == dataset and m != metric
            ][:6],
            "top": [
                {"rank": r.rank, "value": r.value, "unit": r.unit,
                 "method": r.method.name if r.method else None, "paper": r.paper.id,
                 "confidence": r.confidence, "mention": r.mention, "evidence": r.evidence}
                for r in top
            ],
        }
    ranked_all, _ = shown(rows, "absolute", include_low=True)
    report = {
        "extractor_version": VERSION,
        "abstracts": len(recs),
        "seed": seed,
        "extract_seconds": round(seconds, 1),
        "results": len(rows),
        "by_kind": dict(Counter(r.kind for r in rows)),
        "ranked_rows_that_are_improvements": sum(1 for r in ranked_all if r.kind != "absolute"),
        "below_low_confidence": sum(1 for r in rows if r.confidence < LOW_CONFIDENCE),
        "absolute_without_board": sum(1 for r in rows if r.kind == "absolute" and board_of(r) is None),
        "boards": boards,
    }
    out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k != "boards"}, indent=1))
    for name, b in boards.items():
        print(f"\n## {name}: {b['ranked']} ranked, {b['hidden']} hidden, {b['improvements']} improvements; "
              f"also {', '.join(b['other metrics on the dataset'])}")
        for t in b["top"]:
            print(f"{t['rank']:>3} {t['value']:g}{t['unit']} | {t['method']} | {t['paper']} | "
                  f"{t['evidence']}")
    return report


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=28)
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args(argv)
    run(a.n, a.seed, a.out)


if __name__ == "__main__":
    main()
