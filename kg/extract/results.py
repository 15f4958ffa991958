"""Reported results: numbers an abstract ties to a metric ("84.3% top-1 accuracy on ImageNet", "reduces FID
from 2.10 to 1.58", "improves the attack success rate by 12 points", "a 3x speed-up over FlashAttention-2").

Runs after the canonicaliser and reuses what the pipeline found: metric, dataset, method and model mentions
(`doc._.kg_mentions`) named by their canonical entity (`doc._.kg_entities`). A number becomes a result only
when a metric sits right beside it ("84.3% accuracy", "accuracy of 84.3%", "accuracy by 3%"); anything else
(counts, sizes, fractions of data, years) is refused: saying nothing beats guessing.

Values: the number as written (commas dropped), unit normalised to "%", "points", "x", "dB" or "" (a bare
score such as "FID of 1.58"); kind "absolute", "delta" (an improvement or reduction: "by 3%", "+2.1",
"3 points higher") or "ratio" (a factor: "3x faster", "2-fold"). "from A to B" reports B.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, cast

from spacy.language import Language
from spacy.tokens import Doc

from kg.extract import results_model
from kg.extract.common import Mention, doc_text, sentences
from kg.extract.fields import SEPARATOR
from kg.extract.measures import EXTRA_METRICS
from kg.names import match_key
from kg.types import EntityRef, EntityType, Evidence, Result

if not Doc.has_extension("kg_results"):
    Doc.set_extension("kg_results", default=None)

ResultKind = Literal["absolute", "delta", "ratio"]

_NUM = r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
# A number with its unit; not part of a name ("CIFAR-10", "top-1", "GPT-4o"), a size ("7B") or "256x256".
_VALUE = re.compile(
    r"(?<![\w.\-/^@$×*#%])(?P<sign>[+±−]|(?<![^\s(\[])-(?=\d))?(?P<num>" + _NUM + r")"
    r"(?P<unit>\s?%|\s?percent(?:age)?(?:\s+points?)?\b|\s?(?:pp|p\.p\.|pts|points?)(?![\w-])|\s?dB\b|"
    r"\s?[×x](?![\w×])|\s?-?\s?times\b|\s?-?fold\b)?"
)
# "from 2.10 to 1.58", "2.10 → 1.58"
_FROM_TO = re.compile(
    r"\bfrom\s+(?P<a>" + _NUM + r")\s*(?:%|points?|dB|[A-Za-z][\w@-]{0,11})?\s+to\s+(?P<b>" + _NUM + r")"
    r"|(?<![\w.])(?P<a2>" + _NUM + r")\s*(?:%|dB)?\s*(?:→|->|⟶)\s*(?P<b2>" + _NUM + ")"
)
_UNITS = r"%|percent|pp|points?|dB|[×x](?![\w×])|times\b|-?fold\b"
_RANGE = re.compile(
    r"(?<![\w.\-/])(?P<a>" + _NUM + r")\s?(?P<ua>" + _UNITS + r")?\s?(?:-|–|—|to)\s?(?P<b>" + _NUM + r")"
    r"\s?(?P<ub>" + _UNITS + r")"
)
_LIST_SEP = re.compile(r"^\s*(?:,\s*(?:and|or)?|and|or|/|vs\.?)?\s*$")
# words allowed between a value and the metric after it ("12 points higher accuracy", "3% gain in F1")
_AFTER_GAP = re.compile(
    r"^\s*(?:\)\s*)?(?:(?:absolute|relative|average|avg\.?|mean|overall|higher|lower|better|worse|more|less|"
    r"fewer|smaller|greater|improvements?|improved|gains?|increases?|increased|decreases?|decreased|reductions?|"
    r"reduced|drops?|boosts?|jumps?|increments?|margin|in|on|of|for|the|an?|its|their|our|top-1|points?|relatively|"
    r"absolute|terms)[\s,]+){0,4}$",
    re.I,
)
# "accuracy of 84.3%", "FID: 1.58", "accuracy (84.3%)", "accuracy by 3%", "F1 score reaching 71.2"
_TIGHT_BEFORE = re.compile(
    r"^\s*(?:\(|:|=|of|is|was|at|to|by|reaching|reaches|achieving|score of|scores of|up to|over|"
    r"around|about|nearly|almost|roughly|approximately|only|just|an? average of|of up to|of over|of about|"
    r"of nearly|of only|improvement of|gains? of|increase of|reduction of|by up to|by over|by about|"
    r"by nearly|by an average of|by as much as|as high as|as low as|as much as)?\s*[(:=]?\s*$",
    re.I,
)
_CLAUSE_BREAK = re.compile(
    r"[;]|\b(?:while|whereas|but|although|though|however|yet)\b|,\s*and\s+(?:\w+ly\s+)?\w+(?:es|ed|s)\b"
)
# "41.3% better generalization": the words right after the value say what it measures, and it is no metric
_OWN_NOUN = re.compile(
    r"^\s*(?:higher|lower|better|worse|more|less|fewer|greater|smaller|stronger|faster|slower)\s+"
    r"(?!than\b|on\b|in\b|over\b|compared\b|improvements?\b|gains?\b|increases?\b|reductions?\b|of\b|"
    r"for\b|and\b|with\b|at\b|across\b|to\b|relative\b|performance\b|results?\b)[a-z]",
)
# "outperforming MAE by 0.8%": a name right after a comparison cue is what is compared with, not a metric
_AFTER_CUE = re.compile(
    r"\b(?:outperform\w*|surpass\w*|compared (?:to|with)|than|vs\.?|versus|over)\s+(?:the\s+)?$"
)
# "4.6% in correctness": the value names its own measure right after it
_NAMES_OWN = re.compile(
    r"\s*(?:(?:absolute|relative)\s+)?(?:(?:increase|decrease|reduction|improvement|gain|drop)s?\s+)?(?:in|on)\s+"
    r"(?:the\s+)?(?!average\b|all\b|both\b|each\b|most\b|terms\b)[a-z]"
)
# a bare number followed by a word that is no measure and no preposition counts that word ("512 batch size")
_COUNTED = re.compile(
    r"\s*(?!(?:on|in|for|and|or|with|at|to|than|over|vs|versus|compared|when|while|which|whereas|respectively|"
    r"points?|percent|higher|lower|better|worse|improvement|gain|increase|decrease|reduction|absolute|relative|"
    r"average|overall|after|from|under|using|without|across|by|as)\b)[a-z][a-z-]+"
)
# "over prior art at 90% ERK sparsity": a value loosely after a metric, followed by a noun, measures that noun
# ("ERKsparsity": an acronym glued to its noun by a lost space is still that noun)
_SETTING = re.compile(
    r"\s*(?!(?:the|a|an|its|their|this|that|these|those)\b)(?:[A-Z][A-Za-z0-9-]*\s+)?"
    r"(?:[A-Z]{2,}(?=[a-z]{3}))?" + _COUNTED.pattern.removeprefix(r"\s*")
)
_OWN_VALUE = re.compile(r"\s*(?:score\s+)?(?:of|:|=|\()\s*[+-]?\d")  # "RMSE of 7.15": the metric's own value
_CLAUSE_END = re.compile(r";|\brespectively\b|,\s*(?:and|while|but|whereas|yet)\b")
_WORD = re.compile(r"[\w'-]+")
_FRACTION_OF = re.compile(
    r"^\s*of\s+(?:the\s+|all\s+|its\s+|their\s+)?(?!(?:the\s+)?(?:accuracy|performance))", re.I
)
_DELTA_AFTER = re.compile(
    r"^\s*(?:\)\s*)?(?:absolute\s+|relative\s+|average\s+|on average\s+)?"
    r"(?:higher|lower|better|worse|more|less|fewer|improvements?|gains?|increases?|decreases?|reductions?|drops?|boosts?|jumps?|increments?|faster|"
    r"slower|smaller|larger)\b",
    re.I,
)
_DELTA_BEFORE = re.compile(
    r"(?:\bby|\bimprov\w*|\bgains?|\bincreas\w*|\breduc\w*|\bdecreas\w*|\bboost\w*|\bmargins?|\boutperform\w*"
    r"|\bsurpass\w*|\bdrops?|\bjump\w*)(?:\s+(?:of|up to|over|about|nearly|around|approximately|"
    r"an average of|as much as|almost|roughly|more than|a|an|the|average|absolute|relative))*\s*$",
    re.I,
)
_BASELINE_CUE = re.compile(
    r"\b(?:outperform\w*|surpass\w*|over|than|compared (?:to|with)|relative to|vs\.?|versus|against|beats?|"
    r"exceed\w*|improv\w* (?:up)?on|boosts?|boosted|improves)\s+"
    r"(?:(?:the|strong|state-of-the-art|previous|prior|best|existing|"
    r"baseline|vanilla|standard|original|leading|competing|models?|methods?|like|such as|including|e\.g\.,?)"
    r"[\s,]+)*$",
    re.I,
)
_IMPROVEMENT = (
    r"(?:improvements?|improved|improving|gains?|increases?|increased|boosts?|boosted|reductions?|reduced|"
    r"decreases?|decreased|drops?|jumps?|increments?|enhancements?|uplifts?|lifts?)"
)
# "2.69% relative accuracy improvement": an improvement word right after the metric that follows the value
_DELTA_AFTER_METRIC = re.compile(r"^\s*(?:score|rate)?\s*(?:\)\s*)?" + _IMPROVEMENT + r"\b", re.I)
# "an increase in accuracy of 0.54%", "improved the F1 score by 2.1": the improvement word before the metric
_DELTA_BEFORE_METRIC = re.compile(
    _IMPROVEMENT + r"\s+(?:in|of|on|to)\s+(?:the\s+|its\s+|their\s+)?(?:\w+\s+)?$", re.I
)
_METRIC_TO_VALUE = re.compile(
    r"^\s*(?:score\s+|rate\s+)?(?:of|by|:|=|\()\s*(?:up to\s+|about\s+|nearly\s+|around\s+|over\s+)?$", re.I
)
# "a +1.3 increase", "a 2.69% relative improvement": a value written as the size of an improvement
_DELTA_NOUN_AFTER = re.compile(r"^\s*(?:\)\s*)?(?:absolute\s+|relative\s+)?" + _IMPROVEMENT + r"\b", re.I)
# "SimMatch boosts FixMatch by 10% (14%)": a value in parentheses after another restates it
_PAREN_GAP = re.compile(r"^\s*\($")
_AVERAGE = re.compile(r"\b(?:average|averaged|on average|across|mean)\b", re.I)
_OWN = re.compile(r"\b(?:we|our|ours|the proposed|this method|this approach|this framework)\b", re.I)

_AT_K = re.compile(
    r"(?<![\w@-])(?:nDCG|NDCG|Recall|R|Hits?|HR|P|Precision|MRR|mAP|AP|Acc|Success)@\d+(?![\w@])"
)
_EXTRA_ANY = re.compile("|".join(rf"(?:{p.pattern})" for p, _ in EXTRA_METRICS))


@dataclass(frozen=True, slots=True)
class _Span:
    start: int
    end: int
    ref: EntityRef


@dataclass(slots=True)
class _Value:
    start: int
    end: int
    value: float
    unit: str
    kind: ResultKind
    bare: bool  # no unit: only a metric right beside it makes it a result
    from_start: int | None = None  # "from A to B": where "from A" starts (ties before look from there)


@Language.factory(
    "paperkg_results",
    requires=["doc._.kg_entities", "doc._.kg_mentions", "doc._.kg_title_end"],
    assigns=["doc._.kg_results"],
)
def make_results(nlp: Language, name: str) -> ResultFinder:
    return ResultFinder()


class ResultFinder:
    """Pipeline component (after the canonicaliser): fills `doc._.kg_results` with plain dicts."""

    def __call__(self, doc: Doc) -> Doc:
        mode = results_model.mode()
        found = find_results(doc, refused=mode == "candidates" or mode == "learned" and results_model.LOOSE)
        if found and mode == "learned":
            found = results_model.rescore(doc_text(doc), found, abstract_start(doc), results_model.shipped())
        doc._.kg_results = found
        return doc


def abstract_start(doc: Doc) -> int:
    """Where the abstract starts in a doc's text (after the title and the field separator)."""
    boundary = doc_text(doc).find(SEPARATOR)
    return boundary + len(SEPARATOR) if boundary >= 0 else 0


def _unit(raw: str | None) -> str:
    u = (raw or "").strip().lower().lstrip("-").strip()
    if not u:
        return ""
    if u.startswith("%") or u.startswith("percent") and "point" not in u:
        return "%"
    if u in ("pp", "p.p.", "pts", "point", "points") or "point" in u:
        return "points"
    if u == "db":
        return "dB"
    return "x"  # ×, x, times, fold


def _number(raw: str) -> float | None:
    try:
        return float(raw.replace(",", ""))
    except ValueError:
        return None


_COLON_DECIMAL = re.compile(r"(?<=\b\d\d):(?=\d{1,2}\s?%)")


def _values(text: str, off: int) -> list[_Value]:
    """Candidate values of one sentence (doc offsets), "from A to B" as one value B."""
    text = _COLON_DECIMAL.sub(".", text)  # "an F-measure of 84:3%": a decimal point typed as a colon
    out: list[_Value] = []
    taken: list[tuple[int, int]] = []
    for m in _FROM_TO.finditer(text):
        b = "b" if m.group("b") else "b2"
        v = _number(m.group(b))
        if v is None:
            continue
        end = m.end(b)
        um = re.match(r"\s?(%|dB|points?)", text[end:])
        unit = _unit(um.group(1)) if um else ""
        if not unit:
            ua = re.match(r"\s?(%|dB|points?)", text[m.end("a" if m.group("a") else "a2") :])
            unit = _unit(ua.group(1)) if ua else ""
        if um:
            end += um.end()
        out.append(
            _Value(off + m.start(b), off + end, v, unit, "absolute", unit == "", from_start=off + m.start())
        )
        taken.append((m.start(), end))
    for m in _RANGE.finditer(text):
        if any(s <= m.start() < e for s, e in taken):
            continue
        v = _number(m.group("b"))
        unit = _unit(m.group("ub") or m.group("ua"))
        if v is None or not unit:
            continue
        kind: ResultKind = "ratio" if unit == "x" else "delta" if unit == "points" else "absolute"
        out.append(
            _Value(off + m.start("b"), off + m.end(), v, unit, kind, False, from_start=off + m.start())
        )
        taken.append((m.start(), m.end()))
    for m in _VALUE.finditer(text):
        if any(s <= m.start() < e for s, e in taken):
            continue
        num, unit_raw = m.group("num"), m.group("unit")
        nxt = text[m.end() : m.end() + 1]
        if not unit_raw and (nxt.isalnum() or nxt in "×/^"):
            continue  # "7B", "3D", "256×256", "1/2"
        if not unit_raw and re.match(r"\s*(?:[kKMB]\b|[×x]\s*\d)", text[m.end() :]):
            continue
        if not unit_raw and re.match(r" \d", text[m.end() :]):
            continue  # "an accuracy of 13.64 55.53%": a range whose dash was lost, or no value
        if not unit_raw and (
            (text[max(0, m.start() - 1) : m.start()] == "(" and text[m.end() : m.end() + 1] == ")")
            or re.search(r"[<>≤≥]\s*$", text[max(0, m.start() - 3) : m.start()])
        ):
            continue  # "(1)" enumerates, "ε > 0" bounds: no scores
        if (
            not unit_raw
            and "." not in num
            and text[m.end() : m.end() + 1] == ")"
            and "(" not in text[max(0, m.start() - 15) : m.start()]
        ):
            continue  # "we found that 1) … 2) accuracy often …": an enumerator
        v = _number(num)
        if v is None:
            continue
        unit = _unit(unit_raw)
        if unit == "" and "." not in num and 1900 <= v <= 2100:
            continue  # a year
        if text[max(0, m.start() - 1) : m.start()] == "[" or (
            unit == "" and text[m.end() : m.end() + 1] == "]"
        ):
            continue  # a citation
        sign = m.group("sign") or ""
        if sign in ("−", "-"):
            v = -v
        kind = "ratio" if unit == "x" else "absolute"
        if sign == "+" or (kind == "absolute" and unit == "points"):
            kind = "delta"
        out.append(_Value(off + m.start(), off + m.end(), v, unit, kind, unit == ""))
    out.sort(key=lambda x: x.start)
    return out


class _Entities:
    """The doc's mentions of one type, each named by its canonical entity."""

    def __init__(self, doc: Doc) -> None:
        text = doc_text(doc)
        self.by_key: dict[tuple[str, str], EntityRef] = {}
        self.proposals: list[tuple[int, EntityRef]] = []
        for e in doc._.kg_entities or []:
            eref = EntityRef(cast(EntityType, e["type"]), str(e["name"]), e.get("kind"))
            for form in [e["name"], e.get("mention") or "", *(e.get("aliases") or ())]:
                if key := match_key(str(form)):
                    self.by_key.setdefault((eref.type, key), eref)
            if e.get("relation") == "proposes":
                self.proposals.append((int(e["start"]), eref))
        self.spans: dict[str, list[_Span]] = {t: [] for t in ("Metric", "Dataset", "Method", "Model")}
        self._seen: set[tuple[int, int, str]] = set()
        linked, rules = doc._.kg_mentions or [], doc._.kg_rule_mentions
        if rules is None:
            self._read(linked, text, self.spans.keys(), from_rules=False)
        else:
            # Under the trained linker, metrics and datasets are read from the rules' mentions (kept by the
            # linker) and methods from both: a result needs its measure and benchmark named as the rules
            # name them ("top-1 accuracy", not the "accuracy" inside it; no device as a dataset), while the
            # linker names more of the variants a result belongs to (bench/results/results_cv.json).
            self._read(linked, text, ("Method", "Model"), from_rules=False)
            self._read(rules, text, self.spans.keys(), from_rules=True)
            self.proposals.sort(key=lambda p: p[0])
        for spans in self.spans.values():
            spans.sort(key=lambda s: (s.start, -s.end))

    def _read(
        self, mentions: Iterable[Mention], text: str, types: Iterable[str], *, from_rules: bool
    ) -> None:
        """The spans of these mentions of `types`, each named by its canonical entity; a mention of the
        rules' the linker left out is named by itself when it is a vocabulary entry, a variant or a
        baseline."""
        wanted = set(types)
        for m in mentions:
            t, s, e = m["type"], int(m["start"]), int(m["end"])
            if t not in wanted or (s, e, t) in self._seen:
                continue
            written = match_key(text[s:e])
            ref = self.by_key.get((t, match_key(m["name"]))) or self.by_key.get((t, written))
            as_method = any((o, written) in self.by_key for o in ("Method", "Model"))
            if not from_rules and t == "Metric" and as_method:
                continue  # "outperforming MAE by 0.8%": the masked autoencoder, not the mean absolute error
            vocab = m["rule"].startswith("vocab")
            by_itself = (vocab or t in ("Method", "Model")) if from_rules else (vocab and t == "Metric")
            if ref is None and by_itself:
                ref = EntityRef(cast(EntityType, t), m["name"], m.get("kind"))
            if ref is None:
                continue
            self._seen.add((s, e, t))
            self.spans[t].append(_Span(s, e, ref))
            if from_rules and m["rule"] == "propose-variant" and all(ref != r for _, r in self.proposals):
                self.proposals.append((s, ref))  # "UniNet-B5", a variant of the paper's proposal

    def within(self, type_: str, start: int, end: int) -> list[_Span]:
        return [s for s in self.spans[type_] if start <= s.start and s.end <= end]


def _metrics_in(ents: _Entities, text: str, off: int, end: int) -> list[_Span]:
    """Metric mentions of a sentence: the pipeline's, then the few measures it rarely holds as entities."""
    found = [
        m
        for m in ents.within("Metric", off, end)
        if not _AFTER_CUE.search(text, max(off, m.start - 40), m.start)
    ]
    sent = text[off:end]
    for m in _EXTRA_ANY.finditer(sent):
        s, e = off + m.start(), off + m.end()
        if not re.match(r"(?<![\w-])", sent[m.start() - 1 : m.start()] if m.start() else ""):
            continue
        if m.start() and (sent[m.start() - 1].isalnum() or sent[m.start() - 1] == "-"):
            continue
        if e < end and (text[e].isalnum()):
            continue
        if any(f.start < e and s < f.end for f in found):
            continue
        word = m.group()
        name = next(n for p, n in EXTRA_METRICS if p.fullmatch(word))
        found.append(_Span(s, e, EntityRef("Metric", name)))
    for m in _AT_K.finditer(text, off, end):  # "29.9 nDCG@10", "Recall@2 of 30.5"
        if not any(f.start < m.end() and m.start() < f.end for f in found):
            found.append(_Span(m.start(), m.end(), EntityRef("Metric", m.group())))
    found.sort(key=lambda s: s.start)
    return found


_DS_NAMED = re.compile(
    r"\b[Oo]n\s+(?P<a>[A-Z0-9][\w+-]*(?:\.[\w+-]+)*(?:\s+[A-Z0-9][\w+-]*(?:\.[\w+-]+)*){0,2}"
    r"(?:\s+v\d+(?:\.\d+)*)?)"
    r"(?=\s*[,;.)]|\s+(?:and|with|while|where|which|under|using|respectively|to|by|at|when|dataset|benchmark|"
    r"corpus|test|validation)\b|\s*$)"
    r"|\b[Oo]n\s+the\s+(?P<c>[A-Z0-9][\w+-]*(?:\s+[A-Z0-9][\w+-]*){0,2})\s+(?:dataset|benchmark|corpus)\b"
    r"|\b(?P<b>[A-Z0-9][\w.+-]*(?:\s+[A-Z0-9][\w.+-]*){0,2})\s+(?:[a-z]+\s+)?(?:dataset|benchmark|corpus)\b"
)
_NOT_DATASET = frozenset(
    [
        "the",
        "this",
        "that",
        "these",
        "those",
        "our",
        "its",
        "their",
        "each",
        "both",
        "all",
        "a",
        "an",
        "we",
        "it",
    ]
)


def _datasets_in(ents: _Entities, text: str, off: int, end: int) -> list[_Span]:
    """Dataset mentions of a sentence: the pipeline's, then names written where datasets go ("on DocRED",
    "the IMDB review dataset") that name nothing else the pipeline found (used for results only)."""
    from kg.extract.common import name_strength
    from kg.extract.corpus_words import load_corpus_words

    found = ents.within("Dataset", off, end)
    taken = [
        (s.start, s.end) for t in ("Dataset", "Method", "Model", "Metric") for s in ents.within(t, off, end)
    ]
    words = load_corpus_words()
    for m in _DS_NAMED.finditer(text, off, end):
        g = "a" if m.group("a") else "b" if m.group("b") else "c"
        name = m.group(g)
        s, e = m.start(g), m.end(g)
        if any(a < e and s < b for a, b in taken):
            continue
        parts = name.split()
        if parts[0].lower() in _NOT_DATASET:
            continue
        strength = max(name_strength(w) for w in parts)
        if strength == 0 or (strength == 1 and (g == "a" or all(words.common_word(w) for w in parts))):
            continue
        key = match_key(name)
        if any((t, key) in ents.by_key for t in ("Method", "Model", "Metric", "Task")):
            continue
        ref = ents.by_key.get(("Dataset", key)) or EntityRef("Dataset", name)
        found.append(_Span(s, e, ref))
        taken.append((s, e))
    found.sort(key=lambda x: x.start)
    return found


def _words(gap: str) -> int:
    return len(_WORD.findall(gap))


def _tie_metric(
    text: str, metrics: list[_Span], first: _Value, last: _Value, others: list[_Value], loose: bool = False
) -> tuple[_Span, bool] | None:
    """The metric a value (or a list of values) belongs to, and whether it sits right beside it."""
    best: tuple[float, _Span, bool] | None = None
    for m in metrics:
        if m.start >= last.end:
            gap = text[last.end : m.start]
            if not _AFTER_GAP.match(gap) or any(last.end <= o.start < m.start for o in others):
                continue
            if _OWN_VALUE.match(text[m.end : m.end + 20]):
                continue  # "MAE of 5.64 RMSE of 7.15": RMSE has its own value
            if last.unit == "%" and re.match(r"\s*of\b", gap):
                continue  # "70% of the training time": a share, not a value of the measure
            cost = float(_words(gap))
            tight = cost <= 2
        elif m.end <= (
            first.from_start if first.from_start is not None else first.start
        ) and not _OWN_NOUN.match(text[last.end : last.end + 40]):
            start = first.from_start if first.from_start is not None else first.start
            gap = text[m.end : start]
            if _CLAUSE_BREAK.search(gap) or any(m.end <= o.start < start for o in others):
                continue
            names_own = _NAMES_OWN.match(text[last.end : last.end + 40])
            if names_own and re.match(
                r"\s*(?:increase|decrease|reduction|improvement|gain|drop)", text[last.end :]
            ):
                continue  # "a 15.15% decrease in the average time steps": its own measure
            if (
                names_own
                and not _OWN_VALUE.match(text[m.end : m.end + 20])
                and any(
                    o.end <= m.start and _AFTER_GAP.match(text[o.end : m.start]) and o.unit == first.unit
                    for o in others
                )
            ):
                continue  # "3.1% in ROUGE-L, 4.6% in correctness": ROUGE-L is the measure of 3.1%
            n = _words(gap)
            tight = bool(_TIGHT_BEFORE.match(gap))
            if n > 9 or (first.bare and not tight and not loose):
                continue
            cost = n + (0.5 if not tight else 0.0)
            if first.unit == "%" and not tight and _FRACTION_OF.match(text[last.end :]):
                continue  # "accuracy with 10% of the labels"
        else:
            continue
        if first.bare and not tight and not loose:
            continue
        counted = (
            _COUNTED.match(text[last.end : last.end + 30])
            if last.bare and m.start < first.start
            else _SETTING.match(text[last.end : last.end + 30])
            if not tight and m.start < first.start
            else None
        )
        if counted and not any(
            x.start == last.end + len(text[last.end :]) - len(text[last.end :].lstrip()) for x in metrics
        ):
            continue  # "512 batch size", "in 400 epochs": a count of something, not a score
        if best is None or cost < best[0]:
            best = (cost, m, tight)
    return None if best is None else (best[1], best[2])


def _between(others: list[_Value], lo: int, hi: int) -> bool:
    return any(lo <= o.start < hi for o in others)


def _nearest_dataset(
    text: str, datasets: list[_Span], v: _Value, metric: _Span, others: list[_Value], off: int, end: int
) -> EntityRef | None:
    """The dataset a value was measured on: named after it in its clause ("on X"), else before it; never
    across another value."""
    paren = [d for d in datasets if d.end <= v.start and re.fullmatch(r"\s*\(\s*", text[d.end : v.start])]
    if paren:
        return paren[-1].ref  # "Stanford Cars (96.0%), CIFAR-10 (99.0%)"
    lo, hi = min(v.start, metric.start), max(v.end, metric.end)
    after = [
        d
        for d in datasets
        if d.start >= hi
        and _words(text[hi : d.start]) <= 12
        and ";" not in text[hi : d.start]
        and not _between(others, hi, d.start)
    ]
    before = [
        d
        for d in datasets
        if d.end <= lo and not _CLAUSE_END.search(text[d.end : lo]) and not _between(others, d.end, lo)
    ]
    distinct = {d.ref for d in datasets}
    if len(distinct) >= 2 and _AVERAGE.search(text[off:end]) and len({d.ref for d in after}) >= 2:
        return None  # an average over several datasets
    if after:
        return after[0].ref
    if before:
        return before[-1].ref
    return None


# "Based on VGG16, it achieves …", "speedups for Llama2-7B": what the method is built on or applied to
_BACKBONE_CUE = re.compile(
    r"\b(?:based on|built (?:up)?on|on top of|using|with|for|of|to|from|applied to|backbones? (?:of|like))\s+"
    r"(?:the\s+|a\s+|an\s+)?$",
    re.I,
)
# "Cookbook-generated data", "BERT-based models": a name used as an adjective
_ADJECTIVAL = re.compile(r"^[^\s]*-(?:generated|based|style|like|trained|tuned|guided|driven)\b")


def _method(ents: _Entities, text: str, v: _Value, off: int) -> EntityRef | None:
    """The paper's method or model the value belongs to: a model or method named before it in the sentence
    (not after a comparison cue), the paper's proposal when the sentence speaks of it or of "we/our"."""
    before = text[off : v.start]
    props = [r for _, r in ents.proposals]
    named = [
        s
        for t in ("Method", "Model")
        for s in ents.within(t, off, v.start)
        if not _BASELINE_CUE.search(text[max(off, s.start - 60) : s.start])
        and not _BACKBONE_CUE.search(text[max(off, s.start - 40) : s.start])
        and not _ADJECTIVAL.search(text[s.start : s.end + 12])
    ]
    named.sort(key=lambda s: s.start)
    if any(s.ref in props for s in named):
        return next(s.ref for s in named if s.ref in props)
    if props and _OWN.search(before):
        return props[0]
    if named and not _OWN.search(before):
        return named[-1].ref
    return props[0] if props else None


# "surpassing existing methods over 30%", "outperform … by, on average 23.97%", "by mAP of 6.4%"
_DELTA_BEFORE_LOOSE = re.compile(
    r"(?:\b(?:outperform\w*|surpass\w*|exceed\w*|beat\w*|improv\w*|increas\w*|boost\w*)\s+(?:[^\s.;]+\s+){0,5}"
    r"(?:by|over)|\bby)[\s,]+(?:(?:on average|an average of|up to|about|nearly|over|at least|roughly|mAP|"
    r"[\w-]+\s+of|of)[\s,]+)*$",
    re.I,
)
# "a reduction in performance decline from 1.5 mAP to 0.3 mAP": the values of a decline are deltas
_DECLINE = re.compile(r"\b(?:declines?|drops?|degradation|gaps?|loss(?:es)?)\s+(?:\w+\s+){0,2}$", re.I)
_POINTS_AFTER = re.compile(r"^\s*(?:\([^()]{1,20}\)\s*)?points?\b", re.I)


_AND_THEN = re.compile(
    r"^\s*(?:[^\s,;]+\s*)?(?:,\s*)?and\s+(?:especially|also|even|in particular)?,?\s*$", re.I
)
_NAME = r"[A-Z][\w.+-]*(?:\s[A-Z0-9][\w.+-]*)?"


def _listed_at(text: str, datasets: list[_Span], lo: int, hi: int, n: int) -> int | None:
    """Where the dataset read lies in a list of exactly `n` names between `lo` and `hi`, if there is one."""
    if hi <= lo:
        return None
    sep = r"(?:\s*,\s*(?:and\s+)?|\s+and\s+)"
    end = r"(?!\w|\s*,?\s*(?:and\s+)?[A-Z])"
    m = re.search(rf"{_NAME}(?:{sep}{_NAME}){{{n - 1}}}{end}", text[lo:hi])
    if m is None:
        return None
    names = [x for x in re.finditer(_NAME, m.group())]
    if len(names) != n:
        return None
    for d in datasets:
        for k, x in enumerate(names):
            if lo + m.start() + x.start() <= d.start < lo + m.start() + x.end():
                return k
    return None


def _improvement(text: str, off: int, end: int, group: list[_Value], metric: _Span) -> bool:
    """Whether the words around values and their metric state an improvement, not a score: "by 3%", "3%
    higher", "a 2.69% relative accuracy improvement", "an increase in accuracy of 0.54%"."""
    first = group[0]
    # a range "1-2%" or "from 1.5 mAP to 0.3 mAP" is read from where it starts
    start = first.from_start if first.from_start is not None else first.start
    from_to = text[start : start + 4].lower() == "from"
    before = text[off : first.start if from_to else start]
    if _DELTA_AFTER.match(text[group[-1].end : end]) or _DELTA_BEFORE.search(before):
        return True
    if _DELTA_BEFORE_LOOSE.search(before) or (from_to and _DECLINE.search(text[off:start])):
        return True
    if metric.start >= group[-1].end:
        gap = text[group[-1].end : metric.start]
        if _POINTS_AFTER.match(text[metric.end : end]) and _AFTER_GAP.match(gap):
            return True  # "4.0 accuracy points", "9.31% mean average precision (mAP) points"
        # "2.3 mAP and 7.0 mAP improvements": the improvement word after a parallel value of the metric
        same = re.escape(text[metric.start : metric.end])
        parallel = re.match(
            r"\s*(?:,\s*(?:and\s+)?|and\s+)[+]?\d+(?:\.\d+)?\s?%?\s*" + same, text[metric.end : end]
        )
        after = metric.end + (parallel.end() if parallel else 0)
        return bool(
            _AFTER_GAP.match(text[group[-1].end : metric.start])
            and _DELTA_AFTER_METRIC.match(text[after:end])
        )
    if metric.end <= group[0].start:
        return bool(
            _METRIC_TO_VALUE.match(text[metric.end : group[0].start])
            and _DELTA_BEFORE_METRIC.search(text[max(off, metric.start - 60) : metric.start])
        )
    return False


# A model or variant name as papers write it: "UniNet-B5", "DaViT-Giant", "ViT-L/16", "Llama-2-70B"
_VARIANT = re.compile(
    r"(?<![\w-])[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*(?:[-/][A-Za-z0-9.]*[A-Za-z0-9])+(?![\w-])"
)
_NAME_LIST_SEP = re.compile(r"^\s*(?:,\s*(?:and\s+|or\s+)?|and\s+|or\s+|/\s*)$")
# the verb that makes a name the subject of a stated result
_RESULT_VERB = re.compile(
    r"^\s*(?:\([^()]{0,40}\)\s*)?(?:,[^,]{0,40},\s*)?(?:also\s+|still\s+|further\s+|even\s+|only\s+)?"
    r"(?:achieves|achieved|obtains|obtained|reaches|reached|attains|attained|gets|sets|yields|scores|scored|"
    r"records|delivers|establishes|hits|improves|improved|boosts|boosted|outperforms|outperformed|surpasses|"
    r"surpassed|exceeds|exceeded|beats|has|is|ranks|shows|demonstrates|reports)\b"
)


# a method name in subject position ("HANDLOOM demonstrates … 85% accuracy", "TriForce achieves"): camel case
# or capitals, not a word that starts a sentence
_NAMEWORD = re.compile(r"(?<![\w-])(?:[A-Z][a-z0-9]*[A-Z][A-Za-z0-9]*|[A-Z]{3,}[0-9]*)(?![\w-])")


def _names_in(ents: _Entities, text: str, off: int, end: int, *, subjects: bool = False) -> list[_Span]:
    """Method and model mentions of a span of text, and variant names written as papers write them that the
    pipeline did not read as another kind of entity ("UniNet-B5 achieves 84.9%")."""
    spans = [*ents.within("Method", off, end), *ents.within("Model", off, end)]
    other = [s for t in ("Dataset", "Metric") for s in ents.within(t, off, end)]
    found = list(_VARIANT.finditer(text, off, end))
    if subjects:
        found += [m for m in _NAMEWORD.finditer(text, off, end) if _RESULT_VERB.match(text[m.end() : end])]
    for m in found:
        s, e = m.start(), m.end()
        if any(x.start < e and s < x.end for x in [*spans, *other]):
            continue
        key = match_key(m.group())
        if any((t, key) in ents.by_key for t in ("Dataset", "Metric", "Task")):
            continue
        if re.match(
            r"(?i)top-\d|\w+-(?:based|level|wise|scale|shot|free|aware|like|style|generated|trained|tuned)$",
            m.group(),
        ):
            continue
        spans.append(_Span(s, e, ents.by_key.get(("Model", key)) or EntityRef("Model", m.group())))
    spans.sort(key=lambda x: (x.start, -x.end))
    out: list[_Span] = []
    for x in spans:
        if not out or x.start >= out[-1].end:
            out.append(x)
    return out


def _subject(ents: _Entities, text: str, off: int, v: _Value, tied: list[_Value]) -> EntityRef | None:
    """The model or variant a value's clause is about: a name right before a result verb ("UniNet-B5
    achieves 84.9%", "SimMatch boosts FixMatch by 10%"), with no other stated value between them."""
    best: EntityRef | None = None
    for s in _names_in(ents, text, off, v.start, subjects=True):
        if not _RESULT_VERB.match(text[s.end : v.start]):
            continue
        if _BASELINE_CUE.search(text[max(off, s.start - 60) : s.start]) or _CLAUSE_BREAK.search(
            text[s.end : v.start]
        ):
            continue
        if any(s.end <= o.start < v.start for o in tied):
            continue
        best = s.ref
    return best


def _respective(
    ents: _Entities, text: str, off: int, group: list[_Value], resp_at: int, n: int
) -> tuple[list[EntityRef], list[EntityRef]]:
    """The models a "respectively" group of `n` values belongs to and the baselines it is compared with, one
    per value in order, when the sentence lists exactly `n` of them ("DaViT-Tiny, DaViT-Small and DaViT-Base
    achieve 82.8%, 84.2% and 84.6%"; "outperforming EfficientNet-B7 and BoTNet-T7 with 44% and 55% fewer
    FLOPs, respectively"); empty lists otherwise."""
    runs: list[tuple[bool, list[_Span]]] = []
    for s in _names_in(ents, text, off, resp_at if resp_at > 0 else group[-1].end):
        prev = runs[-1][1][-1] if runs else None
        if prev is not None and _NAME_LIST_SEP.match(text[prev.end : s.start]):
            runs[-1][1].append(s)
            continue
        runs.append((bool(_BASELINE_CUE.search(text[max(off, s.start - 60) : s.start])), [s]))
    own = [r for b, r in runs if not b and len(r) == n and r[-1].end <= group[0].start]
    base = [r for b, r in runs if b and len(r) == n]
    return (
        [s.ref for s in own[-1]] if own else [],
        [s.ref for s in base[0]] if len(base) == 1 else [],
    )


def _baseline(
    ents: _Entities,
    text: str,
    v: _Value,
    others: list[_Value],
    span: tuple[int, int],
    method: EntityRef | None,
    absolute: bool,
) -> EntityRef | None:
    """What the value is compared with: a method or model after a comparison cue, in the value's clause."""
    off, end = span
    best: tuple[int, EntityRef] | None = None
    for t in ("Method", "Model"):
        for s in ents.within(t, off, end):
            if s.ref == method or not _BASELINE_CUE.search(text[max(off, s.start - 60) : s.start]):
                continue
            if _between(others, min(s.end, v.end), max(s.start, v.start)):
                continue
            if s.start < v.start and absolute:
                continue  # "a 3x speed-up over X and a BLEU of 34.5": X is the speed-up's baseline
            dist = abs(s.start - v.end)
            if best is None or dist < best[0]:
                best = (dist, s.ref)
    return None if best is None else best[1]


_ON_NEXT = re.compile(r"^[\s\w().,-]{0,80}$")


def _continues(
    text: str, metrics: list[_Span], datasets: list[_Span], prev: tuple[_Value, _Span], v: _Value
) -> bool:
    """A value right after another of the same unit with only "on <dataset>," between, itself followed by
    "on <dataset>" or nothing: the same metric ("78.9% on A, 90.4% on B"; never "3.1% in ROUGE-L, 4.6% in
    correctness", where the next value names its own measure)."""
    last, _ = prev
    gap = text[last.end : v.start]
    if not (
        last.unit == v.unit
        and bool(_ON_NEXT.match(gap))
        and _words(gap) <= 10
        and not any(last.end <= m.start < v.start for m in metrics)
        and any(last.end <= d.start < v.start for d in datasets)
    ):
        return False
    after = re.match(r"\s*(?:on|in|for|across)\s+(?:the\s+)?", text[v.end : v.end + 20])
    if after is None:
        return not re.match(r"\s*(?:in|on|of|for)\b", text[v.end : v.end + 10])
    at = v.end + after.end()
    return any(d.start == at for d in datasets)


def _groups(text: str, values: list[_Value]) -> list[list[_Value]]:
    """Values listed together ("84.3% and 91.2%") share their metric."""
    out: list[list[_Value]] = []
    for v in values:
        gap = text[out[-1][-1].end : v.start] if out else ""
        if (
            out
            and out[-1][-1].unit == v.unit
            and _PAREN_GAP.match(gap)
            and text[v.end : v.end + 1] == ")"
            and v.from_start is None
        ):
            out[-1].append(v)  # "boosts FixMatch by 10% (14%)": the same gain, restated
            continue
        if out and out[-1][-1].unit == v.unit and _LIST_SEP.match(gap) and (gap.strip() or v.unit):
            if not gap.strip() and "respectively" not in text[v.end : v.end + 200]:
                out[-1][-1] = v  # "reduces about 40% 60% FLOPs": a range whose dash was lost, its upper bound
                continue
            out[-1].append(v)
        else:
            out.append([v])
    return out


def _row(
    v: _Value,
    sentence: tuple[int, int],
    kind: str,
    metric: EntityRef,
    *,
    dataset: EntityRef | None,
    splits: dict[EntityRef, str],
    method: EntityRef | None,
    baseline: EntityRef | None,
    confidence: float,
    rule: str,
    value: float | None = None,
) -> dict[str, Any]:
    """One result as the plain dict `find_results` returns (entity refs as [type, name, kind] lists)."""

    def ref(r: EntityRef | None) -> list[Any] | None:
        return None if r is None else [r.type, r.name, r.kind]

    return {
        "value": v.value if value is None else value,
        "unit": v.unit,
        "kind": kind,
        "metric": ref(metric),
        "dataset": ref(dataset),
        "split": None if dataset is None else splits.get(dataset),
        "method": ref(method),
        "baseline": ref(baseline),
        "start": v.start,
        "end": v.end,
        "sentence": list(sentence),
        "confidence": confidence,
        "rule": rule,
    }


def find_results(doc: Doc, *, refused: bool = False) -> list[dict[str, Any]]:
    """The results of a doc as plain dicts with doc offsets (msgpack-safe, like the mentions); `refused`
    adds the candidates the rules refuse (`_loose`) for the learned re-scorer to decide on."""
    text = doc_text(doc)
    start_at = abstract_start(doc)
    ents: _Entities | None = None
    out: list[dict[str, Any]] = []
    for off, end in sentences(doc):
        if end <= start_at:
            continue
        off = max(off, start_at)
        sent = text[off:end]
        if not any(c.isdigit() for c in sent):
            continue
        values = _values(sent, off)
        if not values:
            continue
        if ents is None:
            ents = _Entities(doc)
        metrics = _metrics_in(ents, text, off, end)
        if not metrics and not _GAIN_CUE.search(sent):
            continue
        datasets = _datasets_in(ents, text, off, end)
        respectively = "respectively" in sent
        prev: tuple[_Value, _Span] | None = None
        ties: list[tuple[list[_Value], _Span, bool]] = []
        for group in _groups(text, values):
            others = [o for o in values if o not in group]
            loose = respectively and len(group) > 1
            tie = _tie_metric(text, metrics, group[0], group[-1], others, loose)
            if tie is None and prev is not None and _continues(text, metrics, datasets, prev, group[0]):
                tie = (prev[1], False)  # "78.9% on A, 90.4% on B and 95.7% on C"
            if tie is None:
                prev = None
                continue
            prev = (group[-1], tie[0])
            ties.append((group, tie[0], tie[1]))
        tied = [v for group, _, _ in ties for v in group]
        only = list(dict.fromkeys(d.ref for d in datasets))
        splits = _splits(text, datasets)
        last_delta: int | None = None
        for group, metric, tight in ties:
            others = [o for o in tied if o not in group]
            resp_at = text.find("respectively", group[-1].end, end) if respectively else -1
            ds_distinct = list(
                dict.fromkeys(d.ref for d in datasets if group[0].start < d.start and d.end <= resp_at)
            )
            if respectively and len(ds_distinct) != len(group):
                # "perplexities on A and B to 47.7 and 40.7, respectively": the datasets before the values
                lo = metric.end if metric.end <= group[0].start else off
                ds_distinct = list(
                    dict.fromkeys(d.ref for d in datasets if lo <= d.start and d.end <= group[0].start)
                )
            ms_distinct = list(
                dict.fromkeys(m.ref for m in metrics if group[-1].end < m.start and m.end <= resp_at)
            )
            own_list: list[EntityRef] = []
            base_list: list[EntityRef] = []
            if respectively and len(group) > 1:
                own_list, base_list = _respective(ents, text, off, group, resp_at, len(group))
            for i, v in enumerate(group):
                v_metric = metric.ref
                if respectively and len(group) > 1 and len(ms_distinct) == len(group):
                    v_metric = ms_distinct[i]
                if respectively and len(group) > 1 and len(ds_distinct) == len(group):
                    dataset: EntityRef | None = ds_distinct[i]
                elif respectively and len(group) > 1 and len(only) == 1:
                    # "72.4% and 72.3% on CIFAR100 for CNNs and RNNs, respectively", unless the one dataset
                    # read is one of a list of as many names ("on MS-COCO, VOC2007, and VOC2012")
                    at = _listed_at(text, datasets, group[-1].end, resp_at, len(group))
                    dataset = only[0] if at is None or at == i else None
                elif respectively and len(group) > 1:
                    dataset = None  # "+23% +20% +26% … on A B C and D respectively" with a name not read
                else:
                    dataset = _nearest_dataset(text, datasets, v, metric, others, off, end)
                    if dataset is None and len(only) == 1 and not _AVERAGE.search(sent):
                        dataset = only[0]  # the one dataset the sentence names
                kind = v.kind
                if kind == "absolute" and _improvement(text, off, end, group, metric):
                    kind = "delta"
                if kind == "absolute" and last_delta and _AND_THEN.match(text[last_delta : v.start]):
                    kind = "delta"  # "by 6.4% AP and especially, 7.8% AP_small": the same gain goes on
                if (
                    kind == "absolute"
                    and v.from_start is None
                    and text[max(off, v.start - 6) : v.start].lower().strip().endswith("by")
                ):
                    kind = "delta"
                method = (
                    own_list[i]
                    if own_list
                    else _subject(ents, text, off, v, tied) or _method(ents, text, v, off)
                )
                baseline = (
                    base_list[i]
                    if base_list
                    else _baseline(ents, text, v, others, (off, end), method, kind == "absolute")
                )
                conf = 0.85 if tight else 0.7
                if dataset is not None:
                    conf += 0.05
                if v.bare:
                    conf -= 0.05
                if len(group) > 1 and not respectively:
                    conf -= 0.05
                out.append(
                    _row(
                        v,
                        (off, end),
                        kind,
                        v_metric,
                        dataset=dataset,
                        splits=splits,
                        method=method,
                        baseline=baseline,
                        confidence=round(min(conf, 0.95), 3),
                        rule="result-" + ("tight" if tight else "near"),
                    )
                )
                last_delta = v.end if kind == "delta" else None
        gains = _performance_gains(ents, text, off, end, values, tied, datasets, only, splits)
        out.extend(gains)
        if refused and metrics:
            taken = {int(g["start"]) for g in gains}
            out.extend(
                _loose(
                    ents,
                    text,
                    off,
                    end,
                    [v for v in values if v not in tied and v.start not in taken],
                    values,
                    tied,
                    metrics,
                    datasets,
                    only,
                    splits,
                )
            )
    return out


_LOOSE_WORDS = 12


def _loose(
    ents: _Entities,
    text: str,
    off: int,
    end: int,
    untied: list[_Value],
    values: list[_Value],
    tied: list[_Value],
    metrics: list[_Span],
    datasets: list[_Span],
    only: list[EntityRef],
    splits: dict[EntityRef, str],
) -> list[dict[str, Any]]:
    """Candidates the rules refuse (issue 28's learned re-scorer decides on them): a value no rule ties to a
    metric, tied to the nearest metric of its sentence within a few words, at confidence 0.5."""
    out: list[dict[str, Any]] = []
    for v in untied:
        best: tuple[int, _Span] | None = None
        for m in metrics:
            gap = (
                text[v.end : m.start]
                if m.start >= v.end
                else text[m.end : v.start]
                if m.end <= v.start
                else None
            )
            if gap is None:
                continue
            n = _words(gap)
            if n <= (2 if v.bare else _LOOSE_WORDS) and (best is None or n < best[0]):
                best = (n, m)
        if best is None:
            continue
        metric = best[1]
        others = [o for o in values if o is not v]
        dataset = _nearest_dataset(text, datasets, v, metric, others, off, end)
        if dataset is None and len(only) == 1 and not _AVERAGE.search(text[off:end]):
            dataset = only[0]
        kind = v.kind
        if kind == "absolute" and (
            _improvement(text, off, end, [v], metric)
            or text[max(off, v.start - 6) : v.start].lower().strip().endswith("by")
        ):
            kind = "delta"
        method = _subject(ents, text, off, v, tied) or _method(ents, text, v, off)
        baseline = _baseline(ents, text, v, others, (off, end), method, kind == "absolute")
        out.append(
            _row(
                v,
                (off, end),
                kind,
                metric.ref,
                dataset=dataset,
                splits=splits,
                method=method,
                baseline=baseline,
                confidence=0.5,
                rule="result-loose",
            )
        )
    return out


_PERFORMANCE = EntityRef("Metric", "performance")  # the measure of an improvement that names none
_GAIN_CUE = re.compile(r"\b(?:outperform|surpass|improv|boost|exceed|beat|gain|increas)", re.I)
# "outperforms X by 5.5%", "improves the SOTA … by 4.3%": an improvement whose measure is not named
_GAIN_BY = re.compile(
    r"\b(?:outperform\w*|surpass\w*|improv\w*|boost\w*|exceed\w*|beat\w*)\b[^;:]{0,90}?\bby\s+"
    r"(?:up to\s+|about\s+|over\s+|nearly\s+|at least\s+|around\s+|roughly\s+|an average of\s+|"
    r"an absolute\s+|a relative\s+|a margin of\s+|[~∼≈]\s*)?$",
    re.I,
)
# "an average improvement of 5.7%", "gains of up to 15%"
_GAIN_OF = re.compile(
    r"\b(?:improvements?|gains?|increases?|boosts?)\s+of\s+(?:up to\s+|about\s+|over\s+|nearly\s+|"
    r"around\s+|roughly\s+|at least\s+|[~∼≈]\s*)?$",
    re.I,
)
# "a 5.6% improvement on WebArena", "5.25% absolute improvement over SPQR"
_GAIN_AFTER = re.compile(
    r"^\s*(?:absolute\s+|relative\s+|average\s+|overall\s+|performance\s+)?(?:improvements?|gains?|boosts?)\b"
    r"(?!\s+(?:in|on)\s+(?:the\s+)?(?:number|amount|size|speed|time|cost|memory|efficiency)\b)",
    re.I,
)


_MEASURE_NAMED = re.compile(
    r"^\s*(?:(?:absolute|relative|average)\s+)?(?:(?:improvements?|gains?|increases?)\s+)?in\s+(?!total\b|all\b)",
    re.I,
)


def _performance_gains(
    ents: _Entities,
    text: str,
    off: int,
    end: int,
    values: list[_Value],
    tied: list[_Value],
    datasets: list[_Span],
    only: list[EntityRef],
    splits: dict[EntityRef, str],
) -> list[dict[str, Any]]:
    """Improvements stated without a named measure ("outperforms the baseline by 5.5%", "an average
    improvement of 5.7% over the previous state of the art"): deltas of "performance", never absolute
    scores (so never ranked), at a lower confidence than a value beside its metric."""
    out: list[dict[str, Any]] = []
    for v in values:
        if v in tied or v.unit not in ("%", "points") or v.from_start is not None:
            continue
        before, after = text[max(off, v.start - 140) : v.start], text[v.end : end]
        if not (_GAIN_BY.search(before) or _GAIN_OF.search(before) or _GAIN_AFTER.match(after)):
            continue
        if re.match(r"\s*(?:of|in)\s+(?:the\s+)?(?:cases|time|samples|data|parameters|tokens)\b", after):
            continue
        if _MEASURE_NAMED.match(after) or "in terms of" in after[:80]:
            continue  # "a gain of 4 points in MAP": a measure is named, only not one we know
        others = [o for o in values if o is not v]
        anchor = _Span(v.start, v.end, _PERFORMANCE)
        dataset = _nearest_dataset(text, datasets, v, anchor, others, off, end)
        if dataset is None and len(only) == 1 and not _AVERAGE.search(text[off:end]):
            dataset = only[0]
        method = _subject(ents, text, off, v, tied) or _method(ents, text, v, off)
        baseline = _baseline(ents, text, v, others, (off, end), method, False)
        out.append(
            _row(
                v,
                (off, end),
                "delta",
                _PERFORMANCE,
                dataset=dataset,
                splits=splits,
                method=method,
                baseline=baseline,
                confidence=0.7,
                rule="result-performance",
                value=-v.value if v.value < 0 else v.value,
            )
        )
    return out


_RESOLUTION = re.compile(r"(\d{2,4})\s*(?:x|×|\$\\times\$|\\times)\s*(\d{2,4})")
_SPLIT_AFTER = re.compile(
    r"\s*(?:\(|,)?\s*(?:the\s+)?(test-dev|test-std|test|val|validation|dev|development)\b(?:\s*(?:set|split))?",
    re.I,
)
_SPLIT_NAMES = {"validation": "val", "development": "dev"}


def _splits(text: str, datasets: list[_Span]) -> dict[EntityRef, str]:
    """The split or resolution each dataset is named with in a sentence: "ImageNet 256×256" → 256x256,
    "COCO test-dev" → test-dev, "the ImageNet validation set" → val (the first one stated wins)."""
    out: dict[EntityRef, str] = {}
    for d in datasets:
        if d.ref in out:
            continue
        res = _RESOLUTION.search(text, d.start, min(len(text), d.end + 14))
        if res is not None and res.start() <= d.end + 2:
            out[d.ref] = f"{res.group(1)}x{res.group(2)}"
        elif (split := _SPLIT_AFTER.match(text, d.end)) is not None:
            word = split.group(1).lower()
            out[d.ref] = _SPLIT_NAMES.get(word, word)
    return out


def _ref(x: list[Any] | None) -> EntityRef | None:
    return None if not x else EntityRef(cast(EntityType, x[0]), str(x[1]), x[2])


def results_from_doc(doc: Doc) -> tuple[Result, ...]:
    """The `Result` records of a processed doc, offsets in the abstract (the field they were read from)."""
    text = doc_text(doc)
    shift = abstract_start(doc)
    out = []
    for r in doc._.kg_results or []:
        metric = _ref(r["metric"])
        if metric is None:
            continue
        s0, s1 = r["sentence"]
        out.append(
            Result(
                value=float(r["value"]),
                unit=str(r["unit"]),
                kind=r["kind"],
                metric=metric,
                dataset=_ref(r["dataset"]),
                method=_ref(r["method"]),
                baseline=_ref(r["baseline"]),
                split=r.get("split"),
                evidence=Evidence(
                    sentence=text[s0:s1].strip(),
                    mention=text[r["start"] : r["end"]],
                    start=int(r["start"]) - shift,
                    end=int(r["end"]) - shift,
                    confidence=float(r["confidence"]),
                    field="abstract",
                    rule=str(r["rule"]),
                ),
            )
        )
    return tuple(out)


def result_json(r: Result) -> dict[str, Any]:
    """One result in the stable `kg extract --format jsonl` shape."""
    value: float | int = int(r.value) if r.value.is_integer() else r.value
    return {
        "value": value,
        "unit": r.unit,
        "kind": r.kind,
        "metric": r.metric.name,
        "dataset": None if r.dataset is None else r.dataset.name,
        "method": None if r.method is None else r.method.name,
        "baseline": None if r.baseline is None else r.baseline.name,
        "split": r.split,
        "evidence": r.evidence.sentence,
        "start": r.evidence.start,
        "end": r.evidence.end,
        "confidence": r.evidence.confidence,
    }
