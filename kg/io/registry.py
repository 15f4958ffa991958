"""Reader registry: formats chosen by name or file extension; loaders given as "module:function" strings are
imported on first use (like rdflib's plugin registry), so an unused reader costs nothing."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kg.types import Paper, ReadProblem

# A loader turns the decoded text of one input, and the file name used for provenance, into records.
Loader = Callable[[str, str], Iterable[Paper | ReadProblem]]


class ReaderError(ValueError):
    """A caller mistake, such as an unknown format name. Bad *data* never raises: it yields ReadProblems."""


@dataclass(slots=True)
class _Entry:
    name: str
    extensions: tuple[str, ...]
    target: Loader | str  # a callable, or "package.module:function" imported lazily
    loaded: Loader | None = None


_READERS: dict[str, _Entry] = {}
_BY_EXTENSION: dict[str, str] = {}


def _norm_ext(ext: str) -> str:
    ext = ext.strip().lower()
    return ext if ext.startswith(".") else "." + ext


def register_reader(name: str, extensions: Iterable[str], loader: Loader | str) -> None:
    """Register (or replace) the reader `name` for `extensions` (".bib" or "bib"); `loader` is a callable
    ``(text, file_name) -> Iterable[Paper | ReadProblem]`` or a ``"module:function"`` path to import later."""
    key = name.strip().lower()
    if not key:
        raise ReaderError("a reader needs a non-empty name")
    if isinstance(loader, str) and ":" not in loader:
        raise ReaderError(f"lazy loader {loader!r} must look like 'package.module:function'")
    exts = tuple(_norm_ext(e) for e in extensions)
    old = _READERS.get(key)
    if old is not None:
        for ext in old.extensions:
            if _BY_EXTENSION.get(ext) == key:
                del _BY_EXTENSION[ext]
    _READERS[key] = _Entry(key, exts, loader)
    for ext in exts:
        _BY_EXTENSION[ext] = key


def available_formats() -> list[str]:
    """Names of the registered formats, sorted."""
    return sorted(_READERS)


def format_for_extension(ext: str) -> str | None:
    """The format registered for a file extension (".jsonl"), or None."""
    return _BY_EXTENSION.get(_norm_ext(ext)) if ext else None


def get_loader(name: str) -> Loader:
    """The loader of format `name`, importing it on first use; ReaderError if there is no such format."""
    entry = _READERS.get(name.strip().lower())
    if entry is None:
        raise ReaderError(f"unknown input format {name!r}; available: {', '.join(available_formats())}")
    loaded = entry.loaded
    if loaded is None:
        if isinstance(entry.target, str):
            module_name, _, attr = entry.target.partition(":")
            try:
                loaded = getattr(importlib.import_module(module_name), attr)
            except (ImportError, AttributeError) as exc:
                raise ReaderError(f"reader {entry.name!r} cannot be loaded: {exc}") from exc
        else:
            loaded = entry.target
        entry.loaded = loaded
    return loaded


def _register_builtins() -> None:
    register_reader("text", (".txt", ".text"), "kg.io.text:read_text")
    register_reader("jsonl", (".jsonl", ".ndjson", ".jsonlines"), "kg.io.jsonl:read_jsonl")
    register_reader("json", (".json",), "kg.io.jsonarray:read_json")
    register_reader("copilot", (), "kg.io.jsonarray:read_copilot")
    register_reader("csv", (".csv",), "kg.io.delimited:read_csv")
    register_reader("tsv", (".tsv", ".tab"), "kg.io.delimited:read_tsv")
    register_reader("bibtex", (".bib", ".bibtex"), "kg.io.bibtex:read_bibtex")


_register_builtins()
