"""Tasks, threats and domains written as noun phrases: "for image/video generation", "we study X
forecasting", "tasks such as crop mapping", "backdoor attacks", "adaptive adversaries", "web agents".

A phrase counts only when its head noun says what it is (a task nominalisation, an attack word, "agents")
and it has a content modifier, so "the task" or "sophisticated attacks" give nothing."""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc, Token

from kg.extract.common import (
    CONF_PATTERN,
    CONF_WEAK,
    Mention,
    doc_text,
    mention,
    mentions,
    name_strength,
    token_indices,
)
from kg.extract.threats import QUALIFIED_HEADS, THREAT_HEADS, qualified_threat, threat_mentions
from kg.extract.words import CUES, STOP_MODS, TASK_HEADS, TITLE_TASK_HEADS, words
from kg.names import singular

DOMAIN_HEADS = {"agents": "agents", "agent": "agents"}
_HEADS = (
    TASK_HEADS
    | TITLE_TASK_HEADS
    | frozenset(THREAT_HEADS)
    | frozenset(DOMAIN_HEADS)
    | frozenset(QUALIFIED_HEADS)
)
# "the X task", and "a new X dataset/benchmark" (data made for the task X)
_TASK_NEXT = frozenset(
    ["task", "tasks", "problem", "problems", "dataset", "datasets", "benchmark", "benchmarks"]
)
_NOUNS_AFTER = frozenset(["NN", "NNS", "NNP", "NNPS"])
# "transformer-based grounding", "background-insensitive recognition": how it is done, not what
_NOT_JOINED = words(
    "based driven guided aware powered insensitive sensitive agnostic specific centric oriented free"
)
_DATA_WORDS = frozenset(["dataset", "datasets", "benchmark", "benchmarks"])
_TITLE_CUES = frozenset(["for", "on", "towards", "toward", ":", "in"])
_NOUNISH = {"NN", "NNS", "NNP", "NNPS", "JJ", "VBG", "VBN", "HYPH", "CD", "FW"}


def phrase_left(head: Token) -> tuple[int, list[Token]]:
    """The head with the content modifiers to its left (stops at determiners and evaluative words)."""
    doc, i = head.doc, head.i
    toks: list[Token] = []
    j = i - 1
    while (
        j >= 0
        and (doc[j].tag_ in _NOUNISH or doc[j].text == "/")
        and doc[j].lower_ not in STOP_MODS
        and i - j <= 5
    ):
        if doc[j].tag_ == "HYPH" and _joins(doc, j):  # "time-series forecasting", "next-word prediction"
            toks[:0] = [doc[j - 1], doc[j]]
            j -= 2
            continue
        if doc[j].tag_ == "HYPH" or doc[j].text == "/" and (j == 0 or doc[j - 1].tag_ not in _NOUNISH):
            if toks and doc[j].tag_ == "HYPH" and not doc[j].whitespace_:
                toks.pop(0)  # "graph-based recommendation": "based" alone is no modifier
                j -= 2 if j >= 1 and not doc[j - 1].whitespace_ else 0  # the cue is before "graph-based"
            break
        toks.insert(0, doc[j])
        j -= 1
    while toks and (toks[0].tag_ in ("HYPH", "CD") or toks[0].text == "/"):
        toks.pop(0)
    return j, toks


def _phrase_start(doc: Doc, i: int) -> bool:
    """Token `i` starts the title, the abstract or a title part after a colon."""
    return i == 0 or doc[i - 1].text in (":", "\n\n")


def _joins(doc: Doc, j: int) -> bool:
    """Token `j` is a hyphen inside a word whose left part is a content word ("time-series", not "-based")."""
    return (
        j >= 1
        and not doc[j].whitespace_
        and not doc[j - 1].whitespace_
        and doc[j - 1].tag_ in _NOUNISH
        and doc[j - 1].lower_ not in STOP_MODS
        and (j + 1 >= len(doc) or doc[j + 1].lower_ not in _NOT_JOINED)
    )


def _text(doc: Doc, toks: list[Token], head: Token) -> tuple[int, int, str]:
    start = toks[0].idx if toks else head.idx
    end = head.idx + len(head.text)
    return start, end, doc_text(doc)[start:end]


@Language.factory(
    "paperkg_topics",
    requires=["token.tag", "doc._.kg_title_end"],
    assigns=["doc._.kg_mentions"],
)
def make_topics(nlp: Language, name: str) -> TopicRules:
    return TopicRules()


class TopicRules:
    """Pipeline component: task, threat and domain phrase mentions."""

    def __call__(self, doc: Doc) -> Doc:
        out = mentions(doc)
        title_end: int = doc._.kg_title_end or 0
        out.extend(domain_cues(doc, title_end))
        out.extend(gerund_tasks(doc, title_end))
        for i in token_indices(doc, _HEADS):
            tok = doc[i]
            low = tok.lower_
            if tok.tag_ not in ("NN", "NNS", "NNP", "NNPS", "VBG") or (
                tok.tag_ == "NNPS" and low in TASK_HEADS
            ):
                continue
            in_title_head = low in TITLE_TASK_HEADS and tok.idx < title_end and tok.tag_ != "VBG"
            if low in TASK_HEADS or in_title_head:
                left, mods = phrase_left(tok)
                next_word = doc[tok.i + 1].lower_ if tok.i + 1 < len(doc) else ""
                if not mods or not any(t.tag_ in ("NN", "NNS", "NNP", "JJ", "VBG") for t in mods):
                    continue
                while len(mods) > 1 and (
                    (mods[0].lower_.endswith("ing") and _phrase_start(doc, mods[0].i))
                    or (next_word in _DATA_WORDS and name_strength(mods[0].text) == 2)
                ):
                    mods.pop(0)  # "Improving X detection" (a verb); "the nuScenes 3D detection benchmark"
                if low in ("modeling", "modelling") and mods[-1].tag_ not in ("NN", "NNS", "NNP", "NNPS"):
                    continue  # "implicit modeling" is a way of working; "circulation modeling" is a task
                cue = doc[left].lower_ if left >= 0 else ""
                in_title = tok.idx < title_end
                if next_word not in _TASK_NEXT and doc[min(tok.i + 1, len(doc) - 1)].tag_ in _NOUNS_AFTER:
                    continue  # "Deep Detection Neural Networks", "calibration images": the head is a modifier
                if cue == "on" and left >= 1 and doc[left - 1].lower_ == "based":
                    continue  # "based on Structure Alignment" names a means, not the task
                if in_title and not (left < 0 or cue in CUES or cue == ":"):
                    continue  # title case misleads the tagger: only "for X", "X:" and title starts
                if in_title_head and low not in TASK_HEADS and not (left < 0 or cue in _TITLE_CUES):
                    continue
                if cue in ("-", "/") or (left >= 0 and doc[left].whitespace_ == "" and doc[left].is_alpha):
                    continue
                if not (in_title or cue in CUES or (tok.i + 1 < len(doc) and next_word in _TASK_NEXT)):
                    continue
                conf = CONF_PATTERN - 0.1 if in_title else CONF_WEAK + 0.15
                for start, end, text in self._split_slash(doc, mods, tok):
                    out.append(
                        mention(start, end, "Task", _canon_task(text), confidence=conf, rule="task-phrase")
                    )
            elif low in THREAT_HEADS:
                out.extend(threat_mentions(tok, phrase_left(tok)[1]))
            elif low in QUALIFIED_HEADS:
                out.extend(qualified_threat(tok))
            elif low in DOMAIN_HEADS:
                _, mods = phrase_left(tok)
                while mods and (
                    (mods[0].tag_ in ("VBG", "VBN", "VBD") and mods[0].dep_ not in ("amod", "compound"))
                    or (mods[0].lower_.endswith("ing") and _phrase_start(doc, mods[0].i))
                ):
                    mods.pop(0)  # "developing AI agents", "Scaling SWE Agents" (not "shopping agents")
                after = doc[tok.i + 1].lower_ if tok.i + 1 < len(doc) else ""
                if mods and mods[0].lower_.endswith("ing") and after == "to":
                    mods = []  # "training agents to play Atari": a verb and its object
                if len(mods) == 1 and len(mods[0].text) == 1:
                    mods = []  # "M agents interact with M environments": a count, not a kind
                if mods and any(t.text.isupper() or t.tag_ in ("NN", "NNP") for t in mods):
                    start, end, text = _text(doc, mods, tok)
                    name = " ".join([*text.split()[:-1], "agents"])
                    if name == "agents":
                        continue  # "Multi-Agent Reinforcement Learning", "LLM-Based Multi-Agents": no kind
                    out.append(
                        mention(start, end, "Domain", name, confidence=CONF_WEAK + 0.1, rule="domain-phrase")
                    )
        return doc

    @staticmethod
    def _split_slash(doc: Doc, mods: list[Token], head: Token) -> list[tuple[int, int, str]]:
        """ "image/video generation" → image generation, video generation."""
        start, end, text = _text(doc, mods, head)
        if "/" not in text.split()[0] or len(text.split()) != 2:
            return [(start, end, text)]
        first, rest = text.split(" ", 1)
        return [(start, end, f"{alt} {rest}") for alt in first.split("/") if alt]


# Words whose repeated use makes a field the paper's domain though it never names the field.
# "Modeling Opinion Dynamics", "for estimating surface normals": the problem is the object plus the noun of
# the verb (opinion dynamics modeling, surface normal estimation); "Solving X" names the problem X itself.
GERUND_TASKS = {
    "modeling": "modeling",
    "modelling": "modelling",
    "solving": "",
    "verifying": "verification",
    "detecting": "detection",
    "predicting": "prediction",
    "forecasting": "forecasting",
    "generating": "generation",
    "estimating": "estimation",
    "recognizing": "recognition",
    "recognising": "recognition",
    "segmenting": "segmentation",
    "tracking": "tracking",
    "localizing": "localization",
    "summarizing": "summarization",
    "translating": "translation",
    "retrieving": "retrieval",
    "classifying": "classification",
    "reconstructing": "reconstruction",
    "synthesizing": "synthesis",
    "synthesising": "synthesis",
    "explaining": "explanation",
    "answering": "answering",
    "captioning": "captioning",
    "parsing": "parsing",
}
_GERUNDS = frozenset(GERUND_TASKS)
_GERUND_BEFORE = frozenset(["for", "towards", "toward", ":", "of", "on"])
_OBJECT_TAGS = frozenset(["NN", "NNS", "NNP", "NNPS", "JJ", "HYPH", "VBN"])
_EVALUATIVE = words(
    "precise accurate efficient effective high-quality realistic diverse reliable better fast faster "
    "scalable robust novel new complex"
)


def gerund_tasks(doc: Doc, title_end: int) -> list[Mention]:
    """Tasks written as a verb and its object: "Modeling Opinion Dynamics on Graphs" (title start, after a
    colon or "for"), "a method for synthesizing medical dialogue" (after "for" in the abstract)."""
    out: list[Mention] = []
    for i in token_indices(doc, _GERUNDS):
        tok = doc[i]
        nominal = GERUND_TASKS[tok.lower_]
        in_title = tok.idx < title_end
        b = tok.i - 1
        if in_title and b >= 0 and doc[b].tag_ == "RB":
            b -= 1  # "Exactly Solving …", "Efficiently Modeling …"
        before = doc[b].lower_ if b >= 0 else ""
        at_start = b < 0 or doc[b].text in ("\n\n", ":")
        if not (
            before in ("for", "towards", "toward") or (in_title and (at_start or before in _GERUND_BEFORE))
        ):
            continue
        j = tok.i + 1
        if j < len(doc) and doc[j].lower_ in ("the", "a", "an"):
            j += 1
        k = j
        while k < len(doc) and k - j < 5 and doc[k].tag_ in _OBJECT_TAGS and doc[k].lower_ not in STOP_MODS:
            k += 1
        while k > j and doc[k - 1].tag_ not in ("NN", "NNS", "NNP", "NNPS"):
            k -= 1
        while j < k and doc[j].lower_ in _EVALUATIVE:
            j += 1  # "generating precise 3D maps": the task is 3D map generation
        if not nominal and k - j > 1 and doc[k - 1].lower_ in ("problem", "problems"):
            k -= 1  # "solving job shop scheduling problems"
        if k - j < 1 or (k - j == 1 and not nominal):
            continue  # "Solving Games" is too little to name a problem
        obj = [t.text if t.text.isupper() or name_strength(t.text) == 2 else t.lower_ for t in doc[j:k]]
        if nominal in ("modeling", "modelling") and k - j < 2:
            continue  # "Modeling Shadows": too little to name a problem
        if nominal and doc[k - 1].tag_ in ("NNS", "NNPS") and not obj[-1].lower().endswith("ics"):
            obj[-1] = singular(obj[-1])  # "surface normals" → surface normal; "opinion dynamics" stays
        name = " ".join([*obj, nominal]).replace(" - ", "-").strip()
        conf = CONF_PATTERN - 0.1 if in_title else CONF_WEAK + 0.15
        out.append(
            mention(
                tok.idx, doc[k - 1].idx + len(doc[k - 1]), "Task", name, confidence=conf, rule="gerund-task"
            )
        )
    return out


DOMAIN_BY_WORD = {"robot": "robotics", "robots": "robotics", "robotic": "robotics"}


def domain_cues(doc: Doc, title_end: int) -> list[Mention]:
    """ "robots … robotic …": a paper that keeps talking about robots targets robotics (twice, or in the
    title)."""
    hits: dict[str, list[Token]] = {}
    for i in token_indices(doc, frozenset(DOMAIN_BY_WORD)):
        hits.setdefault(DOMAIN_BY_WORD[doc[i].lower_], []).append(doc[i])
    out = []
    for name, toks in hits.items():
        if len(toks) >= 2 or toks[0].idx < title_end:
            t = toks[0]
            out.append(
                mention(
                    t.idx, t.idx + len(t.text), "Domain", name, confidence=CONF_WEAK + 0.15, rule="domain-cue"
                )
            )
    return out


def _canon_task(text: str) -> str:
    words = text.split()
    words = [w if w.isupper() else w.lower() for w in words]
    if words and words[-1] not in ("series",):
        words[-1] = singular(words[-1]) if words[-1].endswith("s") else words[-1]
    return " ".join(words)
