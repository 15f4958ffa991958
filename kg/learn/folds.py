"""Cross-validation folds by document over all visible gold, fixed by seed and kept in `data/cv_folds.json`.

A document is keyed by its corpus id (the seed abstracts, which have none, by their gold id), so the entity
gold and the results gold of one abstract always fall in the same fold.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from pathlib import Path

K = 5
SEED = 20261202
FOLDS_FILE = Path(__file__).resolve().parents[2] / "data" / "cv_folds.json"


def doc_key(record: Mapping[str, object]) -> str:
    """The document key of a gold record: its corpus id, else its id."""
    return str(record.get("corpus_id") or record["id"])


def make_folds(keys: Iterable[str], *, k: int = K, seed: int = SEED) -> dict[str, int]:
    """Each key's fold in 0..k-1: the sorted keys shuffled by `seed`, dealt round-robin (sizes differ ≤ 1)."""
    order = sorted(set(keys))
    random.Random(seed).shuffle(order)
    return {key: i % k for i, key in enumerate(order)}


def write_folds(folds: Mapping[str, int], path: Path = FOLDS_FILE, *, k: int = K, seed: int = SEED) -> None:
    path.write_text(
        json.dumps({"k": k, "seed": seed, "folds": dict(sorted(folds.items()))}, indent=0) + "\n",
        encoding="utf-8",
    )


def read_folds(path: Path = FOLDS_FILE) -> dict[str, int]:
    """The committed folds: document key → fold."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {str(key): int(fold) for key, fold in data["folds"].items()}
