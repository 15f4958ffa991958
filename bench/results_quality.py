"""Quality of result extraction (kg/extract/results.py).

    python bench/results_quality.py gold [--gold data/results_gold/results_gold.jsonl] [--out FILE.md]
        precision and recall against the hand-annotated gold: a predicted result matches a gold one of the
        same paper when the value, the metric and the dataset all match (rules: data/results_gold/README.md)
    python bench/results_quality.py sample --files a,b,c --per 8 --seed S --n 50 [--out FILE.jsonl]
        a precision sample: the first `n` results extracted from fresh corpus abstracts (seeded), written
        for a reader to judge (bench/results/results_precision_sample.md holds the judgements)

Abstracts are read from the shared corpus (../shared/data/corpus/*.jsonl.gz) by file and id: the gold
stores ids and annotations only, never corpus text. Held-out dev ids (tests/data/heldout_corpus_ids.txt)
are never used.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kg.names import match_key  # noqa: E402
from kg.types import Paper  # noqa: E402

CORPUS = ROOT.parent / "shared" / "data" / "corpus"
GOLD = ROOT / "data" / "results_gold" / "results_gold.jsonl"
HELD_OUT = ROOT / "tests" / "data" / "heldout_corpus_ids.txt"


def _held_out() -> set[str]:
    return set(HELD_OUT.read_text(encoding="utf-8").split())


def _records(file: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    with gzip.open(CORPUS / file, "rt", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            out.setdefault(str(r.get("id")), r)
    return out


def _paper(r: dict[str, Any]) -> Paper:
    from kg.io.clean import clean_text

    return Paper(str(r["id"]), clean_text(r.get("abstract") or ""), title=clean_text(r.get("title") or ""))


def _canon(name: str | None, type_: str) -> str | None:
    """The match key of a name, through the curated vocabulary when it knows the name (FID → Frechet...)."""
    if name is None:
        return None
    from kg.vocab import load_vocabulary

    hits = [e for e in load_vocabulary(mined=False).lookup(name) if e.ref.type == type_]
    return match_key(hits[0].ref.name if hits else name)


def _names(main: str | None, aliases: list[str], type_: str) -> set[str | None]:
    return {_canon(main, type_)} | {_canon(a, type_) for a in aliases}


def matches(pred: dict[str, Any], gold: dict[str, Any]) -> bool:
    """Value, metric and dataset all match (names compared by match key, through the vocabulary)."""
    if abs(float(pred["value"]) - float(gold["value"])) > 1e-9 * max(1.0, abs(float(gold["value"]))):
        return False
    metrics = _names(gold["metric"], gold.get("metric_aliases", []), "Metric")
    if _canon(pred["metric"], "Metric") not in metrics:
        return False
    if gold["dataset"] is None:
        return pred["dataset"] is None
    datasets = _names(gold["dataset"], gold.get("dataset_aliases", []), "Dataset")
    return _canon(pred["dataset"], "Dataset") in datasets


def _extract(papers: list[Paper]) -> dict[str, list[dict[str, Any]]]:
    from kg.extract import Extractor, to_json

    ex = Extractor()
    return {e.paper.id: to_json(e)["results"] for e in ex.extract(papers)}


def score_gold(gold_path: Path, out: Path | None) -> dict[str, Any]:
    gold = [json.loads(line) for line in gold_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    held = _held_out()
    by_file: dict[str, dict[str, dict[str, Any]]] = {}
    papers = []
    for g in gold:
        assert g["id"] not in held, f"{g['id']} is a held-out dev record"
        if g["file"] not in by_file:
            by_file[g["file"]] = _records(g["file"])
        recs = by_file[g["file"]]
        papers.append(_paper(recs[g["id"]]))
    preds = _extract(papers)
    tp = fp = fn = 0
    lines: list[str] = []
    kinds: Counter[str] = Counter()
    for g in gold:
        pred = list(preds.get(g["id"], []))
        used: set[int] = set()
        for gr in g["results"]:
            hit = next((i for i, p in enumerate(pred) if i not in used and matches(p, gr)), None)
            if hit is None:
                fn += 1
                kinds[f"missed {gr['unit'] or 'bare'}"] += 1
                what = f"{gr['value']}{gr['unit']} {gr['metric']} on {gr['dataset']}"
                lines.append(f"- miss `{g['id']}`: {what}")
            else:
                used.add(hit)
                tp += 1
                kinds[f"found {gr['unit'] or 'bare'}"] += 1
        for i, p in enumerate(pred):
            if i not in used:
                fp += 1
                lines.append(
                    f"- false `{g['id']}`: {p['value']}{p['unit']} {p['metric']} on {p['dataset']} "
                    f"— “{p['evidence'][:160]}”"
                )
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    report = {
        "abstracts": len(gold),
        "gold_results": tp + fn,
        "predicted": tp + fp,
        "true_positives": tp,
        "precision": round(precision, 3),
        "recall": round(recall, 3),
        "f1": round(f1, 3),
        "by_unit": dict(sorted(kinds.items())),
    }
    print(json.dumps(report, indent=1))
    if out is not None:
        body = [
            "# Result extraction against the results gold",
            "",
            f"`python bench/results_quality.py gold` — {len(gold)} abstracts "
            f"({sum(1 for g in gold if g['results'])} with results), {tp + fn} gold results. "
            "A predicted result counts only when value, metric and dataset all match.",
            "",
            "| predicted | correct | precision | recall | F1 |",
            "| --- | --- | --- | --- | --- |",
            f"| {tp + fp} | {tp} | {precision:.3f} | {recall:.3f} | {f1:.3f} |",
            "",
            "By unit of the gold result: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())),
            "",
            "## Misses and false results",
            "",
            *lines,
            "",
        ]
        out.write_text("\n".join(body), encoding="utf-8")
    return report


def sample(files: list[str], per: int, seed: int, n: int, out: Path | None) -> None:
    held = _held_out()
    number = re.compile(r"\d")
    papers: list[Paper] = []
    for f in files:
        recs = [r for r in _records(f).values() if str(r.get("id")) not in held and r.get("abstract")
                and not str(r.get("id")).endswith("None") and number.search(r["abstract"])]
        random.Random(seed).shuffle(recs)
        papers += [_paper(r) for r in recs[:per]]
    random.Random(seed).shuffle(papers)
    preds = _extract(papers)
    rows = []
    for p in papers:
        for r in preds.get(p.id, []):
            rows.append({"id": p.id, **r})
            if len(rows) >= n:
                break
        if len(rows) >= n:
            break
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    if out is not None:
        out.write_text(text, encoding="utf-8")
    sys.stdout.write(text)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gold")
    g.add_argument("--gold", type=Path, default=GOLD)
    g.add_argument("--out", type=Path, default=None)
    s = sub.add_parser("sample")
    s.add_argument("--files", required=True, help="comma-separated corpus file names")
    s.add_argument("--per", type=int, default=8)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--n", type=int, default=50)
    s.add_argument("--out", type=Path, default=None)
    a = ap.parse_args(argv)
    if a.cmd == "gold":
        score_gold(a.gold, a.out)
    else:
        sample(a.files.split(","), a.per, a.seed, a.n, a.out)


if __name__ == "__main__":
    main()
