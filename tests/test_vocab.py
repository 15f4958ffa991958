"""The curated SKOS vocabularies (ontology/vocab/*.ttl) and their loader kg.vocab."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pyoxigraph as ox
import pytest
import rdflib
from rdflib.namespace import RDF, SKOS

from kg.names import match_key, slug
from kg.rdf.iris import Iris
from kg.rdf.validate import validate
from kg.settings import DEFAULT_BASE_IRI
from kg.types import ENTITY_TYPES, EntityRef
from kg.vocab import VocabEntry, Vocabulary, load_vocabulary, vocab_files
from ontology import VOCAB_DIR

BASE = DEFAULT_BASE_IRI
KG = rdflib.Namespace(BASE + "ontology#")
DATA = Path(__file__).parent / "data"
# The seven curated files (extra.ttl belongs to the extractor and is loaded but not checked here).
FILES = {
    "tasks": "Task", "datasets": "Dataset", "methods": "Method", "models": "Model",
    "metrics": "Metric", "domains": "Domain", "threats": "Threat",
}
MIN_ENTRIES = {"Task": 150, "Dataset": 120, "Method": 150, "Model": 40, "Metric": 40, "Domain": 30,
               "Threat": 20}
KINDS = {"Dataset": {"Dataset", "Benchmark"},
         "Method": {"Algorithm", "Architecture", "Framework", "Loss", "Defense", "Attack", "Model"}}


def _graph(name: str) -> rdflib.Graph:
    g = rdflib.Graph()
    g.parse(VOCAB_DIR / f"{name}.ttl", format="turtle", publicID=BASE)
    return g


@pytest.fixture(scope="module")
def graphs() -> dict[str, rdflib.Graph]:
    return {name: _graph(name) for name in FILES}


def _concepts(g: rdflib.Graph) -> list[rdflib.URIRef]:
    return sorted(s for s in g.subjects(RDF.type, SKOS.Concept) if isinstance(s, rdflib.URIRef))


def _labels(g: rdflib.Graph, c: rdflib.URIRef) -> list[str]:
    return [str(o) for p in (SKOS.prefLabel, SKOS.altLabel, SKOS.hiddenLabel) for o in g.objects(c, p)]


def _ids(graphs: dict[str, rdflib.Graph]) -> set[str]:
    return {str(c)[len(BASE):] for g in graphs.values() for c in _concepts(g)}


# --- files --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(FILES))
def test_file_parses_with_pyoxigraph(name: str) -> None:
    quads = list(ox.parse(path=VOCAB_DIR / f"{name}.ttl", format=ox.RdfFormat.TURTLE, base_iri=BASE))
    assert len(quads) > 100


@pytest.mark.parametrize("name", sorted(FILES))
def test_file_uses_relative_iris_only(name: str) -> None:
    text = (VOCAB_DIR / f"{name}.ttl").read_text(encoding="utf-8")
    assert "w3id.org" not in text and "@base" not in text


@pytest.mark.parametrize("name", sorted(FILES))
def test_file_declares_its_concept_scheme(name: str, graphs: dict[str, rdflib.Graph]) -> None:
    scheme = rdflib.URIRef(f"{BASE}vocab/{name}")
    g = graphs[name]
    assert (scheme, RDF.type, SKOS.ConceptScheme) in g
    assert len(list(g.objects(scheme, SKOS.prefLabel))) == 1
    assert {o for c in _concepts(g) for o in g.objects(c, SKOS.inScheme)} == {scheme}


@pytest.mark.parametrize("name", sorted(FILES))
def test_every_concept_has_exactly_one_entity_class_the_files_type(name: str,
                                                                    graphs: dict[str, rdflib.Graph]) -> None:
    g = graphs[name]
    classes = {KG[t] for t in ENTITY_TYPES}
    bad = [c for c in _concepts(g)
           if {o for o in g.objects(c, RDF.type) if o in classes} != {KG[FILES[name]]}]
    assert bad == []


@pytest.mark.parametrize("name", sorted(FILES))
def test_iri_is_the_slug_of_the_single_preflabel(name: str, graphs: dict[str, rdflib.Graph]) -> None:
    g = graphs[name]
    bad = []
    for c in _concepts(g):
        prefs = [str(o) for o in g.objects(c, SKOS.prefLabel)]
        if len(prefs) != 1 or str(c) != f"{BASE}{FILES[name].lower()}/{slug(prefs[0])}":
            bad.append((str(c), prefs))
    assert bad == []


@pytest.mark.parametrize("name", sorted(FILES))
def test_no_two_concepts_share_a_match_key(name: str, graphs: dict[str, rdflib.Graph]) -> None:
    g = graphs[name]
    owners: dict[str, set[str]] = defaultdict(set)
    for c in _concepts(g):
        for label in _labels(g, c):
            owners[match_key(label)].add(str(c))
    assert {k: v for k, v in owners.items() if len(v) > 1 or not k} == {}


@pytest.mark.parametrize("name", sorted(FILES))
def test_kinds_are_allowed_for_the_type(name: str, graphs: dict[str, rdflib.Graph]) -> None:
    g = graphs[name]
    allowed = KINDS.get(FILES[name], set())
    kinds = {str(o) for c in _concepts(g) for o in g.objects(c, KG.kind)}
    assert kinds <= allowed
    assert all(len(list(g.objects(c, KG.kind))) <= 1 for c in _concepts(g))


@pytest.mark.parametrize("name", sorted(FILES))
def test_broader_points_to_a_concept_of_the_same_file(name: str, graphs: dict[str, rdflib.Graph]) -> None:
    g = graphs[name]
    concepts = set(_concepts(g))
    targets = {o for c in concepts for o in g.objects(c, SKOS.broader)}
    assert targets - concepts == set()
    assert all((c, SKOS.broader, c) not in g for c in concepts)


@pytest.mark.parametrize("name", sorted(FILES))
def test_hidden_labels_are_case_sensitive_forms(name: str, graphs: dict[str, rdflib.Graph]) -> None:
    g = graphs[name]
    hidden = [str(o) for c in _concepts(g) for o in g.objects(c, SKOS.hiddenLabel)]
    assert [h for h in hidden if h == h.lower()] == []


@pytest.mark.parametrize("name", sorted(FILES))
def test_case_sensitive_flag_is_a_boolean_true(name: str, graphs: dict[str, rdflib.Graph]) -> None:
    g = graphs[name]
    values = {o for c in _concepts(g) for o in g.objects(c, KG.caseSensitive)}
    assert values <= {rdflib.Literal(True)}


@pytest.mark.parametrize("entity_type", ENTITY_TYPES)
def test_minimum_number_of_entries(entity_type: str, graphs: dict[str, rdflib.Graph]) -> None:
    name = next(n for n, t in FILES.items() if t == entity_type)
    assert len(_concepts(graphs[name])) >= MIN_ENTRIES[entity_type]


def test_known_entries_have_their_documented_shape(graphs: dict[str, rdflib.Graph]) -> None:
    g = graphs["datasets"]
    imagenet = rdflib.URIRef(BASE + "dataset/imagenet")
    assert str(g.value(imagenet, SKOS.prefLabel)) == "ImageNet"
    assert str(g.value(imagenet, KG.kind)) == "Benchmark"
    assert {"ILSVRC", "ImageNet-1k"} <= {str(o) for o in g.objects(imagenet, SKOS.altLabel)}
    traffic = rdflib.URIRef(BASE + "dataset/traffic")
    assert g.value(traffic, KG.caseSensitive) == rdflib.Literal(True)


# --- general knowledge: attested in the public corpus, not invented from the dev set ---------------------

def _support() -> dict[str, dict[str, object]]:
    text = (DATA / "vocab_corpus_support.json").read_text(encoding="utf-8")
    data: dict[str, dict[str, object]] = json.loads(text)["concepts"]
    return data


def _exceptions() -> dict[str, str]:
    out = {}
    for line in (DATA / "vocab_support_exceptions.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            entity_id, _, reason = line.partition(" # ")
            out[entity_id.strip()] = reason.strip()
    return out


def _all_ids() -> set[str]:
    """Every curated concept the extractor loads, extra.ttl included: the support rules hold for all of them.
    (The mined tier records its own support; tests/test_mine_tier.py holds it to the same rules.)"""
    from kg.rdf.iris import Iris
    from kg.vocab import load_vocabulary

    return {Iris.entity_id(e.ref) for e in load_vocabulary().entries if not e.scheme.endswith("vocab/mined")}


def test_every_concept_has_a_recorded_corpus_count() -> None:
    assert _all_ids() - set(_support()) == set()


def test_every_concept_is_attested_in_three_corpus_abstracts_or_excepted() -> None:
    support, exceptions = _support(), _exceptions()
    weak = {i for i in _all_ids() if int(str(support[i]["corpus"])) < 3}
    assert weak - set(exceptions) == set()


def test_exceptions_are_justified_and_current() -> None:
    support, exceptions = _support(), _exceptions()
    assert all(reason for reason in exceptions.values())
    assert set(exceptions) <= _all_ids()
    assert [i for i in exceptions if int(str(support[i]["corpus"])) >= 3] == []


def test_no_entry_exists_only_because_of_the_dev_set() -> None:
    support = _support()
    dev_only = [i for i in _all_ids()
                if int(str(support[i]["dev"])) > 0 and int(str(support[i]["corpus"])) < 3]
    assert dev_only == []


def test_support_file_records_the_corpus_size() -> None:
    meta = json.loads((DATA / "vocab_corpus_support.json").read_text())
    assert meta["corpus_abstracts"] > 40000
    assert meta["dev_abstracts"] == 19


# --- loader ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return load_vocabulary(BASE)


def test_loader_reads_every_curated_concept(vocab: Vocabulary, graphs: dict[str, rdflib.Graph]) -> None:
    loaded = {Iris.entity_id(e.ref) for e in vocab.entries}
    assert _ids(graphs) <= loaded
    assert vocab.problems == ()


def test_loader_reads_all_ttl_files_including_extra() -> None:
    names = [p.name for p in vocab_files()]
    assert set(names) >= {f"{n}.ttl" for n in FILES}
    assert names == sorted(names)


def test_entry_fields(vocab: Vocabulary) -> None:
    entry = vocab.get("dataset/imagenet")
    assert entry is not None
    assert entry.ref == EntityRef("Dataset", "ImageNet", "Benchmark")
    assert entry.labels[0] == "ImageNet"
    assert "ILSVRC" in entry.labels
    assert entry.case_sensitive is False
    assert entry.scheme == BASE + "vocab/datasets"


def test_hidden_labels_and_broader(vocab: Vocabulary) -> None:
    vit = vocab.get("method/vision-transformer")
    assert vit is not None and "ViT" in vit.hidden and "ViT" not in vit.labels
    gat = vocab.get("method/graph-attention-network")
    assert gat is not None
    assert gat.broader == (EntityRef("Method", "graph neural network", "Architecture"),)


def test_case_sensitive_entry(vocab: Vocabulary) -> None:
    entry = vocab.get("dataset/traffic")
    assert entry is not None and entry.case_sensitive is True


def test_by_key_finds_aliases_and_ignores_case_and_plural(vocab: Vocabulary) -> None:
    assert [e.ref.name for e in vocab.by_key(match_key("ILSVRC-2012"))] == ["ImageNet"]
    assert [e.ref.name for e in vocab.by_key(match_key("Diffusion Models"))] == ["diffusion model"]
    assert vocab.by_key("no-such-key") == []


def test_lookup_matches_text(vocab: Vocabulary) -> None:
    assert [e.ref.type for e in vocab.lookup("Kinetics600")] == ["Dataset"]


def test_entries_are_frozen(vocab: Vocabulary) -> None:
    entry = vocab.entries[0]
    assert isinstance(entry, VocabEntry)
    with pytest.raises(AttributeError):
        entry.scheme = "x"  # type: ignore[misc]


def test_loader_is_cached_per_base(vocab: Vocabulary) -> None:
    assert load_vocabulary(BASE) is vocab
    assert load_vocabulary("http://example.org/kg") is not vocab


def test_other_base_resolves_relative_iris() -> None:
    other = load_vocabulary("http://example.org/kg/")
    entry = other.get("dataset/imagenet")
    assert entry is not None and entry.scheme == "http://example.org/kg/vocab/datasets"


def test_quads_are_in_the_vocab_and_ontology_graphs(vocab: Vocabulary) -> None:
    iris = Iris(BASE)
    graphs = {q.graph_name.value for q in vocab.quads()}  # type: ignore[union-attr]
    assert graphs == {iris.vocab_graph, iris.ontology_graph}


def test_quads_carry_a_key_per_label(vocab: Vocabulary) -> None:
    imagenet = ox.NamedNode(BASE + "dataset/imagenet")
    keys = {q.object.value for q in vocab.quads() if q.subject == imagenet
            and q.predicate.value.endswith("#key") and isinstance(q.object, ox.Literal)}
    assert {"imagenet", "ilsvrc", "ilsvrc2012", "imagenet1k"} <= keys


def test_quads_for_another_base() -> None:
    quads = load_vocabulary(BASE).quads("http://example.org/kg/")
    assert all(q.graph_name.value.startswith("http://example.org/kg/graph/") for q in quads)  # type: ignore[union-attr]
    assert not any(re.search("w3id", str(q)) for q in quads[:2000])


def test_vocabulary_graph_conforms_to_the_shapes(vocab: Vocabulary) -> None:
    ds = rdflib.Dataset()
    ds.parse(data="".join(f"{q} .\n" for q in vocab.quads()), format="nquads")
    report = validate(ds, BASE)
    assert report.conforms is True, report.text[:2000]
