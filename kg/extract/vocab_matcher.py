"""Vocabulary matcher: curated SKOS labels found in the text (PhraseMatcher), plus name-shaped words looked up
by match key, with resolution/size suffixes stripped ("ImageNet256×256" → ImageNet) and named variants
("CIFAR-10-LT" variant of CIFAR-10, "LLaMA3" variant of Llama)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc
from spacy.util import filter_spans

from kg.extract.common import (
    CONF_PATTERN,
    CONF_VOCAB,
    CONF_VOCAB_CASE,
    NAME_RE,
    Mention,
    doc_text,
    mention,
    mentions,
    name_strength,
)
from kg.extract.lexicon import LexEntry, Lexicon, load_lexicon
from kg.extract.words import words
from kg.types import EntityRef

_RESOLUTION = re.compile(r"^\s*(?:\$\\times\$|\\times|×|x)\s*\d+")  # "256$\times$256", "64×64"
_TRAILING_NUM = re.compile(r"[-_ ]?\d+$")
_MODEL_SIZE = re.compile(r"(?i)[-_ ]?(\d+(\.\d+)?[bmk]|instruct|chat|base|it|hf|v\d+(\.\d+)?)$")
# "Transformer-Based", "BERT-Style": a compound adjective, not a named variant
_NOT_VARIANT = words(
    "based like style aware free driven guided specific level wise agnostic only inspired enhanced powered "
    "centric oriented friendly assisted augmented"
)
_COMPOUND_ADJ = re.compile(r"-(?:" + "|".join(sorted(_NOT_VARIANT)) + r")\b", re.I)
_PART_NOUNS = words(
    "loss losses mechanism mechanisms module modules ability abilities capability capabilities layer layers "
    "head heads block blocks component components branch objective"
)
# "video generation models", "clustering algorithms": a tool for the task, not the task itself
_TOOL_NOUNS = words("model models algorithm algorithms guidance")
TASK_PART_NOUNS = _PART_NOUNS | _TOOL_NOUNS
_UPPER_OR_DIGIT = re.compile(r"[A-Z0-9]")
_VERSION_AFTER = re.compile(r"^[ -]?(\d+(?:\.\d+)?)\b(?![%.]\d)")
# "MovieLens 25M", "Amazon 670K": a size written after a dataset names a distinct release of it.
_SIZE_AFTER = re.compile(r" (\d+(?:\.\d+)?[KMB])\b(?![%.]\d)")
# "ImageNet32x32", "ImageNet-2012", "COCO2017": a resolution or year glued to a dataset is still that dataset.
_GLUED_SUFFIX = re.compile(r"^(?P<base>.*?[A-Za-z])[-_]?(?:\d+[x×]\d+|(?:19|20)\d\d)$")


def entry_mention(
    start: int,
    end: int,
    entry: LexEntry,
    *,
    confidence: float,
    rule: str,
    variant_of: EntityRef | None = None,
) -> Mention:
    """A mention of a vocabulary entry: its type, name, kind and broader concepts."""
    return mention(
        start,
        end,
        entry.ref.type,
        entry.ref.name,
        kind=entry.ref.kind,
        confidence=confidence,
        rule=rule,
        broader=entry.broader,
        variant_of=variant_of,
    )


def _glued(text: str, start: int, end: int) -> bool:
    """The match is part of a hyphenated or slashed word ("QA" in "QA-SFT")."""
    before = text[start - 2 : start] if start >= 2 else ""
    after = text[end : end + 2]
    return (len(before) == 2 and before[1] in "-/" and before[0].isalnum()) or (
        len(after) == 2 and after[0] in "-/" and after[1].isalnum()
    )


def _variants(label: str) -> set[str]:
    forms = {label, label.replace("-", " ")}
    out = set(forms)
    for f in forms:
        if f and f[-1].isalpha() and not f.endswith("s") and not f.isupper():
            out.add(f[:-1] + "ies" if f.endswith("y") and f[-2:-1] not in "aeiou" else f + "s")
    return out


@Language.factory(
    "paperkg_vocab",
    default_config={"base_iri": "https://w3id.org/paperkg/"},
    requires=["token.tag", "doc._.kg_text", "doc._.kg_title_end"],
    assigns=["doc._.kg_mentions"],
)
def make_vocab_matcher(nlp: Language, name: str, base_iri: str) -> VocabMatcher:
    return VocabMatcher(nlp, load_lexicon(base_iri))


class VocabMatcher:
    """Pipeline component: appends vocabulary mentions to `doc._.kg_mentions`."""

    def __init__(self, nlp: Language, lexicon: Lexicon) -> None:
        self.lexicon = lexicon
        self.lower = PhraseMatcher(nlp.vocab, attr="LOWER")
        self.exact = PhraseMatcher(nlp.vocab, attr="ORTH")
        self.entries: dict[str, LexEntry] = {}
        for i, e in enumerate(lexicon.entries):
            key = str(i)
            self.entries[key] = e
            forms = sorted({v for lab in e.labels for v in _variants(lab)})
            exact = sorted({v for lab in e.hidden for v in (lab, lab + "s")})
            if e.case_sensitive:
                exact, forms = sorted(set(exact) | set(forms)), []
            if forms:
                self.lower.add(key, [nlp.make_doc(f) for f in forms])
            if exact:
                self.exact.add(key, [nlp.make_doc(f) for f in exact])

    def __call__(self, doc: Doc) -> Doc:
        out = mentions(doc)
        strings = doc.vocab.strings
        title_end: int = doc._.kg_title_end or 0
        found = []
        for matcher, conf in ((self.exact, CONF_VOCAB_CASE), (self.lower, CONF_VOCAB)):
            for match_id, start, end in matcher(doc):
                span = doc[start:end]
                span.label_ = strings[match_id]
                found.append((span, conf))
        conf_of = {(s.start, s.end): c for s, c in found}
        text = doc_text(doc)
        covered = [False] * (len(text) + 1)
        for span in filter_spans([s for s, _ in found]):
            e = self.entries[span.label_]
            compound = (
                _COMPOUND_ADJ.match(text, span.end_char) is not None
            )  # "BERT-based", "Transformer-Based"
            if _glued(text, span.start_char, span.end_char) and len(span.text) <= 5 and not compound:
                continue  # "QA" in "QA-SFT" is not question answering
            if re.match(r"-[A-Z0-9]", text[span.end_char : span.end_char + 2]) and not compound:
                continue  # "CIFAR-100-LT": a named variant, left to the name-word rules
            if (
                len(span) == 1
                and span[0].tag_.startswith("VB")
                and span[0].tag_ != "VBG"
                or len(span) == 1
                and span[0].tag_ == "VBG"
                and span[0].dep_ not in ("compound", "nsubj", "dobj", "pobj")
            ):
                continue  # "boosting performance" is a verb, not the method
            if (
                len(span) == 1
                and e.case_sensitive
                and e.ref.type == "Domain"
                and span.start > 0
                and doc[span.start - 1].tag_ in ("NN", "NNS", "NNP")
                and doc[span.start - 1].whitespace_
            ):
                continue  # "power law", "control laws": an ambiguous word headed by another noun
            if e.ref.type == "Dataset" and lowercase_phrase_of_name([span.text], e.labels):
                continue  # "the natural question" is not Natural Questions: a named dataset is written as one
            in_title = span.start_char < title_end
            if len(span) == 1 and in_title and _title_word(text, span.start_char, span.end_char, title_end,
                                                           e.case_sensitive):
                continue  # "Boosting CLIP for …", "… for Traffic Flow Prediction": title case, not the entry
            following = doc[span.end].lower_ if span.end < len(doc) else ""
            if e.ref.type == "Task" and following in TASK_PART_NOUNS:
                continue  # "image classification loss", "feature selection mechanism": a part, not the task
            conf = conf_of[(span.start, span.end)]
            if not e.case_sensitive and span.text in e.labels:
                conf = CONF_VOCAB_CASE
            size = _SIZE_AFTER.match(text, span.end_char) if e.ref.type == "Dataset" else None
            if size is not None and self.lexicon.lookup(f"{span.text} {size.group(1)}") is None:
                out.append(
                    mention(
                        span.start_char,
                        size.end(),
                        "Dataset",
                        f"{e.ref.name} {size.group(1)}",
                        kind=e.ref.kind,
                        confidence=CONF_PATTERN,
                        rule="vocab-variant",
                        variant_of=e.ref,
                    )
                )
            else:
                out.append(entry_mention(span.start_char, span.end_char, e, confidence=conf, rule="vocab"))
            for i in range(span.start_char, span.end_char):
                covered[i] = True
        for m in NAME_RE.finditer(text):
            weak = name_strength(m.group()) < 2  # "Traffic", not "ImageNet" or "UCF101"
            if m.start() < title_end and _title_word(text, m.start(), m.end(), title_end, weak):
                continue
            if not covered[m.start()] and _UPPER_OR_DIGIT.search(m.group()):
                self._name_word(doc, text, m.group(), m.start())
        return doc

    def _name_word(self, doc: Doc, text: str, word: str, start: int) -> None:
        """A capitalised/digit-bearing word not matched as a phrase: key lookup, suffixes, variants."""
        out = mentions(doc)
        lex = self.lexicon
        end = start + len(word)
        e = lex.lookup(word)
        if (
            e is not None
            and name_strength(word) < 2
            and not any(word.lower() == lab.lower() for lab in e.labels)
        ):
            e = None  # "Place" is not "Places365"; loose keys are for name-shaped words only
        if e is not None:
            if e.ref.type == "Model" and (v := _VERSION_AFTER.match(text[end : end + 8])):
                name = f"{e.ref.name} {v.group(1)}"
                out.append(
                    mention(
                        start,
                        end + v.end(),
                        "Model",
                        name,
                        kind="Model",
                        confidence=CONF_VOCAB,
                        rule="vocab-version",
                        variant_of=e.ref,
                    )
                )
                return
            out.append(entry_mention(start, end, e, confidence=CONF_VOCAB, rule="vocab-key"))
            return
        glued = _GLUED_SUFFIX.match(word)
        if glued and (base := lex.lookup(glued.group("base"))) is not None and base.ref.type == "Dataset":
            out.append(entry_mention(start, end, base, confidence=CONF_VOCAB, rule="vocab-resolution"))
            return
        # "ImageNet256$\times$256": a resolution suffix is not part of the name.
        if _RESOLUTION.match(text[end : end + 16]) and (base := lex.lookup(_TRAILING_NUM.sub("", word))):
            out.append(entry_mention(start, end, base, confidence=CONF_VOCAB, rule="vocab-resolution"))
            return
        if "-" in word or any(ch.isdigit() for ch in word):  # versions and variants carry a digit or hyphen
            self._variant(doc, word, start)

    def _variant(self, doc: Doc, word: str, start: int) -> None:
        out = mentions(doc)
        lex = self.lexicon
        # Model families with a version or size ("Llama-2-7B", "Qwen2.5", "LLaMA3"): variants of the family.
        stem = word
        while (m := _MODEL_SIZE.search(stem)) and m.start() > 0:
            stem = stem[: m.start()]
        family = None
        for cut in range(len(stem), 1, -1):
            head = stem[:cut]
            if (f := lex.lookup(head)) is not None and f.ref.type == "Model" and not head[-1:].isdigit():
                family = f
                break
        if (
            family is not None
            and stem[len(head) :].strip("-. ")
            and any(c.isdigit() for c in stem[len(head) :])
        ):
            name = stem if stem[len(head)] in "-. " else stem
            exact = lex.lookup(stem)
            if exact is not None:
                out.append(
                    entry_mention(
                        start,
                        start + len(word),
                        exact,
                        confidence=CONF_VOCAB,
                        rule="vocab-model-size",
                        variant_of=family.ref if exact.ref != family.ref else None,
                    )
                )
            else:
                out.append(
                    mention(
                        start,
                        start + len(word),
                        "Model",
                        name,
                        kind="Model",
                        confidence=CONF_PATTERN,
                        rule="model-version",
                        variant_of=family.ref,
                    )
                )
            return
        if family is not None and stem != word:
            out.append(
                mention(
                    start,
                    start + len(word),
                    "Model",
                    family.ref.name,
                    kind="Model",
                    confidence=CONF_VOCAB,
                    rule="vocab-model-size",
                )
            )
            return
        # "CIFAR-10-LT", "SVHN-LT": a named variant of a known dataset/method is its own entity.
        suffix = word.rsplit("-", 1)[-1]
        if "-" in word and re.match(r"[A-Z0-9]", suffix) and suffix.lower() not in _NOT_VARIANT:
            base_word = word.rsplit("-", 1)[0]
            base = lex.lookup(base_word)
            if (
                base is not None
                and base.ref.type in ("Dataset", "Method", "Model")
                and not base.case_sensitive
            ):
                out.append(
                    mention(
                        start,
                        start + len(word),
                        base.ref.type,
                        word,
                        kind=base.ref.kind,
                        confidence=CONF_PATTERN,
                        rule="vocab-variant",
                        variant_of=EntityRef(base.ref.type, base.ref.name, base.ref.kind),
                    )
                )


def _title_word(text: str, start: int, end: int, title_end: int, ambiguous: bool) -> bool:
    """Whether a capitalised word of a title reads as a plain word, not the vocabulary entry: a gerund that
    opens the title or its subtitle ("Boosting CLIP for …", "…: Scaling Agents") is a verb, and an ambiguous
    (case-sensitive) entry beside another capitalised word is title case ("… for Traffic Flow Prediction")."""
    word = text[start:end]
    after = text[end:title_end].lstrip()
    if word.endswith("ing") and word[:1].isupper() and after[:1].isalnum():
        before = text[:start].rstrip()
        if not before or before.endswith((":", "\n")):
            return True
    if not ambiguous:
        return False
    before_word = text[:start].split()[-1:] or [""]
    after_word = after.split()[:1] or [""]
    return any(w[:1].isupper() for w in (*before_word, *after_word))


def lowercase_phrase_of_name(words: Sequence[str], labels: Iterable[str]) -> bool:
    """Words written all in lower case for a dataset whose every label is capitalised: a plain phrase
    ("the natural question", "places implicitly"), not the named dataset (Natural Questions, Places365)."""
    return all(w.islower() for w in words) and all(not lab.islower() for lab in labels)
