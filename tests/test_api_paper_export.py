"""/export/papers over real HTTP on the sample: CSV read back with the csv module, BibTeX with bibtexparser,
bounded rows, the next page's cursor in a header, one-line 400s."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

import httpx
import pytest
from bibtexparser.entrypoint import parse_string
from fixtures_api import Server, sample_store, serve


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    yield from serve(sample_store())


def get(server: Server, **params: str) -> httpx.Response:
    return httpx.get(server.url + "/export/papers", params=params, timeout=30)


def test_csv_of_a_dataset_reads_back_with_every_field(server: Server) -> None:
    r = get(server, dataset="ImageNet", format="csv")
    assert r.status_code == 200 and r.headers["content-type"] == "text/csv; charset=utf-8"
    assert list(csv.DictReader(io.StringIO(r.text))) == [{
        "id": "seed-01", "title": "Masked Generative Nested Transformers with Decode Time Scaling",
        "year": "", "venue": "ICML 2025", "authors": "", "doi": "", "url": "", "code": "",
    }]


def test_bibtex_of_a_title_ordered_page_parses_back(server: Server) -> None:
    r = get(server, format="bibtex", order="title", first="2")
    lib = parse_string(r.text)
    assert lib.failed_blocks == []
    assert [(e.entry_type, e.key, e.fields_dict["title"].value) for e in lib.entries] == [
        ("inproceedings", "seed-06",
         "A Square Peg in a Square Hole: Meta-Expert for Long-Tailed Semi-Supervised Learning"),
        ("inproceedings", "seed-02",
         "Adversarial Robustness in Two-Stage Learning-to-Defer: Algorithms and Guarantees"),
    ]


def test_total_and_next_cursor_are_headers_and_the_cursor_continues(server: Server) -> None:
    first = get(server, first="18")
    assert first.headers["x-total-count"] == "19"
    rest = get(server, after=first.headers["x-next-after"])
    assert [row["id"] for row in csv.DictReader(io.StringIO(rest.text))] == ["seed-19"]
    assert "x-next-after" not in rest.headers


@pytest.mark.parametrize(("params", "message"), [
    ({"format": "ris"}, "format must be one of csv, bibtex"),
    ({"order": "newest"}, "order must be one of ID, YEAR, TITLE, CONFIDENCE"),
    ({"year": "last"}, "year must be a whole number"),
    ({"first": "1001"}, "first must be a whole number from 1 to 1000"),
    ({"after": "nonsense"}, "invalid cursor"),
])
def test_bad_parameters_are_one_line_400s(server: Server, params: dict[str, str], message: str) -> None:
    r = get(server, **params)
    assert (r.status_code, r.text) == (400, message)
