"""The extractor never raises, keeps input order, and notes truncation."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg.extract import VERSION, Extractor, to_json
from kg.extract.extractor import MAX_ABSTRACT
from kg.types import Paper


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor()


_PIECES = [
    *"aB1 ()[]-/.,:;$\\×\n\t\u00a0é漢😀",
    "(LF)",
    "We propose ",
    "Foo-Net",
    "https://github.com/x/y.",
    " dataset",
    "\n\n",
    "ImageNet",
    "(",
    ")",
]
_WEIRD = st.lists(st.sampled_from(_PIECES), max_size=80).map("".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(title=st.one_of(st.none(), _WEIRD), abstract=_WEIRD)
def test_never_raises_on_weird_text(extractor: Extractor, title: str | None, abstract: str) -> None:
    ex = extractor.extract_one(Paper(id="w", abstract=abstract, title=title))
    for lk in ex.links:
        text = (title or "") if lk.evidence.field == "title" else abstract
        assert text[lk.evidence.start : lk.evidence.end] == lk.evidence.mention
    to_json(ex)


def test_empty_text_gives_no_links(extractor: Extractor) -> None:
    ex = extractor.extract_one(Paper(id="e", abstract=""))
    assert (ex.links, ex.code_urls, ex.extractor_version) == ((), (), VERSION)


def test_huge_text_is_truncated_with_a_note(extractor: Extractor) -> None:
    ex = extractor.extract_one(Paper(id="h", abstract="We study graphs. " * 7000))
    assert ex.notes == (f"abstract truncated to {MAX_ABSTRACT} characters",)


def test_extract_keeps_input_order(extractor: Extractor) -> None:
    papers = [Paper(id=str(i), abstract=f"We evaluate on ImageNet {i}.") for i in range(70)]
    assert [ex.paper.id for ex in extractor.extract(papers, batch_size=32)] == [str(i) for i in range(70)]


def test_two_processes_give_the_same_links(extractor: Extractor) -> None:
    papers = [
        Paper(id=str(i), abstract="We propose FooNet, a model. Compared to FedAvg, it wins on CIFAR-10.")
        for i in range(6)
    ]
    one = [to_json(e) for e in extractor.extract(papers)]
    two = [to_json(e) for e in extractor.extract(papers, n_process=2, batch_size=2)]
    assert one == two
