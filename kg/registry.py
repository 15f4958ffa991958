"""Plugins of one kind by name, imported on first use (as rdflib's plugin.register / plugin.get).

Input readers (kg.io.registry) and store backends (kg.store) are registries: a plugin is an object, or a
"package.module:attribute" path imported the first time it is asked for, so an unused one costs nothing.
"""

from __future__ import annotations

import importlib
from typing import Generic, TypeVar, cast

T = TypeVar("T")


class Registry(Generic[T]):
    """Named plugins of one `kind` ("reader", "store backend"); lookups are by exact name."""

    def __init__(self, kind: str, plugins: dict[str, T | str] | None = None) -> None:
        self.kind = kind
        self._plugins: dict[str, T | str] = dict(plugins or {})

    def register(self, name: str, plugin: T | str) -> None:
        """Register (or replace) `name`; a string is a lazy "package.module:attribute" path (ValueError if
        it does not look like one)."""
        if isinstance(plugin, str) and ":" not in plugin:
            raise ValueError(f"lazy {self.kind} {plugin!r} must look like 'package.module:attribute'")
        self._plugins[name] = plugin

    def get(self, name: str) -> T:
        """The plugin `name`, imported on first use. KeyError if none is registered; ImportError or
        AttributeError (for the caller to word) if its lazy path does not import."""
        plugin = self._plugins[name]
        if isinstance(plugin, str):
            module, _, attr = plugin.partition(":")
            plugin = self._plugins[name] = cast(T, getattr(importlib.import_module(module), attr))
        return plugin

    def is_loaded(self, name: str) -> bool:
        """Whether `name` is registered and no longer waits for its import."""
        return name in self._plugins and not isinstance(self._plugins[name], str)

    def names(self) -> list[str]:
        """The registered names, sorted."""
        return sorted(self._plugins)

    def __contains__(self, name: object) -> bool:
        return name in self._plugins

    def copy(self) -> Registry[T]:
        """An independent copy (tests register into a copy so that nothing outlives them)."""
        return Registry(self.kind, self._plugins)
