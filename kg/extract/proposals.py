"""Proposed artefacts: "we propose X", "X, a novel …", "named/dubbed X", "X: …" titles, acronym definitions
next to a proposal verb, the repository name of the paper's own code URL, and named variants ("X-Aug")."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Protocol

from spacy.language import Language
from spacy.tokens import Doc, Token

from kg.extract.acronyms import Acronym
from kg.extract.common import (
    CONF_PATTERN,
    CONF_WEAK,
    GENERIC_ACRONYMS,
    KIND_BY_HEAD,
    NAME_RE,
    doc_text,
    mention,
    mentions,
    name_strength,
    sentences,
)
from kg.extract.corpus_words import load_corpus_words
from kg.extract.lexicon import Lexicon, load_lexicon
from kg.extract.terms import TierTerm, load_tier
from kg.extract.words import TASK_HEADS
from kg.names import match_key
from kg.types import EntityRef

_WE = re.compile(r"\b(we|our|this (paper|work|study|article)|here)\b", re.I)
_VERB = re.compile(
    r"\b(?:we|this (?:paper|work|study|article))(?:\s+(?:also|further|then|first|here|now|"
    r"additionally|therefore|thus|instead))?\s+(?:propose|present|introduce|develop|design|devise|"
    r"build|construct|create|release|curate|contribute|define|formulate)s?\b",
    re.I,
)
_NAMING = re.compile(
    r"\b(named|called|dubbed|termed|coined|denoted(?: as| by)?|referred to as|namely)\s+$", re.I
)
_NAMING_ANY = re.compile(r"\b(named|called|dubbed|termed|coined|denoted|referred to as|namely)\s", re.I)
_STOP = re.compile(
    r"\b(which|that|who|whose|to|by|where|while|because|although|since|through|via|using|of|in|on|"
    r"for|with|from|across|under|over|between|against|into)\b|[;:]",
    re.I,
)
_NOVEL = re.compile(
    r"^\s*,\s*(a|an)\s+((novel|new|simple|first|unified|general|effective|efficient|scalable|"
    r"lightweight|large-scale|comprehensive|principled|provable|flexible|plug-and-play)\b)",
    re.I,
)
_CLAIM = re.compile(
    r"\s+(?:also\s+|further\s+|consistently\s+|significantly\s+)?(?:achieves|outperforms|improves|"
    r"reduces|features|enables|yields|surpasses|exceeds|attains|delivers|leverages|combines|consists|"
    r"employs|uses|can|is able)\b"
)
_ON_BEFORE = re.compile(r"(?i)\b(on|in)\s+$")
_DATA_AFTER = re.compile(r"\s+(dataset|datasets|benchmark|benchmarks|corpus)\b")
ESTABLISHED_TERM = 5  # abstracts of the corpus using a mined term: then defining it is not inventing it
_NOVEL_BEFORE = re.compile(r"\b(?:a|an|the|our)\s+(?:first\s+|simple\s+|yet\s+)*(?:novel|new)\s+$", re.I)
_TITLE_STOP = {
    "position",
    "survey",
    "review",
    "tutorial",
    "towards",
    "toward",
    "beyond",
    "rethinking",
    "revisiting",
    "understanding",
    "on",
    "when",
    "why",
    "how",
    "what",
    "is",
    "are",
    "do",
    "does",
    "can",
    "benchmarking",
}
_REPO = re.compile(
    r"(?:github\.com|gitlab\.com|huggingface\.co|bitbucket\.org)/(?:datasets/)?[\w.-]+/([\w.-]+)", re.I
)
_WORD = re.compile(r"[A-Za-z][A-Za-z-]*")
# "… and create the CEREAL corpus", "we present ScanNet200-Fine50 test data": data the paper makes, named.
_MAKES_DATA = re.compile(
    r"\b(?:create|creates|created|construct|constructs|build|builds|release|releases|collect|collects|"
    r"curate|curates|present|presents|introduce|introduces|contribute|contributes)\s+(?:the\s+|a\s+|an\s+|our\s+)?"
    r"(?:new\s+|novel\s+|first\s+)?([A-Za-z][\w-]*[A-Z0-9][\w-]*)\s+"
    r"(dataset|corpus|benchmark|test data|test set|testbed|suite|collection)\b"
)
_ACTS_AFTER = re.compile(r"\)\s+(?:also\s+|then\s+|further\s+|effectively\s+)?([a-z]+s)\b")
_COPULAS = frozenset(["is", "has", "does", "remains", "seems", "appears", "becomes"])
# "Our proposed approach DAKD (…) demonstrates": the name right after the paper's own method noun
_OUR_PROPOSED = re.compile(
    r"\bour (?:proposed|new|novel) (?:approach|method|model|framework|algorithm|system|architecture|network|"
    r"technique|module|pipeline|strategy|agent|benchmark|dataset),?\s+",
    re.I,
)
_PREPOSITIONS = frozenset(
    ["for", "with", "via", "against", "on", "in", "under", "through", "towards", "from"]
)
_NAME_AFTER_HEAD = re.compile(r"\s*[a-z]+\s+(?:\(\s*)?[A-Za-z]*[A-Z][A-Za-z]*[A-Z0-9][\w-]*")


def kind_near(text: str) -> tuple[str, str] | None:
    """The first artefact head noun in `text` ("a convex learning algorithm" → Method/Algorithm)."""
    for w in _WORD.findall(text):
        hit = KIND_BY_HEAD.get(w.lower())
        if hit:
            return hit
    return None


@Language.factory(
    "paperkg_proposals",
    default_config={"base_iri": "https://w3id.org/paperkg/"},
    requires=["doc._.kg_acronyms", "doc._.kg_code", "doc._.kg_title_end"],
    assigns=["doc._.kg_mentions"],
)
def make_proposals(nlp: Language, name: str, base_iri: str) -> ProposalFinder:
    return ProposalFinder(load_lexicon(base_iri), load_tier(base_iri))


class _Add(Protocol):
    """Records a proposal candidate: span, name, (type, kind) if known, confidence and its rule."""

    def __call__(
        self, start: int, end: int, name: str, kind: tuple[str, str] | None, conf: float, rule: str
    ) -> None: ...


class ProposalFinder:
    """Pipeline component: appends `proposes` / `introducesDataset` mentions."""

    def __init__(self, lexicon: Lexicon, tier: dict[str, TierTerm]) -> None:
        self.lexicon = lexicon
        self.tier = tier

    def __call__(self, doc: Doc) -> Doc:
        title_end: int = doc._.kg_title_end or 0
        acr = doc._.kg_acronyms or []
        found: dict[str, tuple[int, int, str, tuple[str, str] | None, float, str]] = {}

        def add(
            start: int, end: int, name: str, kind: tuple[str, str] | None, conf: float, rule: str
        ) -> None:
            for a in acr:
                if (
                    a.long_start <= start < a.long_end or name == a.long
                ):  # a word of a long form: the acronym names it
                    start, end, name = a.short_start, a.short_end, a.short
                    break
            if any(name == a.short and a.short_start < start - 1 and a.order == "LF(SF)" for a in acr):
                return  # an acronym defined earlier is an existing term
            if any(name == a.short and _names_a_problem(a.long) for a in acr):
                return  # "the inventory routing problem (IRP)": the problem solved, not the paper's artefact
            if name not in found or found[name][4] < conf:
                found[name] = (start, end, name, kind, conf, rule)

        text = doc_text(doc)
        for s_start, s_end in sentences(doc):
            self._sentence(text[s_start:s_end], s_start, acr, add)
        if title_end:
            self._title(doc, title_end, add, found)
        for url in doc._.kg_code or []:
            m = _REPO.search(url)
            pos = text.find(url)
            if m and pos >= 0:
                repo = m.group(1).removesuffix(".git")
                if name_strength(repo) == 2 and self.lexicon.lookup(repo) is None and repo not in found:
                    add(
                        pos + m.start(1),
                        pos + m.start(1) + len(repo),
                        repo,
                        None,
                        CONF_WEAK + 0.05,
                        "code-repo",
                    )
        self._recurring(doc, text, title_end, found, add)
        self._defined_subjects(doc, text, acr, add)
        # named variants of a proposed name or its acronym: "MELON-Aug", "SBS-PF", "TowerInstruct"
        bases = {n: f for n, f in found.items() if f[4] > CONF_WEAK + 0.05}
        for a in acr:
            long = next((f for n, f in bases.items() if n.lower() == a.long.lower()), None)
            if long is not None:
                bases.setdefault(a.short, long)
        for m in NAME_RE.finditer(text):
            w = m.group()
            if w in found:
                continue
            base = w.split("-")[0] if "-" in w else _camel_base(w, bases)
            if base in bases:
                add(m.start(), m.end(), w, bases[base][3], CONF_PATTERN, "propose-variant:" + base)
        out = mentions(doc)
        for start, end, name, kind, conf, rule in found.values():
            type_, k = kind or ("Method", "Method")
            rel = "introducesDataset" if type_ == "Dataset" else "proposes"
            variant = None
            if rule.startswith("propose-variant:"):
                base = rule.split(":", 1)[1]
                rule = "propose-variant"
                variant = EntityRef("Dataset" if type_ == "Dataset" else "Method", base, k)
            out.append(
                mention(
                    start,
                    end,
                    type_,
                    name,
                    kind=k,
                    relation=rel,
                    confidence=conf,
                    rule=rule,
                    variant_of=variant,
                )
            )
        return doc

    def _recurring(self, doc: Doc, text: str, title_end: int, found: Mapping[str, object], add: _Add) -> None:
        """An unknown name the abstract keeps using as the subject of its claims ("PPNG features …",
        "X outperforms …", three times or more, in the title too or as a claim's subject) is the paper's
        own artefact, unless it is written as data ("on X", "the X dataset")."""
        seen: dict[str, list[re.Match[str]]] = {}
        corpus = load_corpus_words()
        for m in NAME_RE.finditer(text):
            w = m.group()
            if corpus.known_name(w) or (w.isupper() and corpus.common_word(w)):
                continue  # "LiDAR" is in hundreds of abstracts; "MODEL" is the word model
            if name_strength(w) == 2 and w not in found:
                seen.setdefault(m.group(), []).append(m)
        for name, ms in seen.items():
            if len(ms) < 3 or self.lexicon.lookup(name) is not None:
                continue
            if any(
                _ON_BEFORE.search(text[max(0, m.start() - 4) : m.start()]) or _DATA_AFTER.match(text, m.end())
                for m in ms
            ):
                continue
            claims = any(_CLAIM.match(text, m.end()) for m in ms)
            if claims or ms[0].start() < title_end:
                kind = next((k for m in ms if (k := kind_near(text[m.end() : m.end() + 40]))), None)
                add(ms[0].start(), ms[0].end(), name, kind, CONF_PATTERN - 0.1, "recurring-name")

    def _defined_subjects(self, doc: Doc, text: str, acr: list[Acronym], add: _Add) -> None:
        """A name defined here that nobody else uses and that acts at once ("the temporal fidelity
        regulator (TFR) enhances …") is a named part of the paper's own system."""
        corpus = load_corpus_words()
        for a in acr:
            short, long = a.short, a.long
            if a.order != "LF(SF)" or short.upper() in GENERIC_ACRONYMS or corpus.known_name(short):
                continue
            if self.lexicon.lookup(short) is not None or self._known_phrase(long):
                continue
            m = _ACTS_AFTER.match(text, a.short_end)
            if m is None:
                continue
            verb = doc.char_span(m.start(1), m.end(1))
            if verb is None or verb[0].lower_ in _COPULAS or not _acts(verb[0]):
                continue  # "the X Problem (XP) is NP-hard" says what it is, not what it does
            if long.split()[-1].lower() in TASK_HEADS | {"problem", "problems", "task", "tasks"}:
                continue
            kind = kind_near(long.split()[-1]) or ("Method", "Method")
            add(a.short_start, a.short_end, short, kind, CONF_PATTERN, "defined-subject")

    def _known_phrase(self, long: str) -> bool:
        """The long form is, or ends in, a known task/method ("Generalized Zero-Shot learning"), or is a term
        many papers use (the mined tier: "we introduce Test-Time Training (TTT) to …" is not a new method)."""
        mined = self.tier.get(match_key(long))
        if mined is not None and mined.support >= ESTABLISHED_TERM:
            return True
        words = long.split()
        for i in range(len(words) - 1 if len(words) > 1 else 1):
            e = self.lexicon.lookup(" ".join(words[i:]))
            if e is not None and (i == 0 or e.ref.type in ("Task", "Domain", "Threat", "Metric")):
                # "X learning (XL)": the problem; "topology-aware graph attention network": new; and
                # "Subgraph Adaptation for Few-shot Relational Reasoning" is a method for a known problem
                return i == 0 or not any(w.lower() in _PREPOSITIONS for w in words[:i])
        return False

    def _ok(self, word: str, strength_needed: int, sent_start: bool) -> bool:
        if name_strength(word, sent_start) < strength_needed:
            return False
        if word.isupper() and load_corpus_words().common_word(word):
            return False  # "MODEL SELECTOR": a common word in capitals is not a name by itself
        return self.lexicon.lookup(word) is None

    def _sentence(self, text: str, off: int, acr: list[Acronym], add: _Add) -> None:
        adder = add
        verb = _VERB.search(text)
        if verb is None:
            verb = re.search(
                r"\b(proposing|introducing|presenting|creating|releasing)\b"
                r"|\b(is|are) (proposed|introduced)\b",
                text,
                re.I,
            )
        if verb is not None:
            stop = _STOP.search(text, verb.end())
            w_end = stop.start() if stop else len(text)
            window = (off + verb.end(), off + min(w_end, verb.end() + 120))
            cands: list[tuple[int, int, str]] = []
            known_short = {a.short for a in acr if self._known_phrase(a.long) or self.lexicon.lookup(a.short)}
            for a in acr:
                s, e = a.short_start, a.short_end
                ls = a.long_start
                if window[0] <= min(s, ls) < window[1] and a.short not in known_short:
                    cands.append((min(s, ls), e, a.short))
            for m in NAME_RE.finditer(text, verb.end(), verb.end() + (window[1] - window[0])):
                known_long = any(
                    a.long_start <= off + m.start() < a.long_end for a in acr if a.short in known_short
                )
                if (
                    m.group() in known_short
                    or known_long
                    or any(
                        c[0] <= off + m.start() < max(c[1], c[0] + 1) or _in_long(acr, off + m.start())
                        for c in cands
                    )
                ):
                    continue  # a word of a known term's long form ("Test-Time" in "Test-Time Training (TTT)")
                named = bool(_NAMING.search(text[max(0, m.start() - 20) : m.start()]))
                appos = bool(re.match(r"\s*[,(:]", text[m.end() :]))
                nxt = re.match(r"\s*([A-Za-z-]+)", text[m.end() :])
                after_head = re.search(r"\b([a-z]+)\s+$", text[verb.end() : m.start()])
                if after_head and after_head.group(1) in KIND_BY_HEAD:
                    nxt = None  # "a benchmark LenCom-Eval": the name follows its head noun
                if (
                    nxt
                    and nxt.group(1).islower()
                    and nxt.group(1) not in KIND_BY_HEAD
                    and not named
                    and nxt.group(1)
                    not in (
                        "and",
                        "or",
                        "is",
                        "as",
                        "which",
                        "that",
                        "to",
                        "for",
                        "with",
                        "a",
                        "an",
                        "the",
                        "in",
                        "on",
                        "of",
                    )
                ):
                    continue  # "the LVLM-generated captions": a modifier, not a name
                if nxt and nxt.group(1) in KIND_BY_HEAD and _NAME_AFTER_HEAD.match(text, m.end()):
                    continue  # "a Background-Insensitive approach BINet": the name follows the head noun
                if self._ok(m.group(), 1 if (named or appos) else 2, False):
                    cands.append((off + m.start(), off + m.end(), m.group()))
            if cands:
                s, e, name = min(cands)
                kind = (
                    kind_near(text[e - off : e - off + 80]) if re.match(r"\s*[,(]", text[e - off :]) else None
                )
                kind = kind or kind_near(text[verb.end() : s - off][-60:]) or kind_near(text[e - off :][:80])
                ns, ne = _short_span(acr, s, e, name)
                adder(ns, ne, name, kind, CONF_PATTERN + 0.1, "propose-pattern")
        for own in _OUR_PROPOSED.finditer(text):
            found = NAME_RE.match(text, own.end())
            if found is not None and self._ok(found.group(), 1, False):
                kind = kind_near(text[max(0, found.start() - 30) : found.start()])
                ns, ne = _short_span(acr, off + found.start(), off + found.end(), found.group())
                adder(ns, ne, found.group(), kind, CONF_PATTERN + 0.05, "our-proposed")
        if _WE.search(text):  # "… with a novel parsing-guided transformer (PGTFormer)"
            for a in acr:
                ls, ss = a.long_start, a.short_start
                before = text[max(0, ls - off - 40) : ls - off]
                if off <= ls < off + len(text) and _NOVEL_BEFORE.search(before):
                    kind = kind_near(a.long.split()[-1]) or kind_near(text[a.short_end - off :][:60])
                    adder(ss, a.short_end, a.short, kind, CONF_PATTERN + 0.05, "novel-acronym")
        if _WE.search(text):
            for m in _MAKES_DATA.finditer(text):
                if self._ok(m.group(1), 2, False):
                    kind = KIND_BY_HEAD.get(m.group(2).split()[-1], ("Dataset", "Dataset"))
                    start, end = off + m.start(1), off + m.end(1)
                    adder(start, end, m.group(1), kind, CONF_PATTERN + 0.05, "makes-data")
        naming = _NAMING_ANY.search(text) is not None
        if "," not in text and not naming:
            return
        we = bool(_WE.search(text) or verb)
        for m in NAME_RE.finditer(text):
            after = text[m.end() : m.end() + 120]
            if not after.lstrip().startswith(",") and not (
                naming and _NAMING.search(text[max(0, m.start() - 25) : m.start()])
            ):
                continue
            before = text[max(0, m.start() - 25) : m.start()]
            sent_start = m.start() == 0
            if _NOVEL.match(after) and self._ok(m.group(), 1, sent_start):
                kind = kind_near(after[:80])
                adder(off + m.start(), off + m.end(), m.group(), kind, CONF_PATTERN, "novel-apposition")
            elif we and _NAMING.search(before) and self._ok(m.group(), 1, sent_start):
                kind = kind_near(text[max(0, m.start() - 60) : m.start()]) or kind_near(after[:60])
                adder(off + m.start(), off + m.end(), m.group(), kind, CONF_PATTERN, "named-pattern")

    def _title(self, doc: Doc, title_end: int, add: _Add, found: Mapping[str, object]) -> None:
        """ "X: a ..." titles, and "…: X for …" when X recurs in the abstract or the code URL."""
        title = doc_text(doc)[:title_end]
        abstract = doc_text(doc)[title_end:]
        code = " ".join(doc._.kg_code or [])
        adder = add
        if ":" in title:
            head, rest = title.split(":", 1)
            words = head.split()
            if 1 <= len(words) <= 3 and words[0].lower() not in _TITLE_STOP:
                name = head.strip()
                strength = max(name_strength(w) for w in words)
                recurs = re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", abstract) is not None
                if ((strength == 2 and len(words) == 1) or recurs or name in code) and self.lexicon.lookup(
                    name
                ) is None:
                    conf = CONF_PATTERN + 0.1 if (recurs or name in found) else CONF_PATTERN - 0.1
                    start = title.find(name)
                    adder(start, start + len(name), name, kind_near(rest[:60]), conf, "title-colon")
            m = re.match(
                r"\s*([A-Z][\w]*(?:-[\w]+)+|[A-Za-z]*[A-Z][\w]*[A-Z][\w]*)\s+(for|of|in|with|:)\b", rest
            )
            if m and name_strength(m.group(1)) == 2 and self.lexicon.lookup(m.group(1)) is None:
                name = m.group(1)
                if name in abstract or name in code:
                    start = len(head) + 1 + m.start(1)
                    adder(start, start + len(name), name, None, CONF_PATTERN, "title-name")


def _names_a_problem(long: str) -> bool:
    """A long form whose head is a problem or task noun ("bilingual dictionary induction" is not), unless
    the problem follows a preposition ("Subgraph Adaptation for Few-shot Relational Reasoning": a method)."""
    words = long.split()
    head = words[-1].lower() if words else ""
    if any(w.lower() in _PREPOSITIONS for w in words[1:-1]):
        return False
    return head in TASK_HEADS or head in ("problem", "problems", "task", "tasks")


def _acts(tok: Token) -> bool:
    """A verb in the third person, or a word the tagger took for a plural noun that has an object after it
    ("(TPCP) restores faces")."""
    nxt = tok.nbor(1) if tok.i + 1 < len(tok.doc) else None
    return tok.tag_ == "VBZ" or (
        tok.tag_ == "NNS" and nxt is not None and nxt.tag_ in ("NN", "NNS", "DT", "JJ", "PRP$")
    )


def _camel_base(word: str, bases: Mapping[str, object]) -> str:
    """The proposed name `word` continues with a capitalised part ("TowerInstruct" after "Tower"), or ""."""
    for base in bases:
        longer = len(word) > len(base) + 1 and word.startswith(base)
        if len(base) >= 3 and longer and word[len(base)].isupper():
            return base
    return ""


def _in_long(acr: list[Acronym], pos: int) -> bool:
    return any(a.long_start <= pos < a.long_end for a in acr)


def _short_span(acr: list[Acronym], s: int, e: int, name: str) -> tuple[int, int]:
    for a in acr:
        if a.short == name:
            return a.short_start, a.short_end
    return s, e
