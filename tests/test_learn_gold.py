"""Gold → span labels (kg.learn.gold): every occurrence of a name or alias located in the paper's own text."""

from __future__ import annotations

import json
from pathlib import Path

from kg.learn.gold import GoldDoc, convert, locate, read_gold

RECORD = {
    "id": "g-1",
    "corpus_id": "venue2025-abc",
    "title": "QuarkNet: Fast Glyph Segmentation",
    "text": (
        "We propose QuarkNet for glyph segmentation. On the Runebook-7 benchmark, QuarkNet improves the "
        "mean intersection over union (mIoU) of glyph segmentation models. Pseudo-labels help."
    ),
    "proposed": [{"name": "QuarkNet", "aliases": [], "kind": "Model"}],
    "tasks": [{"name": "glyph segmentation", "aliases": []}, {"name": "lunar cartography", "aliases": []}],
    "datasets": [{"name": "Runebook-7", "aliases": ["Runebook7"]}],
    "methods": [{"name": "pseudo-labeling", "aliases": ["pseudo-label"]}],
    "metrics": [{"name": "mIoU", "aliases": ["mean intersection over union"]}],
    "models": [],
    "domains": [],
    "threats": [],
}


def _doc(tmp_path: Path, record: dict[str, object] = RECORD) -> GoldDoc:
    path = tmp_path / "gold.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    (doc,) = read_gold([path])
    return doc


def _labelled(doc: GoldDoc) -> list[tuple[str, str]]:
    spans, _ = locate(doc)
    return [(doc.text[s.start : s.end], s.label) for s in spans]


def test_every_occurrence_of_a_name_is_labelled_in_title_and_abstract(tmp_path: Path) -> None:
    assert _labelled(_doc(tmp_path)).count(("QuarkNet", "PROPOSED")) == 3


def test_a_plural_or_hyphen_variant_of_an_alias_is_located(tmp_path: Path) -> None:
    assert ("Pseudo-labels", "METHOD") in _labelled(_doc(tmp_path))


def test_the_longest_form_wins_where_forms_overlap(tmp_path: Path) -> None:
    labelled = _labelled(_doc(tmp_path))
    assert ("mean intersection over union", "METRIC") in labelled
    assert ("mIoU", "METRIC") in labelled
    assert ("Glyph Segmentation", "TASK") in labelled


def test_an_item_no_form_of_which_is_written_is_reported_with_its_reason(tmp_path: Path) -> None:
    doc = _doc(tmp_path)
    _, missing = locate(doc)
    index = next(i for i, it in enumerate(doc.items) if it.name == "lunar cartography")
    assert missing == {index: "no form written in the text"}


def test_an_acronym_form_matches_only_in_its_own_case(tmp_path: Path) -> None:
    record = dict(RECORD, text="The miou of it is low, while the mIoU stays high.")
    doc = _doc(tmp_path, record)
    assert [t for t, label in _labelled(doc) if label == "METRIC"] == ["mIoU"]


def test_conversion_counts_located_items_by_category(tmp_path: Path) -> None:
    conv = convert([_doc(tmp_path)])
    assert (conv.items["tasks"], conv.located["tasks"]) == (2, 1)
    assert conv.located["proposed"] == conv.items["proposed"] == 1
    assert "no form written in the text" in conv.report()


def test_a_record_seen_in_two_files_is_read_once(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for p in (a, b):
        p.write_text(json.dumps(RECORD) + "\n", encoding="utf-8")
    assert [d.key for d in read_gold([a, b])] == ["venue2025-abc"]
