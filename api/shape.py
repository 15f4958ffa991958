"""The shape of a GraphQL request known before it runs: depth, estimated cost and mutation fields, and
the size of the document (what validation's work grows with).

One walk over the operation, each fragment analysed once and memoised (a fragment spread twice costs two
look-ups, never a second walk), so `...F1 ...F1` chained twenty levels deep is analysed in microseconds
instead of the 2^20 walks a naive depth check makes. Cost follows graphql-armor's cost limit: an object
field costs 2, a scalar 1, each level's children are weighted by a depth factor, and a field's children
are multiplied by the list size it asks for. That size is the value execution will use: `first` or
`limit` coerced by graphql-core itself from the literal, the variable (given, or its default; `100.0` is
100) or the argument's default; an estimate for lists without one. Introspection is costed like any
field, its lists at the sizes this schema has (all its types under `__schema { types }`, their average
fields, arguments, enum values...; the largest under `__type(name:)`).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLEnumType,
    GraphQLError,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLUnionType,
    InlineFragmentNode,
    ListTypeNode,
    NamedTypeNode,
    NonNullTypeNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    TypeNode,
    get_named_type,
)
from graphql.execution.values import VariableValues, get_argument_values, get_variable_values
from graphql.type.introspection import SchemaMetaFieldDef, TypeMetaFieldDef

OBJECT_COST, SCALAR_COST, DEPTH_FACTOR = 2.0, 1.0, 1.5
LIST_ESTIMATE = 10  # items assumed for a list field that takes no `first`/`limit`
# An introspection value costs this much: graphql-core resolves one in ~15 µs of pure Python, about what a
# cost unit of the store's fields costs, times the depth factors that those carry and introspection does not.
INTROSPECTION_COST = 5.0
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
    def __init__(self, schema: GraphQLSchema, doc: DocumentNode, variables: VariableValues | None) -> None:
        self.schema, self.variables = schema, variables
        self.fragments = {d.name.value: d for d in doc.definitions if isinstance(d, FragmentDefinitionNode)}
        self.memo: dict[str, tuple[float, int]] = {}
        self.open: set[str] = set()
        self.sizes = _introspection_sizes(schema)

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

    def fragment(self, name: str, sized: bool, every_type: bool | None = None) -> tuple[float, int]:
        """(cost, depth) of a fragment, or with `every_type` set (introspection) (values, 0); memoised."""
        key = f"{name}\0{sized}\0{every_type}"
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
            if every_type is not None:
                found = self.values(frag.selection_set, on, every_type), 0
            else:
                found = self.selection(frag.selection_set, on, sized)
        finally:
            self.open.discard(name)
        self.memo[key] = found
        return found

    def field(self, node: FieldNode, parent: GraphQLNamedType | None, sized: bool) -> tuple[float, int]:
        name = node.name.value
        if name == "__typename":
            return 0.0, 1
        if name in ("__schema", "__type"):  # introspection: not a level of the graph (nor of the depth limit)
            meta = get_named_type(SchemaMetaFieldDef.type if name == "__schema" else TypeMetaFieldDef.type)
            inner = self.values(node.selection_set, meta, False) if node.selection_set else 0.0
            return INTROSPECTION_COST * (1.0 + inner), 0
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

    def values(self, sel: SelectionSetNode, parent: GraphQLNamedType | None, every_type: bool) -> float:
        """How many values an introspection selection resolves in this schema (each list at its size)."""
        count = 0.0
        for node in sel.selections:
            if isinstance(node, FragmentSpreadNode):
                count += self.fragment(node.name.value, False, every_type)[0]
                continue
            if isinstance(node, InlineFragmentNode):
                cond = node.type_condition
                inner = self.schema.get_type(cond.name.value) if cond is not None else parent
                count += self.values(node.selection_set, inner, every_type)
                continue
            if not isinstance(node, FieldNode):  # pragma: no cover - no other selection kinds
                continue
            definition = parent.fields.get(node.name.value) if isinstance(parent, GraphQLObjectType) else None
            if node.selection_set is None or definition is None:
                count += 1.0
                continue
            out_type = definition.type
            if isinstance(out_type, GraphQLNonNull):
                out_type = out_type.of_type
            assert parent is not None  # it has a definition
            below = every_type or (parent.name, node.name.value) == ("__Schema", "types")
            size = 1.0
            if isinstance(out_type, GraphQLList):
                size = self.sizes.get((parent.name, node.name.value, below), float(LIST_ESTIMATE))
            count += 1.0 + size * self.values(node.selection_set, get_named_type(out_type), below)
        return count

    def _size(self, node: FieldNode, definition: Any, is_list: bool, sized: bool) -> tuple[float, bool]:
        """(items this field multiplies its children by, whether that size was given by an argument)."""
        if definition is not None and any(a in definition.args for a in SIZE_ARGS):
            try:  # the arguments as execution will see them: literal, variable or default, coerced
                args = get_argument_values(definition, node, self.variables)
            except GraphQLError:
                args = {}  # validation or execution refuses such a request before it runs
            for arg_name in SIZE_ARGS:
                value = args.get(arg_name)
                if isinstance(value, int) and not isinstance(value, bool):
                    return max(1.0, float(value)), True
        if is_list:
            return (1.0 if sized else float(LIST_ESTIMATE)), False
        return 1.0, False


_SIZES: weakref.WeakKeyDictionary[GraphQLSchema, dict[tuple[str, str, bool], float]] = (
    weakref.WeakKeyDictionary())


def _introspection_sizes(schema: GraphQLSchema) -> dict[tuple[str, str, bool], float]:
    """(introspection type, list field, below `__schema { types }`) -> the items that list holds in this
    schema: the average over all its types (or fields) below `types`, the largest elsewhere."""
    found = _SIZES.get(schema)
    if found is not None:
        return found
    types = list(schema.type_map.values())
    per_type: dict[str, list[int]] = {k: [] for k in ("fields", "interfaces", "possibleTypes", "enumValues",
                                                       "inputFields")}
    args: list[int] = []
    for t in types:
        outputs = t.fields if isinstance(t, GraphQLObjectType | GraphQLInterfaceType) else {}
        per_type["fields"].append(len(outputs))
        per_type["interfaces"].append(len(t.interfaces) if isinstance(t, GraphQLObjectType) else 0)
        abstract = isinstance(t, GraphQLInterfaceType | GraphQLUnionType)
        per_type["possibleTypes"].append(len(schema.get_possible_types(t)) if abstract else 0)  # type: ignore[arg-type]
        per_type["enumValues"].append(len(t.values) if isinstance(t, GraphQLEnumType) else 0)
        per_type["inputFields"].append(len(t.fields) if isinstance(t, GraphQLInputObjectType) else 0)
        args += [len(f.args) for f in outputs.values()]
    directive_args = [len(d.args) for d in schema.directives]
    sizes: dict[tuple[str, str, bool], float] = {}
    for every in (False, True):
        def pick(xs: list[int], every: bool = every) -> float:
            return sum(xs) / max(1, len(xs)) if every else float(max(xs, default=0))
        sizes[("__Schema", "types", every)] = float(len(types))
        sizes[("__Schema", "directives", every)] = float(len(schema.directives))
        for name, counts in per_type.items():
            sizes[("__Type", name, every)] = pick(counts)
        sizes[("__Field", "args", every)] = pick(args)
        sizes[("__Directive", "args", every)] = pick(directive_args)
    _SIZES[schema] = sizes
    return sizes


def _named(node: TypeNode) -> str:
    """The named type inside a variable's type (`[Int!]!` -> "Int")."""
    while isinstance(node, ListTypeNode | NonNullTypeNode):
        node = node.type
    return node.name.value if isinstance(node, NamedTypeNode) else ""


def analyse(schema: GraphQLSchema, doc: DocumentNode, operation_name: str | None,
            variables: Mapping[str, Any] | None) -> Shape | None:
    """The shape of the operation that would run, or None when there is none to pick (validation says why)."""
    op = operation_of(doc, operation_name)
    if op is None:
        return None
    sizes = [d for d in op.variable_definitions or () if _named(d.type) == "Int"]  # what `first` can take:
    coerced = get_variable_values(schema, sizes, dict(variables or {}), max_errors=1)  # never a big input
    walker = _Walker(schema, doc, None if isinstance(coerced, list) else coerced)
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


def validation_work(doc: DocumentNode, budget: int) -> int:
    """An upper estimate of graphql-core's validation work on `doc`, counted until it passes `budget`.

    The costly rule compares fields answering to one response name pair by pair, and then their
    sub-selections merged: so the fields of each selection set, its inline fragments and the fragments it
    spreads (each once) are grouped by response name, a group of c fields counts c² (each look counts 1)
    and each group's sub-selections are walked merged. `query { stats { papers } …×280 }` counts ~80,000;
    GraphiQL's introspection query ~900. The walk stops as soon as the count passes `budget`, so it never
    costs more than that many steps, whatever the document (fragment chains that double at each level
    included)."""
    fragments = {d.name.value: d for d in doc.definitions if isinstance(d, FragmentDefinitionNode)}
    stack: list[list[SelectionSetNode]] = [[d.selection_set] for d in doc.definitions
                                           if isinstance(d, OperationDefinitionNode | FragmentDefinitionNode)]
    work = 0
    while stack and work <= budget:
        pending = stack.pop()
        groups: dict[str, list[SelectionSetNode | None]] = {}
        spread: set[str] = set()
        while pending and work <= budget:
            for node in pending.pop().selections:
                work += 1
                if isinstance(node, FieldNode):
                    groups.setdefault((node.alias or node.name).value, []).append(node.selection_set)
                elif isinstance(node, InlineFragmentNode):
                    pending.append(node.selection_set)
                elif isinstance(node, FragmentSpreadNode) and node.name.value not in spread:
                    spread.add(node.name.value)
                    if (frag := fragments.get(node.name.value)) is not None:
                        pending.append(frag.selection_set)
        for subs in groups.values():
            work += len(subs) ** 2
            if children := [sel for sel in subs if sel is not None]:
                stack.append(children)
    return work
