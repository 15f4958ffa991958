"""Disk full and read-only stores, on a real small tmpfs (needs root; skipped otherwise): `kg build` fails
with one clear line, and the store is not corrupted — it validates, and every paper is whole or absent."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import kill_campaign  # noqa: E402

SEED = ROOT / "data" / "icml2025_seed.jsonl"


def mount(*args: str) -> bool:
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    where = tmp_path / "fs"
    where.mkdir()
    if not mount("-t", "tmpfs", "-o", "size=24m", "tmpfs", str(where)):
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def many(tmp_path: Path, n: int) -> Path:
    src = tmp_path / "many.jsonl"
    recs = kill_campaign.copies(kill_campaign.seed_records(), n)
    src.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return src


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip() and not line.startswith("warning:")]
    assert len(lines) == 1, stderr[-2000:]
    assert "Traceback" not in stderr
    return lines[0]


def fill(where: Path) -> Path:
    """Fill the file system to the last byte (it may already be full: then nothing is written)."""
    filler = where / "filler"
    try:
        with filler.open("wb") as fh:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
    except OSError:
        pass
    return filler


def test_disk_full_build_fails_with_one_line_and_leaves_a_sound_store(tmp_path: Path, small_fs: Path) -> None:
    store = small_fs / "store"
    assert kill_campaign.kg("build", SEED, "--store", store).returncode == 0
    filler = fill(small_fs)
    proc = kill_campaign.kg("build", many(tmp_path, 20), "--store", store, "--batch", "20")
    assert proc.returncode == 1
    assert one_error_line(proc.stderr).startswith("error: disk full")
    filler.unlink(missing_ok=True)
    reference = kill_campaign.reference_counts(tmp_path)
    trial = kill_campaign.check_store(store, reference, "disk-full", 0.0, 380)
    assert (trial.reopens, trial.validates, trial.complete, trial.problems) == (True, True, True, [])
    again = kill_campaign.kg("build", SEED, "--store", store)  # space is back: the store takes writes again
    assert again.returncode == 0, again.stderr


def test_read_only_store_directory_fails_with_one_line_and_stays_intact(tmp_path: Path,
                                                                      small_fs: Path) -> None:
    store = small_fs / "store"
    assert kill_campaign.kg("build", SEED, "--store", store).returncode == 0
    before = kill_campaign.kg("export", "--format", "nquads", "--store", store).stdout
    assert mount("-o", "remount,ro", str(small_fs))
    try:
        proc = kill_campaign.kg("build", many(tmp_path, 2), "--store", store)
        assert proc.returncode == 1
        line = one_error_line(proc.stderr)
        assert line.startswith("error:") and str(store) in line
    finally:
        assert mount("-o", "remount,rw", str(small_fs))
    assert kill_campaign.kg("export", "--format", "nquads", "--store", store).stdout == before
    assert "conforms" in kill_campaign.kg("validate", "--store", store).stdout
