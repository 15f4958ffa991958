"""kg.registry: one registry type for readers and store backends; lazy paths imported on first get()."""

from __future__ import annotations

import sys

import pytest

import kg.io.registry
import kg.store
from kg.registry import Registry


def test_lazy_path_is_imported_on_first_get(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    reg: Registry[object] = Registry("thing", {"hls": "colorsys:rgb_to_hls"})
    assert "colorsys" not in sys.modules and not reg.is_loaded("hls")
    import colorsys

    assert reg.get("hls") is colorsys.rgb_to_hls and reg.is_loaded("hls")


def test_objects_and_replacements() -> None:
    reg: Registry[int] = Registry("number")
    reg.register("b", 2)
    reg.register("a", 1)
    reg.register("b", 3)
    assert (reg.names(), reg.get("a"), reg.get("b")) == (["a", "b"], 1, 3)
    assert "a" in reg and "z" not in reg


def test_unknown_name_and_bad_paths() -> None:
    reg: Registry[object] = Registry("thing", {"gone": "kg.nowhere:thing", "typo": "kg.registry:Nothing"})
    with pytest.raises(KeyError):
        reg.get("missing")
    with pytest.raises(ImportError):
        reg.get("gone")
    with pytest.raises(AttributeError):
        reg.get("typo")
    with pytest.raises(ValueError, match="lazy thing 'kg.registry.Registry' must look like"):
        reg.register("dotted", "kg.registry.Registry")


def test_a_copy_is_independent() -> None:
    reg: Registry[int] = Registry("number", {"a": 1})
    other = reg.copy()
    other.register("b", 2)
    assert (reg.names(), other.names()) == (["a"], ["a", "b"])


def test_readers_and_backends_are_registries() -> None:
    assert isinstance(kg.io.registry._READERS, Registry) and isinstance(kg.store._BACKENDS, Registry)
