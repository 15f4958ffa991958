"""The public extractor: papers in, `Extraction`s out (same order), and the stable JSON line of one."""

from __future__ import annotations

import bisect
import functools
import os
import re
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from spacy.tokens import Doc

from kg.extract import results_model
from kg.extract.common import doc_text, sentences
from kg.extract.fields import SEPARATOR, join_fields
from kg.extract.parallel import extract_in_workers
from kg.extract.pipeline import build_nlp
from kg.extract.results import result_json, results_from_doc
from kg.settings import DEFAULT_BASE_IRI
from kg.types import EntityRef, EntityType, Evidence, Extraction, Link, Paper, Relation

VERSION = "0.5.0"  # the default: the trained linker (kg/extract/models/linker.npz) decides the links
RULES_VERSION = VERSION + "+rules"  # KG_LINKER=0: the rule components alone decide, as up to 0.4.4
RESULTS_MODEL_SUFFIX = "+results"
MAX_ABSTRACT = 100_000
MAX_TITLE = 2_000
# spaCy's tokenizer strips affixes one at a time, each search scanning the rest of the token: quadratic in a
# token's length ("(((…)))" of 100k characters ran for hours). Text is cut where a longer run begins.
MAX_RUN = 1_000
_RUN = re.compile(r"\S+")


def _long_run_at(text: str) -> int | None:
    """Where the first run of more than MAX_RUN characters without whitespace starts, if any."""
    for m in _RUN.finditer(text):
        if m.end() - m.start() > MAX_RUN:
            return m.start()
    return None


def _ref(r: list[Any] | None) -> EntityRef | None:
    if not r:
        return None
    t: EntityType = r[0]
    return EntityRef(t, str(r[1]), r[2])


class Extractor:
    """Extracts links (paper → entity, with evidence) from titles and abstracts."""

    def __init__(
        self,
        base_iri: str = DEFAULT_BASE_IRI,
        *,
        with_recogniser: bool = True,
        with_linker: bool | None = None,
    ) -> None:
        self.base_iri = base_iri
        self.with_recogniser = with_recogniser
        # The trained linker decides by default (cross-validated over all visible gold, README); KG_LINKER=0
        # leaves it out for every command (kg build, extract, eval, reextract). Each choice writes its own
        # extractor version, so `kg reextract` upgrades a store built with the other.
        self.with_linker = os.environ.get("KG_LINKER", "1") != "0" if with_linker is None else with_linker
        self.version = VERSION if self.with_linker else RULES_VERSION
        if results_model.mode() == "learned":
            self.version += RESULTS_MODEL_SUFFIX  # KG_RESULTS_MODEL=1: the learned re-scorer decides results
        self.nlp = build_nlp(base_iri, with_recogniser=with_recogniser, with_linker=self.with_linker)

    def _prepare(self, paper: Paper) -> tuple[str, tuple[str, ...]]:
        notes: list[str] = []
        title, abstract = paper.title or "", paper.abstract or ""
        if len(title) > MAX_TITLE:
            title = title[:MAX_TITLE]
            notes.append(f"title truncated to {MAX_TITLE} characters")
        if len(abstract) > MAX_ABSTRACT:
            abstract = abstract[:MAX_ABSTRACT]
            notes.append(f"abstract truncated to {MAX_ABSTRACT} characters")
        if (cut := _long_run_at(title)) is not None:
            title = title[:cut]
            notes.append(f"title cut at {cut}: a run of over {MAX_RUN} characters without spaces")
        if (cut := _long_run_at(abstract)) is not None:
            abstract = abstract[:cut]
            notes.append(f"abstract cut at {cut}: a run of over {MAX_RUN} characters without spaces")
        return join_fields(title, abstract), tuple(notes)

    def extract(
        self, papers: Iterable[Paper], *, n_process: int = 1, batch_size: int = 32
    ) -> Iterator[Extraction]:
        """Extractions in input order; `n_process` > 1 runs the whole extractor in worker processes."""
        if n_process > 1:
            factory = functools.partial(
                Extractor, self.base_iri, with_recogniser=self.with_recogniser, with_linker=self.with_linker
            )
            yield from extract_in_workers(self, papers, n_process, batch_size=batch_size, factory=factory)
            return
        pending: deque[tuple[Paper, tuple[str, ...]]] = deque()

        def texts() -> Iterator[str]:
            for p in papers:
                text, notes = self._prepare(p)
                pending.append((p, notes))
                yield text

        for doc in self.nlp.pipe(texts(), batch_size=batch_size):
            paper, notes = pending.popleft()
            yield self._extraction(paper, doc, notes)

    def extract_one(self, paper: Paper) -> Extraction:
        text, notes = self._prepare(paper)
        return self._extraction(paper, self.nlp(text), notes)

    def _extraction(self, paper: Paper, doc: Doc, notes: tuple[str, ...]) -> Extraction:
        text = doc_text(doc)
        boundary = text.find(SEPARATOR)
        sents = _Sentences(sentences(doc), text)
        links: list[Link] = []
        refs: dict[int, EntityRef] = {}
        evidence: dict[int, Evidence] = {}
        for ent in doc._.kg_entities or []:
            ev = _evidence(sents, ent, boundary)
            if ev is None:
                continue
            ref = EntityRef(ent["type"], ent["name"], ent.get("kind"))
            refs[id(ent)], evidence[id(ent)] = ref, ev
            links.append(
                Link(
                    relation=ent["relation"],
                    entity=ref,
                    evidence=ev,
                    aliases=tuple(ent.get("aliases") or ()),
                    variant_of=_ref(ent.get("variant_of")),
                    broader=tuple(b for x in ent.get("broader") or () if (b := _ref(x)) is not None),
                )
            )
        relations = []
        for r in doc._.kg_relations or []:
            s, o = r["subject"], r["object"]
            ev = _evidence(sents, o, boundary)
            if ev is not None:
                relations.append(
                    Relation(
                        EntityRef(s["type"], s["name"], s.get("kind")),
                        r["relation"],
                        EntityRef(o["type"], o["name"], o.get("kind")),
                        ev,
                    )
                )
        return Extraction(
            paper=paper,
            links=tuple(links),
            relations=tuple(relations),
            code_urls=tuple(doc._.kg_code or ()),
            extractor_version=self.version,
            notes=notes,
            results=results_from_doc(doc),
        )


class _Sentences:
    """Sentence character bounds of a doc, found by bisection."""

    def __init__(self, bounds: list[tuple[int, int]], text: str) -> None:
        self.text = text
        self.starts = [s for s, _ in bounds]
        self.ends = [e for _, e in bounds]

    def around(self, start: int, end: int) -> str:
        i = max(bisect.bisect_right(self.starts, start) - 1, 0)
        j = max(bisect.bisect_left(self.ends, end), i)
        if not self.starts:
            return self.text[start:end].strip()
        return self.text[self.starts[i] : self.ends[min(j, len(self.ends) - 1)]].strip()


def _evidence(sents: _Sentences, ent: dict[str, Any], boundary: int) -> Evidence | None:
    start, end = int(ent["start"]), int(ent["end"])
    field: Literal["title", "abstract"] = "title"
    shift = 0
    if start >= boundary + len(SEPARATOR):
        field, shift = "abstract", boundary + len(SEPARATOR)
    elif end > boundary:
        return None
    return Evidence(
        sentence=sents.around(start, end),
        mention=sents.text[start:end],
        start=start - shift,
        end=end - shift,
        confidence=round(float(ent["confidence"]), 3),
        field=field,
        rule=str(ent.get("rule", "")),
    )


def to_json(ex: Extraction) -> dict[str, Any]:
    """The stable `kg extract --format jsonl` line of one extraction."""
    return {
        "id": ex.paper.id,
        "title": ex.paper.title,
        "entities": [
            {
                "name": lk.entity.name,
                "type": lk.entity.type,
                "kind": lk.entity.kind,
                "relation": lk.relation,
                "mention": lk.evidence.mention,
                "evidence": lk.evidence.sentence,
                "start": lk.evidence.start,
                "end": lk.evidence.end,
                "confidence": lk.evidence.confidence,
                "rule": lk.evidence.rule,
                "tier": lk.evidence.tier,
            }
            for lk in ex.links
        ],
        "relations": [
            {
                "subject": r.subject.name,
                "subject_type": r.subject.type,
                "relation": r.relation,
                "object": r.object.name,
                "object_type": r.object.type,
                "evidence": r.evidence.sentence,
                "confidence": r.evidence.confidence,
            }
            for r in ex.relations
        ],
        "code": list(ex.code_urls),
        "results": [result_json(r) for r in ex.results],
    }
