"""rdflib views of a store, so rdflib Graph code and pyshacl can read paperkg data.

Embedded stores are wrapped by oxrdflib's OxigraphStore around the SAME pyoxigraph Store (no copy);
any other backend is dumped as N-Quads into an in-memory Oxigraph store first (a snapshot).
The view is for reading: writes through it bypass the generation token and the transaction rules.
"""

from __future__ import annotations

import io

import pyoxigraph as ox
import rdflib
from oxrdflib import OxigraphStore

from kg.store.types import Store


def as_rdflib(store: Store) -> rdflib.Dataset:
    """A Dataset whose default graph is the union of the named graphs, like every paperkg query."""
    inner = getattr(store, "oxigraph", None)
    if not isinstance(inner, ox.Store):
        buf = io.BytesIO()
        store.dump(buf, "nquads")
        inner = ox.Store()
        inner.load(buf.getvalue(), format=ox.RdfFormat.N_QUADS)
    return rdflib.Dataset(store=OxigraphStore(store=inner), default_union=True)
