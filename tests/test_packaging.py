"""What `pip install .` ships: the wheel built the way users build it (isolated, from pyproject.toml)
holds the bundled sample, both vocabulary tiers, the shapes, the extractor's data and model, and the
explorer's files, so an installed `kg serve` works in an empty folder."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_wheel_holds_what_an_installed_kg_needs(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (wheel,) = tmp_path.glob("paperkg-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {
        "kg/data/icml2025_seed.jsonl",
        "ontology/kg.ttl",
        "ontology/shapes.ttl",
        "ontology/vocab/tasks.ttl",
        "ontology/vocab/mined.ttl.gz",
        "kg/extract/data/corpus_words.json.gz",
        "kg/extract/models/recogniser.npz",
        "api/explorer/static/index.html",
        "api/explorer/static/explorer.js",
    } <= names
    assert not any("node_modules" in n or n.startswith("tests/") for n in names)
