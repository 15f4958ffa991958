"""Reported results as RDF: one `kg:Result` (an `mls:ModelEvaluation`) per result in the paper's graph, and
each result metric's direction (`kg:higherIsBetter`) in the entities graph.

    <paper> kg:reportsResult <paper>/result/{hash} .
    <result> a kg:Result, mls:ModelEvaluation ; kg:metric <metric> ; kg:value "84.3"^^xsd:double ;
             kg:unit "%" ; kg:resultKind "absolute" ; kg:onDataset <dataset> ; kg:ofMethod <method> ;
             kg:baseline <method> ; kg:evidence "sentence" ; kg:mention "84.3%" ; kg:field "abstract" ;
             kg:start 20 ; kg:end 25 ; kg:confidence 0.9 ; kg:rule "result-tight" ;
             prov:wasDerivedFrom <paper> ; prov:wasGeneratedBy <extractor> .
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Iterable
from typing import Protocol

from pyoxigraph import Literal, NamedNode

from kg.rdf.iris import MLS, PROV, RDF, XSD, Iris
from kg.types import EntityRef, Extraction, Result

_Add = Callable[[NamedNode, "str | NamedNode", "NamedNode | Literal"], None]


class Mapper(Protocol):
    """What map_results needs of kg.rdf.mapping.GraphMapper (named here, so neither module imports the other
    back)."""

    iris: Iris

    def kg(self, local: str) -> NamedNode: ...

    def _declare(self, add: _Add, ref: EntityRef, forms: Iterable[str], declared: set[str]) -> None: ...

_TYPE = NamedNode(RDF + "type")
_DOUBLE = NamedNode(XSD + "double")
_INT = NamedNode(XSD + "integer")
_BOOL = NamedNode(XSD + "boolean")

# Measures where a lower value is better, by the words of their names (for metrics no vocabulary annotates).
_LOWER = re.compile(
    r"\b(?:errors?|loss|distance|divergence|perplexity|latency|time|runtime|memory|cost|regret|FID|FVD|KID|"
    r"LPIPS|MSE|MAE|RMSE|WER|CER|EER|ECE|NLL|FPR|bpd|bits per \w+|miss rate|false positive rate|"
    r"false alarm rate|collision rate|violations?|FLOPs|parameter count|drift|EPE|ATE|MPJPE)\b",
    re.I,
)
_AMBIGUOUS = re.compile(r"\battack success rate\b|\bASR\b", re.I)


@functools.lru_cache(maxsize=8)
def curated_directions(base: str) -> dict[str, bool]:
    """`kg:higherIsBetter` of the curated metric vocabulary, by entity IRI."""
    from kg.vocab import load_vocabulary

    vocab = load_vocabulary(base, mined=False)
    pred = NamedNode(Iris(base).term("higherIsBetter"))
    out: dict[str, bool] = {}
    for q in vocab.quads():
        if q.predicate == pred and isinstance(q.object, Literal) and isinstance(q.subject, NamedNode):
            out[q.subject.value] = q.object.value == "true"
    return out


def metric_direction(iris: Iris, metric: EntityRef) -> bool | None:
    """True when higher is better, False when lower is, None when it depends (attack success rate)."""
    curated = curated_directions(iris.base)
    iri = iris.entity(metric)
    if iri in curated:
        return curated[iri]
    if _AMBIGUOUS.search(metric.name):
        return None
    return not _LOWER.search(metric.name)


def result_iri(iris: Iris, paper_id: str, r: Result) -> str:
    key = f"{iris.entity(r.metric)} {r.value!r} {r.unit} {r.kind} {r.evidence.start} {r.evidence.end}"
    return f"{iris.paper(paper_id)}/result/{hashlib.sha1(key.encode()).hexdigest()[:12]}"


def map_results(
    mapper: Mapper,
    ex: Extraction,
    paper: NamedNode,
    agent: NamedNode,
    add: _Add,
    describe: _Add,
    declared: set[str],
) -> None:
    """Add the quads of `ex.results` (paper graph via `add`, entity descriptions via `describe`)."""
    iris, kg = mapper.iris, mapper.kg
    directions: set[str] = set()
    for r in ex.results:
        node = NamedNode(result_iri(iris, ex.paper.id, r))
        add(paper, kg("reportsResult"), node)
        add(node, _TYPE, kg("Result"))
        add(node, _TYPE, NamedNode(MLS + "ModelEvaluation"))
        metric = NamedNode(iris.entity(r.metric))
        add(node, kg("metric"), metric)
        add(node, kg("value"), Literal(repr(float(r.value)), datatype=_DOUBLE))
        add(node, kg("unit"), Literal(r.unit))
        add(node, kg("resultKind"), Literal(r.kind))
        if r.split:
            add(node, kg("datasetSplit"), Literal(r.split))
        for pred, ref in (("onDataset", r.dataset), ("ofMethod", r.method), ("baseline", r.baseline)):
            if ref is not None:
                add(node, kg(pred), NamedNode(iris.entity(ref)))
                mapper._declare(describe, ref, (), declared)
        ev = r.evidence
        add(node, kg("evidence"), Literal(ev.sentence))
        add(node, kg("mention"), Literal(ev.mention))
        add(node, kg("field"), Literal(ev.field))
        add(node, kg("start"), Literal(str(ev.start), datatype=_INT))
        add(node, kg("end"), Literal(str(ev.end), datatype=_INT))
        add(node, kg("confidence"), Literal(repr(round(float(ev.confidence), 4)), datatype=_DOUBLE))
        if ev.rule:
            add(node, kg("rule"), Literal(ev.rule))
        add(node, NamedNode(PROV + "wasDerivedFrom"), paper)
        add(node, NamedNode(PROV + "wasGeneratedBy"), agent)
        mapper._declare(describe, r.metric, (), declared)
        if metric.value not in directions:
            directions.add(metric.value)
            direction = metric_direction(iris, r.metric)
            if direction is not None:
                describe(
                    metric, kg("higherIsBetter"), Literal("true" if direction else "false", datatype=_BOOL)
                )
