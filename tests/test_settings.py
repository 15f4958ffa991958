"""kg.settings: env first, explicit flags over it; a malformed KG_* value fails loudly, naming it."""

import subprocess
import sys

import pytest

from kg.settings import Settings, SettingsError


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


def test_numbers_are_cast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KG_QUERY_TIMEOUT", "2.5")
    monkeypatch.setenv("KG_SPARQL_WORKERS", "0")
    s = Settings.from_env()
    assert (s.query_timeout_s, s.sparql_workers) == (2.5, 0)


def test_api_limits_read_elsewhere_are_settings_too(monkeypatch: pytest.MonkeyPatch) -> None:
    d = Settings()
    assert (d.max_cost, d.sparql_per_client, d.sparql_memory_mb) == (None, None, None)
    monkeypatch.setenv("KG_MAX_COST", "1e18")
    monkeypatch.setenv("KG_SPARQL_PER_CLIENT", "3")
    monkeypatch.setenv("KG_SPARQL_MEMORY_MB", "200")
    s = Settings.from_env()
    assert (s.max_cost, s.sparql_per_client, s.sparql_memory_mb) == (1e18, 3, 200)


@pytest.mark.parametrize(("name", "value", "kind"), [
    ("KG_MAX_DEPTH", "deep", "int"),
    ("KG_SPARQL_MEMORY_MB", "512M", "int"),
    ("KG_MAX_COST", "lots", "float"),
    ("KG_MAX_PAGE", "1.5", "int"),
    ("KG_QUERY_TIMEOUT", "5s", "float"),
    ("KG_SPARQL_WORKERS", "two", "int"),
])
def test_malformed_numbers_fail_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, kind: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError, match=rf"^Config '{name}' has value '{value}'\. Not a valid {kind}\.$"):
        Settings.from_env()


def test_empty_values_count_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("KG_STORE", "KG_API_TOKEN", "KG_MAX_DEPTH", "KG_QUERY_TIMEOUT"):
        monkeypatch.setenv(name, "")
    assert Settings.from_env() == Settings()


def test_kg_serve_says_it_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KG_MAX_DEPTH", "deep")
    done = subprocess.run([sys.executable, "-m", "kg", "serve", "--store", "memory:"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "KG_MAX_DEPTH" in done.stderr and len(done.stderr.strip().splitlines()) == 1
