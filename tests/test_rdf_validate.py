"""SHACL validation of graphs built by GraphMapper (kg/rdf/validate.py, ontology/shapes.ttl)."""

from __future__ import annotations

import pyoxigraph as ox
import pytest
import rdflib

from kg.rdf.descriptions import one_description
from kg.rdf.iris import Iris
from kg.rdf.mapping import GraphMapper
from kg.rdf.validate import ValidationReport, validate
from kg.types import EntityRef, Evidence, Extraction, Link, Paper, Relation

BASE = "https://w3id.org/paperkg/"
OTHER_BASE = "http://example.org/kg/"
KG = BASE + "ontology#"
SENTENCE = "We attack GPT-4 with prompt injection on ImageNet."


def _evidence(mention: str, confidence: float = 0.9, field: str = "abstract") -> Evidence:
    start = SENTENCE.find(mention)
    return Evidence(SENTENCE, mention, start, start + len(mention), confidence, field=field,  # type: ignore[arg-type]
                    rule="vocab")


def _extraction(paper_id: str = "p1", confidence: float = 0.9, title: str | None = "A title",
                abstract: str = SENTENCE) -> Extraction:
    paper = Paper(id=paper_id, abstract=abstract, title=title, authors=("Ada Lovelace", "Alan Turing"),
                  venue="ICML 2025", year=2025, url="https://example.org/p1", doi="10.1000/xyz",
                  source="seed.jsonl:1")
    imagenet = EntityRef("Dataset", "ImageNet", "Benchmark")
    injection = EntityRef("Threat", "prompt injection")
    melon = EntityRef("Method", "MELON", "Defense")
    links = (
        Link("usesDataset", imagenet, _evidence("ImageNet", confidence), aliases=("ILSVRC",),
             variant_of=EntityRef("Dataset", "ImageNet-21k", "Dataset")),
        Link("addressesTask", EntityRef("Task", "video generation"), _evidence("prompt", 0.3, "title"),
             broader=(EntityRef("Task", "generative modeling"),)),
        Link("proposes", melon, _evidence("attack")),
        Link("proposes", EntityRef("Method", "MaskGIT", "Model"), _evidence("attack")),
        Link("usesMethod", EntityRef("Method", "PGD", "Attack"), _evidence("attack")),
        Link("comparesWith", EntityRef("Model", "BERT"), _evidence("We")),
        Link("evaluatesModel", EntityRef("Model", "GPT-4"), _evidence("GPT-4")),
        Link("studiesThreat", injection, _evidence("prompt injection")),
        Link("reportsMetric", EntityRef("Metric", "attack success rate"), _evidence("attack")),
        Link("targetsDomain", EntityRef("Domain", "healthcare"), _evidence("on")),
        Link("introducesDataset", EntityRef("Dataset", "NewBench", "Benchmark"), _evidence("ImageNet")),
    )
    relations = (
        Relation(melon, "defendsAgainst", injection, _evidence("prompt injection")),
        Relation(melon, "targetsDomain", EntityRef("Domain", "LLM agents"), _evidence("GPT-4")),
        Relation(EntityRef("Task", "video generation"), "broader", EntityRef("Task", "generative modeling"),
                 _evidence("We")),
        Relation(EntityRef("Dataset", "CIFAR-10-LT"), "variantOf", EntityRef("Dataset", "CIFAR-10"),
                 _evidence("ImageNet")),
    )
    return Extraction(paper, links, relations, code_urls=("https://github.com/example/repo",),
                      extractor_version="0.1.0")


def _v(term: object) -> str:
    """The lexical form of an IRI, blank node or literal (narrows pyoxigraph's term union)."""
    assert isinstance(term, ox.NamedNode | ox.BlankNode | ox.Literal), term
    return term.value


def _dataset(quads: list[ox.Quad]) -> rdflib.Dataset:
    ds = rdflib.Dataset()
    ds.parse(data="".join(f"{q} .\n" for q in quads), format="nquads")
    return ds


def _quads(ex: Extraction, base: str = BASE) -> list[ox.Quad]:
    return GraphMapper(Iris(base)).paper_quads(ex)


def _without(quads: list[ox.Quad], predicate: str) -> list[ox.Quad]:
    return [q for q in quads if q.predicate.value != predicate]


def _confidence_of(quads: list[ox.Quad]) -> list[str]:
    return [_v(q.object) for q in quads if q.predicate.value == KG + "confidence"]


def test_mapped_paper_graph_conforms() -> None:
    report = validate(_dataset(_quads(_extraction())), BASE)
    assert (report.conforms, report.violations) == (True, 0)


def test_report_is_a_frozen_dataclass() -> None:
    report = validate(_dataset(_quads(_extraction())), BASE)
    assert isinstance(report, ValidationReport)
    with pytest.raises(AttributeError):
        report.conforms = False  # type: ignore[misc]


def test_union_of_several_papers_declaring_the_same_entities_conforms() -> None:
    quads = [q for i in range(5) for q in _quads(_extraction(paper_id=f"p{i}"))]
    assert validate(_dataset(quads), BASE).conforms is True


def _two_spellings() -> list[ox.Quad]:
    """Two papers' quads naming one entity (dataset/imagenet) "ImageNet" and "Imagenet"."""
    a = _extraction(paper_id="a")
    b_links = tuple(
        Link(lk.relation, EntityRef("Dataset", "Imagenet", "Benchmark"), lk.evidence)
        if lk.entity.name == "ImageNet" else lk for lk in _extraction(paper_id="b").links)
    b = Extraction(_extraction(paper_id="b").paper, b_links, extractor_version="0.1.0")
    return _quads(a) + _quads(b)


def test_entity_with_two_spellings_across_papers_conforms_as_written() -> None:
    # the write path keeps the first name and makes the second an altLabel (kg.rdf.descriptions)
    quads = _two_spellings()
    entities = ox.NamedNode(Iris(BASE).entities_graph)
    described = [q for q in quads if q.graph_name == entities]
    settled = [q for q in quads if q.graph_name != entities] + one_description(Iris(BASE), described)
    assert validate(_dataset(settled), BASE).conforms is True


def test_entity_with_two_prefLabels_does_not_conform() -> None:
    report = validate(_dataset(_two_spellings()), BASE)
    assert report.conforms is False and "MaxCount" in report.text


def test_paper_with_title_only_conforms() -> None:
    assert validate(_dataset(_quads(_extraction(abstract=""))), BASE).conforms is True


def test_other_base_conforms_with_its_own_shapes() -> None:
    assert validate(_dataset(_quads(_extraction(), OTHER_BASE)), OTHER_BASE).conforms is True


def test_plain_graph_is_accepted() -> None:
    g = rdflib.Graph()
    for s, p, o, _ in _dataset(_quads(_extraction())).quads((None, None, None, None)):
        g.add((s, p, o))
    assert validate(g, BASE).conforms is True


def test_low_confidence_link_conforms() -> None:
    quads = _quads(_extraction(confidence=0.1))
    assert validate(_dataset(quads), BASE).conforms is True


def test_link_without_confidence_is_a_violation() -> None:
    quads = _without(_quads(_extraction()), KG + "confidence")
    report = validate(_dataset(quads), BASE)
    links = {q.subject for q in quads if q.predicate.value == KG + "span"}
    assert links and (report.conforms, report.violations) == (False, len(links))


def test_confidence_above_one_is_a_violation() -> None:
    quads = _quads(_extraction(confidence=1.7))
    assert _confidence_of(quads).count("1.7") == 1
    report = validate(_dataset(quads), BASE)
    assert (report.conforms, report.violations) == (False, 1)


def test_negative_confidence_is_a_violation() -> None:
    report = validate(_dataset(_quads(_extraction(confidence=-0.2))), BASE)
    assert (report.conforms, report.violations) == (False, 1)


def test_paper_without_identifier_is_a_violation() -> None:
    quads = _without(_quads(_extraction()), "http://purl.org/dc/terms/identifier")
    report = validate(_dataset(quads), BASE)
    assert (report.conforms, report.violations) == (False, 1)
    assert "identifier" in report.text


def test_paper_with_two_identifiers_is_a_violation() -> None:
    quads = _quads(_extraction())
    paper = next(q for q in quads if _v(q.object) == KG + "Paper")
    extra = ox.Quad(paper.subject, ox.NamedNode("http://purl.org/dc/terms/identifier"), ox.Literal("other"),
                    paper.graph_name)
    assert validate(_dataset(quads + [extra]), BASE).violations == 1


def test_paper_without_title_and_abstract_is_a_violation() -> None:
    quads = _quads(_extraction(title=None, abstract=""))
    report = validate(_dataset(quads), BASE)
    assert (report.conforms, report.violations) == (False, 1)


def test_year_that_is_not_a_gyear_is_a_violation() -> None:
    quads = [
        ox.Quad(q.subject, q.predicate, ox.Literal("2025"), q.graph_name)
        if q.predicate.value == "http://purl.org/dc/terms/issued" else q
        for q in _quads(_extraction())
    ]
    assert validate(_dataset(quads), BASE).violations == 1


def test_rule_without_extractor_is_a_violation() -> None:
    quads = _without(_quads(_extraction()), "http://www.w3.org/ns/prov#wasGeneratedBy")
    rules = {q.subject for q in quads if _v(q.object) == KG + "Rule"}
    assert rules and validate(_dataset(quads), BASE).violations == len(rules)


def test_link_without_its_rule_is_a_violation() -> None:
    quads = _without(_quads(_extraction()), KG + "by")
    links = {q.subject for q in quads if q.predicate.value == KG + "span"}
    # each link misses its rule and, through it, its confidence (format 5: on the rule node)
    assert validate(_dataset(quads), BASE).violations == 2 * len(links)


def test_negative_start_offset_is_a_violation() -> None:
    quads = [
        ox.Quad(q.subject, q.predicate, ox.Literal(_v(q.object).replace(" 0 ", " -1 ", 1)), q.graph_name)
        if q.predicate.value == KG + "span" and " 0 " in _v(q.object) else q
        for q in _quads(_extraction())
    ]
    changed = [q for q in quads if q.predicate.value == KG + "span" and " -1 " in _v(q.object)]
    assert changed and validate(_dataset(quads), BASE).violations == len(changed)


def test_end_before_start_is_a_violation() -> None:
    ev = Evidence(SENTENCE, "GPT-4", 20, 10, 0.9)
    ex = _extraction()
    bad = Extraction(ex.paper, (Link("evaluatesModel", EntityRef("Model", "GPT-4"), ev),),
                     extractor_version="0.1.0")
    assert validate(_dataset(_quads(bad)), BASE).violations == 1


def test_entity_without_label_is_a_violation() -> None:
    quads = _without(_quads(_extraction()), "http://www.w3.org/2004/02/skos/core#prefLabel")
    entities = {q.subject for q in quads if q.predicate.value == KG + "key"}
    report = validate(_dataset(quads), BASE)
    assert report.conforms is False
    assert report.violations >= len(entities)


def test_uses_dataset_pointing_at_a_task_is_a_violation() -> None:
    ev = _evidence("ImageNet")
    ex = _extraction()
    bad = Extraction(ex.paper, (Link("usesDataset", EntityRef("Task", "image classification"), ev),),
                     extractor_version="0.1.0")
    assert validate(_dataset(_quads(bad)), BASE).violations == 1


def test_shapes_of_another_base_do_not_apply() -> None:
    # data built for one base, validated with another base's shapes: nothing is targeted
    quads = _without(_quads(_extraction()), KG + "confidence")
    assert validate(_dataset(quads), OTHER_BASE).conforms is True


def test_link_to_an_undeclared_entity_is_a_violation() -> None:
    quads = _quads(_extraction())
    paper = next(q for q in quads if _v(q.object) == KG + "Paper")
    ghost = ox.Quad(paper.subject, ox.NamedNode(KG + "comparesWith"), ox.NamedNode(BASE + "method/ghost"),
                    paper.graph_name)
    assert validate(_dataset(quads + [ghost]), BASE).violations == 1
