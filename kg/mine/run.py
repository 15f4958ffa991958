"""`kg mine`: corpus → mined vocabulary tier, deterministically (same corpus and code → same bytes)."""

from __future__ import annotations

import gzip
import json
import pickle
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg.mine.corpus import HeldOut, count, held_out_from, scan
from kg.mine.output import drop_curated, write_tier
from kg.mine.terms import MinedTerm, corpus_words, mine_acronyms, mine_terms
from kg.names import match_key

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
DEFAULT_CORPUS = SHARED / "corpus"
DEFAULT_TIER = ROOT / "ontology" / "vocab" / "mined.ttl.gz"
WORDS_FILE = ROOT / "kg" / "extract" / "data" / "corpus_words.json.gz"
# Texts that must never count toward support: the dev golds and the bundled sample.
HELD_OUT_FILES = (
    SHARED / "dev60_gold.jsonl",
    SHARED / "icml2025_seed_gold.jsonl",
    SHARED / "icml2025_seed.jsonl",
    ROOT / "data" / "icml2025_seed.jsonl",
    ROOT / "tests" / "data" / "icml2025_seed_gold.jsonl",
    ROOT / "tests" / "data" / "heldout_corpus_ids.txt",
)


@dataclass(frozen=True, slots=True)
class MineReport:
    abstracts: int
    held_out: int
    concepts: int
    by_type: dict[str, int]
    by_source: dict[str, int]


def write_json_gz(path: Path, data: object) -> None:
    """Deterministic gzipped JSON (no timestamp), written atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with tmp.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz:
        gz.write(json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8"))
    tmp.replace(path)


def corpus_files(paths: Sequence[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        out.extend(sorted(p.glob("*.jsonl*")) if p.is_dir() else [p])
    return out


def curated_keys() -> set[str]:
    from kg.vocab import load_vocabulary

    return {k for e in load_vocabulary(mined=False).entries for k in e.keys}


def mine(
    corpus: Sequence[Path],
    out: Path,
    *,
    held_out_paths: Sequence[Path] = HELD_OUT_FILES,
    workers: int = 2,
    min_support: int = 3,
    cache: Path | None = None,
    limit: int | None = None,
    words_out: Path | None = None,
) -> MineReport:
    """Scan the corpus (or read the scan from `cache`), mine typed terms and acronyms, write the tier."""
    held: HeldOut = held_out_from([p for p in held_out_paths if p.is_file()])
    docs: list[dict[str, Any]]
    if cache is not None and cache.is_file():
        docs = pickle.loads(cache.read_bytes())
    else:
        docs = list(scan(corpus_files(corpus), held, workers=workers, limit=limit))
        if cache is not None:
            cache.write_bytes(pickle.dumps(docs))
    docs = [d for d in docs if str(d["id"]) not in held.ids]
    counts = count(docs, min_df=2)
    known = frozenset(curated_keys())
    terms: list[MinedTerm] = mine_terms(counts, min_support=min_support, known=known)
    terms = mine_acronyms(counts, terms)
    terms = drop_curated(terms, set(known))
    meta = {"abstracts": counts.docs, "held_out_records": len(held.ids), "min_support": min_support}
    write_tier(out, terms, meta)
    if words_out is not None:
        write_json_gz(words_out, {**corpus_words(counts), "abstracts": counts.docs})
    return MineReport(
        abstracts=counts.docs,
        held_out=len(held.ids),
        concepts=len({(t.type, match_key(t.name)) for t in terms}),
        by_type=dict(Counter(t.type for t in terms)),
        by_source=dict(Counter(t.source for t in terms)),
    )
