"""Readers and extractor under hostile input, through `kg.io.parse_papers` and `Extractor.extract_one`:
bad records mixed among good ones (every good one still comes out, one clear problem per bad one), files cut
at any byte, foreign encodings and BOMs, RTL and combining characters, LaTeX soup, 10 MB fields, enormous
lines, deep and huge JSON. tests/test_io_fuzz.py already checks that arbitrary bytes never raise.

KG_FUZZ_INPUTS sets the examples per property (CI default 60)."""

from __future__ import annotations

import csv
import io
import json
import os
import time
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg.extract import Extractor
from kg.io import parse_papers
from kg.io.records import MAX_ABSTRACT_CHARS
from kg.types import Paper, ReadProblem

EXAMPLES = int(os.environ.get("KG_FUZZ_INPUTS", "60"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=10_000,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Text a record may carry: anything printable, with right-to-left runs, combining marks and LaTeX bits.
_ODD = [
    "\u05e9\u05dc\u05d5\u05dd",
    "\u0645\u0631\u062d\u0628\u0627",
    "\u202eevil\u202c",
    "e\u0301\u0308",
    "Z\u0336\u0337a\u0489",
    "\\textbf{Bold}",
    "$\\alpha_{1}$",
    '{\\"o}',
    "\\cite{x}",
    "~",
    "%",
    "&",
    "\u00a0",
    "\ufeff",
    "\u200b",
    "😀",
    "漢字",
    "\t",
]
WORDS = st.lists(
    st.one_of(
        st.sampled_from(_ODD),
        st.text(st.characters(exclude_categories=("Cs", "Cc")), min_size=1, max_size=12),
    ),
    min_size=1,
    max_size=12,
).map(" ".join)


def split(items: list[Paper | ReadProblem]) -> tuple[list[Paper], list[ReadProblem]]:
    return [i for i in items if isinstance(i, Paper)], [i for i in items if isinstance(i, ReadProblem)]


def timed_parse(data: bytes | str, name: str, fmt: str | None, records: int) -> list[Paper | ReadProblem]:
    started = time.monotonic()
    items = list(parse_papers(data, name, fmt))
    assert time.monotonic() - started < 2 + 0.5 * records  # generous: proves "no hang", not speed
    return items


def assert_clear(problems: list[ReadProblem]) -> None:
    for p in problems:
        assert "\n" not in str(p) and p.message and p.location and "Traceback" not in p.message


# --- good records surrounded by bad ones, per format -----
def jsonl_good(i: int, title: str, abstract: str) -> str:
    return json.dumps({"id": f"good-{i}", "title": f"Good {i} {title}", "abstract": f"We study {abstract}."})


JSONL_BAD = [
    '{"id": "bad", "title": "cut off',  # truncated object
    "[" * 5000 + "]" * 5000,  # deeply nested, and not an object
    "42",
    "{}",  # neither title nor abstract
    '{"title": null, "abstract": ["not", "text"]}',
    '{"id": "x", "title": "a" "b"}',
    '{"title": "\\u0000\\u0000", "abstract": "\\u200b"}',  # only NULs and invisibles
    "{" + '"k": 1, ' * 2000 + "}",  # trailing comma, long
]


@FUZZ
@given(plan=st.lists(st.one_of(st.tuples(WORDS, WORDS), st.sampled_from(JSONL_BAD)), min_size=1, max_size=25))
def test_jsonl_good_records_survive_bad_neighbours(plan: list[tuple[str, str] | str]) -> None:
    lines: list[str] = []
    good: list[str] = []
    for item in plan:
        if isinstance(item, tuple):
            good.append(f"good-{len(lines)}")
            lines.append(jsonl_good(len(lines), *item))
        else:
            lines.append(item)
    papers, problems = split(timed_parse("\n".join(lines) + "\n", "mixed.jsonl", None, len(lines)))
    assert [p.id for p in papers] == good
    assert len(problems) == len(lines) - len(good)
    assert_clear(problems)
    assert {p.location for p in problems} <= {f"line {i + 1}" for i in range(len(lines))}


CSV_BAD = [["1", "2", "3", "4", "5", "6"], ["only-one"], ["bad", "", ""]]


@FUZZ
@given(
    plan=st.lists(
        st.one_of(st.tuples(WORDS, WORDS), st.sampled_from(range(len(CSV_BAD)))), min_size=1, max_size=25
    )
)
def test_csv_good_rows_survive_ragged_and_empty_rows(plan: list[tuple[str, str] | int]) -> None:
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["id", "title", "abstract"])
    good = []
    for n, item in enumerate(plan):
        if isinstance(item, tuple):
            good.append(f"good-{n}")
            w.writerow([f"good-{n}", f"Good {n} {item[0]}", f"We study {item[1]}."])
        else:
            w.writerow(CSV_BAD[item])
    papers, problems = split(timed_parse(out.getvalue(), "mixed.csv", None, len(plan)))
    assert [p.id for p in papers] == good
    assert len(problems) == len(plan) - len(good)
    assert_clear(problems)


BIB_BAD = [
    "@article{bad-open, title={Unbalanced {braces}, abstract={never closed}\n",
    "@misc{bad-empty, note={no title or abstract}}\n",
    "@inproceedings{bad-blank,\n  title={}, abstract={ }\n}\n",
]


def bib_escape(text: str) -> str:
    return text.replace("{", "(").replace("}", ")").replace("@", "at").replace("\\", "/")


@FUZZ
@given(
    plan=st.lists(
        st.one_of(st.tuples(WORDS, WORDS), st.sampled_from(range(len(BIB_BAD)))), min_size=1, max_size=20
    )
)
def test_bibtex_good_entries_survive_broken_ones(plan: list[tuple[str, str] | int]) -> None:
    parts, good, bad = [], [], 0
    for n, item in enumerate(plan):
        if isinstance(item, tuple):
            good.append(f"good{n}")
            parts.append(
                f"@article{{good{n},\n  title={{Good {n} \\textbf{{{bib_escape(item[0])}}} $x^2$}},\n"
                f"  abstract={{We study {bib_escape(item[1])}.}}\n}}\n"
            )
        else:
            bad += 1
            parts.append(BIB_BAD[item])
    papers, problems = split(timed_parse("\n".join(parts), "mixed.bib", None, len(plan)))
    assert [(p.title or "").split(" ", 2)[:2] for p in papers] == [["Good", g[4:]] for g in good]
    assert len(problems) >= bad and len(problems) <= 2 * bad  # the parser may also flag the junk it skipped
    assert_clear(problems)


@FUZZ
@given(
    plan=st.lists(
        st.one_of(st.tuples(WORDS, WORDS), st.sampled_from(["42", '"text"', "{}", "null", "[1, 2]"])),
        min_size=1,
        max_size=25,
    )
)
def test_json_array_good_objects_survive_bad_elements(plan: list[tuple[str, str] | str]) -> None:
    elements, good = [], []
    for n, item in enumerate(plan):
        if isinstance(item, tuple):
            good.append(f"good-{n}")
            elements.append(jsonl_good(n, *item))
        else:
            elements.append(item)
    papers, problems = split(timed_parse("[" + ",\n".join(elements) + "]", "mixed.json", None, len(plan)))
    assert [p.id for p in papers] == good
    assert len(problems) == len(plan) - len(good)
    assert_clear(problems)


# --- files cut at any byte -----
def _jsonl_file(n: int) -> tuple[str, list[int]]:
    lines = [jsonl_good(i, "cut", f"record {i} \u05e9\u05dc\u05d5\u05dd e\u0301") for i in range(n)]
    ends, pos = [], 0
    for line in lines:
        pos += len((line + "\n").encode())
        ends.append(pos)
    return "".join(line + "\n" for line in lines), ends


def _csv_file(n: int) -> tuple[str, list[int]]:
    rows = ["id,title,abstract\n"] + [f'good-{i},"Good {i}, cut","We study record {i}."\n' for i in range(n)]
    ends, pos = [], 0
    for row in rows:
        pos += len(row.encode())
        ends.append(pos)
    return "".join(rows), ends[1:]


@pytest.mark.parametrize(("name", "make"), [("cut.jsonl", _jsonl_file), ("cut.csv", _csv_file)])
@FUZZ
@given(fraction=st.floats(0, 1))
def test_truncated_file_keeps_every_complete_record(
    name: str, make: Callable[[int], tuple[str, list[int]]], fraction: float
) -> None:
    text, ends = make(30)
    data = text.encode()
    cut = int(len(data) * fraction)
    papers, problems = split(timed_parse(data[:cut], name, None, 30))
    complete = [f"good-{i}" for i, end in enumerate(ends) if end <= cut]
    assert [p.id for p in papers][: len(complete)] == complete
    assert len(papers) <= len(complete) + 1  # the cut record may still parse (a CSV row cut mid-abstract)
    assert len(problems) <= 2
    assert_clear(problems)


# --- encodings -----
ENCODED_TITLES = ["Café Müller: naïve Bayes", "Ærøskøbing façade — “quoted”", "Straße über Größe"]


@pytest.mark.parametrize(
    "encoding", ["latin-1", "cp1252", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32"]
)
@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_foreign_encodings_and_boms_keep_every_record(encoding: str, fmt: str) -> None:
    if encoding == "latin-1" and fmt == "jsonl":
        titles = [t.replace("“", '"').replace("”", '"').replace("—", "-") for t in ENCODED_TITLES]
    else:
        titles = (
            [t for t in ENCODED_TITLES if t.encode(encoding, errors="ignore").decode(encoding) == t]
            if encoding == "latin-1"
            else ENCODED_TITLES
        )
    if fmt == "jsonl":
        text = "".join(
            json.dumps({"id": f"e{i}", "title": t, "abstract": "x y z."}, ensure_ascii=False) + "\n"
            for i, t in enumerate(titles)
        )
    else:
        text = "id,title,abstract\n" + "".join(
            f'e{i},"{t.replace(chr(34), chr(39))}",x y z.\n' for i, t in enumerate(titles)
        )
    papers, problems = split(list(parse_papers(text.encode(encoding), f"enc.{fmt}")))
    assert [p.id for p in papers] == [f"e{i}" for i in range(len(titles))]
    assert [p.title for p in papers] == [t.replace(chr(34), chr(39)) if fmt == "csv" else t for t in titles]
    assert_clear(problems)


def test_nul_bytes_between_records_are_one_warning_and_records_survive() -> None:
    data = b"\x00".join(jsonl_good(i, "nul", "x").encode() + b"\n" for i in range(5))
    papers, problems = split(list(parse_papers(data, "nul.jsonl")))
    assert [p.id for p in papers] == [f"good-{i}" for i in range(5)]
    assert len(problems) == 1
    assert_clear(problems)


# --- sizes -----
TEN_MB = 10 * 1024 * 1024


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "bibtex", "json"])
def test_ten_megabyte_abstract_is_truncated_between_intact_neighbours(fmt: str) -> None:
    huge = ("lorem ipsum \u05e9\u05dc\u05d5\u05dd dolor " * (TEN_MB // 30))[:TEN_MB]
    recs = [("before", "We use ImageNet."), ("huge", huge), ("after", "We use CIFAR-10.")]
    if fmt == "jsonl":
        data = "".join(json.dumps({"id": i, "title": f"T {i}", "abstract": a}) + "\n" for i, a in recs)
    elif fmt == "json":
        data = json.dumps([{"id": i, "title": f"T {i}", "abstract": a} for i, a in recs])
    elif fmt == "csv":
        data = "id,title,abstract\n" + "".join(f"{i},T {i},{a}\n" for i, a in recs)
    else:
        data = "".join(f"@article{{{i}, title={{T {i}}}, abstract={{{a}}}}}\n" for i, a in recs)
    started = time.monotonic()
    papers, problems = split(list(parse_papers(data, f"big.{fmt}", fmt)))
    assert time.monotonic() - started < 60
    assert [p.title for p in papers] == ["T before", "T huge", "T after"]
    assert len(papers[1].abstract) <= MAX_ABSTRACT_CHARS
    where = {"jsonl": "line 2", "csv": "line 3", "json": "record 2", "bibtex": "entry huge"}[fmt]
    assert [(p.location, "truncated" in p.message) for p in problems] == [(where, True)]


def test_enormous_line_of_plain_text_is_one_bounded_paper() -> None:
    data = "Short first paragraph about graphs.\n\n" + "x" * TEN_MB + "\n\nA last paragraph on ImageNet.\n"
    started = time.monotonic()
    papers, problems = split(list(parse_papers(data, "big.txt", "text")))
    assert time.monotonic() - started < 60
    assert len(papers) == 3 and all(len(p.abstract) <= MAX_ABSTRACT_CHARS for p in papers)
    assert_clear(problems)


def test_huge_json_array_reads_every_record() -> None:
    n = 50_000
    data = json.dumps(
        [{"id": f"r{i}", "title": f"Paper {i}", "abstract": "We study graphs."} for i in range(n)]
    )
    started = time.monotonic()
    papers, problems = split(list(parse_papers(data, "huge.json")))
    assert time.monotonic() - started < 120
    assert (len(papers), problems) == (n, [])


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_deep_nesting_inside_a_record_field_does_not_lose_the_record(fmt: str) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    rec = '{"id": "deep", "title": "Deep", "abstract": "We nest.", "extra": ' + deep + "}"
    ok = '{"id": "ok", "title": "Ok", "abstract": "We do not nest."}'
    data = f"[{rec}, {ok}]" if fmt == "json" else f"{rec}\n{ok}\n"
    papers, problems = split(list(parse_papers(data, f"deep.{fmt}")))
    assert "ok" in [p.id for p in papers]
    assert len(problems) <= 1
    assert_clear(problems)


# --- the extractor -----
@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor()


ANY_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=3000)


@settings(
    max_examples=EXAMPLES,
    deadline=20_000,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(title=st.one_of(st.none(), WORDS), abstract=st.one_of(ANY_TEXT, WORDS))
def test_extractor_never_crashes_on_any_text(extractor: Extractor, title: str | None, abstract: str) -> None:
    ex = extractor.extract_one(Paper(id="x", abstract=abstract, title=title))
    for link in ex.links:
        source = (title or "") if link.evidence.field == "title" else abstract
        assert source[link.evidence.start : link.evidence.end] == link.evidence.mention


@pytest.mark.parametrize(
    "text",
    [
        "We use ImageNet. " * (TEN_MB // 17),  # 10 MB of sentences
        "a" * TEN_MB,  # one 10 MB token
        "\n" * 1_000_000 + "We use ImageNet.",
        "(" * 200_000 + "ImageNet" + ")" * 200_000,
        ("\u05e9\u05dc\u05d5\u05dd " + "e\u0301\u0302\u0303 ") * 200_000,
    ],
)
def test_extractor_keeps_spacy_within_its_length_bound(extractor: Extractor, text: str) -> None:
    started = time.monotonic()
    ex = extractor.extract_one(Paper(id="big", abstract=text, title="T" * 10_000))
    assert time.monotonic() - started < 120
    prepared, _ = extractor._prepare(Paper(id="big", abstract=text, title="T" * 10_000))
    assert len(prepared) <= extractor.nlp.max_length
    assert any("truncated" in n for n in ex.notes) == (len(text) > 100_000)


def test_long_run_without_spaces_is_cut_where_it_starts(extractor: Extractor) -> None:
    abstract = "We evaluate on ImageNet. " + "(" * 200_000 + ")" * 200_000  # hours in spaCy's tokenizer
    started = time.monotonic()
    ex = extractor.extract_one(Paper(id="parens", abstract=abstract))
    assert time.monotonic() - started < 60
    assert ex.notes == (
        "abstract truncated to 100000 characters",
        "abstract cut at 25: a run of over 1000 characters without spaces",
    )
    assert "ImageNet" in {lk.entity.name for lk in ex.links}  # the text before the cut is still read

