"""Shared pieces of the extraction components: doc extensions, the mention record, name shapes, head nouns.

Mentions are plain dicts (msgpack-safe), so a Doc still serialises with them.
"""

from __future__ import annotations

import re
from typing import TypedDict

import numpy
from spacy.attrs import IDX, LOWER, SENT_START
from spacy.tokens import Doc

from kg.types import RELATION_BY_TYPE, EntityRef


class Mention(TypedDict):
    """A candidate link read in a doc; offsets are doc character offsets."""

    start: int
    end: int
    type: str
    kind: str | None
    name: str
    relation: str
    confidence: float
    rule: str
    variant_of: list[str | None] | None  # [type, name, kind]
    broader: list[list[str | None]]
    alias: str | None  # another surface form (a long form or acronym) seen for it


EXTENSIONS = (
    "kg_text",
    "kg_sents",
    "kg_title_end",
    "kg_mentions",
    "kg_rule_mentions",
    "kg_acronyms",
    "kg_code",
    "kg_entities",
    "kg_relations",
    "kg_compare",
    "kg_notes",
    "kg_runs",
    "kg_toks",
)
for _name in EXTENSIONS:
    if not Doc.has_extension(_name):
        Doc.set_extension(_name, default=None)

# Confidence levels: vocabulary exact > acronym-resolved > pattern > weak heuristic (< 0.5 means "low").
CONF_VOCAB_CASE, CONF_VOCAB, CONF_ACRONYM, CONF_PATTERN, CONF_WEAK = 0.95, 0.9, 0.85, 0.7, 0.4

# Head nouns that say what a named artefact is: "SARD, a convex learning algorithm".
KIND_BY_HEAD: dict[str, tuple[str, str]] = {}
for _kind, _type, _words in [
    ("Defense", "Method", "defense defence defenses defences safeguard guardrail guard shield detector"),
    ("Attack", "Method", "attack attacks jailbreak"),
    ("Dataset", "Dataset", "dataset datasets corpus corpora collection"),
    ("Benchmark", "Dataset", "benchmark benchmarks suite testbed leaderboard arena"),
    ("Loss", "Method", "loss objective regularizer regularization"),
    ("Algorithm", "Method", "algorithm algorithms optimizer solver procedure estimator sampler"),
    ("Framework", "Method", "framework frameworks pipeline paradigm toolkit library platform system"),
    ("Model", "Method", "model models network networks architecture transformer encoder decoder agent llm"),
    ("Method", "Method", "method methods approach technique strategy module mechanism scheme"),
    ("Metric", "Metric", "metric measure score"),
]:
    for _w in _words.split():
        KIND_BY_HEAD[_w] = (_type, _kind)

GENERIC_ACRONYMS = frozenset(
    [
        "AI",
        "ML",
        "DL",
        "NLP",
        "CV",
        "LLM",
        "LLMS",
        "VLM",
        "VLMS",
        "MLLM",
        "MLLMS",
        "LM",
        "LMS",
        "SOTA",
        "GPU",
        "GPUS",
        "CPU",
        "TPU",
        "API",
        "APIS",
        "RGB",
        "IID",
        "OOD",
        "URL",
        "PDF",
        "USA",
        "US",
        "UK",
        "EU",
        "II",
        "III",
        "IV",
        "OK",
        "FPS",
        "PHD",
        "NN",
        "NNS",
        "DNN",
        "DNNS",
        "HTML",
        "JSON",
        "SQL",
        "CNN",
        "RNN",
        "GAN",
        "SGD",
        "ID",
    ]
)
_CAPS = re.compile(r"[A-Z]")
_LETTER = re.compile(r"[A-Za-z]")
_DIGIT = re.compile(r"[0-9]")
_UNIT = re.compile(r"^\d+(\.\d+)?[A-Za-z]{1,2}$")  # 3D, 7B, 10K, 100M
NAME_RE = re.compile(r"(?<![\w@/.-])[A-Za-z0-9][A-Za-z0-9]*(?:[-.+'][A-Za-z0-9]+)*(?![\w@/-])")


def name_strength(text: str, sentence_start: bool = False) -> int:
    """How name-like a word is: 2 acronym/CamelCase/digit-bearing, 1 plain capitalised, 0 not."""
    if len(text) < 2 or len(text) > 40 or not _LETTER.search(text) or _UNIT.match(text):
        return 0
    if text.upper().rstrip("S") in GENERIC_ACRONYMS or text.upper() in GENERIC_ACRONYMS:
        return 0
    caps = len(_CAPS.findall(text))
    if caps >= 2 or (_DIGIT.search(text) and caps >= 1) or (caps == 1 and not text[0].isupper()):
        return 2
    if caps == 1 and text[0].isupper() and not sentence_start:
        return 1
    return 0


def ref_list(ref: EntityRef | None) -> list[str | None] | None:
    return None if ref is None else [ref.type, ref.name, ref.kind]


def mention(
    start: int,
    end: int,
    type_: str,
    name: str,
    *,
    kind: str | None = None,
    relation: str | None = None,
    confidence: float = CONF_PATTERN,
    rule: str = "",
    variant_of: EntityRef | None = None,
    broader: tuple[EntityRef, ...] = (),
    alias: str | None = None,
) -> Mention:
    return Mention(
        start=start,
        end=end,
        type=type_,
        kind=kind,
        name=name,
        relation=relation or RELATION_BY_TYPE[type_],
        confidence=confidence,
        rule=rule,
        variant_of=ref_list(variant_of),
        broader=[r for b in broader if (r := ref_list(b))],
        alias=alias,
    )


def mentions(doc: Doc) -> list[Mention]:
    """The doc's mention list, created on first use."""
    out: list[Mention] | None = doc._.kg_mentions
    if out is None:
        out = doc._.kg_mentions = []
    return out


def token_indices(doc: Doc, words: frozenset[str]) -> list[int]:
    """Indices of the tokens whose lower-case form is one of `words` (no Token objects made)."""
    ids = doc.vocab.strings  # common words have fixed symbol ids, not hashes
    hashes = numpy.array([ids[w] for w in words], dtype=numpy.uint64)
    return [int(i) for i in numpy.flatnonzero(numpy.isin(doc.to_array(LOWER), hashes))]


def doc_text(doc: Doc) -> str:
    """The doc's text, read once (`Doc.text` joins every token on each call)."""
    text: str | None = doc._.kg_text
    if text is None:
        text = doc._.kg_text = doc.text
    return text


def sentences(doc: Doc) -> list[tuple[int, int]]:
    """Character bounds of the parsed sentences, trailing space included (as `Span.text`), computed once."""
    out: list[tuple[int, int]] | None = doc._.kg_sents
    if out is None:
        if len(doc) == 0:
            out = []
        else:
            arr = doc.to_array([SENT_START, IDX])
            starts = [int(arr[0, 1]), *arr[1:, 1][arr[1:, 0] == 1].tolist()]
            out = list(zip(starts, [*starts[1:], len(doc_text(doc))], strict=True))
        doc._.kg_sents = out
    return out
