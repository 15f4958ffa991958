"""OpenAlex works, arXiv metadata and Semantic Scholar papers/abstracts snapshots: fields, identity, joins."""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Iterable
from pathlib import Path

from fixtures_api import run_kg as kg

from kg.io import read_inputs, read_papers
from kg.types import Paper, ReadProblem

DATA = Path(__file__).resolve().parent / "data" / "io"
OPENALEX, ARXIV = DATA / "openalex_works.jsonl", DATA / "arxiv_metadata.jsonl"
S2_PAPERS, S2_ABSTRACTS = DATA / "s2_papers.jsonl", DATA / "s2_abstracts.jsonl"
FLOW_ABSTRACT = (
    "We propose a flow matching model for class-conditional image generation. Trained on ImageNet, it reaches"
    " an FID of 1.9 and outperforms diffusion models with a Transformer backbone."
)
FEDPROX_ABSTRACT = (
    "We revisit federated learning under client heterogeneity. FedProx with adaptive proximal terms improves"
    " accuracy on CIFAR-10 over FedAvg."
)


def papers(items: Iterable[Paper | ReadProblem]) -> list[Paper]:
    return [i for i in items if isinstance(i, Paper)]


def problems(items: Iterable[Paper | ReadProblem]) -> list[ReadProblem]:
    return [i for i in items if isinstance(i, ReadProblem)]


def test_openalex_work_fields_are_mapped_exactly() -> None:
    first = papers(read_papers(OPENALEX))[0]
    assert first == Paper(
        id="10.5555/paperkg.2024.001",
        abstract=FLOW_ABSTRACT,
        title="Flow Matching for Image Generation on ImageNet",
        authors=("Ana Lee", "Bo Chen"),
        venue="International Conference on Machine Learning",
        year=2024,
        url="https://proceedings.mlr.press/v235/lee24a.html",
        doi="10.5555/paperkg.2024.001",
        source="openalex_works.jsonl:1",
        citations=12,
    )


def test_openalex_work_without_doi_keeps_its_openalex_id_and_display_name() -> None:
    second = papers(read_papers(OPENALEX))[1]
    assert (second.id, second.title, second.venue, second.year, second.url) == (
        "https://openalex.org/W4409876543",
        "Detecting Indirect Prompt Injection in LLM Agents",
        None,
        2025,
        "https://openalex.org/W4409876543",
    )
    assert second.authors == ("Chloé Dubois",)


def test_openalex_abstract_is_rebuilt_from_the_inverted_index_in_position_order() -> None:
    second = papers(read_papers(OPENALEX))[1]
    assert second.abstract == (
        "We study indirect prompt injection against LLM agents and propose a defense that detects injected"
        " tool outputs. On AgentDojo it lowers the attack success rate to 2%."
    )


def test_arxiv_record_fields_are_mapped_exactly() -> None:
    second = papers(read_papers(ARXIV))[1]
    assert second == Paper(
        id="arXiv:2501.00042",
        abstract=FEDPROX_ABSTRACT,
        title="Federated Learning with FedProx on CIFAR-10",
        authors=("C. Balázs", "C. -P. Yuan Jr"),
        venue="arXiv",
        year=2024,  # v1 was created on 31 Dec 2024; the record was updated in 2025
        url="https://arxiv.org/abs/2501.00042",
        doi=None,
        source="arxiv_metadata.jsonl:3",
    )


def test_arxiv_record_with_a_doi_is_identified_by_it() -> None:
    first = papers(read_papers(ARXIV))[0]
    assert (first.id, first.title, first.url) == (
        "10.5555/paperkg.2024.001",
        "Flow Matching for Image Generation on ImageNet",
        "https://arxiv.org/abs/2407.01234",
    )


def test_s2_papers_record_fields_are_mapped_exactly() -> None:
    first = papers(read_papers(S2_PAPERS))[0]
    assert first == Paper(
        id="10.5555/paperkg.2024.001",
        abstract="",
        title="Flow Matching for Image Generation on ImageNet",
        authors=("Ana Lee", "Bo Chen"),
        venue="International Conference on Machine Learning",
        year=2024,
        url="https://www.semanticscholar.org/paper/3f2a9c0b1d4e5f60718293a4b5c6d7e8f9a0b1c2",
        doi="10.5555/paperkg.2024.001",
        source="s2_papers.jsonl:1",
        citations=12,
    )


def test_s2_ids_fall_back_to_arxiv_then_corpus_id_and_venue_to_publicationvenue() -> None:
    rows = [(p.id, p.venue, p.url) for p in papers(read_papers(S2_PAPERS))[1:]]
    assert rows == [
        (
            "arXiv:2501.00042",
            "Transactions on Machine Learning Research",
            "https://www.semanticscholar.org/paper/aa11bb22cc33dd44ee55ff6677889900aabbccdd",
        ),
        ("CorpusId:270000003", "NeurIPS", "https://api.semanticscholar.org/CorpusId:270000003"),
    ]


def test_s2_abstracts_are_joined_into_papers_by_corpusid() -> None:
    joined = {p.id: p for p in papers(read_inputs([S2_PAPERS, S2_ABSTRACTS]))}
    assert sorted(joined) == ["10.5555/paperkg.2024.001", "CorpusId:270000003", "arXiv:2501.00042"]
    assert joined["10.5555/paperkg.2024.001"].abstract == FLOW_ABSTRACT
    assert joined["arXiv:2501.00042"].abstract == FEDPROX_ABSTRACT
    assert joined["CorpusId:270000003"].abstract == ""  # no abstracts record: the title alone


def test_s2_join_does_not_depend_on_the_order_of_the_files() -> None:
    forward = papers(read_inputs([S2_PAPERS, S2_ABSTRACTS]))
    backward = papers(read_inputs([S2_ABSTRACTS, S2_PAPERS]))
    assert forward == backward


def test_s2_abstract_matching_no_papers_record_is_one_warning() -> None:
    warnings = [str(p) for p in problems(read_inputs([S2_PAPERS, S2_ABSTRACTS]))]
    assert warnings == [
        "s2_abstracts.jsonl:line 4: invalid JSON: Unterminated string starting at (column 37)",
        "s2_papers.jsonl:line 4: record has neither a title nor an abstract; skipped",
        "s2_abstracts.jsonl:file: 1 abstract (corpusid 279999999, …) match no papers record; skipped",
    ]


def test_s2_abstracts_file_alone_gives_abstract_only_papers() -> None:
    ids = [p.id for p in papers(read_inputs([S2_ABSTRACTS]))]
    assert ids == ["CorpusId:270000001", "CorpusId:270000002", "CorpusId:279999999"]


def test_each_bad_record_is_one_warning_naming_file_and_line() -> None:
    found = [str(p) for path in (OPENALEX, ARXIV, S2_PAPERS) for p in problems(read_papers(path))]
    assert found == [
        "openalex_works.jsonl:line 3: record has neither a title nor an abstract; skipped",
        "arxiv_metadata.jsonl:line 2: invalid JSON: Unterminated string starting at (column 86)",
        "s2_papers.jsonl:line 4: record has neither a title nor an abstract; skipped",
    ]


def test_the_same_doi_through_openalex_and_arxiv_is_one_paper() -> None:
    ids = [p.id for p in papers(read_inputs([OPENALEX, ARXIV]))]
    assert ids.count("10.5555/paperkg.2024.001") == 2  # one id: the build keeps the last record read
    assert len(set(ids)) == 3


def test_gzipped_snapshots_read_like_plain_ones(tmp_path: Path) -> None:
    for path in (OPENALEX, ARXIV, S2_PAPERS, S2_ABSTRACTS):
        (tmp_path / (path.name + ".gz")).write_bytes(gzip.compress(path.read_bytes()))
    gz = sorted(tmp_path.iterdir())
    plain = [DATA / p.name.removesuffix(".gz") for p in gz]
    strip = [(p.id, p.title, p.abstract, p.authors, p.year) for p in papers(read_inputs(plain))]
    assert [(p.id, p.title, p.abstract, p.authors, p.year) for p in papers(read_inputs(gz))] == strip


def test_json_gz_snapshot_is_sniffed_as_json_lines(tmp_path: Path) -> None:
    target = tmp_path / "works.json.gz"
    target.write_bytes(gzip.compress(OPENALEX.read_bytes()))
    assert [p.id for p in papers(read_papers(target))] == [
        "10.5555/paperkg.2024.001",
        "https://openalex.org/W4409876543",
    ]


def test_openalex_api_page_as_a_json_array_uses_the_openalex_mapping(tmp_path: Path) -> None:
    works = [json.loads(line) for line in OPENALEX.read_text(encoding="utf-8").splitlines()]
    page = tmp_path / "page.json"
    page.write_text(json.dumps({"meta": {"count": 3}, "results": works}), encoding="utf-8")
    first = papers(read_papers(page))[0]
    assert (first.id, first.abstract) == ("10.5555/paperkg.2024.001", FLOW_ABSTRACT)
    assert first.authors == ("Ana Lee", "Bo Chen")


def test_kg_build_reads_all_three_snapshots_into_one_store(tmp_path: Path) -> None:
    inputs = [tmp_path / p.name for p in (OPENALEX, ARXIV, S2_PAPERS, S2_ABSTRACTS)]
    for src, dst in zip((OPENALEX, ARXIV, S2_PAPERS, S2_ABSTRACTS), inputs, strict=True):
        shutil.copy(src, dst)
    store = tmp_path / "store"
    proc = kg("build", *inputs, "--store", store)
    assert "Traceback" not in proc.stderr
    assert "openalex_works.jsonl:line 3" in proc.stderr and "arxiv_metadata.jsonl:line 2" in proc.stderr
    # the DOI shared by all three sources and the arXiv id shared by two are one paper each
    assert json.loads(kg("stats", "--json", "--store", store).stdout)["papers"] == 4


def test_a_citation_count_of_zero_is_kept_and_a_missing_one_is_none() -> None:
    counts = [(p.id, p.citations) for p in papers(read_papers(OPENALEX))]
    arxiv = [p.citations for p in papers(read_papers(ARXIV))]
    assert counts[1][1] == 0 and set(arxiv) == {None}
