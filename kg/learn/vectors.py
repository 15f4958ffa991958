"""Corpus word vectors for the linker's dense features: word2vec (gensim, skip-gram) over the corpus
abstracts, every gold abstract held out, deterministic (one worker, fixed seed, a stable hash).

Only the table ships (`kg/extract/models/wordvecs.npz`, float16): lower-cased words seen at least
`min_count` times and their vectors; nothing is downloaded.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kg.extract.linker import VECTORS_FILE


@dataclass(frozen=True, slots=True)
class VectorConfig:
    dim: int = 100
    window: int = 5
    min_count: int = 10
    epochs: int = 5
    seed: int = 20261202


def _stable_hash(text: str) -> int:
    """gensim seeds each word's vector with this; Python's own hash changes between processes."""
    return zlib.crc32(text.encode("utf-8"))


def corpus_texts(files: Sequence[Path], held_out: set[str]) -> Iterator[str]:
    """Title and abstract of every corpus record whose id is not held out, in file order."""
    for path in files:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                record = json.loads(line)
                if str(record.get("id")) in held_out:
                    continue
                yield (record.get("title") or "") + "\n\n" + (record.get("abstract") or "")


class _Sentences:
    """The corpus as lists of lower-cased spaCy tokens, re-read on every pass (gensim iterates it)."""

    def __init__(self, texts: Iterable[str] | None, cache: Path) -> None:
        self.cache = cache
        if texts is not None:
            import spacy

            nlp = spacy.blank("en")
            with cache.open("w", encoding="utf-8") as out:
                for doc in nlp.pipe(texts, batch_size=256):
                    out.write(" ".join(t.lower_ for t in doc if not t.is_space) + "\n")

    def __iter__(self) -> Iterator[list[str]]:
        with self.cache.open(encoding="utf-8") as f:
            for line in f:
                yield line.split()


def train_vectors(
    files: Sequence[Path],
    held_out: set[str],
    out: Path = VECTORS_FILE,
    *,
    work: Path,
    config: VectorConfig = VectorConfig(),
) -> int:
    """Train the vectors and write the table; returns the number of words kept."""
    from gensim.models import Word2Vec

    sentences = _Sentences(corpus_texts(files, held_out), work / "corpus_tokens.txt")
    model = Word2Vec(
        sentences,
        vector_size=config.dim,
        window=config.window,
        min_count=config.min_count,
        epochs=config.epochs,
        sg=1,
        workers=1,
        seed=config.seed,
        hashfxn=_stable_hash,
    )
    words = list(model.wv.index_to_key)
    vectors = np.asarray(model.wv.vectors, dtype=np.float16)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, words=np.array("\n".join(words)), vectors=vectors)
    return len(words)
