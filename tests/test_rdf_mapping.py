"""kg.rdf.mapping: what one paper's named graph contains."""

from pyoxigraph import BlankNode, Literal, NamedNode

from kg.rdf.iris import RDF, Iris
from kg.rdf.mapping import GraphMapper
from kg.types import EntityRef, Evidence, Extraction, Link, Paper, Relation

BASE = "https://example.org/kg/"
IRIS = Iris(BASE)
KG = IRIS.ns
PAPER = Paper(
    id="p1",
    title="QuuxNet",
    abstract="We evaluate QuuxNet on ImageNet256×256.",
    year=2025,
    url="https://example.org/p1",
    authors=("Ada Lovelace",),
)
IMAGENET = EntityRef("Dataset", "ImageNet", "Benchmark")
EV = Evidence("We evaluate QuuxNet on ImageNet256×256.", "ImageNet256×256", 23, 38, 0.9, rule="vocab")


def _v(term: object) -> str:
    """The lexical form of an IRI, blank node or literal (narrows pyoxigraph's term union)."""
    assert isinstance(term, NamedNode | BlankNode | Literal), term
    return term.value


def quads(ex: Extraction) -> set[tuple[str, str, str]]:
    return {(_v(q.subject), q.predicate.value, str(q.object)) for q in GraphMapper(IRIS).paper_quads(ex)}


def test_paper_and_links_live_in_the_paper_graph() -> None:
    ex = Extraction(PAPER, (Link("usesDataset", IMAGENET, EV),), extractor_version="1")
    mapped = GraphMapper(IRIS).map(ex)
    assert {q.graph_name for q in mapped.quads} == {NamedNode(BASE + "graph/paper/p1")}


def test_entity_descriptions_live_in_the_shared_entities_graph() -> None:
    ex = Extraction(PAPER, (Link("usesDataset", IMAGENET, EV),), extractor_version="1")
    mapped = GraphMapper(IRIS).map(ex)
    assert {q.graph_name for q in mapped.shared} == {NamedNode(BASE + "graph/entities")}
    assert {_v(q.subject) for q in mapped.shared} == {BASE + "dataset/imagenet", BASE + "extractor/1",
                                                        BASE + "rule/vocab/1/0.9"}


def test_no_triple_is_stored_in_two_graphs() -> None:
    """The agent is described once (entities graph), not in every paper graph."""
    ex = Extraction(PAPER, (Link("usesDataset", IMAGENET, EV),), extractor_version="1")
    mapped = GraphMapper(IRIS).map(ex)
    own = {q.triple for q in mapped.quads}
    assert not own & {q.triple for q in mapped.shared}
    assert all(_v(q.subject) != BASE + "extractor/1" for q in mapped.quads)


def test_link_is_a_direct_triple() -> None:
    ex = Extraction(PAPER, (Link("usesDataset", IMAGENET, EV),), extractor_version="1")
    assert (BASE + "paper/p1", KG + "usesDataset", f"<{BASE}dataset/imagenet>") in quads(ex)


def test_link_node_carries_evidence_and_confidence() -> None:
    ex = Extraction(PAPER, (Link("usesDataset", IMAGENET, EV),), extractor_version="1")
    node = IRIS.link("p1", "usesDataset", BASE + "dataset/imagenet")
    got = quads(ex)
    # the sentence and the mention as offsets into the abstract, which holds them verbatim
    assert (node, KG + "span", '"abstract 0 39 23 38"') in got
    assert PAPER.abstract[0:39] == EV.sentence and PAPER.abstract[23:38] == EV.mention
    assert not {(s, p) for s, p, _ in got} & {(node, KG + "evidence"), (node, KG + "mention")}
    # format 5: the confidence is the shared rule node's, one per (rule, extractor version, confidence)
    rule = BASE + "rule/vocab/1/0.9"
    # ... and the link node states no statement: the plain link names it (Iris.link)
    assert {(p, o) for s, p, o in got if s == node} == {(KG + "span", '"abstract 0 39 23 38"'),
                                                        (KG + "by", f"<{rule}>")}
    assert {(p, o) for s, p, o in got if s == rule} == {
        (RDF + "type", f"<{KG}Rule>"), (KG + "rule", '"vocab"'), (KG + "tier", '"curated"'),
        (KG + "confidence", '"0.9"^^<http://www.w3.org/2001/XMLSchema#double>'),
        ("http://www.w3.org/ns/prov#wasGeneratedBy", f"<{BASE}extractor/1>")}


def test_invented_paper_maps_to_exactly_these_quads() -> None:
    """Every quad of a small invented paper with one link, in the graph it belongs to (format 5)."""
    paper = Paper(id="inv-1", abstract="We train on ImageNet. It works.", title="On ImageNet",
                  authors=("Ann Lee", "Bo Wu"), year=2025, venue="ICML")
    ev = Evidence("We train on ImageNet.", "ImageNet", 12, 20, 0.3, rule="vocab")
    link = Link("usesDataset", EntityRef("Dataset", "ImageNet"), ev)
    ex = Extraction(paper, (link,), extractor_version="1")
    mapped = GraphMapper(IRIS).map(ex)
    p, g, eg = BASE + "paper/inv-1", BASE + "graph/paper/inv-1", BASE + "graph/entities"
    node, rule, e = IRIS.link("inv-1", "usesDataset", BASE + "dataset/imagenet"), BASE + "rule/vocab/1/0.3", \
        BASE + "dataset/imagenet"
    xsd, dct = "http://www.w3.org/2001/XMLSchema#", "http://purl.org/dc/terms/"
    got = {(_v(q.subject), q.predicate.value, str(q.object), _v(q.graph_name))
           for q in mapped.quads + mapped.shared}
    assert got == {
        (p, RDF + "type", f"<{KG}Paper>", g), (p, dct + "identifier", '"inv-1"', g),
        (p, dct + "title", '"On ImageNet"', g), (p, dct + "abstract", '"We train on ImageNet. It works."', g),
        (p, "http://purl.org/ontology/bibo/authorList", f"<{p}/authors>", g),
        (p + "/authors", RDF + "_1", '"Ann Lee"', g), (p + "/authors", RDF + "_2", '"Bo Wu"', g),
        (p, dct + "issued", f'"2025"^^<{xsd}gYear>', g), (p, KG + "venue", '"ICML"', g),
        (p, KG + "extractorVersion", '"1"', g),
        (p, KG + "usesDataset", f"<{e}>", g),
        (node, KG + "span", '"abstract 0 21 12 20"', g), (node, KG + "by", f"<{rule}>", g),
        (rule, RDF + "type", f"<{KG}Rule>", eg), (rule, KG + "rule", '"vocab"', eg),
        (rule, KG + "tier", '"curated"', eg), (rule, KG + "confidence", f'"0.3"^^<{xsd}double>', eg),
        (rule, KG + "lowConfidence", f'"true"^^<{xsd}boolean>', eg),
        (rule, "http://www.w3.org/ns/prov#wasGeneratedBy", f"<{BASE}extractor/1>", eg),
        (BASE + "extractor/1", RDF + "type", "<http://www.w3.org/ns/prov#SoftwareAgent>", eg),
        (BASE + "extractor/1", "http://www.w3.org/2000/01/rdf-schema#label", '"paperkg extractor 1"', eg),
        (e, RDF + "type", f"<{KG}Dataset>", eg), (e, "http://www.w3.org/2004/02/skos/core#prefLabel",
                                                  '"ImageNet"', eg),
        (e, KG + "key", '"imagenet"', eg),
    }


def test_evidence_not_found_in_the_text_is_kept_as_text() -> None:
    odd = Evidence("A sentence the abstract does not hold.", "Imagenet", 23, 31, 0.8, rule="vocab")
    ex = Extraction(PAPER, (Link("usesDataset", IMAGENET, odd),), extractor_version="1")
    node = IRIS.link("p1", "usesDataset", BASE + "dataset/imagenet")
    got = quads(ex)
    assert (node, KG + "span", '"abstract - - 23 31"') in got
    assert (node, KG + "evidence", str(Literal(odd.sentence))) in got
    assert (node, KG + "mention", '"Imagenet"') in got  # the abstract says "ImageNet2" there


def test_authors_keep_their_order() -> None:
    paper = Paper(id="p2", abstract="x", authors=("Zoë Zhang", "Ada Lovelace", "Mo Ng"))
    got = quads(Extraction(paper, (), extractor_version="1"))
    seq = BASE + "paper/p2/authors"
    assert (BASE + "paper/p2", "http://purl.org/ontology/bibo/authorList", f"<{seq}>") in got
    members = sorted((p, o) for s, p, o in got if s == seq)
    rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#_"
    assert members == [(rdf + "1", '"Zoë Zhang"'), (rdf + "2", '"Ada Lovelace"'), (rdf + "3", '"Mo Ng"')]


def test_mention_becomes_alt_label_and_key() -> None:
    ex = Extraction(PAPER, (Link("usesDataset", IMAGENET, EV),), extractor_version="1")
    got = quads(ex)
    e = BASE + "dataset/imagenet"
    assert (e, "http://www.w3.org/2004/02/skos/core#altLabel", '"ImageNet256×256"') in got
    assert (e, KG + "key", '"imagenet256x256"') in got


def test_low_confidence_links_are_marked() -> None:
    weak = Evidence("s", "X", 0, 1, 0.3)
    ex = Extraction(PAPER, (Link("usesDataset", IMAGENET, weak),), extractor_version="1")
    node = IRIS.link("p1", "usesDataset", BASE + "dataset/imagenet")
    rule = BASE + "rule/none/1/0.3"
    got = quads(ex)
    assert (node, KG + "by", f"<{rule}>") in got
    assert (rule, KG + "lowConfidence", '"true"^^<http://www.w3.org/2001/XMLSchema#boolean>') in got


def test_entity_relation_is_a_direct_triple_between_entities() -> None:
    melon = EntityRef("Method", "MELON", "Defense")
    ipi = EntityRef("Threat", "indirect prompt injection")
    ex = Extraction(
        PAPER,
        (Link("proposes", melon, EV),),
        (Relation(melon, "defendsAgainst", ipi, EV),),
        extractor_version="1",
    )
    assert (
        BASE + "method/melon",
        KG + "defendsAgainst",
        f"<{BASE}threat/indirect-prompt-injection>",
    ) in quads(ex)


def test_variant_points_to_its_base_entity() -> None:
    lt = EntityRef("Dataset", "CIFAR-10-LT")
    ex = Extraction(
        PAPER,
        (Link("usesDataset", lt, EV, variant_of=EntityRef("Dataset", "CIFAR-10")),),
        extractor_version="1",
    )
    assert (BASE + "dataset/cifar-10-lt", KG + "variantOf", f"<{BASE}dataset/cifar-10>") in quads(ex)


def test_non_http_code_url_is_dropped_not_raised() -> None:
    ex = Extraction(
        PAPER, (), code_urls=("javascript:alert(1)", "https://github.com/o/r"), extractor_version="1"
    )
    got = quads(ex)
    assert (BASE + "paper/p1", KG + "hasCode", "<https://github.com/o/r>") in got
    assert not any("javascript" in o for _, _, o in got)


def test_mapping_is_deterministic() -> None:
    ex = Extraction(PAPER, (Link("usesDataset", IMAGENET, EV),), extractor_version="1")
    assert GraphMapper(IRIS).paper_quads(ex) == GraphMapper(IRIS).paper_quads(ex)
