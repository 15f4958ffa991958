"""Sustained load on loopback (a 10 s version of bench/soak.py, which runs 60 s): 16 concurrent clients
mixing the contract queries against a `kg serve` process get no error, and its memory stays flat."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import soak  # noqa: E402


@pytest.fixture(scope="module")
def figures() -> dict[str, Any]:
    result: dict[str, Any] = soak.soak(seconds=10, clients=16, warmup=3, window=2.5)
    print(f"soak figures: {result}")
    return result


def test_sixteen_clients_for_ten_seconds_get_no_error(figures: dict[str, Any]) -> None:
    assert (figures["errors"], figures["error_samples"]) == (0, [])
    assert figures["requests"] >= 100
    assert figures["p99_ms"] < 5000  # a generous bound: proves nothing hangs, not speed


def test_server_memory_stays_flat_under_load(figures: dict[str, Any]) -> None:
    assert figures["rss_growth_mb"] <= max(16.0, 0.1 * figures["rss_first_mb"])
