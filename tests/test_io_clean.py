"""clean_text: LaTeX fragments and unicode → plain text, exact values."""

from __future__ import annotations

import pytest

from kg.io.clean import clean_text, collapse_whitespace, drop_invisible


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (r"ImageNet256$\times$256", "ImageNet256×256"),
        (r"with almost $3\times$ less compute", "with almost 3× less compute"),
        (r"Over 40\% of", "Over 40% of"),
        (r"more than \$8 trillion", "more than $8 trillion"),
        (r"\textit{italic} and \emph{emph} and \textbf{bold}", "italic and emph and bold"),
        (r"$\mathcal{R}$", "R"),
        (r"$(\mathcal{R}, \mathcal{G})$-consistent", "(R, G)-consistent"),
        (r"strong $H$-consistency", "strong H-consistency"),
        ("a~b", "a b"),
        ("pages 1--2", "pages 1–2"),
        ("a---b", "a—b"),
        (r"\textit{outer \textbf{inner}}", "outer inner"),
        (r"$\alpha \leq \beta$", "α ≤ β"),
        (r"$O(n^{2})$", "O(n^2)"),
        (r"$\{0,1\}^n$", "{0,1}^n"),
        (r"G{\"o}del and Pe\~{n}a and \c{c}", "Gödel and Peña and ç"),
        (r"R\&D \#1 snake\_case", "R&D #1 snake_case"),
    ],
)
def test_latex_fragments(raw: str, expected: str) -> None:
    assert clean_text(raw) == expected


def test_unpaired_dollars_that_are_not_math_are_kept() -> None:
    assert clean_text("costs $5 and $10") == "costs $5 and $10"


def test_urls_keep_tilde_and_double_dash() -> None:
    text = "code at https://www.robots.ox.ac.uk/~vgg/a--b/ now"
    assert clean_text(text) == text


def test_latex_escape_inside_url_is_unescaped() -> None:
    assert clean_text(r"see https://github.com/a/my\_repo") == "see https://github.com/a/my_repo"


def test_nul_and_control_characters_removed() -> None:
    assert clean_text("a\x00b\x07c\x1bd") == "abcd"


def test_zero_width_and_soft_hyphen_removed() -> None:
    assert clean_text("de\u00adep zero\u200bwidth \ufeffbom") == "deep zerowidth bom"


def test_lone_surrogate_removed() -> None:
    assert clean_text("a\ud800b") == "ab"


def test_whitespace_collapsed_and_stripped() -> None:
    assert clean_text("  a \n\n b\t\tc\u00a0d  ") == "a b c d"


def test_nfkc_applied() -> None:
    assert clean_text("ﬁne ＡＢＣ x²") == "fine ABC x2"


def test_plain_text_unchanged() -> None:
    text = "Kinetics-600 and UCF101 (a) are used, e.g. for L2D."
    assert clean_text(text) == text


def test_empty_string() -> None:
    assert clean_text("") == ""


def test_idempotent_on_seed_example() -> None:
    once = clean_text(r"ImageNet256$\times$256 , UCF101 and $3\times$ less; 40\% of \$8")
    assert clean_text(once) == once


def test_drop_invisible_turns_newlines_into_spaces() -> None:
    assert drop_invisible("a\nb\x00c") == "a bc"


def test_collapse_whitespace_only_touches_spacing() -> None:
    assert collapse_whitespace(" $a$ \n b ") == "$a$ b"
