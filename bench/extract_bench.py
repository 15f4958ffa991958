"""Extraction throughput (abstracts/s) at 1 and 2 processes next to plain spaCy with the same pipes, rounds
interleaved in one run so the ratios hold on a shared machine; both extractors (rules alone, and with the
trained linker): `python bench/extract_bench.py [N] [ROUNDS]`.

Abstracts: a seeded sample of real corpus abstracts (2022-2025 files), else the seed file cycled.
CPU-second figures (this process and its finished workers) show the cost without the other users' load.
"Plain spaCy" is the same model with the same pipes (tok2vec, tagger, parser) and nothing of ours, run with
`nlp.pipe(batch_size=64, n_process=N)` and every Doc consumed, as in shared/notes/BASELINES.md §1.
"""

from __future__ import annotations

import gzip
import itertools
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import spacy  # noqa: E402

from kg.extract import Extractor  # noqa: E402
from kg.extract.fields import join_fields  # noqa: E402
from kg.extract.pipeline import EXCLUDED, MODEL  # noqa: E402
from kg.types import Paper  # noqa: E402

CORPUS = Path(os.environ.get("KG_CORPUS", Path(__file__).resolve().parents[2] / "shared" / "data" / "corpus"))
SEED = Path(__file__).resolve().parents[1] / "tests" / "data" / "icml2025_seed_gold.jsonl"


def papers(n: int, seed: int = 7) -> tuple[list[Paper], str]:
    """`n` abstracts sampled (seeded) from the corpus' 2022-2025 files, or the seed file cycled."""
    files = sorted(CORPUS.glob("*202[2-5].jsonl.gz")) if CORPUS.exists() else []
    pool: list[Paper] = []
    for f in files:
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                if r.get("abstract"):
                    pool.append(Paper(id=str(r["id"]), abstract=r["abstract"], title=r.get("title")))
    if len(pool) >= n:
        return random.Random(seed).sample(pool, n), f"corpus sample from {len(files)} files (2022-2025)"
    seed_gold = [json.loads(x) for x in SEED.read_text().splitlines() if x.strip()]
    cyc = itertools.islice(itertools.cycle(seed_gold), n)
    return [
        Paper(id=f"{g['id']}-{i}", abstract=g["text"], title=g.get("title")) for i, g in enumerate(cyc)
    ], "seed file cycled"


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the machine is shared: wall time is noisy)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    batch, source = papers(n)
    texts = [join_fields(p.title, p.abstract) for p in batch]
    words = sum(len(p.abstract.split()) for p in batch) / len(batch)
    extractors = {"rules": Extractor(with_linker=False), "linker": Extractor(with_linker=True)}
    plain = spacy.load(MODEL, exclude=EXCLUDED)
    for ex in extractors.values():
        list(ex.extract(batch[:20]))  # warm-up
    list(plain.pipe(texts[:20]))

    def ours(name: str) -> Callable[[int], int]:
        ex = extractors[name]
        return lambda k: sum(len(e.links) for e in ex.extract(batch, n_process=k, batch_size=64))

    def spacy_only(n_process: int) -> int:
        return sum(len(d) for d in plain.pipe(texts, batch_size=64, n_process=n_process))

    runs: dict[tuple[str, int], list[float]] = {}
    cpu: dict[tuple[str, int], list[float]] = {}
    configs: list[tuple[str, int, Callable[[int], int]]] = [
        (name, k, fn)
        for k in (1, 2)
        for name, fn in (("plain spaCy", spacy_only), ("rules", ours("rules")), ("linker", ours("linker")))
    ]
    for _ in range(rounds):
        for name, k, fn in configs:
            t0, c0 = time.perf_counter(), _cpu()
            fn(k)
            runs.setdefault((name, k), []).append(len(batch) / (time.perf_counter() - t0))
            cpu.setdefault((name, k), []).append(len(batch) / (_cpu() - c0))
    print(f"{len(batch)} abstracts ({source}, {words:.0f} words each), {rounds} interleaved rounds")
    print(f"pipes: {', '.join(plain.pipe_names)}; median [min-max] abstracts per wall second, per CPU second")
    for k in (1, 2):
        for name in ("plain spaCy", "rules", "linker"):
            r, c = runs[(name, k)], cpu[(name, k)]
            print(
                f"  n_process={k} {name:12s} wall {statistics.median(r):6.1f} [{min(r):.1f}-{max(r):.1f}]"
                f"   CPU {statistics.median(c):6.1f} [{min(c):.1f}-{max(c):.1f}]"
            )
        for ours_name in ("rules", "linker"):
            for label, d in (("wall", runs), ("CPU", cpu)):
                ratio = statistics.median(d[(ours_name, k)]) / statistics.median(d[("plain spaCy", k)])
                print(f"  n_process={k} {ours_name} / plain spaCy ({label}) = {ratio:.2f}")


if __name__ == "__main__":
    main()
