"""Acronym definitions (Schwartz & Hearst 2003): "Long Form (LF)" and "LF (Long Form)".

The component stores `Acronym(short, long, short_start, short_end, long_start, long_end, order)` rows in
`doc._.kg_acronyms`; the canonicaliser uses them to make later uses of LF resolve to the same entity.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from spacy.language import Language
from spacy.tokens import Doc

from kg.extract.common import doc_text


class Acronym(NamedTuple):
    """One definition: the short form, its long form and where each is in the text."""

    short: str
    long: str
    short_start: int
    short_end: int
    long_start: int
    long_end: int
    order: str  # "LF(SF)": long form first, "SF(LF)": short form first


_PAREN = re.compile(r"\(([^()]{1,160})\)")
_SHORT = re.compile(r"^[A-Za-z][A-Za-z0-9\-.+'&]{0,15}$")
_WORD = re.compile(r"\S+")
_DIGIT_WORDS = {"2": "t", "4": "f"}  # L2D = Learning-to-Defer, Seq2Seq, B4F
_FUNCTION_WORDS = frozenset(
    ["a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "with", "via"]
)


def _function_word_at(text: str, i: int) -> bool:
    """Whether a function word starts at `i` ("and Planning for complex Tasks" is no long form of ADaPT)."""
    m = re.match(r"[\w-]+", text[i:])
    return m is not None and m.group().lower() in _FUNCTION_WORDS


def best_long_form(short: str, long: str, strict: bool = True) -> str | None:
    """The shortest suffix of `long` whose letters spell `short` in order (the first at a word start when
    `strict`), or None."""
    s, i = len(short) - 1, len(long) - 1
    while s >= 0:
        c = short[s].lower()
        if not c.isalnum():
            s -= 1
            continue
        while i >= 0 and (long[i].lower() != c or (strict and s == 0 and (
                (i > 0 and long[i - 1].isalnum()) or _function_word_at(long, i)))):
            i -= 1
        if i < 0:
            return None
        i -= 1
        s -= 1
    start = max(long.rfind(" ", 0, i + 1), long.rfind("(", 0, i + 1)) + 1
    return long[start:]


def _by_initials(short: str, long: str) -> str | None:
    """The last words of `long` whose initials are `short`'s letters, one word each ("proximal policy
    optimization" for PPO, where the shortest spelling is "policy optimization"), or None."""
    letters = [c.lower() for c in short if c.isalpha()]
    if len(letters) < 2 or len(letters) != len([c for c in short if c.isalnum()]):
        return None
    words = list(re.finditer(r"[^\W_]+", long))[-len(letters) :]
    if len(words) < len(letters) or [w.group()[0].lower() for w in words] != letters:
        return None
    return long[words[0].start() :]


def _match(short: str, long: str, strict: bool = True) -> str | None:
    core = short[:-1] if short.endswith("s") and short[:-1].isupper() else short
    found = best_long_form(core, long, strict)
    initials = _by_initials(core, long) if found is not None else None
    if found is not None and initials is not None and len(initials) > len(found):
        return initials
    if found is None and any(d in core for d in _DIGIT_WORDS):
        found = best_long_form("".join(_DIGIT_WORDS.get(ch, ch) for ch in core), long)
    if found is None and core[-1:].isdigit() and len(core.rstrip("0123456789")) >= 2:
        found = best_long_form(core.rstrip("0123456789"), long, strict)  # "CORe3": a version digit
    return found


def is_short_form(text: str) -> bool:
    return bool(_SHORT.match(text)) and any(ch.isupper() for ch in text) and 2 <= len(text) <= 16


def is_acronym(label: str) -> bool:
    """One word written mostly in capitals ("CLIP", "ViT", "GANs"; not "ImageNet"): its case is its name."""
    upper = sum(c.isupper() for c in label)
    return " " not in label and upper >= 2 and upper >= sum(c.islower() for c in label)


def find_definitions(text: str) -> list[Acronym]:
    """Every acronym definition in `text` (character offsets into `text`)."""
    out: list[Acronym] = []
    for m in _PAREN.finditer(text):
        inner = m.group(1).split(";")[0].split(",")[0]
        lead = len(inner) - len(inner.lstrip(" *_"))
        inner_s = inner.strip(" *_")
        if not inner_s:
            continue
        i_start = m.start(1) + lead
        words_before = list(_WORD.finditer(text, max(0, m.start() - 240), m.start()))
        if is_short_form(inner_s) and " " not in inner_s:  # Long Form (LF)
            n = min(len(inner_s) + 5, len(inner_s) * 2)
            window = words_before[-n:]
            if not window:
                continue
            w_start = window[0].start()
            cut = max(text.rfind(". ", w_start, m.start()), text.rfind("; ", w_start, m.start()))
            w_start = cut + 2 if cut >= 0 else w_start
            closed = text.rfind(")", w_start, m.start())  # never across an earlier parenthesis:
            w_start = closed + 1 if closed >= 0 else w_start  # "comprehension (REC) and segmentation (RES)"
            w_start = max(w_start, text.rfind("\n", w_start, m.start()) + 1)  # never across title/abstract
            chunk = text[w_start : m.start()].rstrip().rstrip("*_")  # "*Stein Boltzmann Sampling* (SBS)"
            long = _match(inner_s, chunk)
            if long:
                long = long.lstrip("*_\"'“‘")  # nor an opening quote: '"Video Object Segmentation (VOS)'
            if long and len(long) > len(inner_s) and (" " in long.strip() or "-" in long):
                l_start = w_start + len(chunk) - len(long)
                out.append(
                    Acronym(
                        inner_s, long, i_start, i_start + len(inner_s), l_start, l_start + len(long), "LF(SF)"
                    )
                )
        elif len(inner_s.split()) >= 2 and words_before:  # LF (Long Form)
            short = words_before[-1].group().strip(",:;")
            if not is_short_form(short) or words_before[-1].end() != m.start() - 1:
                continue
            long = _match(short, inner_s) or _match(short, inner_s, strict=False)
            if long and long == inner_s and len(long) > len(short):
                s_start = words_before[-1].start()
                out.append(
                    Acronym(
                        short, long, s_start, s_start + len(short), i_start, i_start + len(long), "SF(LF)"
                    )
                )
    return out


@Language.factory(
    "paperkg_acronyms",
    requires=["doc._.kg_text"],
    assigns=["doc._.kg_acronyms"],
)
def make_acronyms(nlp: Language, name: str) -> AcronymFinder:
    return AcronymFinder()


class AcronymFinder:
    """Pipeline component: fills `doc._.kg_acronyms`."""

    def __call__(self, doc: Doc) -> Doc:
        doc._.kg_acronyms = find_definitions(doc_text(doc))
        return doc
