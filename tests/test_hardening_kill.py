"""kill -9 in the middle of writes (a shortened campaign; bench/kill_campaign.py runs 20 + 20 trials).

After each kill: the store reopens, `kg validate` passes, and every paper graph is whole or absent; a killed
addPapers call is all or nothing and a restarted server (search index included) agrees with the store.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import kill_campaign  # noqa: E402


def failed(result: dict[str, Any]) -> list[str]:
    return [
        f"{t['kind']} killed at {t['delay_s']} s: {t['problems']}" for t in result["trials"] if not t["ok"]
    ]


def test_killed_builds_leave_every_paper_whole_or_absent(tmp_path: Path) -> None:
    """Into an existing store (a transaction per batch) and into a new one (no store until it is whole)."""
    result = kill_campaign.campaign(build_trials=4, mutation_trials=0, seed=11, copies_n=10, work=tmp_path)
    assert [t["kind"] for t in result["trials"]] == ["build", "fresh build"] * 2
    assert failed(result) == []


def test_killed_add_papers_mutation_is_all_or_nothing(tmp_path: Path) -> None:
    result = kill_campaign.campaign(build_trials=0, mutation_trials=3, seed=5, copies_n=1, work=tmp_path)
    assert [t["kind"] for t in result["trials"]] == ["mutation"] * 3
    assert failed(result) == []
    assert {t["papers_present"] for t in result["trials"]} <= {0, 20}  # addPapers takes 20 at most
