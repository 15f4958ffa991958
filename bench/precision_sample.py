"""Draw a fresh seeded sample of corpus abstracts, extract them, and write a judging sheet: every link with
its evidence, to be judged right or wrong by a reader before anything is changed on the sample.

    .venv/bin/python bench/precision_sample.py --seed 20261201 --per-file 5 FILE_STEM... -o sheet.json

The sheet holds the abstracts for the judge's eyes only (keep it out of the repository: it lives in
bench/results/tmp/, which git ignores); the published result lists ids, titles and links, never abstract text.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.eval.scoring import categories  # noqa: E402
from kg.extract import Extractor, to_json  # noqa: E402
from kg.types import Paper  # noqa: E402

CORPUS = Path(os.environ.get("KG_CORPUS", ROOT.parent / "shared" / "data" / "corpus"))
HELD_OUT = ROOT / "tests" / "data" / "heldout_corpus_ids.txt"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="corpus file stems, e.g. icml_icml2019")
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--per-file", type=int, default=5)
    ap.add_argument("-o", "--out", type=Path, default=ROOT / "bench" / "results" / "tmp" / "sheet.json")
    args = ap.parse_args()
    held = {x.strip() for x in HELD_OUT.read_text().splitlines() if x.strip() and not x.startswith("#")}
    rng = random.Random(args.seed)
    papers: list[Paper] = []
    for stem in args.files:
        with gzip.open(CORPUS / f"{stem}.jsonl.gz", "rt", encoding="utf-8") as fh:
            pool = [json.loads(line) for line in fh]
        pool = [r for r in pool if len(r.get("abstract") or "") > 300 and str(r["id"]) not in held]
        for r in rng.sample(pool, args.per_file):
            papers.append(Paper(id=str(r["id"]), title=r.get("title"), abstract=r["abstract"]))
    sheet = []
    for ex in Extractor().extract(papers):
        line = to_json(ex)
        links = [
            {**e, "category": sorted(categories(e))[0] if categories(e) else "other", "judgement": None}
            for e in line["entities"]
        ]
        sheet.append(
            {
                "id": ex.paper.id,
                "title": ex.paper.title,
                "abstract": ex.paper.abstract,
                "links": links,
                "misses": [],
            }
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(sheet, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(sheet)} abstracts, {sum(len(s['links']) for s in sheet)} links → {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
