"""Typed lists (`paperkg_lists`): the members of a list are what its cue says they are.

"tasks such as autoformalization, premise selection and proof search", "on both retrieval and CTR prediction
tasks", "metrics including precision, recall and edit distance", "in terms of latency and throughput": every
member is a task (or a metric), whatever its head noun, and single words count here because the context
types them.
"""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc

from kg.extract.candidates import BREAK, GENERIC, Unit, doc_runs, tokens
from kg.extract.common import CONF_PATTERN, mention, mentions
from kg.extract.words import words

_JOINERS = frozenset([",", "and", "or", ";", "as", "well"])
_INTRO = ("such as", "including", "like", "e.g.", "e.g. ,", "namely", "for example", "for instance", ":")
_KIND_NOUNS = {
    "Task": words("task tasks problem problems"),
    "Metric": words("metric metrics measure measures criteria"),
}
_TAIL_NOUNS = {"Task": words("task tasks problem problems"), "Metric": words("metric metrics scores")}
_IN_TERMS_OF = ("in terms of",)
_INTRO_WORDS = frozenset(["as", "including", "like", "e.g.", "namely", "example", "instance", ":", "of"])
_NOT_MEASURES = words("evaluation evaluations data dataset datasets model models method methods")


def _groups(doc: Doc, runs: list[list[Unit]]) -> list[list[tuple[int, int]]]:
    """Consecutive runs joined only by commas and conjunctions: the members of one list."""
    tk = tokens(doc)
    out: list[list[tuple[int, int]]] = []
    for run in runs:
        span = (run[0][0], run[-1][1])
        if (
            out
            and span[0] - out[-1][-1][1] <= 3
            and all(w in _JOINERS for w in tk.lower[out[-1][-1][1] : span[0]])
        ):
            out[-1].append(span)
        else:
            out.append([span])
    return out


def _intro_type(doc: Doc, start: int) -> str | None:
    """What the words just before a list announce: "tasks such as", "metrics including", "in terms of"
    (over modifiers the run left out: "tasks such as real-world damage adaptation")."""
    tk = tokens(doc)
    for _ in range(3):
        if start > 0 and tk.tag[start - 1] in ("JJ", "HYPH") or tk.lower[start - 1 : start] == ["world"]:
            start -= 1
    window = tk.lower[max(0, start - 6) : start]
    if not _INTRO_WORDS.intersection(window):
        return None
    before = " ".join(window).strip()
    for intro in _INTRO:
        if before.endswith(intro):
            head = before[: -len(intro)].strip(" ,(").split()
            if head:
                for type_, nouns in _KIND_NOUNS.items():
                    if head[-1] in nouns:
                        return type_
    if any(before.endswith(cue) for cue in _IN_TERMS_OF):
        return "Metric"
    return None


_OWN_OR_MEASURED = words(
    "we our us these this proposed experiments experiment evaluate evaluated evaluation evaluations "
    "outperforms outperform achieves achieve results benchmark benchmarks demonstrate demonstrates show shows"
)


def _own_or_measured(doc: Doc, start: int) -> bool:
    """The list's sentence speaks of this work or its evaluation ("we", "experiments", "outperforms")."""
    sent = doc[start].sent
    return any(t.lower_ in _OWN_OR_MEASURED for t in sent) or "this paper" in sent.text.lower()


_MEASURE_SUFFIXES = ("ity", "ness", "cy", "ence", "ance", "age", "ism", "tion")
_MEASURE_WORDS = frozenset(
    ["runtime", "speed", "throughput", "cost", "time", "memory", "overhead", "error", "loss", "precision",
     "recall", "accuracy", "perplexity", "regret", "bias", "variance", "energy", "power"]
)


def _item_word(word: str, type_: str) -> bool:
    """Whether one word alone can be a listed task (not a plural: "cameras") or measure (a measure noun:
    "diversity", "faithfulness", "runtime"); metrics the vocabulary knows are matched before lists."""
    last = word.rsplit("-", 1)[-1]
    if type_ == "Task":  # a plural or a one-letter word names things, not a problem: "cameras", "k"
        return len(last) > 1 and not (last.endswith("s") and not last.endswith(("sis", "ss")))
    if type_ == "Metric":
        return last.endswith(_MEASURE_SUFFIXES) or last in _MEASURE_WORDS
    return True


@Language.factory(
    "paperkg_lists",
    requires=["token.tag", "token.is_sent_start"],
    assigns=["doc._.kg_mentions"],
)
def make_lists(nlp: Language, name: str) -> ListTyper:
    return ListTyper()


class ListTyper:
    """Pipeline component: a mention for each member of a list whose cue types it."""

    def __call__(self, doc: Doc) -> Doc:
        out = mentions(doc)
        for group in _groups(doc, doc_runs(doc)):
            type_ = _intro_type(doc, group[0][0])
            last_start, last_end = group[-1]
            tail = doc[last_end - 1].lower_
            tail_typed = False
            if type_ is None and len(group) >= 2:
                for t, nouns in _TAIL_NOUNS.items():
                    if tail in nouns and last_end - last_start >= 2:
                        type_, tail_typed = t, True
            if type_ is None:
                continue
            if type_ == "Task" and not tail_typed and not _own_or_measured(doc, group[0][0]):
                continue  # "… useful for problems such as A, B and C": the field's examples, not this paper's
            for start, end in group:
                if doc[end - 1].lower_ in _TAIL_NOUNS["Task"] | _TAIL_NOUNS["Metric"] and end - start >= 2:
                    end -= 1  # "… prediction tasks": the task is "prediction"
                toks = doc[start:end]
                if all(t.lower_ in GENERIC or t.lower_ in BREAK for t in toks) or len(toks) > 5:
                    continue
                if type_ == "Metric" and (toks[-1].lower_ in GENERIC or toks[-1].lower_ in _NOT_MEASURES):
                    continue  # "in terms of training data": not a measure
                if toks[-1].tag_ in ("JJ", "JJR", "RB"):
                    continue  # "qualitative and quantitative metrics": kinds of metric, not metrics
                named = not toks[0].text.islower() and not toks[0].is_sent_start  # "Jaccard", "BEV", "Popt@L"
                if len(toks) == 1 and not named and not _item_word(toks[0].lower_, type_):
                    continue  # "pick", "cameras", "long-horizon" as a task; "culture", "images" as a metric
                text = toks.text
                name = text if any(c.isupper() for c in text[1:]) else text.lower()
                out.append(
                    mention(
                        toks.start_char,
                        toks.end_char,
                        type_,
                        name,
                        confidence=CONF_PATTERN - 0.05,
                        rule="typed-list",
                    )
                )
        return doc
