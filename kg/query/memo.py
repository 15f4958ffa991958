"""Answers derived from the store, cached per store generation (any write, by any process, moves it on).

Nothing here outlives the generation it was computed from, so several API processes can serve one store:
each rebuilds what it needs after a write. Entries are bounded by count and by a rough weight (rows).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

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
        self.hits = self.misses = 0

    def _current(self, store: Store) -> str:
        """The store's generation (the request's, when pinned); drops everything cached from another."""
        gen = _PINNED.get() or store.generation()
        if gen != self._gen:
            with self._lock:
                if gen != self._gen:
                    self._gen, self._entries, self._weight, self._nodes = gen, OrderedDict(), 0, {}
        return gen

    def get(self, store: Store, key: Hashable, compute: Callable[[], T], weight: Callable[[T], int]) -> T:
        """The cached value of `key` for the store's current generation, computed on a miss."""
        gen = self._current(store)
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return found[0]  # type: ignore[no-any-return]
            self.misses += 1
        value = compute()
        self.put(gen, key, value, weight(value))
        return value

    def peek(self, store: Store, key: Hashable) -> Any | None:
        """The cached value of `key` for the current generation, or None."""
        self._current(store)
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
