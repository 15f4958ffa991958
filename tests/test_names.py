"""kg.names: the normalisation every layer shares."""

from kg.names import match_key, paper_slug, singular, slug


def test_match_key_ignores_hyphen_and_case() -> None:
    assert match_key("Kinetics600") == match_key("Kinetics-600") == "kinetics600"


def test_match_key_ignores_plural() -> None:
    assert match_key("diffusion models") == match_key("Diffusion Model")


def test_match_key_reads_times_sign_as_x() -> None:
    assert match_key("ImageNet256×256") == "imagenet256x256"


def test_singular_keeps_words_ending_in_ss_us_is() -> None:
    assert [singular(w) for w in ("loss", "corpus", "analysis", "series")] == [
        "loss",
        "corpus",
        "analysis",
        "sery",
    ]


def test_slug_joins_words_with_hyphens() -> None:
    assert slug("Vision Transformer") == "vision-transformer"


def test_slug_of_punctuation_only_is_stable_and_nonempty() -> None:
    assert slug("∑∑") == slug("∑∑") and slug("∑∑").startswith("x")


def test_paper_slug_percent_encodes_reserved_characters() -> None:
    assert paper_slug("10.1145/3 4#x") == "10.1145%2F3%204%23x"


def test_match_key_singularises_only_the_last_word() -> None:
    assert match_key("Kinetics-600") == "kinetics600" and match_key("LLM agents") == "llmagent"
