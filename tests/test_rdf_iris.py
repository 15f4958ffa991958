"""kg.rdf.iris: IRIs from one base, and the way back to ids."""

from kg.rdf.iris import Iris
from kg.types import EntityRef

IRIS = Iris("https://example.org/kg")


def test_base_gets_a_trailing_slash() -> None:
    assert IRIS.base == "https://example.org/kg/"


def test_entity_iri_is_type_and_slug() -> None:
    assert IRIS.entity(EntityRef("Dataset", "CIFAR-10-LT")) == "https://example.org/kg/dataset/cifar-10-lt"


def test_entity_id_round_trips() -> None:
    iri = IRIS.entity(EntityRef("Threat", "indirect prompt injection"))
    assert IRIS.entity_id_of(iri) == "threat/indirect-prompt-injection"


def test_paper_id_round_trips_through_percent_encoding() -> None:
    assert IRIS.paper_id(IRIS.paper("doi:10.1/a b")) == "doi:10.1/a b"


def test_link_iri_is_not_a_paper_iri() -> None:
    assert IRIS.paper_id(IRIS.link("p1", "usesDataset", "https://example.org/kg/dataset/x")) is None


def test_non_entity_iri_has_no_entity_id() -> None:
    assert IRIS.entity_id_of("https://example.org/kg/paper/p1") is None
