"""Stable paper ids: record id → DOI → URL → content hash."""

from __future__ import annotations

import hashlib

from kg.io.identity import content_hash_id, content_text, doi_from_url, normalise_doi, paper_id


def test_record_id_wins_and_is_stripped() -> None:
    assert paper_id("  seed-01 \n", "10.1/x", "https://a.b", "T", "A") == "seed-01"


def test_doi_used_when_no_id() -> None:
    assert paper_id(None, "https://doi.org/10.1000/ABC.1", "https://a.b", "T", "A") == "10.1000/abc.1"


def test_blank_id_falls_through() -> None:
    assert paper_id("   ", None, " https://a.b/p ", "T", "A") == "https://a.b/p"


def test_hash_when_nothing_else() -> None:
    expected = "h-" + hashlib.sha1(b"a title an abstract").hexdigest()[:16]
    assert paper_id(None, None, None, "A  Title", "An\nabstract") == expected


def test_hash_ignores_case_spacing_and_latex() -> None:
    a = content_hash_id("Title", r"ImageNet256$\times$256  data")
    b = content_hash_id("TITLE", "imagenet256×256 data")
    assert a == b


def test_hash_differs_for_different_text() -> None:
    assert content_hash_id(None, "one abstract") != content_hash_id(None, "another abstract")


def test_hash_is_stable_across_calls() -> None:
    assert (
        content_hash_id(None, "x y")
        == content_hash_id(None, "x y")
        == "h-" + hashlib.sha1(b"x y").hexdigest()[:16]
    )


def test_content_text_normalisation() -> None:
    assert content_text(None, "  Hello\tWORLD  ") == "hello world"


def test_normalise_doi_prefixes() -> None:
    assert normalise_doi("doi: 10.5555/XYZ") == "10.5555/xyz"


def test_normalise_doi_rejects_non_doi() -> None:
    assert normalise_doi("not a doi") is None


def test_doi_from_doi_url() -> None:
    assert doi_from_url("https://dx.doi.org/10.1145/3292500.3330701") == "10.1145/3292500.3330701"


def test_doi_from_other_url_is_none() -> None:
    assert doi_from_url("https://openreview.net/forum?id=x") is None
