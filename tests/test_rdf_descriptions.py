"""One description per entity (kg.rdf.descriptions): the first name and kind stay, later names are aliases."""

from __future__ import annotations

from pyoxigraph import Literal, NamedNode, Quad

from kg.rdf.descriptions import Held, OneDescription, one_description
from kg.rdf.iris import RDF, SKOS, Iris

IRIS = Iris("https://example.org/kg/")
TASK = NamedNode(IRIS.base + "task/highlight-detection")
DATASET = NamedNode(IRIS.base + "dataset/davis")
G = NamedNode(IRIS.entities_graph)
PREF, ALT, KIND = NamedNode(SKOS + "prefLabel"), NamedNode(SKOS + "altLabel"), NamedNode(IRIS.term("kind"))
TYPE = NamedNode(RDF + "type")


def quad(s: NamedNode, p: NamedNode, o: str | NamedNode) -> Quad:
    return Quad(s, p, o if isinstance(o, NamedNode) else Literal(o), G)


def test_a_second_name_becomes_an_alias() -> None:
    out = one_description(IRIS, [quad(TASK, PREF, "Highlight Detection"),
                                 quad(TASK, PREF, "highlight detection")])
    assert out == [quad(TASK, PREF, "Highlight Detection"), quad(TASK, ALT, "highlight detection")]


def test_the_held_name_wins_over_every_new_one() -> None:
    held: Held = {(TASK, PREF): Literal("highlight detection")}
    out = one_description(IRIS, [quad(TASK, PREF, "Highlight Detection"),
                                 quad(TASK, PREF, "highlight detection")], held)
    assert out == [quad(TASK, ALT, "Highlight Detection"), quad(TASK, PREF, "highlight detection")]


def test_a_repeated_name_is_stored_once() -> None:
    out = one_description(IRIS, [quad(TASK, PREF, "video QA"), quad(TASK, PREF, "video QA")])
    assert out == [quad(TASK, PREF, "video QA")]


def test_a_conflicting_kind_is_left_out_with_its_class() -> None:
    held: Held = {(DATASET, KIND): Literal("Dataset")}
    benchmark = NamedNode(IRIS.term("Benchmark"))
    dataset = NamedNode(IRIS.term("Dataset"))
    out = one_description(IRIS, [quad(DATASET, TYPE, dataset), quad(DATASET, KIND, "Benchmark"),
                                 quad(DATASET, TYPE, benchmark)], held)
    assert out == [quad(DATASET, TYPE, dataset)]


def test_the_class_of_the_kept_kind_stays() -> None:
    benchmark = NamedNode(IRIS.term("Benchmark"))
    one = OneDescription(IRIS)
    one.hold(quad(DATASET, KIND, "Benchmark"))
    assert one.admit(quad(DATASET, KIND, "Benchmark")) == quad(DATASET, KIND, "Benchmark")
    assert one.admit(quad(DATASET, TYPE, benchmark)) == quad(DATASET, TYPE, benchmark)


def test_other_predicates_pass_unchanged() -> None:
    keys = [quad(TASK, NamedNode(IRIS.term("key")), "highlightdetection"), quad(TASK, ALT, "HD")]
    assert one_description(IRIS, keys) == keys
