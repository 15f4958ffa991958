"""First component: the doc text is "title\\n\\nabstract"; mark where the abstract starts (a sentence
start the parser must respect) and collect code URLs exactly as written."""

from __future__ import annotations

import re

from spacy.language import Language
from spacy.tokens import Doc

SEPARATOR = "\n\n"
_URL = re.compile(r"(?:https?://|www\.|(?<![\w.@/])github\.com/)[^\s()\[\]<>\"'{}|\\^`]+", re.I)
_TRAIL = ".,;:!?*_"


def join_fields(title: str | None, abstract: str) -> str:
    """One text for both fields; the title's own line breaks become spaces so offsets stay put."""
    return (title or "").replace("\r", " ").replace("\n", " ") + SEPARATOR + abstract


def code_urls(text: str) -> list[str]:
    """Code/data URLs as written, without trailing punctuation, each once."""
    out: list[str] = []
    for m in _URL.finditer(text):
        url = m.group().rstrip(_TRAIL)
        if url.count(")") > url.count("("):
            url = url.rstrip(")").rstrip(_TRAIL)
        if len(url) > 10 and url not in out:
            out.append(url)
    return out


@Language.factory(
    "paperkg_fields",
    assigns=[
        "doc._.kg_text",
        "doc._.kg_title_end",
        "doc._.kg_sents",
        "doc._.kg_code",
        "doc._.kg_mentions",
        "doc._.kg_rule_mentions",
        "doc._.kg_acronyms",
        "doc._.kg_compare",
    ],
)
def make_fields(nlp: Language, name: str) -> FieldMarker:
    return FieldMarker()


class FieldMarker:
    """Pipeline component (before the parser): title/abstract boundary, fresh extension values, code URLs."""

    def __call__(self, doc: Doc) -> Doc:
        text = doc._.kg_text = doc.text
        doc._.kg_sents = None
        boundary = text.find(SEPARATOR)
        doc._.kg_title_end = max(boundary, 0)
        doc._.kg_mentions = []
        doc._.kg_rule_mentions = None
        doc._.kg_acronyms = []
        doc._.kg_compare = []
        doc._.kg_code = code_urls(text)
        if boundary >= 0:
            seen_space = False
            for tok in doc:
                if tok.idx >= boundary and tok.is_space:
                    seen_space = True
                elif seen_space and tok.idx > boundary:
                    tok.is_sent_start = True
                    break
        return doc
