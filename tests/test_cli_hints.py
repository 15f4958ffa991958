"""Every flag an error message suggests is an option of the command that printed it (the real `kg`)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixtures_api import ROOT, run_kg, sample_store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hints") / "store"
    sample_store(str(path)).close()
    return path


@pytest.fixture
def locked(store: Path) -> Iterator[Path]:
    """The store held open for writing by another process, as a running `kg serve` holds it."""
    hold = ("import sys, time, pyoxigraph as ox; s = ox.Store(sys.argv[1]); print('ready', flush=True);"
            " time.sleep(60)")
    holder = subprocess.Popen([sys.executable, "-c", hold, str(store)], stdout=subprocess.PIPE, text=True,
                              cwd=ROOT)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
    yield store
    holder.kill()
    holder.wait()


def suggested_flags(command: str, stderr: str) -> list[tuple[str, bool]]:
    """Each `--flag` / `-o` in `stderr`, and whether `kg COMMAND --help` lists it."""
    helptext = run_kg(command, "--help", env={"COLUMNS": "200"}).stdout
    return [(f, re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", helptext) is not None)
            for f in re.findall(r"(?<![\w-])--?[a-z][a-z-]*", stderr)]


def test_a_locked_store_suggests_no_flag_kg_build_lacks(locked: Path, tmp_path: Path) -> None:
    src = tmp_path / "one.jsonl"
    src.write_text('{"id": "x1", "title": "A title", "abstract": "We study ImageNet."}\n', encoding="utf-8")
    proc = run_kg("build", src, "--store", locked, check=False)
    assert proc.returncode == 1 and "locked by another process" in proc.stderr
    assert all(ok for _, ok in suggested_flags("build", proc.stderr)), proc.stderr


@pytest.mark.parametrize("args", [
    ("results", "ImageNet", "--format", "xml"),
    ("papers", "--order", "newest"),
    ("papers", "--format", "ris"),
    ("defenses", "--format", "ris"),
    ("export", "--format", "graphml"),
])
def test_error_messages_suggest_existing_flags(store: Path, args: tuple[str, ...]) -> None:
    proc = run_kg(*args, "--store", store, check=False)
    flags = suggested_flags(args[0], proc.stderr)
    assert proc.returncode != 0 and flags and all(ok for _, ok in flags), proc.stderr
