"""Extraction throughput (abstracts/s) at 1 and 2 processes, on real corpus abstracts when present, else the
seed file cycled: `python bench/extract_bench.py [N]`."""

from __future__ import annotations

import gzip
import itertools
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from kg.extract import Extractor  # noqa: E402
from kg.types import Paper  # noqa: E402

CORPUS = Path("/work/shared/data/corpus")
SEED = Path(__file__).resolve().parents[1] / "tests" / "data" / "icml2025_seed_gold.jsonl"


def papers(n: int) -> tuple[list[Paper], str]:
    files = sorted(CORPUS.glob("*2025.jsonl.gz")) if CORPUS.exists() else []
    out: list[Paper] = []
    for f in files:
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                if r.get("abstract"):
                    out.append(Paper(id=str(r["id"]), abstract=r["abstract"], title=r.get("title")))
                if len(out) >= n:
                    return out, f"{len(files)} corpus files (2025)"
    if out:
        return out, "corpus"
    seed = [json.loads(x) for x in SEED.read_text().splitlines() if x.strip()]
    cyc = itertools.islice(itertools.cycle(seed), n)
    return [
        Paper(id=f"{g['id']}-{i}", abstract=g["text"], title=g.get("title")) for i, g in enumerate(cyc)
    ], "seed"


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    batch, source = papers(n)
    ex = Extractor()
    list(ex.extract(batch[:20]))  # warm-up
    print(f"{len(batch)} abstracts from {source}")
    for n_process in (1, 2):
        t0 = time.perf_counter()
        links = sum(len(e.links) for e in ex.extract(batch, n_process=n_process, batch_size=64))
        dt = time.perf_counter() - t0
        print(f"n_process={n_process}: {len(batch) / dt:6.1f} abstracts/s ({dt:.1f} s, {links} links)")


if __name__ == "__main__":
    main()
