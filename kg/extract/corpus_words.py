"""What the corpus says about single words: names many abstracts use ("LiDAR", "GPT-4") are nobody's new
invention, and a common word in capitals ("MODEL") is still that word. Mined by `kg mine`."""

from __future__ import annotations

import functools
import gzip
import json
from dataclasses import dataclass
from pathlib import Path

WORDS_FILE = Path(__file__).resolve().parent / "data" / "corpus_words.json.gz"


@dataclass(frozen=True, slots=True)
class CorpusWords:
    names: frozenset[str]
    words: frozenset[str]

    def known_name(self, word: str) -> bool:
        return word in self.names

    def common_word(self, word: str) -> bool:
        return word.lower() in self.words


@functools.lru_cache(maxsize=1)
def load_corpus_words(path: Path = WORDS_FILE) -> CorpusWords:
    """The shipped lists, or empty ones when not installed."""
    if not path.is_file():
        return CorpusWords(frozenset(), frozenset())
    data = json.loads(gzip.decompress(path.read_bytes()))
    return CorpusWords(frozenset(data.get("names", ())), frozenset(data.get("words", ())))
