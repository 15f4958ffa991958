"""Extraction in worker processes gives exactly what one process gives, in input order."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import pytest

from kg.extract import Extractor
from kg.extract.parallel import extract_in_workers
from kg.types import EntityRef, Evidence, Extraction, Link, Paper

_ABSTRACTS = [
    "We propose QuillNet, a graph model. Compared to FedAvg, it improves accuracy on CIFAR-10.",
    "Tidal flow forecasting is hard. We introduce the BrineBench benchmark for ocean simulation.",
    "We study backdoor attacks on LLM agents and present VeilGuard, a defense for web agents.",
    "Experiments on ImageNet and COCO show that our Marrow-Aug variant of ResNet is robust.",
]


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor()


@pytest.fixture(scope="module")
def papers() -> list[Paper]:
    return [
        Paper(id=f"p{i}", abstract=_ABSTRACTS[i % 4], title=f"Paper {i}" if i % 3 else None)
        for i in range(23)
    ]


class _Echo:
    """A stand-in extractor: one link naming the paper, so order is visible without spaCy."""

    def extract(
        self, papers: Iterable[Paper], *, n_process: int = 1, batch_size: int = 32
    ) -> Iterator[Extraction]:
        for p in papers:
            ev = Evidence(sentence=p.abstract, mention=p.id, start=0, end=len(p.id), confidence=1.0)
            yield Extraction(paper=p, links=(Link("proposes", EntityRef("Method", p.id), ev),))


def test_workers_keep_input_order_across_many_chunks() -> None:
    papers = [Paper(id=f"n{i}", abstract="x") for i in range(50)]
    out = list(extract_in_workers(_Echo(), papers, 2, chunk_size=3))
    assert [e.links[0].entity.name for e in out] == [f"n{i}" for i in range(50)]


def test_workers_with_no_papers_give_nothing() -> None:
    assert list(extract_in_workers(_Echo(), [], 2)) == []


@pytest.mark.parametrize("n_process", [2, 3])
def test_extractions_are_identical_whatever_the_worker_count(
    extractor: Extractor, papers: list[Paper], n_process: int
) -> None:
    one = list(extractor.extract(papers))
    many = list(extractor.extract(papers, n_process=n_process, batch_size=4))
    assert many == one


def test_parallel_extraction_reads_a_generator_once(extractor: Extractor, papers: list[Paper]) -> None:
    out = list(extractor.extract((p for p in papers[:5]), n_process=2))
    assert [e.paper.id for e in out] == ["p0", "p1", "p2", "p3", "p4"]
