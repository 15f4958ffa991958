"""kg.types: the entity types said once; the GraphQL enum and the extractor's relations derive from them."""

from __future__ import annotations

import typing

from api.types import EntityType as GraphQLEntityType
from api.types import kg_type
from kg.types import ENTITY_TYPES, PAPER_RELATIONS, RELATION_BY_TYPE, EntityType


def test_the_tuple_is_the_literal() -> None:
    assert typing.get_args(EntityType) == ENTITY_TYPES
    assert ENTITY_TYPES == ("Task", "Dataset", "Method", "Metric", "Model", "Domain", "Threat")


def test_the_graphql_enum_has_one_member_per_type() -> None:
    assert [(e.name, e.value) for e in GraphQLEntityType] == [(t.upper(), t) for t in ENTITY_TYPES]
    assert [kg_type(GraphQLEntityType(t)) for t in ENTITY_TYPES] == list(ENTITY_TYPES)


def test_every_type_has_a_default_paper_relation() -> None:
    assert set(RELATION_BY_TYPE) == set(ENTITY_TYPES)
    assert set(RELATION_BY_TYPE.values()) <= set(PAPER_RELATIONS)
