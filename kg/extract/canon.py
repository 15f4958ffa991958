"""Canonicaliser: one entity per real thing. Groups a doc's mentions by match key and acronym definition,
picks the canonical name/type/relation, collects aliases, and derives entity-level relations."""

from __future__ import annotations

import re
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc

from kg.extract.acronyms import Acronym
from kg.extract.common import (
    CONF_ACRONYM,
    CONF_PATTERN,
    GENERIC_ACRONYMS,
    KIND_BY_HEAD,
    Mention,
    doc_text,
    mention,
    sentences,
)
from kg.extract.hierarchy import Hierarchy
from kg.extract.senses import SenseTable, acronym_shaped, content_words, load_senses, same_sense
from kg.extract.threats import THREAT_HEADS
from kg.extract.words import EXAMPLE_CUES, GENERIC_TERMS, TASK_HEADS
from kg.names import match_key

PROPOSE = ("proposes", "introducesDataset")
_METHOD_HEADS = frozenset(
    [
        "learning",
        "fine-tuning",
        "finetuning",
        "tuning",
        "training",
        "optimization",
        "regression",
        "sampling",
        "search",
        "attention",
        "transformer",
        "transformers",
        "encoder",
        "decoder",
        "autoencoder",
        "estimation",
        "descent",
        "prompting",
        "distillation",
        "augmentation",
        "pretraining",
        "pre-training",
    ]
)
_AFTER_DEF = re.compile(r"\)\s+(attacks?|datasets?|benchmarks?|corpus)\b", re.I)
_GENERIC_AGENT_MODS = frozenset(["ai", "intelligent", "autonomous", "artificial", "software", "computer"])
_METRIC_HEADS = frozenset(["rate", "score", "error", "accuracy", "distance", "divergence", "ratio"])
_EMPHASIS = "*_"  # markdown emphasis some abstracts keep: "*passage pruning*", "_Selective Token Poisoning_"
_QUOTES = "\"'“”‘’"  # a long form opened by a quote ('DE-GANs ("Data-Efficient GANs)') is named without it
_NAMED_INSIDE = re.compile(r"\s(?:called|named|dubbed|termed)\s")  # "refinement strategy called ART"
# "comparable accuracy", "competitive runtime": a judgement of a measure (the mined tier has such terms)
_EVALUATIVE = frozenset(["comparable", "competitive", "superior", "excellent", "reasonable", "satisfactory",
                         "favorable", "favourable", "remarkable", "promising"])
# "available foundation models", "requiring additional training": no term starts so
_VAGUE = frozenset(["available", "requiring", "minimal", "additional", "boosted", "incorrect", "in-depth"])
_OPENERS = _VAGUE | _EVALUATIVE
_RESULT_HEADS = frozenset(["bound", "bounds", "guarantee", "guarantees"])  # what a theory paper proves
# "trained models", "learned policy", "compared methods": a participle before a generic head is no name
_PARTICIPLE_GENERIC = re.compile(
    r"(?:[a-z]+(?:ed|en)|existing) (?:models?|methods?|approach(?:es)?|algorithms?|networks?|systems?|"
    r"polic(?:y|ies)|frameworks?|techniques?|architectures?|procedures?|strateg(?:y|ies)|predictors?|"
    r"classifiers?|learners?|estimators?)",
    re.I,
)


def type_of_long_form(long: str) -> tuple[str, str | None] | None:
    """What a defined but unknown term is, from its head noun ("quantization-aware fine-tuning" → Method)."""
    head = long.lower().split()[-1] if long.split() else ""
    if head in THREAT_HEADS:
        return "Threat", None
    if head in TASK_HEADS:
        return "Task", None
    if head in _METRIC_HEADS:
        return "Metric", None
    if head in _METHOD_HEADS or head.split("-")[-1] in _METHOD_HEADS:
        return "Method", "Method"
    hit = KIND_BY_HEAD.get(head)
    if hit and hit[0] == "Dataset":
        return hit
    return None


def _type_after(text: str, short_end: int) -> tuple[str, str | None] | None:
    """ "covert tool hijacking (CTH) attacks": the noun right after the definition says what it is."""
    m = _AFTER_DEF.match(text, short_end)
    return type_of_long_form(m.group(1)) if m else None


class _Groups:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, k: str) -> str:
        while self.parent.setdefault(k, k) != k:
            k = self.parent[k]
        return k

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


def _curated(m: Mention) -> bool:
    """A mention of a curated vocabulary entry, found by its matcher or linked by the model as one."""
    return bool(m["rule"].startswith("vocab") or m["rule"].endswith("/curated"))


def _rank(m: Mention, pair: Acronym | None) -> tuple[int, int, int, float, int]:
    """A mention named by a name (not '"Video Object Segmentation') first, proposals next; then what the
    vocabulary or an acronym's long form says the thing is ("indirect prompt injection (IPI)" is a threat,
    whatever a later "IPI benchmark" suggests); then confidence."""
    typed = m["rule"].startswith("vocab") or (
        pair is not None and m["start"] < pair.long_end and m["end"] > pair.long_start
    )
    named = _is_name(m["name"])
    return (int(named), 1 if m["relation"] in PROPOSE else 0, int(typed), m["confidence"], -m["start"])


@Language.factory(
    "paperkg_canon",
    requires=["doc._.kg_mentions", "doc._.kg_acronyms", "doc._.kg_compare"],
    assigns=["doc._.kg_entities", "doc._.kg_relations"],
)
def make_canon(nlp: Language, name: str) -> Canonicaliser:
    return Canonicaliser()


class Canonicaliser:
    """Pipeline component (last): fills `doc._.kg_entities` and `doc._.kg_relations`.

    Mentions may arrive named and typed by any earlier component (rules, the recogniser, a trained linker):
    what is read here is each mention's span, name and type, never which component made it.
    """

    def __init__(self, senses: SenseTable | None = None) -> None:
        self.senses = senses if senses is not None else load_senses()
        self.hierarchy = Hierarchy.load()

    def __call__(self, doc: Doc) -> Doc:
        text = doc_text(doc)
        acr: list[Acronym] = doc._.kg_acronyms or []
        ms: list[Mention] = list(doc._.kg_mentions or [])
        ms = _follow_definitions(ms, acr, text)
        ms = _by_context(ms, acr, text, self.senses)
        ms = self._add_defined_terms(ms, acr, text)
        ms = _pieces_of_longer(_whole_words(_without_dataset_prefix(ms, text), text), text)
        ms = _drop_background_domains(doc, ms)
        ms = _drop_nested(ms)
        groups = _Groups()
        for a in acr:
            groups.union(match_key(a.short), match_key(a.long))
        names_at: dict[tuple[int, int], set[str]] = {}
        for m in ms:
            names_at.setdefault((m["start"], m["end"]), set()).add(match_key(m["name"]) or m["name"])
        for m in ms:
            # a span named two ways, neither as written, is a coordinated phrase the rules split ("image/video
            # generation"): its names stay apart, so neither joins the other through the words they share
            # ("ImageNet32x32" named ImageNet32x32 and ImageNet is one thing)
            surface = match_key(text[m["start"] : m["end"]]) or m["name"]
            names = names_at[(m["start"], m["end"])]
            split = len(names) > 1 and surface not in names
            name = match_key(m["name"]) or m["name"]
            groups.union(name, name if split else surface)
        by_group: dict[str, list[Mention]] = {}
        for m in ms:
            by_group.setdefault(groups.find(match_key(m["name"]) or m["name"]), []).append(m)
        compare = doc._.kg_compare or []
        entities = []
        for root, group in by_group.items():
            pair = next((a for a in acr if groups.find(match_key(a.short)) == root), None)
            best = max(group, key=lambda m: _rank(m, pair))
            ent: dict[str, Any] = dict(best)
            ent["mention"] = text[best["start"] : best["end"]]
            if ent["kind"] is None:  # the long form named it, its acronym's mention said what kind it is
                kinds = (m["kind"] for m in group if m["type"] == best["type"] and m["kind"])
                ent["kind"] = next(kinds, None)
            vocab = next(
                (m for m in group if _curated(m) and m["type"] == best["type"]), None
            )
            if best["relation"] not in PROPOSE and vocab is not None:
                ent.update(name=vocab["name"], kind=vocab["kind"], broader=vocab["broader"])
            elif pair is not None and best["relation"] in PROPOSE and best["rule"] != "propose-variant":
                ent["name"] = pair.short
            elif pair is not None and best["rule"] == "defined-term":
                ent["name"] = pair.long
            named_short = match_key(ent["name"]) == match_key(pair.short) if pair is not None else False
            if pair is not None and named_short and _own_name(best, vocab) and _spelled_out(pair):
                ent["defined_as"] = pair  # named by the acronym the paper defines (_name_by_definition)
            if (
                best["type"] == "Method"
                and best["relation"] not in PROPOSE
                and any(c[0] <= m["start"] < c[1] for m in group for c in compare)
            ):
                ent["relation"] = "comparesWith"
            if (
                any(m["rule"] == "defined-term" or m["start"] in {a.short_start for a in acr} for m in group)
                and pair
            ):
                ent["confidence"] = max(
                    ent["confidence"], CONF_ACRONYM if vocab is None else ent["confidence"]
                )
            forms = [text[m["start"] : m["end"]] for m in group]
            if pair is not None:
                forms += [pair.short, pair.long]
            aliases: list[str] = []
            for f in (_unquoted(f) for f in forms):
                defined = pair is not None and f in pair[:2]
                if f and f != ent["name"] and f not in aliases and (defined or not _piece_of(f, ent["name"])):
                    if not defined and _contains_name(f, ent["name"]):
                        continue  # "image generation on ILSVRC2012" is no name of ImageNet
                    if ent["type"] == "Task" and _agent_of(f, ent["name"]):
                        continue  # "3D object detectors" find the task; they are not a name of it
                    aliases.append(f)
            ent["aliases"] = aliases
            entities.append(ent)
        entities = _without_evaluative(entities, text)
        entities = [e for e in entities if e["relation"] in PROPOSE or not _field_word(e)]
        proposed = [e["name"] for e in entities if e["relation"] in PROPOSE]
        entities = [
            e
            for e in entities
            if e["relation"] not in PROPOSE or not any(_contains_name(p, e["name"]) for p in proposed)
        ]  # "NeuroLogic" and "Decoding" are pieces of the proposed "NeuroLogic Decoding"
        entities = _drop_named_agents(_merge_generic_agents(entities))
        entities = [e for e in (_without_emphasis(e, text) for e in entities) if _is_name(e["name"])]
        entities.sort(key=lambda e: e["start"])
        relations = _relations(entities, text, sentences(doc))
        _name_by_definition(entities)  # after the rules that read names; relations hold the same dicts
        self.hierarchy.add_broader(entities)
        for e in entities:
            e.pop("long_form", None)
        doc._.kg_entities = entities
        doc._.kg_relations = relations
        return doc

    @staticmethod
    def _add_defined_terms(ms: list[Mention], acr: list[Acronym], text: str) -> list[Mention]:
        """An acronym defined in the text, unknown to the vocabulary, typed by its long form's head noun."""
        covered = {(m["start"], m["end"]) for m in ms}
        spans = [(m["start"], m["end"]) for m in ms]
        out = list(ms)
        for short, long, ss, se, ls, le, _ in acr:
            if short.upper().rstrip("S") in GENERIC_ACRONYMS or (ss, se) in covered:
                continue
            if any((s <= ls and le <= e) or s <= ss < e for s, e in spans):
                continue
            typed = type_of_long_form(re.sub(r"[^\w\s-]", "", long)) or _type_after(text, se)
            if typed is not None and typed[0] == "Method" and _STUDIED.search(text[max(0, ls - 40) : ls]):
                typed = ("Task", None)  # "this paper studies the long-tailed semi-supervised learning (X)"
            if typed is not None:
                out.append(
                    mention(
                        ls,
                        le,
                        typed[0],
                        long,
                        kind=typed[1],
                        confidence=CONF_PATTERN - 0.05,
                        rule="defined-term",
                        alias=short,
                    )
                )
        return out


def _own_name(best: Mention, vocab: Mention | None) -> bool:
    """The entity is named by the paper's own words, not by a shared vocabulary (curated, mined, or a sense
    chosen from them): a proposal always is."""
    if best["relation"] in PROPOSE:
        return best["rule"] != "propose-variant"
    return vocab is None and not best["rule"].startswith(("vocab", "mined-term", "acronym-context"))


def _spelled_out(pair: Acronym) -> bool:
    """The long form starts with the acronym's first letter, as a definition does ("Adaptive Prior Learning
    (APL)"), or its capitals spell the acronym ("ELEMENTAL (intEractive LEarning froM dEmoNstraTion And
    Language)"); a parenthesis whose letters merely contain the acronym's ("AMASS (state-of-the-art results in
    evaluations on large motion capture datasets)") is no definition to name an entity by."""
    long = plain_long_form(pair.long)
    letters = "".join(c for c in pair.short if c.isalpha()).upper()
    capitals = "".join(c for c in long if c.isupper())
    return bool(long) and (long[0].lower() == pair.short[0].lower() or capitals in (letters, letters[:-1]))


def defined_name(short: str, long: str) -> str:
    """The name of an entity a paper names by an acronym it defines: the acronym with the paper's long form
    as its disambiguator ("APL (Adaptive Prior Learning)"). Two papers' "APL" are one entity when their
    definitions are one long form (case, spacing, hyphens aside: the IRI's slug folds them) and two when
    they are not ("APL (asymmetric pseudo-labeling)")."""
    return f"{short} ({plain_long_form(long)})"


def plain_long_form(long: str) -> str:
    """A long form as a name: without the quotes around it and the markdown emphasis in it, whose marks some
    abstracts keep around the letters the acronym takes ("M**ulti-**G**ranularity" → "Multi-Granularity")."""
    return " ".join(long.strip(_EMPHASIS + _QUOTES + " ").replace("*", "").replace("__", "").split())


def _name_by_definition(entities: list[dict[str, Any]]) -> None:
    """Rename, in place, each entity marked `defined_as` (an `Acronym`) by `defined_name`; the acronym stays
    its first alias (a label, so searching for "APL" finds it), the long form an alias too and, for the
    hierarchy, its `long_form`. A variant of a renamed entity (`variant_of`) follows it."""
    renamed: dict[str, str] = {}
    for e in entities:
        pair = e.pop("defined_as", None)
        if pair is None or match_key(e["name"]) != match_key(pair.short):
            continue
        name, long = defined_name(pair.short, pair.long), plain_long_form(pair.long)
        renamed[e["name"]] = name
        kept = [a for a in e.get("aliases") or [] if a not in (pair.short, name)]
        aliases = [long if a == pair.long else a for a in kept]
        e["aliases"] = [pair.short, *aliases] if long in aliases else [pair.short, long, *aliases]
        e["name"], e["long_form"] = name, long
    if not renamed:
        return
    for e in entities:
        vo = e.get("variant_of")
        if vo and vo[1] in renamed:
            e["variant_of"] = [vo[0], renamed[vo[1]], vo[2]]


def _short_at(text: str, m: Mention) -> str | None:
    """The mention's surface when it is a bare acronym ("ASR", "MAEs")."""
    surface = text[m["start"] : m["end"]].strip()
    return surface if acronym_shaped(surface) else None


def _definition_of(short: str, defs: dict[str, Acronym]) -> Acronym | None:
    return defs.get(short) or (defs.get(short[:-1]) if short.endswith("s") else None)


def _follow_definitions(ms: list[Mention], acr: list[Acronym], text: str) -> list[Mention]:
    """An acronym the paper defines means its definition: a mention of the bare short form named as
    something the paper's long form cannot name (`same_sense`: "ASR" named speech recognition where the paper
    writes "Attack Success Rate (ASR)", "SFT" supervised fine-tuning where it writes "sparse fine-tuning") is
    dropped; the long form's own mention (or the
    defined term) carries the entity and the acronym becomes its alias, in this paper only."""
    defs: dict[str, Acronym] = {}
    for a in acr:
        defs.setdefault(a.short, a)
    if not defs:
        return ms
    out = []
    for m in ms:
        short = _short_at(text, m)
        pair = _definition_of(short, defs) if short else None
        if (
            pair is not None
            and m["relation"] not in PROPOSE
            and not (m["start"] < pair.long_end and pair.long_start < m["end"])
            and match_key(m["name"]) != match_key(pair.short)
            and not same_sense(m["name"], pair.long)
        ):
            continue
        out.append(m)
    return out


def _by_context(ms: list[Mention], acr: list[Acronym], text: str, senses: SenseTable) -> list[Mention]:
    """A bare acronym the paper does not define, with several senses in the vocabulary or the corpus, is the
    sense the paper's own words point to ("ASR" in an abstract on jailbreaks is attack success rate, in one on
    speech models speech recognition), and is left unlinked when its words point to none or to two. Words
    inside the paper's mentions of other entities are not its context ("rate" of "word error rate")."""
    defined = {a.short for a in acr} | {a.short + "s" for a in acr}
    out = []
    for m in ms:
        short = _short_at(text, m)
        if short is None or short in defined or m["relation"] in PROPOSE or not senses.ambiguous(short):
            out.append(m)
            continue
        names = {match_key(s.name) for g in senses.groups(short) for s in g}
        if match_key(m["name"]) not in names and match_key(m["name"]) != match_key(short):
            out.append(m)  # named as something else by an earlier component: not a sense of the table
            continue
        sense = senses.choose(short, content_words(_outside(text, ms, names)))
        if sense is None:
            continue
        if match_key(sense.name) == match_key(m["name"]):
            out.append(m)
            continue
        out.append(
            mention(
                m["start"],
                m["end"],
                sense.ref.type,
                sense.name,
                kind=sense.ref.kind,
                confidence=min(m["confidence"], CONF_PATTERN),
                rule="acronym-context",
                broader=sense.broader,
            )
        )
    return out


def _outside(text: str, ms: list[Mention], names: set[str]) -> str:
    """`text` with the spans of mentions of entities other than `names` blanked out."""
    chars = list(text)
    for m in ms:
        if match_key(m["name"]) not in names:
            chars[m["start"] : m["end"]] = " " * (m["end"] - m["start"])
    return "".join(chars)


def _without_dataset_prefix(ms: list[Mention], text: str) -> list[Mention]:
    """ "Cityscapes semantic segmentation" is the task on the dataset, not a task of its own: a task phrase
    that opens with a dataset mention is cut to the words after it (the dataset stays linked)."""
    datasets = [m for m in ms if m["type"] == "Dataset"]
    out: list[Mention] = []
    for m in ms:
        d = next(
            (d for d in datasets if m["type"] == "Task" and d["start"] == m["start"] and d["end"] < m["end"]),
            None,
        )
        if d is None or m["rule"].startswith("vocab"):
            out.append(m)
            continue
        rest = text[d["end"] : m["end"]]
        start = d["end"] + len(rest) - len(rest.lstrip())
        n_words = len(text[m["start"] : d["end"]].split())
        name_words = m["name"].split()
        if start >= m["end"] or len(name_words) <= n_words:
            continue
        cut = m.copy()
        cut["start"], cut["name"] = start, " ".join(name_words[n_words:])
        out.append(cut)
    return out


def _whole_words(ms: list[Mention], text: str) -> list[Mention]:
    """A name is a whole phrase: a mention named by its own words that starts inside a hyphenated or
    possessive word ("shot semantic segmentation" of "few-shot semantic segmentation", "Eye View Semantic
    Segmentation" of "Bird's-Eye View …") is widened to that word's start."""
    out = []
    for m in ms:
        start = m["start"]
        if start >= 2 and text[start - 1] in "-'’" and text[start - 2].isalnum():
            word_start = start
            while word_start > 0 and not text[word_start - 1].isspace() and text[word_start - 1] not in '("[':
                word_start -= 1
            surface = text[start : m["end"]]
            if match_key(m["name"]) == match_key(surface) and not m["rule"].startswith("vocab"):
                whole = m.copy()
                whole["start"], whole["name"] = word_start, text[word_start:start] + m["name"]
                out.append(whole)
                continue
            if not m["rule"].startswith("vocab"):
                continue  # a piece of a longer word named as something else: no name of its own
        out.append(m)
    return out


_POSSESSIVE_BEFORE = re.compile(r"\b[A-Z][\w-]*['’]s\s$")


def _pieces_of_longer(ms: list[Mention], text: str) -> list[Mention]:
    """A mention written as the end of a longer name the paper uses ("Adaptive Semantic Segmentation" in
    the title "Domain Adaptive Semantic Segmentation with …" where the abstract names the whole) is that
    name; a title-case name after a capitalised possessive ("Bird's Eye View Semantic Segmentation") starts
    at the possessive."""
    out: list[Mention] = []
    for m in ms:
        words = m["name"].split()
        longer = None
        for o in ms:
            ow = o["name"].split()
            if o["type"] != m["type"] or len(ow) <= len(words) or o["start"] <= m["start"] < o["end"]:
                continue
            if match_key(" ".join(ow[-len(words):])) != match_key(m["name"]):
                continue
            prefix = " ".join(ow[: -len(words)])
            before = text[max(0, m["start"] - len(prefix) - 1) : m["start"]]
            if match_key(before) == match_key(prefix) and before[:1] in (" ", "\n", "") + tuple(prefix[:1]):
                longer = o
                break
        if longer is not None:
            whole = m.copy()
            lw = longer["name"].split()
            whole["start"] = m["start"] - len(" ".join(lw[: -len(words)])) - 1
            for k in ("name", "type", "kind", "broader", "variant_of"):
                whole[k] = longer[k]
            out.append(whole)
            continue
        pos = _POSSESSIVE_BEFORE.search(text, max(0, m["start"] - 40), m["start"])
        if pos is not None and m["name"][:1].isupper() and match_key(m["name"]) == match_key(
            text[m["start"] : m["end"]]
        ):
            whole = m.copy()
            whole["start"], whole["name"] = pos.start(), text[pos.start() : m["start"]] + m["name"]
            out.append(whole)
            continue
        out.append(m)
    return out


def _field_word(ent: dict[str, Any]) -> bool:
    """The field's words or a result, not a paper's link: "deep learning", "foundation models", "trained
    models" (a participle before a generic head), "regret bounds" (what a theory paper proves)."""
    name = ent["name"]
    if match_key(name) in GENERIC_TERMS or _PARTICIPLE_GENERIC.fullmatch(name):
        return True
    return ent["type"] == "Method" and ent["rule"] != "vocab" and name.split()[-1].lower() in _RESULT_HEADS


def _without_evaluative(entities: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """Entities named "comparable accuracy" named by their measure ("accuracy"), unless the paper links that
    already or it is one plain word of a method ("comparable model"); "available X Y" named "X Y" (and
    "additional training" dropped); curated names are left as they are."""
    have = {(e["type"], match_key(e["name"])) for e in entities}
    out = []
    for e in entities:
        words = e["name"].split(" ")
        k = 0
        while k < len(words) - 1 and words[k].lower() in _OPENERS:
            k += 1  # "requiring additional training"
        if e["rule"] == "vocab" or k == 0:
            out.append(e)
            continue
        rest = " ".join(words[k:])
        one_word = rest.islower() and " " not in rest
        if (one_word and e["type"] in ("Method", "Task")) or (e["type"], match_key(rest)) in have:
            continue  # linked already; "comparable model", "additional training" leave no name
        start = e["start"]
        lead = " ".join(words[:k])
        if text[start : start + len(lead)].lower() == lead.lower():
            start += len(lead) + 1
        have.add((e["type"], match_key(rest)))
        out.append({**e, "name": rest, "start": start, "mention": text[start : e["end"]]})
    return out


def _without_emphasis(ent: dict[str, Any], text: str) -> dict[str, Any]:
    """The entity with markdown emphasis marks trimmed from its name, mention (offsets too) and aliases."""
    start, end = ent["start"], ent["end"]
    while start < end and text[start] in _EMPHASIS:
        start += 1
    while end > start and text[end - 1] in _EMPHASIS:
        end -= 1
    if (start, end) == (ent["start"], ent["end"]) and ent["name"][:1] not in _EMPHASIS:
        return ent
    aliases = [a for a in (a.strip(_EMPHASIS) for a in ent.get("aliases", [])) if a]
    name = ent["name"].strip(_EMPHASIS)
    return {**ent, "start": start, "end": end, "mention": text[start:end], "name": name, "aliases": aliases}


def _is_name(name: str) -> bool:
    """A name starts with a letter or digit (any script: "μKE", "π0"): "% attack" of "20% attack success
    rate" or "+8.2%" is a piece of a measurement; it is not cut off ("executing sub-" of "sub-tasks") and
    holds no naming cue ("framework named agents")."""
    return name[:1].isalnum() and name[-1:] not in "-/(" and not _NAMED_INSIDE.search(name)


def _unquoted(form: str) -> str:
    """The form without a quote or bracket it opens or closes but does not pair ('"Video Object
    Segmentation' of a quoted title)."""
    for opener, closer in (("\"", "\""), ("“", "”"), ("(", ")"), ("[", "]")):
        if form.startswith(opener) and closer not in form[1:]:
            form = form[1:].strip()
        if form.endswith(closer) and opener not in form[:-1]:
            form = form[:-1].strip()
    return form


def _name_words(name: str) -> list[str]:
    return [k for w in re.split(r"[\s\-]+", name) if (k := match_key(w))]


def _has_run(words: list[str], inner: list[str]) -> bool:
    """`inner` is a shorter, non-empty run of consecutive `words`."""
    return 0 < len(inner) < len(words) and any(
        words[i : i + len(inner)] == inner for i in range(len(words) - len(inner) + 1)
    )


def _piece_of(form: str, name: str) -> bool:
    """`form` is a cut-off run of the name's words ("policy optimization" of "proximal policy
    optimization", "noisy labels" of "learning from noisy labels"), not another name for it."""
    return _has_run(_name_words(name), _name_words(form))


_AGENT = re.compile(r"(?:or|er)s?$")


def _agent_of(form: str, name: str) -> bool:
    """`form` names what performs the task `name`: its last word the agent noun of the task's ("object
    detectors" of "object detection", "a classifier" of "image classification")."""
    last, head = (form.split() or [""])[-1].lower(), (name.split() or [""])[-1].lower()
    return (
        head.endswith(("ion", "ing"))
        and _AGENT.search(last) is not None
        and len(last) > 5
        and last[:5] == head[:5]
    )


def _contains_name(form: str, name: str) -> bool:
    """`form` is a longer phrase with the entity's name inside it (or a coordination of it with another),
    not another name for it."""
    if "/" in form and "/" not in name:
        return True  # "image/video classification" coordinates two names
    return _has_run(form.lower().split(), name.lower().split())


def _merge_generic_agents(entities: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ "AI agents" in a title and "LLM agents" in the abstract are one domain: the specific kind wins."""
    agents = [e for e in entities if e["type"] == "Domain" and e["name"].lower().endswith(" agents")]
    specific = [e for e in agents if not set(e["name"].lower().split()[:-1]) <= _GENERIC_AGENT_MODS]
    if not specific or len(specific) == len(agents):
        return entities
    keep = max(specific, key=lambda e: e["confidence"])
    generic = {id(e) for e in agents} - {id(e) for e in specific}
    for e in agents:
        if id(e) in generic:
            keep["aliases"] = list(dict.fromkeys([*keep["aliases"], e["mention"], *e["aliases"]]))
    return [e for e in entities if id(e) not in generic]


def _drop_named_agents(entities: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ "CAB agents" where CAB is the paper's own proposal is that artefact, not an application domain."""
    own = {e["name"].lower() for e in entities if e["relation"] in PROPOSE}
    return [e for e in entities if not (e["type"] == "Domain" and e["name"].lower().split()[0] in own)]


# The typing policy (ontology/README.md): what the paper studies or addresses is a task.
_STUDIED = re.compile(
    r"\b(?:study|studies|studying|address|addresses|addressing|tackle|tackles|tackling|solve|solves|"
    r"investigate|investigates|for|towards?)\s+(?:the\s+|a\s+|an\s+)?$",
    re.I,
)
_EXAMPLE_CUES = EXAMPLE_CUES


def _drop_background_domains(doc: Doc, ms: list[Mention]) -> list[Mention]:
    """Application areas named only as examples of the field's reach ("… in domains such as healthcare,
    finance and education") are background, not what the paper targets; one in the title, or named twice,
    stays."""
    text, title_end = doc_text(doc), doc._.kg_title_end or 0
    seen: dict[str, int] = {}
    for m in ms:
        if m["type"] == "Domain":
            seen[m["name"]] = seen.get(m["name"], 0) + 1
    out = []
    for m in ms:
        if m["type"] == "Domain" and m["start"] >= title_end and seen[m["name"]] < 2:
            sent_start = max(text.rfind(". ", 0, m["start"]), title_end)
            before = text[sent_start : m["start"]].lower()
            if any(cue in before for cue in _EXAMPLE_CUES):
                continue
        out.append(m)
    return out


def _drop_nested(ms: list[Mention]) -> list[Mention]:
    """A mention strictly inside another of the same type, or inside a defined term, adds nothing
    ("distribution learning" in "label distribution learning (LDL)"); a proposal only inside a longer
    proposal ("Prompt Learning" in the proposed "Masked Prompt Learning")."""
    keep = []
    for m in ms:
        own = m["relation"] in PROPOSE
        inside = any(
            o is not m
            and (o["type"] == m["type"] or o["rule"] == "defined-term")
            and (not own or o["relation"] in PROPOSE)
            and o["start"] <= m["start"]
            and m["end"] <= o["end"]
            and (o["end"] - o["start"]) > (m["end"] - m["start"])
            for o in ms
        )
        if not inside:
            keep.append(m)
    return keep


# A proposal's role, not only its kind: it defends when the sentence proposing it (or its name) is about
# defending ("Defense-GAN", a Framework; "PixelDefend", a Model), unless that sentence says it evades them.
_DEFENDS = re.compile(
    r"\b(?:defen[cs]e[sd]?|defend\w*|mitigat\w*|purif\w*|safeguard\w*|protect\w*|certifi\w*|immuni[sz]\w*|"
    r"detect\w*|robustif\w*|thwart\w*|countermeasure\w*)",
    re.I,
)
# "… (PBA) to defend against the NAW attack": a purpose that outweighs a head noun that made the kind Attack.
_TO_DEFEND = re.compile(
    r"\b(?:to|for|that|which)\s+(?:\w+\s+){0,2}"
    r"(?:defen[cds]|protect|mitigat|thwart|safeguard|counter(?:s|ing|act\w*)?\b|detect|purif)",
    re.I,
)
_EVADES = re.compile(
    r"\b(?:evad\w*|bypass\w*|circumvent\w*|break(?:s|ing)?|fool\w*|undetect\w*|stealth\w*)", re.I
)


def _sentence_of(e: dict[str, Any], text: str, sents: list[tuple[int, int]]) -> str:
    start = int(e["start"])
    return next((text[a:b] for a, b in sents if a <= start < b), text[start : int(e["end"])])


def _defends(e: dict[str, Any], text: str, sents: list[tuple[int, int]]) -> bool:
    if e["type"] not in ("Method", "Model"):
        return False
    sentence = _sentence_of(e, text, sents)
    if e.get("kind") == "Attack" and not _TO_DEFEND.search(sentence):
        return False
    if _EVADES.search(sentence):  # "a stealthy backdoor that evades existing defenses"
        return False
    return e.get("kind") == "Defense" or bool(_DEFENDS.search(e["name"]) or _DEFENDS.search(sentence))


# An attack by role: the sentence proposing it (or its name) speaks of attacking, jailbreaking, poisoning,
# evading, fooling, bypassing or extracting, and it is no defense; "robust to attacks" and "improves
# robustness" are a defender's words.
_ATTACKS = re.compile(
    r"\b(?:attack\w*|jailbr\w*|poison\w*|evad\w*|evasion|fool\w*|bypass\w*|circumvent\w*|"
    r"extract(?:s|ed|ing)?\b|steal\w*|hijack\w*|backdoor\w*|trojan\w*)",  # "relation extraction" is a task
    re.I,
)
_RESISTS = re.compile(
    r"\b(?:robust\w*|resilien\w*|resist\w*|withstand\w*|secur\w*|immune)\s+(?:\w+\s+){0,2}(?:to|against)\s+"
    r"(?:[\w-]+\s+){0,3}(?:attack|adversar|jailbr|poison|backdoor|threat)"
    r"|\b(?:improv\w*|enhanc\w*|boost\w*|increas\w*|strengthen\w*)\s+(?:\w+\s+){0,3}robustness",
    re.I,
)


def _attacks(e: dict[str, Any], text: str, sents: list[tuple[int, int]]) -> bool:
    if e["type"] not in ("Method", "Model") or _defends(e, text, sents):  # a kind alone defends nothing
        return False
    sentence = _sentence_of(e, text, sents)
    if _RESISTS.search(sentence):
        return False
    return e.get("kind") == "Attack" or bool(_ATTACKS.search(e["name"]) or _ATTACKS.search(sentence))


# A role's relations: to the paper's threats, to its domains.
_ROLES = (
    (_defends, "Defense", "defendsAgainst", "targetsDomain"),
    (_attacks, "Attack", "realizesThreat", "attacksDomain"),
)


def _relations(
    entities: list[dict[str, Any]], text: str, sents: list[tuple[int, int]]
) -> list[dict[str, Any]]:
    """defender → defendsAgainst → threat, defender → targetsDomain → domain, and attacker → realizesThreat
    → threat, attacker → attacksDomain → domain, within one paper of a threat: a defender (an attacker) is a
    proposal whose kind is Defense (Attack) or whose role is (`_defends`, `_attacks`)."""
    out: list[dict[str, Any]] = []
    threat = any(e["type"] == "Threat" for e in entities)
    for role, kind, to_threat, to_domain in _ROLES:
        actors = [
            e
            for e in entities
            if e["relation"] in PROPOSE and (threat or e.get("kind") == kind) and role(e, text, sents)
        ]
        for d in actors:
            for e in entities:
                if e["type"] == "Threat":
                    out.append({"subject": d, "relation": to_threat, "object": e})
                elif e["type"] == "Domain":
                    out.append({"subject": d, "relation": to_domain, "object": e})
    return out
