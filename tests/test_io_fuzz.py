"""Property: no reader raises on arbitrary bytes or text; it yields Papers and ReadProblems only."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg.io import available_formats, parse_papers
from kg.types import Paper, ReadProblem

BUILTIN = ["bibtex", "copilot", "csv", "json", "jsonl", "text", "tsv"]
FUZZ = settings(
    max_examples=int(os.environ.get("KG_FUZZ_EXAMPLES", "200")),
    deadline=2000,
    suppress_health_check=[HealthCheck.too_slow],
)

# Text built from the characters that matter to the parsers, so the fuzzing reaches deep paths.
_SYNTAX = st.lists(
    st.sampled_from(
        [*'{}[]",:;@\\$\n\t =atiblesx0\x00é', '"title": ', '"abstract": ', "@misc{k,", "title,abstract\n"]
    ),
    max_size=200,
).map("".join)


def _check(data: bytes | str, fmt: str | None) -> None:
    for item in parse_papers(data, name="fuzz.dat", fmt=fmt):
        assert isinstance(item, Paper | ReadProblem)
        if isinstance(item, Paper):
            assert item.id and item.id == item.id.strip()
            item.abstract.encode("utf-8")  # no lone surrogates survive
        else:
            assert "\n" not in item.message
            assert "reader failed" not in item.message  # the safety net must not be what kept it quiet


def test_builtins_are_all_fuzzed() -> None:
    assert set(BUILTIN) <= set(available_formats())


@FUZZ
@given(data=st.binary(max_size=2000), fmt=st.sampled_from([None, *BUILTIN]))
def test_random_bytes_never_raise(data: bytes, fmt: str | None) -> None:
    _check(data, fmt)


@FUZZ
@given(text=st.text(max_size=1000), fmt=st.sampled_from([None, *BUILTIN]))
def test_random_text_never_raises(text: str, fmt: str | None) -> None:
    _check(text, fmt)


@FUZZ
@given(text=_SYNTAX, fmt=st.sampled_from([None, *BUILTIN]))
def test_syntax_heavy_text_never_raises(text: str, fmt: str | None) -> None:
    _check(text, fmt)
