"""Reader registry: formats chosen by name or file extension; loaders given as "module:function" strings are
imported on first use (like rdflib's plugin registry), so an unused reader costs nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kg.registry import Registry
from kg.types import Paper, ReadProblem

# A loader turns the decoded text of one input, and the file name used for provenance, into records.
Loader = Callable[[str, str], Iterable[Paper | ReadProblem]]


class ReaderError(ValueError):
    """A caller mistake, such as an unknown format name. Bad *data* never raises: it yields ReadProblems."""


_READERS: Registry[Loader] = Registry("loader")
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
    try:
        _READERS.register(key, loader)
    except ValueError as exc:
        raise ReaderError(str(exc)) from None
    for ext in [e for e, n in _BY_EXTENSION.items() if n == key]:  # a replaced reader's old extensions
        del _BY_EXTENSION[ext]
    for ext in extensions:
        _BY_EXTENSION[_norm_ext(ext)] = key


def available_formats() -> list[str]:
    """Names of the registered formats, sorted."""
    return _READERS.names()


def format_for_extension(ext: str) -> str | None:
    """The format registered for a file extension (".jsonl"), or None."""
    return _BY_EXTENSION.get(_norm_ext(ext)) if ext else None


def get_loader(name: str) -> Loader:
    """The loader of format `name`, importing it on first use; ReaderError if there is no such format."""
    key = name.strip().lower()
    try:
        return _READERS.get(key)
    except KeyError:
        known = ", ".join(available_formats())
        raise ReaderError(f"unknown input format {name!r}; available: {known}") from None
    except (ImportError, AttributeError) as exc:
        raise ReaderError(f"reader {key!r} cannot be loaded: {exc}") from exc


def _register_builtins() -> None:
    register_reader("text", (".txt", ".text"), "kg.io.text:read_text")
    register_reader("jsonl", (".jsonl", ".ndjson", ".jsonlines"), "kg.io.jsonl:read_jsonl")
    register_reader("json", (".json",), "kg.io.jsonarray:read_json")
    register_reader("copilot", (), "kg.io.jsonarray:read_copilot")
    register_reader("csv", (".csv",), "kg.io.delimited:read_csv")
    register_reader("tsv", (".tsv", ".tab"), "kg.io.delimited:read_tsv")
    register_reader("bibtex", (".bib", ".bibtex"), "kg.io.bibtex:read_bibtex")


_register_builtins()
