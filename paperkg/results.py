"""What the Python API returns: a list of the query layer's frozen records, and SPARQL rows with typed values;
both become pandas DataFrames with `.to_pandas()` (integer columns stay integers, nullable where missing)."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

if TYPE_CHECKING:
    import pandas as pd

T = TypeVar("T")
XSD = "http://www.w3.org/2001/XMLSchema#"
_INTEGERS = frozenset(XSD + t for t in (
    "integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger", "nonPositiveInteger",
    "negativeInteger", "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte", "gYear"))
_FLOATS = frozenset(XSD + t for t in ("decimal", "double", "float"))


def typed(value: str, datatype: str | None) -> object:
    """A SPARQL literal as a Python value: xsd integers (and gYear) → int, decimal/double/float → float,
    boolean → bool, anything else (strings, dates, language-tagged text) → its lexical form."""
    try:
        if datatype in _INTEGERS:
            return int(value)
        if datatype in _FLOATS:
            return float(value)
    except ValueError:
        return value
    if datatype == XSD + "boolean":
        return value.strip() in ("true", "1")
    return value


_KEYS = ("id", "name", "title", "type", "year", "venue")  # what a nested record contributes to a row


def _is_record(value: object) -> bool:
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def _cell(value: object) -> object:
    """A record field as a DataFrame cell: tuples become lists, mappings dicts."""
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


def _nested(record: type) -> dict[str, type]:
    """The fields of `record` that hold another record (``X`` or ``X | None``), with that record's class:
    read from the type hints, so an empty list has the same columns as a full one."""
    out: dict[str, type] = {}
    for name, hint in typing.get_type_hints(record).items():
        inner = [a for a in typing.get_args(hint) if a is not type(None)] if typing.get_args(hint) else [hint]
        if len(inner) == 1 and dataclasses.is_dataclass(inner[0]) and isinstance(inner[0], type):
            out[name] = inner[0]
    return out


def _keys(record: type) -> tuple[str, ...]:
    """The key fields a nested `record` contributes to a row."""
    return tuple(f.name for f in dataclasses.fields(record) if f.name in _KEYS)


def columns_of(record: type) -> list[str]:
    """The DataFrame columns of a list of `record`s (see `rows_of`)."""
    return list(_column_hints(record))


def _column_hints(record: type) -> dict[str, object]:
    """Each DataFrame column of `record`s with its field's type hint."""
    nested = _nested(record)
    hints = typing.get_type_hints(record)
    out: dict[str, object] = {}
    for f in dataclasses.fields(record):
        if f.name in nested:
            inner = typing.get_type_hints(nested[f.name])
            out.update({f"{f.name}_{k}": inner[k] for k in _keys(nested[f.name])})
        else:
            out[f.name] = hints[f.name]
    return out


def _integer(hint: object) -> bool:
    """`int` or `int | None`."""
    return hint is int or (int in typing.get_args(hint) and set(typing.get_args(hint)) <= {int, type(None)})


def rows_of(items: Sequence[object]) -> list[dict[str, object]]:
    """Records as flat rows: their fields, a nested record (a result's paper, metric…) as its key fields
    prefixed by the field's name (``paper_id``, ``metric_name``), the same columns for every row."""
    if not items or not _is_record(items[0]):
        return [{"value": item} for item in items]
    nested = {name: _keys(inner) for name, inner in _nested(type(items[0])).items()}
    rows: list[dict[str, object]] = []
    for item in items:
        row: dict[str, object] = {}
        for f in dataclasses.fields(item):  # type: ignore[arg-type]
            value = getattr(item, f.name)
            if f.name in nested:
                row.update({f"{f.name}_{k}": None if value is None else _cell(getattr(value, k))
                            for k in nested[f.name]})
            else:
                row[f.name] = _cell(value)
        rows.append(row)
    return rows


def frame(rows: Sequence[Mapping[str, object]], columns: Sequence[str] | None = None,
          integers: frozenset[str] = frozenset()) -> pd.DataFrame:
    """A DataFrame of `rows`; a column of whole numbers (or named in `integers`) is int64, nullable Int64
    when a value is missing, so a year stays 2024 and never becomes 2024.0."""
    import pandas as pd

    names = list(columns) if columns is not None else list(dict.fromkeys(k for r in rows for k in r))
    data: dict[str, object] = {}
    for name in names:
        cells = [r.get(name) for r in rows]
        present = [v for v in cells if v is not None]
        whole = all(isinstance(v, int) and not isinstance(v, bool) for v in present)
        if whole and (present or name in integers):
            data[name] = pd.array(cells, dtype="int64" if present and len(present) == len(cells) else "Int64")
        else:
            data[name] = pd.Series(cells, dtype=None if present else object)
    return pd.DataFrame(data, columns=names)


@dataclass(frozen=True, slots=True)
class Results(Generic[T]):
    """Records in the query layer's order; `total` counts every match (more than `items` when cut short)."""

    items: tuple[T, ...]
    total: int
    record: type | None = None  # the records' class: an empty list's DataFrame still has its columns
    hidden: int = 0  # a leaderboard's rows of low confidence left out (include_low_confidence shows them)

    def __iter__(self) -> Iterator[T]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...
    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        return self.items[index]

    def to_pandas(self) -> pd.DataFrame:
        """One row per record; a nested record as its key fields (``paper_id``, ``metric_name``…)."""
        if self.record is None:
            return frame(rows_of(self.items))
        hints = _column_hints(self.record)
        return frame(rows_of(self.items), list(hints), frozenset(c for c, h in hints.items() if _integer(h)))


@dataclass(frozen=True, slots=True)
class SparqlResult:
    """The rows of a SELECT: one dict per solution, variable → typed value (None when unbound)."""

    columns: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> dict[str, Any]:
        return self.rows[index]

    def to_pandas(self) -> pd.DataFrame:
        """One row per solution, one column per variable, in the query's order."""
        return frame(self.rows, self.columns)
