"""Gold annotations → span labels: each gold item's name and aliases located in the paper's own text.

The gold (GOLD_GUIDELINES.md) says which entities a paper links to, not where; a model learns from where.
A form is located wherever a run of whole tokens of the title or abstract has its match form (the reference
scorer's normalisation, spaces removed); an acronym form (two or more capitals) only where it is written in
the same case. Every occurrence is labelled, longest first, so a model sees each mention the annotator would
accept. Items with no located form are counted with the reason (`Conversion.unlocated`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.eval.scoring import squash
from kg.extract.fields import SEPARATOR, join_fields

# The gold categories and the label a located mention gets. A proposed artefact is PROPOSED whatever its
# kind, except a proposed dataset or benchmark (also listed under datasets), which is PROPOSED_DATASET.
CATEGORIES = ("proposed", "datasets", "models", "methods", "metrics", "threats", "tasks", "domains")
LABEL_OF_CATEGORY = {
    "proposed": "PROPOSED",
    "datasets": "DATASET",
    "models": "MODEL",
    "methods": "METHOD",
    "metrics": "METRIC",
    "threats": "THREAT",
    "tasks": "TASK",
    "domains": "DOMAIN",
}
LABELS = ("PROPOSED", "PROPOSED_DATASET", "DATASET", "MODEL", "METHOD", "METRIC", "THREAT", "TASK", "DOMAIN")
PRIORITY = {label: i for i, label in enumerate(LABELS)}  # an overlap of equal length goes to the earlier
MAX_SPAN_TOKENS = 12
_ACRONYM = re.compile(r"[A-Z].*[A-Z]|[A-Z]{2}")
_WORD = re.compile(r"[A-Za-z0-9]")
_TOKEN = re.compile(r"\w+(?:[-.'’+]\w+)*|[^\w\s]", re.UNICODE)


@dataclass(frozen=True, slots=True)
class GoldItem:
    """One annotated entity of a paper: its category, canonical name and accepted surface forms."""

    category: str
    name: str
    forms: tuple[str, ...]
    kind: str | None = None

    @property
    def label(self) -> str:
        if self.category == "proposed" and (self.kind or "").lower() in {"dataset", "benchmark"}:
            return "PROPOSED_DATASET"
        return LABEL_OF_CATEGORY[self.category]


@dataclass(frozen=True, slots=True)
class GoldDoc:
    """One gold record: the paper's text as the extractor reads it (title, separator, abstract)."""

    id: str
    key: str  # the cross-validation document key (kg.learn.folds.doc_key)
    title: str
    abstract: str
    items: tuple[GoldItem, ...]
    source: str  # file name
    record: dict[str, Any] = field(repr=False, compare=False, hash=False, default_factory=dict)

    @property
    def text(self) -> str:
        return join_fields(self.title, self.abstract)


@dataclass(frozen=True, slots=True)
class SpanLabel:
    """A labelled mention: character offsets in `GoldDoc.text`, its label, the gold item it stands for."""

    start: int
    end: int
    label: str
    item: int  # index into GoldDoc.items


@dataclass
class Conversion:
    """The located spans of each document and what could not be located, by category and reason."""

    spans: dict[str, list[SpanLabel]] = field(default_factory=dict)  # doc id → spans
    items: Counter[str] = field(default_factory=Counter)  # category → gold items
    located: Counter[str] = field(default_factory=Counter)  # category → items with ≥ 1 span
    unlocated: Counter[tuple[str, str]] = field(default_factory=Counter)  # (category, reason) → items
    examples: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # a few names per reason

    def report(self) -> str:
        lines = [f"{'category':9s} {'items':>6s} {'located':>8s} {'share':>6s}"]
        for cat in CATEGORIES:
            n, k = self.items[cat], self.located[cat]
            lines.append(f"{cat:9s} {n:6d} {k:8d} {k / n if n else 0:6.3f}")
        total, found = sum(self.items.values()), sum(self.located.values())
        lines.append(f"{'all':9s} {total:6d} {found:8d} {found / total if total else 0:6.3f}")
        lines.append("not located, by reason:")
        for (cat, why), n in sorted(self.unlocated.items(), key=lambda kv: -kv[1]):
            shown = ", ".join(repr(x) for x in self.examples.get((cat, why), [])[:3])
            lines.append(f"  {cat:9s} {why:34s} {n:5d}  e.g. {shown}")
        return "\n".join(lines)


def _items(record: dict[str, Any]) -> Iterator[GoldItem]:
    for cat in CATEGORIES:
        for raw in record.get(cat) or []:
            aliases: list[str]
            if isinstance(raw, str):
                name, aliases, kind = raw, [], None
            else:
                name, aliases, kind = raw.get("name") or "", raw.get("aliases") or [], raw.get("kind")
            forms = tuple(dict.fromkeys(f for f in [name, *aliases] if f and f.strip()))
            if forms:
                yield GoldItem(cat, name or forms[0], forms, kind)


def read_gold(paths: Iterable[str | Path]) -> list[GoldDoc]:
    """Gold records of several files, in file order; a record id seen twice is kept once (the first)."""
    from kg.learn.folds import doc_key

    docs: list[GoldDoc] = []
    seen: set[str] = set()
    for path in paths:
        p = Path(path)
        with p.open(encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                record = json.loads(line)
                key = doc_key(record)
                if key in seen:
                    continue
                seen.add(key)
                docs.append(
                    GoldDoc(
                        id=str(record["id"]),
                        key=key,
                        title=record.get("title") or "",
                        abstract=record.get("text") or "",
                        items=tuple(_items(record)),
                        source=p.name,
                        record=record,
                    )
                )
    return docs


def word_tokens(text: str) -> list[tuple[int, int]]:
    """Character bounds of the words and punctuation marks of a text (a tokenisation close to spaCy's)."""
    return [m.span() for m in _TOKEN.finditer(text)]


def _is_acronym(form: str) -> bool:
    return bool(_ACRONYM.search(form)) and form.upper() == form or sum(c.isupper() for c in form) >= 2


def _candidates(text: str, tokens: Sequence[tuple[int, int]]) -> dict[str, list[tuple[int, int]]]:
    """Every run of up to MAX_SPAN_TOKENS tokens that starts and ends with a word, by its match form."""
    out: dict[str, list[tuple[int, int]]] = {}
    for i, (s, _) in enumerate(tokens):
        if not _WORD.search(text[s : tokens[i][1]]):
            continue
        for j in range(i, min(i + MAX_SPAN_TOKENS, len(tokens))):
            e = tokens[j][1]
            if not _WORD.search(text[tokens[j][0] : e]):
                continue
            if text.find(SEPARATOR, s, e) >= 0:
                break
            key = squash(text[s:e])
            if key:
                out.setdefault(key, []).append((s, e))
    return out


def _occurrences(text: str, form: str, candidates: dict[str, list[tuple[int, int]]]) -> list[tuple[int, int]]:
    hits = candidates.get(squash(form), [])
    if _is_acronym(form):
        want = re.sub(r"[^A-Za-z0-9]", "", form)
        hits = [
            (s, e) for s, e in hits if re.sub(r"[^A-Za-z0-9]", "", text[s:e]).rstrip("s") == want.rstrip("s")
        ]
    return hits


def locate(doc: GoldDoc) -> tuple[list[SpanLabel], dict[int, str]]:
    """The doc's labelled spans (non-overlapping: longest first, then label priority) and, for each gold
    item that got none, why."""
    text = doc.text
    candidates = _candidates(text, word_tokens(text))
    wanted: list[tuple[int, int, int, str]] = []  # start, end, item, label
    missing: dict[int, str] = {}
    hits_of: dict[int, set[tuple[int, int]]] = {}
    for idx, item in enumerate(doc.items):
        hits = hits_of[idx] = {h for form in item.forms for h in _occurrences(text, form, candidates)}
        if not hits:
            lowered = text.lower()
            inside = any(f.lower() in lowered for f in item.forms)
            missing[idx] = "inside a word or across tokens" if inside else "no form written in the text"
            continue
        wanted.extend((s, e, idx, item.label) for s, e in hits)
    wanted.sort(key=lambda w: (-(w[1] - w[0]), PRIORITY[w[3]], w[0]))
    taken: list[SpanLabel] = []
    covered = [False] * (len(text) + 1)
    for s, e, idx, label in wanted:
        if any(covered[s:e]):
            continue
        for k in range(s, e):
            covered[k] = True
        taken.append(SpanLabel(s, e, label, idx))
    spans = {(sp.start, sp.end) for sp in taken}
    for idx in range(len(doc.items)):
        if idx not in missing and not hits_of[idx] & spans:
            missing[idx] = "only inside a longer gold span"
    return sorted(taken, key=lambda sp: sp.start), missing


def convert(docs: Iterable[GoldDoc]) -> Conversion:
    """Span labels for every document, with the count of gold items located and not located (by reason)."""
    conv = Conversion()
    for doc in docs:
        spans, missing = locate(doc)
        conv.spans[doc.id] = spans
        for idx, item in enumerate(doc.items):
            conv.items[item.category] += 1
            if idx in missing:
                reason = (item.category, missing[idx])
                conv.unlocated[reason] += 1
                conv.examples.setdefault(reason, []).append(item.name)
            else:
                conv.located[item.category] += 1
    return conv
