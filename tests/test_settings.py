"""kg.settings: env first, explicit flags over it."""

import pytest

from kg.settings import Settings


def test_env_sets_store_and_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KG_STORE", "/tmp/x")
    monkeypatch.setenv("KG_API_TOKEN", "s3cret")
    s = Settings.from_env()
    assert (s.store, s.api_token) == ("/tmp/x", "s3cret")


def test_flags_override_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KG_STORE", "/tmp/x")
    assert Settings.from_env(store="/tmp/y").store == "/tmp/y"


def test_none_flags_do_not_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KG_MAX_PAGE", "50")
    assert Settings.from_env(max_page=None).max_page == 50


def test_bad_numbers_in_env_fall_back_to_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KG_MAX_DEPTH", "deep")
    assert Settings.from_env().max_depth == Settings().max_depth
