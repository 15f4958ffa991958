"""The GraphQL request limits, one small strawberry extension each.

`ValidationBudget`, `DepthLimit`, `CostLimit` and `OneWrite` look at the request before graphql-core
validates it (their walk expands each fragment once, so a fragment fan-out is refused in microseconds, not
after 2^n walks; the validation budget refuses a document whose repeated fields would make validation's
pairwise comparisons take seconds); `Deadline` gives execution a time budget that resolvers, the store
queries behind the loaders and every list completion (introspection's too: `DeadlineExecution`) check, so
a request stops within one store query or one list of its limit. `CheckedValidation` is strawberry's
validation cache that does not validate what a limit already refused.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from graphql import DocumentNode, FieldNode, GraphQLError, VariableNode, value_from_ast_untyped
from graphql import ExecutionResult as GraphQLExecutionResult
from strawberry.extensions import SchemaExtension, ValidationCache
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.types import ExecutionContext
from strawberry.types.graphql import OperationType

from api.auth import check_token
from api.errors import PublicError
from api.page import check_range
from api.shape import Shape, ShapeError, analyse, operation_of, validation_work
from api.writer import MAX_BATCH, input_problem
from kg.query.context import time_budget

# The request whose shape was analysed last in this context, and the outcome: the checks below share one
# walk per request (a third of the per-request CPU of a small query went to walking it three times).
_ANALYSED: ContextVar[tuple[ExecutionContext, Shape | None | ShapeError] | None] = ContextVar(
    "request_shape", default=None)


def _shape_of(ec: ExecutionContext, doc: DocumentNode) -> Shape | None:
    """The request's shape, analysed once however many checks ask (raises ShapeError for a cycle)."""
    done = _ANALYSED.get()
    if done is None or done[0] is not ec:
        try:
            outcome: Shape | None | ShapeError = analyse(
                ec.schema._schema, doc, ec.operation_name, ec.variables)
        except ShapeError as exc:
            outcome = exc
        done = (ec, outcome)
        _ANALYSED.set(done)
    if isinstance(done[1], ShapeError):
        raise done[1]
    return done[1]


class ValidationBudget(SchemaExtension):
    """Refuse a document whose validation would compare more than `max_work` fields (api.shape's
    estimate), before graphql-core validates it: the overlapping-fields rule is quadratic in fields that
    share a response name, so `{ stats { papers } …×280 }` took 1.8 s to validate and is now refused in
    well under a millisecond."""

    def __init__(self, max_work: int) -> None:
        super().__init__()
        self.max_work = max_work

    def on_validate(self) -> Iterator[None]:
        ec, limit = self.execution_context, self.max_work
        doc = ec.graphql_document
        if not ec.pre_execution_errors and doc is not None and validation_work(doc, limit) > limit:
            ec.pre_execution_errors = [GraphQLError(
                f"the document repeats too many fields to validate (more than {self.max_work:,} field "
                "comparisons); ask for each field once")]
        yield


class _BeforeValidation(SchemaExtension):
    """A check of the request's shape that runs before validation and refuses with one clear error."""

    def on_validate(self) -> Iterator[None]:
        ec = self.execution_context
        if not ec.pre_execution_errors and ec.graphql_document is not None:
            try:
                shape = _shape_of(ec, ec.graphql_document)
                problem = None if shape is None else self.check(shape)
            except ShapeError as exc:
                problem = exc.message
            if problem is not None:
                ec.pre_execution_errors = [GraphQLError(problem)]
        yield

    def check(self, shape: Shape) -> str | None:
        raise NotImplementedError


class DepthLimit(_BeforeValidation):
    """Refuse operations nested deeper than `max_depth` levels below their top-level fields (fragments
    expanded; counted as strawberry's QueryDepthLimiter did, so the limit means what it meant)."""

    def __init__(self, max_depth: int) -> None:
        super().__init__()
        self.max_depth = max_depth

    def check(self, shape: Shape) -> str | None:
        depth = shape.depth - 1
        if depth > self.max_depth:
            return f"query depth {depth} exceeds the limit of {self.max_depth}"
        return None


class CostLimit(_BeforeValidation):
    """Refuse operations whose estimated cost (api.shape) exceeds `max_cost`, before any work."""

    def __init__(self, max_cost: float) -> None:
        super().__init__()
        self.max_cost = max_cost

    def check(self, shape: Shape) -> str | None:
        if shape.cost > self.max_cost:
            return (f"query cost {shape.cost:,.0f} exceeds the limit of {self.max_cost:,.0f}; "
                    "ask for fewer items (`first`) or fewer nested lists")
        return None


class OneWrite(_BeforeValidation):
    """At most one mutation field per request, so a write's answer is never lost with another's error."""

    def check(self, shape: Shape) -> str | None:
        if shape.mutation_fields > 1:
            return (f"one mutation field per request (got {shape.mutation_fields}); "
                    "send each write as its own request")
        return None


class PaperInputLimits(SchemaExtension):
    """Refuse an authorised `addPapers` whose input breaks a bound (api.writer.input_problem: the readers'
    bounds on abstracts, titles, authors and years) before execution, so the answer is a request error (a
    400 under graphql-response+json) and neither GraphQL's coercion of a 150,000-name list nor the extractor
    ever runs; the message names the paper and the field. An unauthorised request is left to its token
    check, so it learns nothing about its input."""

    def on_execute(self) -> Iterator[None]:
        ec = self.execution_context
        if ec.operation_type is OperationType.MUTATION and ec.result is None and ec.graphql_document:
            try:
                check_token(ec.context.request, ec.context.settings.api_token)
            except PublicError:
                problem = None
            else:
                try:
                    problem = self._problem(ec)
                except PublicError as exc:
                    problem = str(exc)
            if problem is not None:
                ec.result = GraphQLExecutionResult(data=None, errors=[GraphQLError(problem)])
        yield

    @staticmethod
    def _problem(ec: ExecutionContext) -> str | None:
        assert ec.graphql_document is not None
        op = operation_of(ec.graphql_document, ec.operation_name)
        for node in op.selection_set.selections if op is not None else ():
            if not isinstance(node, FieldNode) or node.name.value != "addPapers":
                continue  # other mutations, or fragments (OneWrite allows one field: execution checks it)
            for arg in node.arguments or ():
                if arg.name.value != "papers":
                    continue
                given = arg.value
                value = ((ec.variables or {}).get(given.name.value) if isinstance(given, VariableNode)
                         else value_from_ast_untyped(given, ec.variables))
                papers = value if isinstance(value, list) else [value]
                check_range("number of papers", len(papers), 1, MAX_BATCH)  # as the resolver says it
                for i, paper in enumerate(papers):
                    if isinstance(paper, dict) and (problem := input_problem(paper, f"papers[{i}]")):
                        return problem
        return None


class CheckedValidation(ValidationCache):
    """strawberry's cached validation, skipped when a limit already refused the request."""

    def on_validate(self) -> Iterator[None]:
        if self.execution_context.pre_execution_errors:
            yield
            return
        yield from super().on_validate()


class DeadlineExceeded(BaseException):  # noqa: N818 - not an Exception: nothing on the way may catch it
    """Raised by a resolver past the request's deadline. graphql-core turns every Exception of a resolver
    into a per-field error and carries on with the rest of a list (a million items, one error each); this
    one unwinds the whole execution at once, and the app answers with one error."""


_END: ContextVar[tuple[float, float] | None] = ContextVar("api_deadline", default=None)  # (end, budget)


def check_deadline() -> None:
    """Raise DeadlineExceeded when the running GraphQL execution is past its deadline (api.loaders calls
    this after every batch it waited for, before the resolver turns the batch into objects)."""
    found = _END.get()
    if found is not None and time.monotonic() > found[0]:
        raise DeadlineExceeded(f"query time limit of {found[1]:g} s exceeded")


class DeadlineExecution(StrawberryGraphQLCoreExecutionContext):
    """graphql-core's execution, checking the deadline before completing each list: introspection's
    resolvers read no store and no loader, and their lists (all types, their fields, their arguments) are
    where a large introspection request spends its time."""

    def complete_list_value(self, *args: Any, **kwargs: Any) -> Any:
        check_deadline()
        return super().complete_list_value(*args, **kwargs)


class Deadline(SchemaExtension):
    """A time budget of `seconds` for a query's execution: every store query (kg.query.context) refuses to
    start past it and every DataLoader batch checks it on arrival (api.loaders). Resolvers that read no
    store are not checked one by one (a per-field hook cost ~15 % of a page request's CPU): the cost
    analysis bounds how many there are, so a sweep over them ends a fraction of a second past the limit."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds

    def on_execute(self) -> Iterator[None]:
        if self.execution_context.operation_type == OperationType.MUTATION:
            yield  # a write keeps its own deadline up to its commit (api.writer.WriteGate), never after
            return
        token = _END.set((time.monotonic() + self.seconds, self.seconds))
        try:
            with time_budget(self.seconds):
                yield
        finally:
            _END.reset(token)
