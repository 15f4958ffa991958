"""docs/paperkg.ipynb, the Python API's walk-through, runs top to bottom in a real Jupyter kernel and
answers its three questions on the bundled sample."""

from __future__ import annotations

import re

import nbformat
import pytest
from fixtures_api import MELON_NAME, ROOT, pipeline_available
from nbclient import NotebookClient

pytestmark = pytest.mark.skipif(not pipeline_available(), reason="needs the spaCy pipeline")
NOTEBOOK = ROOT / "docs" / "paperkg.ipynb"


@pytest.fixture(scope="module")
def outputs() -> list[str]:
    """The text each code cell printed or showed, in order, after running the whole notebook."""
    nb = nbformat.read(NOTEBOOK, as_version=4)  # type: ignore[no-untyped-call]
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    texts = []
    for cell in (c for c in nb.cells if c.cell_type == "code"):
        parts = [o.get("text", "") if o.output_type == "stream" else o.get("data", {}).get("text/plain", "")
                 for o in cell.outputs]
        texts.append("".join(parts))
    return texts


def test_it_builds_the_sample(outputs: list[str]) -> None:
    assert outputs[0].startswith("built 19 papers, 0 bad records\n19 papers, ")


def test_it_finds_the_papers_using_imagenet(outputs: list[str]) -> None:
    assert "Masked Generative Nested Transformers" in outputs[1]


def test_it_draws_imagenets_map_as_networkx(outputs: list[str]) -> None:
    lines = outputs[2].splitlines()
    assert re.fullmatch(r"\d+ entities, density 0\.\d\d", lines[0])
    assert "  1  Method   Transformer" in lines[1:]


def test_it_names_the_defenses_of_llm_agents_with_their_evidence(outputs: list[str]) -> None:
    first = outputs[3].splitlines()[1]
    assert first.split()[0] == "0" and MELON_NAME in first and first.split()[-2:] == ["Defense", "1"]
    assert outputs[4].startswith(f"{MELON_NAME}: MELON: Provable Defense Against Indirect Prompt Injection")


def test_it_ranks_the_results_of_the_most_reported_dataset(outputs: list[str]) -> None:
    assert outputs[5].splitlines()[1].split() == ["0", "GenImage", "1"]
    board = outputs[6].split()  # one row: rank, value, unit, metric, method (wrapped), paper, evidence
    method = ["PiD", "(Pixelwise", "Decomposition", "Residuals)"]
    at = board.index("98.0")
    assert board[at - 1 : at + 3 + len(method)] == ["1", "98.0", "%", "accuracy", *method]
    assert "seed-07" in board


def test_it_counts_types_through_rdflib(outputs: list[str]) -> None:
    kinds = [line.split()[1] for line in outputs[7].splitlines()]
    assert len(kinds) == 5 and "kg:Method" in kinds
