"""Turn one Extraction into the quads of its paper's named graph and the entity descriptions it adds.

Layout (the paper, its links and link nodes live in the graph {base}graph/paper/{id}; entity
descriptions in the shared graph {base}graph/entities):

    <paper> a kg:Paper ; dcterms:identifier "id" ; dcterms:title ; dcterms:abstract ;
            bibo:authorList <paper/authors> ; dcterms:issued "2025"^^xsd:gYear ; kg:venue ; schema:url <url> ;
            kg:doi ; dcterms:source "file:line" ; kg:hasCode <url> ; kg:extractorVersion "0.1.0" ;
            kg:<relation> <entity> .                         # the plain link, easy to query
    <paper/authors> rdf:_1 "first author" ; rdf:_2 "second author" ...   # an rdf:Seq: authors in order
    <link>  kg:span "abstract 120 231 140 149" ;   # field, sentence start/end, mention start/end in it
            kg:by <{base}rule/{rule}/{version}/{confidence}> .
    # <link> = {paper}/link/{first 12 hex of sha1("relation entity-IRI")}; entity–entity link nodes add
    # rdf:subject, rdf:predicate, rdf:object (their IRI cannot be derived from a paper's plain link)
    <rule node> a kg:Rule ; kg:rule "vocab" ; kg:tier "curated" ; kg:confidence "0.9"^^xsd:double ;
                [kg:lowConfidence true ;] prov:wasGeneratedBy <extractor> .   # shared, in the entities graph
    <entity> a kg:<Type> [, kg:<Kind>] ; skos:prefLabel "Name" ; skos:altLabel "alias"... ;
             kg:key "matchkey"... ; kg:kind "Kind" ; kg:variantOf <entity> ; skos:broader <entity> .
    <extractor> a prov:SoftwareAgent ; rdfs:label "paperkg extractor VERSION" .   # in the entities graph

Lean evidence (store formats 3 and 5): every piece of evidence is kept without repeating what is stored. The
sentence and the mention are offsets into the paper's own title or abstract (`kg:span`); a sentence or
mention that is not found there verbatim is stored as text (`kg:evidence`, `kg:mention`) instead. The
rule, its tier, the extractor version and the confidence are one shared rule node per (rule, extractor
version, confidence) in the entities graph (store format 5; a few hundred nodes, where a confidence
literal per link was a tenth of a paper's quads): a link's confidence is `?link kg:by/kg:confidence ?c`.
The link node of `<paper> kg:r <entity>` is `{paper}/link/{hash of r and entity}` (`Iris.link`) and
states no statement of its own (format 5; its rdf:predicate and rdf:object repeated the plain link): the
plain link names it, in SPARQL `IRI(CONCAT(STR(?paper), "/link/", SUBSTR(SHA1(CONCAT("r ",
STR(?entity))), 1, 12)))`; `kg:lowConfidence` (on the rule node) follows from `kg:confidence` < 0.5.
Authors keep their order in an rdf:Seq (one triple per author, plus one), not an rdf:List (two each).

No triple is stored in two graphs, so the union default graph is a set: the extractor agent is described
once in the entities graph, not in every paper graph, and kg.write leaves out of the entities graph what
the store's vocabulary and ontology graphs already say.

Entity descriptions are shared: stored once however many papers mention the entity, so a popular
entity's labels and keys are one row each in queries over the union of graphs (repeating them per paper
graph made lookups of popular entities cost one join row per paper). Replacing or deleting a paper drops
its links; the surface forms it contributed stay as aliases of the entity.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from pyoxigraph import Literal, NamedNode, Quad

from kg.names import match_key, slug
from kg.rdf.iris import DCTERMS, PROV, RDF, RDFS, SCHEMA, SKOS, XSD, Iris
from kg.rdf.results import map_results
from kg.types import EntityRef, Evidence, Extraction, Paper

LOW_CONFIDENCE = 0.5
# Kinds that are also classes (subclasses of the entity's type). A Method of kind "Model" stays a Method:
# kg:Model is the class of pretrained model families.
KIND_CLASSES = frozenset({"Benchmark", "Algorithm", "Architecture", "Framework", "Loss", "Defense", "Attack"})

_Add = Callable[[NamedNode, "str | NamedNode", "NamedNode | Literal"], None]
_TYPE = NamedNode(RDF + "type")
BIBO = "http://purl.org/ontology/bibo/"
_XSD_INT = NamedNode(XSD + "integer")
_XSD_DOUBLE = NamedNode(XSD + "double")
_XSD_BOOL = NamedNode(XSD + "boolean")
_XSD_YEAR = NamedNode(XSD + "gYear")
_XSD_INTEGER = NamedNode(XSD + "integer")


def safe_iri(url: str) -> NamedNode | None:
    """A NamedNode for an http(s) URL, or None when the text is not one (never raise on user data)."""
    try:
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return None
        return NamedNode(url.strip())
    except ValueError:
        return None


@dataclass(slots=True)
class QuadSink:
    """A paper graph's quads (`add`) and the entity descriptions it adds to the shared graph (`describe`)."""

    graph: NamedNode
    entities: NamedNode
    out: list[Quad] = field(default_factory=list)
    shared: list[Quad] = field(default_factory=list)

    def add(self, s: NamedNode, p: str | NamedNode, o: NamedNode | Literal) -> None:
        self.out.append(Quad(s, p if isinstance(p, NamedNode) else NamedNode(p), o, self.graph))

    def describe(self, s: NamedNode, p: str | NamedNode, o: NamedNode | Literal) -> None:
        self.shared.append(Quad(s, p if isinstance(p, NamedNode) else NamedNode(p), o, self.entities))


@dataclass(frozen=True, slots=True)
class MappedPaper:
    """One paper's named graph and the entity-description quads it adds to the shared entities graph."""

    graph: str
    quads: list[Quad]
    shared: list[Quad]


class GraphMapper:
    """Maps extractions to quads for one base IRI."""

    def __init__(self, iris: Iris) -> None:
        self.iris = iris
        self._terms: dict[str, NamedNode] = {}

    def kg(self, local: str) -> NamedNode:
        node = self._terms.get(local)
        if node is None:
            node = self._terms[local] = NamedNode(self.iris.term(local))
        return node

    def paper_quads(self, ex: Extraction) -> list[Quad]:
        """Every quad one paper contributes: its own graph's, then its entity descriptions."""
        mapped = self.map(ex)
        return mapped.quads + mapped.shared

    def map(self, ex: Extraction) -> MappedPaper:
        """The paper's graph and its entity descriptions (in the shared entities graph)."""
        iris, paper = self.iris, ex.paper
        g = NamedNode(iris.paper_graph(paper.id))
        eg = NamedNode(iris.entities_graph)
        p = NamedNode(iris.paper(paper.id))
        sink = QuadSink(g, eg)
        out, shared, add, describe = sink.out, sink.shared, sink.add, sink.describe

        add(p, _TYPE, self.kg("Paper"))  # kg:Paper is a subclass of schema:ScholarlyArticle (ontology)
        add(p, DCTERMS + "identifier", Literal(paper.id))
        if paper.title:
            add(p, DCTERMS + "title", Literal(paper.title))
        if paper.abstract:
            add(p, DCTERMS + "abstract", Literal(paper.abstract))
        if paper.authors:
            seq = NamedNode(p.value + "/authors")
            add(p, BIBO + "authorList", seq)
            for i, author in enumerate(paper.authors, 1):
                add(seq, f"{RDF}_{i}", Literal(author))
        if paper.year is not None:
            add(p, DCTERMS + "issued", Literal(str(paper.year), datatype=_XSD_YEAR))
        if paper.venue:
            add(p, self.kg("venue"), Literal(paper.venue))
        if paper.url and (url := safe_iri(paper.url)) is not None:
            add(p, SCHEMA + "url", url)
        if paper.doi:
            add(p, self.kg("doi"), Literal(paper.doi))
        if paper.citations is not None:
            add(p, self.kg("citationCount"), Literal(str(paper.citations), datatype=_XSD_INTEGER))
        if paper.source:
            add(p, DCTERMS + "source", Literal(paper.source))
        for code in ex.code_urls:
            if (code_iri := safe_iri(code)) is not None:
                add(p, self.kg("hasCode"), code_iri)

        agent = NamedNode(iris.extractor(ex.extractor_version or "unknown"))
        describe(agent, _TYPE, NamedNode(PROV + "SoftwareAgent"))
        describe(agent, RDFS + "label", Literal(f"paperkg extractor {ex.extractor_version or 'unknown'}"))
        add(p, self.kg("extractorVersion"), Literal(ex.extractor_version or "unknown"))  # store format 2

        declared: set[str] = set()
        for link in ex.links:
            e = NamedNode(iris.entity(link.entity))
            rel = self.kg(link.relation)
            add(p, rel, e)
            node = NamedNode(iris.link(paper.id, link.relation, e.value))
            version = ex.extractor_version
            self._evidence(add, describe, node, None, rel, e, link.evidence, paper, version, agent)
            self._declare(describe, link.entity, link.aliases + (link.evidence.mention,), declared)
            if link.variant_of is not None:
                base = NamedNode(iris.entity(link.variant_of))
                describe(e, self.kg("variantOf"), base)
                self._declare(describe, link.variant_of, (), declared)
            for broader in link.broader:
                describe(e, SKOS + "broader", NamedNode(iris.entity(broader)))
                self._declare(describe, broader, (), declared)
        for r in ex.relations:
            s, o = NamedNode(iris.entity(r.subject)), NamedNode(iris.entity(r.object))
            rel = self.kg(r.relation) if r.relation != "broader" else NamedNode(SKOS + "broader")
            add(s, rel, o)
            node = NamedNode(iris.relation_node(paper.id, s.value, r.relation, o.value))
            self._evidence(add, describe, node, s, rel, o, r.evidence, paper, ex.extractor_version, agent)
            self._declare(describe, r.subject, (), declared)
            self._declare(describe, r.object, (), declared)
        map_results(self, ex, p, agent, add, describe, declared)  # kg:Result nodes (kg/rdf/results.py)
        return MappedPaper(g.value, _dedupe(out), _dedupe(shared))

    def _evidence(
        self,
        add: _Add,
        describe: _Add,
        node: NamedNode,
        s: NamedNode | None,
        rel: NamedNode,
        o: NamedNode,
        ev: Evidence,
        paper: Paper,
        version: str,
        agent: NamedNode,
    ) -> None:
        """The lean link node: the statement, the evidence as offsets into the paper's own text (text only
        where it is not found there), the confidence and the shared rule node."""
        if s is not None:  # entity–entity links state their statement; a paper's own link node does not:
            add(node, RDF + "subject", s)  # its IRI is the paper's, relation's and entity's (Iris.link)
            add(node, RDF + "predicate", rel)
            add(node, RDF + "object", o)
        text = (paper.title if ev.field == "title" else paper.abstract) or ""
        at = sentence_start(text, ev.sentence, ev.start, ev.end)
        sentence = f"{at} {at + len(ev.sentence)}" if at is not None else "- -"
        add(node, self.kg("span"), Literal(f"{ev.field} {sentence} {ev.start} {ev.end}"))
        if at is None:
            add(node, self.kg("evidence"), Literal(ev.sentence))
        if text[ev.start : ev.end] != ev.mention:
            add(node, self.kg("mention"), Literal(ev.mention))
        confidence = confidence_text(ev.confidence)
        rule = NamedNode(self.rule_node(ev.rule, version, confidence))
        add(node, self.kg("by"), rule)
        describe(rule, _TYPE, self.kg("Rule"))
        if ev.rule:
            describe(rule, self.kg("rule"), Literal(ev.rule))
        describe(rule, self.kg("tier"), Literal(ev.tier))
        describe(rule, self.kg("confidence"), Literal(confidence, datatype=_XSD_DOUBLE))
        if float(confidence) < LOW_CONFIDENCE:
            describe(rule, self.kg("lowConfidence"), Literal("true", datatype=_XSD_BOOL))
        describe(rule, PROV + "wasGeneratedBy", agent)

    def rule_node(self, rule: str, version: str, confidence: str) -> str:
        """The shared node of one (rule, extractor version, confidence): a few hundred in any store, so a
        link's confidence costs one `kg:by` triple, not a literal of its own (store format 5)."""
        return f"{self.iris.base}rule/{slug(rule or 'none')}/{slug(version or 'unknown')}/{confidence}"

    def _declare(self, add: _Add, ref: EntityRef, forms: Iterable[str], declared: set[str]) -> None:
        e = NamedNode(self.iris.entity(ref))
        if e.value not in declared:
            declared.add(e.value)
            add(e, _TYPE, self.kg(ref.type))
            if ref.kind:
                add(e, self.kg("kind"), Literal(ref.kind))
                if ref.kind in KIND_CLASSES and ref.kind != ref.type:
                    add(e, _TYPE, self.kg(ref.kind))
            add(e, SKOS + "prefLabel", Literal(ref.name))
            add(e, self.kg("key"), Literal(match_key(ref.name)))
        for form in forms:
            form = form.strip()
            if form and form != ref.name:
                add(e, SKOS + "altLabel", Literal(form))
                if key := match_key(form):
                    add(e, self.kg("key"), Literal(key))


def sentence_start(text: str, sentence: str, start: int, end: int) -> int | None:
    """Where `sentence` starts in `text`: the occurrence holding the mention [start, end) if there is one,
    else the first; None when the text does not contain it verbatim."""
    if not sentence:
        return None
    at = text.rfind(sentence, 0, start + 1)
    if at >= 0 and at + len(sentence) >= end:
        return at
    at = text.find(sentence)
    return at if at >= 0 else None


def confidence_text(confidence: float) -> str:
    """A confidence as stored ("0.95"): rounded to 4 places, so equal confidences share one rule node."""
    return repr(round(float(confidence), 4))


def read_span(span: str) -> tuple[str, int | None, int | None, int, int] | None:
    """(field, sentence start, sentence end, mention start, mention end) of a `kg:span` value."""
    parts = span.split()
    if len(parts) != 5 or parts[0] not in ("title", "abstract"):
        return None
    try:
        ss = None if parts[1] == "-" else int(parts[1])
        se = None if parts[2] == "-" else int(parts[2])
        return parts[0], ss, se, int(parts[3]), int(parts[4])
    except ValueError:
        return None


def _dedupe(quads: list[Quad]) -> list[Quad]:
    seen: set[Quad] = set()
    out = []
    for q in quads:
        if q not in seen:
            seen.add(q)
            out.append(q)
    return out
