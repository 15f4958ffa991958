"""The shape of a GraphQL request known before it runs: depth, estimated cost and mutation fields.

One walk over the operation, each fragment analysed once and memoised (a fragment spread twice costs two
look-ups, never a second walk), so `...F1 ...F1` chained twenty levels deep is analysed in microseconds
instead of the 2^20 walks a naive depth check makes. Cost follows graphql-armor's cost limit: an object
field costs 2, a scalar 1, each level's children are weighted by a depth factor, and a field's children
are multiplied by the list size it asks for (`first` or `limit`, else the argument's default, else an
estimate for lists without one).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    VariableNode,
    get_named_type,
)

OBJECT_COST, SCALAR_COST, DEPTH_FACTOR = 2.0, 1.0, 1.5
LIST_ESTIMATE = 10  # items assumed for a list field that takes no `first`/`limit`
SIZE_ARGS = ("first", "limit")


@dataclass(frozen=True, slots=True)
class Shape:
    """What a request would do: its deepest field path, its estimated cost, its top-level mutation fields."""

    depth: int
    cost: float
    mutation_fields: int


class ShapeError(GraphQLError):
    """The request cannot be analysed (a fragment cycle); validation will name the problem too."""


def operation_of(doc: DocumentNode, name: str | None) -> OperationDefinitionNode | None:
    ops = [d for d in doc.definitions if isinstance(d, OperationDefinitionNode)]
    if name is not None:
        return next((o for o in ops if o.name is not None and o.name.value == name), None)
    return ops[0] if len(ops) == 1 else None


class _Walker:
    def __init__(self, schema: GraphQLSchema, doc: DocumentNode, variables: Mapping[str, Any]) -> None:
        self.schema, self.variables = schema, variables
        self.fragments = {d.name.value: d for d in doc.definitions if isinstance(d, FragmentDefinitionNode)}
        self.memo: dict[str, tuple[float, int]] = {}
        self.open: set[str] = set()

    def selection(
        self, sel: SelectionSetNode, parent: GraphQLNamedType | None, sized: bool
    ) -> tuple[float, int]:
        """(cost, depth) of a selection set under `parent`; `sized` when the parent field's list size is
        already counted (a connection's `edges` under `first`)."""
        cost, depth = 0.0, 0
        for node in sel.selections:
            if isinstance(node, FieldNode):
                c, d = self.field(node, parent, sized)
            elif isinstance(node, FragmentSpreadNode):
                c, d = self.fragment(node.name.value, sized)
            elif isinstance(node, InlineFragmentNode):
                cond = node.type_condition
                inner = self.schema.get_type(cond.name.value) if cond is not None else parent
                c, d = self.selection(node.selection_set, inner, sized)
            else:  # pragma: no cover - graphql-core has no other selection kinds
                continue
            cost, depth = cost + c, max(depth, d)
        return cost, depth

    def fragment(self, name: str, sized: bool) -> tuple[float, int]:
        key = f"{name}\0{sized}"
        if key in self.memo:
            return self.memo[key]
        frag = self.fragments.get(name)
        if frag is None:
            return 0.0, 0  # unknown fragment: validation reports it
        if name in self.open:
            raise ShapeError(f"fragment {name!r} spreads itself")
        self.open.add(name)
        try:
            on = self.schema.get_type(frag.type_condition.name.value)
            found = self.selection(frag.selection_set, on, sized)
        finally:
            self.open.discard(name)
        self.memo[key] = found
        return found

    def field(self, node: FieldNode, parent: GraphQLNamedType | None, sized: bool) -> tuple[float, int]:
        name = node.name.value
        if name == "__typename":
            return 0.0, 1
        if name.startswith("__"):
            return 0.0, 0  # introspection (GraphiQL) is left to the token limit
        definition = parent.fields.get(name) if isinstance(parent, GraphQLObjectType) else None
        out_type = definition.type if definition is not None else None
        if isinstance(out_type, GraphQLNonNull):
            out_type = out_type.of_type
        is_list = isinstance(out_type, GraphQLList)
        named = get_named_type(out_type) if out_type is not None else None
        if node.selection_set is None:
            return SCALAR_COST, 1
        size, counted = self._size(node, definition, is_list, sized)
        child_cost, child_depth = self.selection(node.selection_set, named, counted)
        return OBJECT_COST + size * DEPTH_FACTOR * child_cost, 1 + child_depth

    def _size(self, node: FieldNode, definition: Any, is_list: bool, sized: bool) -> tuple[float, bool]:
        """(items this field multiplies its children by, whether that size was given by an argument)."""
        for arg in node.arguments or ():
            if arg.name.value in SIZE_ARGS:
                value = arg.value
                if isinstance(value, IntValueNode):
                    return max(1.0, float(value.value)), True
                if isinstance(value, VariableNode):
                    v = self.variables.get(value.name.value)
                    if isinstance(v, int):
                        return max(1.0, float(v)), True
        if definition is not None:
            for arg_name in SIZE_ARGS:
                arg_def = definition.args.get(arg_name)
                if arg_def is not None and isinstance(arg_def.default_value, int):
                    return max(1.0, float(arg_def.default_value)), True
        if is_list:
            return (1.0 if sized else float(LIST_ESTIMATE)), False
        return 1.0, False


def analyse(schema: GraphQLSchema, doc: DocumentNode, operation_name: str | None,
            variables: Mapping[str, Any] | None) -> Shape | None:
    """The shape of the operation that would run, or None when there is none to pick (validation says why)."""
    op = operation_of(doc, operation_name)
    if op is None:
        return None
    walker = _Walker(schema, doc, variables or {})
    root = {
        OperationType.QUERY: schema.query_type,
        OperationType.MUTATION: schema.mutation_type,
        OperationType.SUBSCRIPTION: schema.subscription_type,
    }[op.operation]
    cost, depth = walker.selection(op.selection_set, root, False)
    writes = 0
    if op.operation == OperationType.MUTATION:
        writes = _top_fields(op.selection_set, walker.fragments, set())
    return Shape(depth, cost, writes)


def _top_fields(
    sel: SelectionSetNode, fragments: Mapping[str, FragmentDefinitionNode], seen: set[str]
) -> int:
    """Top-level fields of a selection, fragments expanded once each (a repeated spread adds nothing)."""
    n = 0
    for node in sel.selections:
        if isinstance(node, FieldNode):
            n += 0 if node.name.value.startswith("__") else 1
        elif isinstance(node, InlineFragmentNode):
            n += _top_fields(node.selection_set, fragments, seen)
        elif isinstance(node, FragmentSpreadNode) and node.name.value not in seen:
            seen.add(node.name.value)
            if (frag := fragments.get(node.name.value)) is not None:
                n += _top_fields(frag.selection_set, fragments, seen)
    return n
