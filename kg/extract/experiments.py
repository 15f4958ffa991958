"""Evaluation-context rules: datasets/benchmarks named around "dataset"/"benchmark" words and in
"experiments on X, Y and Z", methods compared against ("compared to X", "outperforms X"), methods built on
("with a X backbone", "built on X"), and metrics after reported numbers ("by 4.2% on task success")."""

from __future__ import annotations

import re

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.language import Language
from spacy.tokens import Doc

from kg.extract.common import (
    CONF_PATTERN,
    CONF_WEAK,
    NAME_RE,
    Mention,
    doc_text,
    mention,
    mentions,
    name_strength,
    sentences,
)
from kg.extract.corpus_words import load_corpus_words
from kg.extract.lexicon import Lexicon, load_lexicon

_DS = r"(?:datasets?|benchmarks?|corpus|corpora|suites?|testbeds?|collections?)"
# "on the X, Y, and Z datasets": a list of names right before a dataset word
_LIST_BEFORE = re.compile(
    r"(?<![\w.+-])((?:[\w.+-]+(?:\s*\$\\times\$\s*\d+)?\s*,\s*(?:and\s+|or\s+)?|[\w.+-]+\s+(?:and|or)\s+)*"
    r"[\w.+-]+)\s+" + _DS + r"\b"
)
_NAME_NEXT = re.compile(r"\s+[A-Z][\w.+-]*[A-Z0-9]")  # a name-shaped word right after the dataset word
_COUNTED = re.compile(
    r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|several|various|multiple|many|numerous|"
    r"diverse|different|all|both)\s+(?:[\w-]+\s+)?$",
    re.I,
)
_DS_WORD = re.compile(r"\s" + _DS + r"\b")  # cheap precheck for _LIST_BEFORE (case-sensitive like it)
# "datasets such as X and Y", "benchmarks (e.g., X, Y)", "the IPI benchmark AgentDojo"
_LIST_AFTER = re.compile(
    _DS + r"\s*(?:,\s*)?(?:\(|such as|including|like|e\.g\.,?|namely|:)\s*"
    r"((?:[\w.+-]+\s*(?:,\s*and|,\s*or|,|and|or)\s*)*[\w.+-]+)",
    re.I,
)
_APPOS = re.compile(r"\b" + _DS + r"\s+([A-Z][\w.+-]*)")
# "on two benchmarks SParC and CoSQL", "two benchmark datasets, X and Y": a bare list of two or more names
_LIST_BARE = re.compile(_DS + r",?\s+((?:[A-Z][\w.+-]*\s*(?:,\s*and|,\s*or|,|and|or)\s*)+[A-Z][\w.+-]*)")
_EVAL = re.compile(
    r"\b(experiments?|evaluat\w*|results?|experimented|tested|trained|test|validat\w*)\s+"
    r"(?:\w+\s+){0,3}?(on|with|across|using)\s+((?:[\w.+-]+(?:\$\\times\$\d+)?\s*(?:,\s*and|,\s*or|,|and|or)"
    r"\s*)*[\w.+-]+)",
    re.I,
)
_COMPARE = re.compile(
    r"\b(compared (?:to|with|against)|comparisons? (?:to|with|against)|outperform\w*|"
    r"surpass\w*|baselines?(?: such as| including| like)?|than|over|versus|vs\.?)\s+"
    r"(?:(?:the|state-of-the-art|strong|existing|prior|prominent|techniques|methods|approaches|"
    r"baselines|models|such as|including|like|e\.g\.)[\s,]+)*"
    r"((?:[\w.+-]+\s*(?:,\s*and|,\s*or|,|and|or)\s*)*[\w.+-]+)",
    re.I,
)
_USES = re.compile(
    r"\b(built (?:up)?on|based on|on top of|backbones?(?: such as)?|with an? |paired with an? )"
    r"((?:[\w.+-]+\s+){0,2}[\w.+-]+)",
    re.I,
)
_METRIC = re.compile(
    r"\d(?:\.\d+)?\s*%\s+(?:(?:higher|lower|better|improvement|gains?|increase)\s+)?(?:on|in)\s+"
    r"((?:[a-z][\w-]+\s+){0,2}(?:success|accuracy|rate|score|error|recall|precision))\b",
    re.I,
)
# utility as the measure traded against privacy/robustness: "privacy-utility trade-off", "preserving utility"
_UTILITY = re.compile(
    r"\b(?:model utility|utility[- ](?:preservation|loss|drop|degradation|trade-?offs?)|"
    r"(?:preserv|maintain|retain|sacrific)\w* (?:the )?(?:model(?:'s)? )?utility\b|"
    r"(?:privacy|security|robustness|safety|fairness)[- ](?:and[- ])?utility\b)",
    re.I,
)
# "the X benchmark and Y": a name coordinated with a dataset mention
_COORD = re.compile(r"\b" + _DS + r"\s*(?:,\s*and|,|and)\s+(?:the\s+)?([A-Za-z][\w.+-]*)(?=[\s,.;)]|$)")
_CMP_CUES = ("compar", "outperform", "surpass", "baseline", "than", "over", "against", "versus", "vs")
_GENERIC_WORDS = {
    "The",
    "This",
    "These",
    "Our",
    "We",
    "In",
    "On",
    "It",
    "Its",
    "All",
    "Both",
    "Each",
    "A",
    "An",
}


_UPPER_OR_DIGIT = re.compile(r"[A-Z0-9]")
_LIST_NEXT = re.compile(r"^\s*(?:$|,|;|\.(?:\s|$)|and\b|or\b|\)|\$\\times)")


def _names(text: str, start: int, min_strength: int) -> list[tuple[int, int, str]]:
    """Names that are list items (followed by a comma, and/or, or the end), not modifiers ("post-SFT
    methods"); a plain capitalised word inside a Title Case run ("Image Captioning Dataset") is not one."""
    out = []
    for m in NAME_RE.finditer(text):
        w = m.group()
        strength = name_strength(w)
        if strength == 1 and re.search(r"[A-Z][\w-]*\s+$", text[: m.start()]):
            continue
        if strength == 1 and (w.lower() in STOP_WORDS or load_corpus_words().common_word(w)):
            continue  # "While benchmarks …", "Still": a capitalised common word is no name
        if w not in _GENERIC_WORDS and strength >= min_strength and _LIST_NEXT.match(text[m.end() :]):
            out.append((start + m.start(), start + m.end(), w))
    return out


@Language.factory(
    "paperkg_experiments",
    default_config={"base_iri": "https://w3id.org/paperkg/"},
    requires=["doc._.kg_sents", "token.tag"],
    assigns=["doc._.kg_mentions", "doc._.kg_compare"],
)
def make_evaluation(nlp: Language, name: str, base_iri: str) -> EvaluationRules:
    return EvaluationRules(load_lexicon(base_iri))


class EvaluationRules:
    """Pipeline component: dataset, comparison, usage and metric mentions; marks comparison spans."""

    def __init__(self, lexicon: Lexicon) -> None:
        self.lexicon = lexicon

    def _known(self, word: str) -> bool:
        return self.lexicon.lookup(word) is not None

    def _datasets(self, out: list[Mention], items: list[tuple[int, int, str]], kind: str, rule: str) -> None:
        """Dataset mentions for the listed names the vocabulary does not already know."""
        out.extend(
            mention(s, e, "Dataset", w, kind=kind, confidence=CONF_PATTERN, rule=rule)
            for s, e, w in items
            if not self._known(w)
        )

    def __call__(self, doc: Doc) -> Doc:
        out = mentions(doc)
        compare: list[list[int]] = []
        doc_str = doc_text(doc)
        for off, sent_end in sentences(doc):
            text = doc_str[off:sent_end]
            for m in _LIST_BEFORE.finditer(text) if _DS_WORD.search(text) else ():
                if _NAME_NEXT.match(text, m.end()):
                    continue  # "the IPI benchmark AgentDojo": the name follows, the word before is a modifier
                items = _names(m.group(1), off + m.start(1), 1)
                if (
                    len(items) == 1
                    and _COUNTED.search(text, 0, m.start(1))
                    and m.group().endswith(("s", "a"))
                ):
                    continue  # "on four CMORL benchmarks": a kind of benchmark, not the name of one
                self._datasets(out, items, _kind(m.group()), "dataset-list")
            for rx in (_LIST_AFTER, _APPOS, _COORD, _LIST_BARE):
                for m in rx.finditer(text):
                    items = _names(m.group(1), off + m.start(1), 1)
                    self._datasets(out, items, _kind(m.group()), "dataset-such-as")
            for m in _EVAL.finditer(text) if _UPPER_OR_DIGIT.search(text, 1) else ():
                for s, e, w in _names(m.group(3), off + m.start(3), 2):
                    if not self._known(w):
                        out.append(
                            mention(
                                s, e, "Dataset", w, kind="Dataset", confidence=CONF_WEAK, rule="evaluated-on"
                            )
                        )
            low = text.lower()
            has_cmp = any(c in low for c in _CMP_CUES)
            for m in _COMPARE.finditer(text) if has_cmp else ():
                compare.append([off + m.start(2), off + m.end(2)])
                for s, e, w in _names(m.group(2), off + m.start(2), 2):
                    if not self._known(w):
                        out.append(
                            mention(
                                s,
                                e,
                                "Method",
                                w,
                                kind="Method",
                                relation="comparesWith",
                                confidence=CONF_PATTERN - 0.1,
                                rule="compare-pattern",
                            )
                        )
            for m in _USES.finditer(text):
                for s, e, w in _names(m.group(2), off + m.start(2), 2):
                    if not self._known(w) and m.group(1).lower().startswith(
                        ("built", "based", "on top", "backbone")
                    ):
                        out.append(
                            mention(
                                s,
                                e,
                                "Method",
                                w,
                                kind="Method",
                                confidence=CONF_WEAK + 0.05,
                                rule="uses-pattern",
                            )
                        )
            for m in _METRIC.finditer(text) if "%" in text else ():
                phrase = m.group(1)
                if not self._known(phrase):
                    out.append(
                        mention(
                            off + m.start(1),
                            off + m.end(1),
                            "Metric",
                            phrase.lower(),
                            confidence=CONF_PATTERN - 0.1,
                            rule="metric-after-number",
                        )
                    )
            for m in _UTILITY.finditer(text) if "tility" in text else ():
                u = m.group().lower().index("utility")
                s = off + m.start() + u
                out.append(
                    mention(
                        s, s + 7, "Metric", "utility", confidence=CONF_PATTERN - 0.1, rule="metric-utility"
                    )
                )
        doc._.kg_compare = compare
        return doc


def _kind(text: str) -> str:
    return "Benchmark" if re.search(r"benchmark|suite|testbed", text, re.I) else "Dataset"
