"""Store backends chosen by name or URL scheme, imported lazily (like rdflib plugins).

    open_store("./kg-data", base_iri=...)            embedded Oxigraph (RocksDB directory)
    open_store("memory:", base_iri=...)              embedded Oxigraph in memory
    open_store("http://127.0.0.1:7878", base_iri=...) remote SPARQL 1.1 endpoint (Oxigraph dialect)
    open_store("http://host/sparql", ...)            remote, generic SPARQL 1.1 endpoint
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kg.registry import Registry
from kg.store.types import BadQuery, QueryTimeout, Row, Store, StoreError, Term, TooManyRows
from kg.store.version import FORMAT_VERSION, StoreFormatError

if TYPE_CHECKING:
    import rdflib

__all__ = ["BadQuery", "FORMAT_VERSION", "QueryTimeout", "Row", "Store", "StoreError", "StoreFormatError",
           "Term", "TooManyRows",
           "Factory", "as_rdflib", "open_store", "register_backend"]

Factory = Callable[..., Store]  # factory(location, *, base_iri, read_only, create) -> Store

# scheme -> "module:attribute" (imported on first use) or a factory registered at run time
_BACKENDS: Registry[Factory] = Registry("store backend", {
    "": "kg.store.embedded:EmbeddedStore",
    "file": "kg.store.embedded:EmbeddedStore",
    "memory": "kg.store.embedded:EmbeddedStore",
    "http": "kg.store.remote:RemoteStore",
    "https": "kg.store.remote:RemoteStore",
})


def register_backend(scheme: str, factory: Factory | str) -> None:
    """Make `open_store("scheme:...")` use `factory` (a callable or a lazy "module:attribute")."""
    _BACKENDS.register(scheme.lower(), factory)


def _scheme(location: str) -> str:
    head, sep, _ = location.partition(":")
    # a one-letter scheme is a Windows drive, not a URL; "./x" and "/x" have none
    return head.lower() if sep and len(head) > 1 and head.replace("+", "").isalnum() else ""


def local_directory(location: str) -> str | None:
    """The directory a plain path or `file:` location names; None for every other scheme."""
    scheme = _scheme(location)
    if scheme == "file":
        return location[len("file:"):].removeprefix("//")
    return location if scheme == "" else None


def open_store(location: str, *, base_iri: str, read_only: bool = False, create: bool = True,
               upgrade: bool = False) -> Store:
    """Open the store at `location` with the backend its scheme names (a plain path is a directory).

    Every backend checks the store's format version (kg.store.version) and raises StoreFormatError for
    a layout it does not read; `upgrade=True` (for `kg migrate` only) lets an older layout open."""
    scheme = _scheme(location)
    if scheme not in _BACKENDS:
        known = ", ".join(sorted(s + ":" for s in _BACKENDS.names() if s))
        raise StoreError(f"no store backend for {scheme}: (known: {known}, or a directory path)")
    target = _BACKENDS.get(scheme)
    local = local_directory(location)
    path = None if scheme == "memory" else location if local is None else local
    extra = {"upgrade": True} if upgrade else {}  # backends registered by others may not know it
    store: Store = target(path, base_iri=base_iri, read_only=read_only, create=create, **extra)
    return store


def as_rdflib(store: Store) -> rdflib.Dataset:
    """An rdflib Dataset over the store's data (shared for embedded stores, a snapshot for remote)."""
    from kg.store.rdflib_view import as_rdflib as view

    return view(store)
