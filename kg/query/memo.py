"""Answers derived from the store, cached per store generation (any write, by any process, moves it on).

Nothing here outlives the generation it was computed from, so several API processes can serve one store:
each rebuilds what it needs after a write. Entries are bounded by count and by a rough weight (rows).
Except: when this process wrote the store itself and nobody else can have (an embedded store: RocksDB
locks the directory), `kg.write` tells the caches what changed (`carry_over`) and they keep what still
holds at the new generation: records of untouched papers and entities, and the sorted paper-id lists,
patched with the changed papers. So the first query after an `addPapers` costs what later ones do.
"""

from __future__ import annotations

import bisect
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from kg.store.types import Store

T = TypeVar("T")
_NONE = object()
_PINNED: ContextVar[str | None] = ContextVar("kg_generation", default=None)


@contextmanager
def at_generation(gen: str) -> Iterator[None]:
    """Within this block (a GraphQL request that read `gen` when it began), take `gen` as the store's
    generation instead of reading it again for every lookup; the caller checks it again at the end."""
    token = _PINNED.set(gen)
    try:
        yield
    finally:
        _PINNED.reset(token)


Links = frozenset[tuple[str, str]]  # (relation local name, entity IRI)


@dataclass(frozen=True, slots=True)
class Change:
    """What one write changed: per paper (id), its links before and after (None: absent), and every
    entity IRI whose links, counts or description may have changed."""

    papers: Mapping[str, tuple[Links | None, Links | None]]
    entities: frozenset[str]
    paper_iris: frozenset[str]


# per-node kinds whose value depends only on the node itself (dropped for the touched nodes only)
_NODE_KINDS = frozenset({"paper", "links", "entity", "papers", "years", "venue-years", "degree"})
_CACHES: weakref.WeakSet[GenerationCache] = weakref.WeakSet()


def carry_over(store: Store, before: str, after: str, change: Change) -> None:
    """Move every cache of `store` that was at generation `before` to `after`, keeping what `change`
    leaves true (only for a store no other process writes)."""
    for cache in list(_CACHES):
        if cache._store is not None and cache._store() is store:
            cache.carry(before, after, change)


class GenerationCache:
    """An LRU of derived answers plus per-node values (counts, entity records), emptied when the
    generation changes."""

    def __init__(self, max_entries: int = 512, max_weight: int = 2_000_000, max_nodes: int = 500_000) -> None:
        self.max_entries, self.max_weight, self.max_nodes = max_entries, max_weight, max_nodes
        self._lock = threading.Lock()
        self._gen: str | None = None
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._weight = 0
        self._nodes: dict[tuple[str, str], Any] = {}
        self._store: weakref.ref[Store] | None = None
        self.hits = self.misses = 0
        _CACHES.add(self)

    def _current(self, store: Store) -> str:
        """The store's generation (the request's, when pinned); drops everything cached from another.
        A request pinned to an older generation than the cache's reads around the cache instead."""
        if self._store is None:
            with suppress(TypeError):
                self._store = weakref.ref(store)
        pinned = _PINNED.get()
        gen = pinned or store.generation()
        if gen != self._gen:
            with self._lock:
                if gen != self._gen and not (pinned and self._gen and pinned < self._gen):
                    self._gen, self._entries, self._weight, self._nodes = gen, OrderedDict(), 0, {}
        return gen

    def carry(self, before: str, after: str, change: Change) -> None:
        """At generation `before`, move to `after` keeping the entries `change` does not touch."""
        with self._lock:
            if self._gen != before:
                return
            touched_nodes = change.entities | change.paper_iris
            self._nodes = {k: v for k, v in self._nodes.items()
                           if k[0] in _NODE_KINDS and k[1] not in touched_nodes}
            kept: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
            for key, (value, _) in self._entries.items():
                patched = _patch(key, value, change)
                if patched is not None:
                    kept[key] = (patched, max(len(patched), 1))
            self._entries = kept
            self._weight = sum(w for _, w in kept.values())
            self._gen = after

    def get(self, store: Store, key: Hashable, compute: Callable[[], T], weight: Callable[[T], int]) -> T:
        """The cached value of `key` for the store's current generation, computed on a miss."""
        gen = self._current(store)
        if gen != self._gen:
            return compute()
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return cast(T, found[0])
            self.misses += 1
        value = compute()
        self.put(gen, key, value, weight(value))
        return value

    def peek(self, store: Store, key: Hashable) -> Any | None:
        """The cached value of `key` for the current generation, or None."""
        if self._current(store) != self._gen:
            return None
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return found[0]

    def put(self, gen: str, key: Hashable, value: Any, weight: int) -> None:
        """Keep `value` (computed from generation `gen`) unless the generation has moved on."""
        w = max(weight, 1)
        with self._lock:
            if self._gen != gen or w > self.max_weight or key in self._entries:
                return
            self._entries[key] = (value, w)
            self._weight += w
            while len(self._entries) > self.max_entries or self._weight > self.max_weight:
                _, (_, old) = self._entries.popitem(last=False)
                self._weight -= old

    def generation(self, store: Store) -> str:
        return self._current(store)

    def counts(
        self,
        store: Store,
        iris: Iterable[str],
        compute: Callable[[list[str]], dict[str, int]],
        kind: str = "papers",
    ) -> dict[str, int]:
        """Per-node numbers of one `kind` (paper counts, degrees); missing nodes count 0."""
        return self.per_node(store, kind, iris, compute, 0)

    def per_node(
        self,
        store: Store,
        kind: str,
        iris: Iterable[str],
        compute: Callable[[list[str]], dict[str, T]],
        default: T,
    ) -> dict[str, T]:
        """Per-node values of one `kind`: cached ones, and `compute(missing)` (or `default`) for the rest."""
        gen = self._current(store)
        wanted = list(dict.fromkeys(iris))
        if gen != self._gen:
            found = compute(wanted)
            return {i: found.get(i, default) for i in wanted}
        with self._lock:
            have = {i: v for i in wanted if (v := self._nodes.get((kind, i), _NONE)) is not _NONE}
        missing = [i for i in wanted if i not in have]
        if missing:
            found = compute(missing)
            fresh = {i: found.get(i, default) for i in missing}
            with self._lock:
                if self._gen == gen:
                    if len(self._nodes) + len(fresh) > self.max_nodes:
                        self._nodes = {}
                    self._nodes.update(((kind, i), v) for i, v in fresh.items())
            have.update(fresh)
        return have

    def clear(self) -> None:
        with self._lock:
            self._gen, self._entries, self._weight, self._nodes = None, OrderedDict(), 0, {}


def _patch(key: Hashable, value: Any, change: Change) -> Any | None:
    """The entry's value at the new generation, or None to drop it. Sorted paper-id lists are patched:
    `("papers",)` (every paper) and `("linked", entity IRIs, relation)` (papers linked to any of them)."""
    if not isinstance(key, tuple) or not key or not isinstance(value, tuple):
        return None
    if key == ("papers",):
        wanted = {pid: after is not None for pid, (_, after) in change.papers.items()}
    elif key[0] == "linked" and len(key) == 3:
        group, relation = frozenset(key[1]), key[2]
        wanted = {pid: after is not None and any(e in group and (relation is None or rel == relation)
                                                 for rel, e in after)
                  for pid, (_, after) in change.papers.items()}
    else:
        return None
    ids = list(value)
    for pid, keep in wanted.items():
        at = bisect.bisect_left(ids, pid)
        present = at < len(ids) and ids[at] == pid
        if keep and not present:
            ids.insert(at, pid)
        elif present and not keep:
            del ids[at]
    return tuple(ids)
