"""The parse cache of the shipped fixture files: a file's parse is used again
only for the same text, and loading gives the same cases with or without it."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from conftest import ONE_CASE_TOML

from pytest_planmode import suite

ONE_CASE = ONE_CASE_TOML


@pytest.fixture
def shipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A fixtures directory standing for the shipped one, and the cache directory."""
    fixtures = tmp_path / "fixtures"
    fixtures.mkdir()
    cache = tmp_path / "cache"
    monkeypatch.setattr(suite, "FIXTURES_DIR", fixtures.resolve())
    monkeypatch.setenv(suite.PARSE_CACHE_ENV, str(cache))
    return fixtures, cache


def _no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(text: str) -> Any:
        raise AssertionError("parsed although the cache holds this text")

    monkeypatch.setattr(tomllib, "loads", refuse)


def test_a_parse_is_used_again_for_the_same_text(
    shipped: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    fixtures, cache = shipped
    path = fixtures / "one.toml"
    path.write_text(ONE_CASE, encoding="utf-8")
    first = suite.load_file(path)
    assert len(list(cache.iterdir())) == 1
    _no_parsing(monkeypatch)
    assert suite.load_file(path) == first


def test_a_changed_file_is_parsed_again(shipped: tuple[Path, Path]) -> None:
    fixtures, cache = shipped
    path = fixtures / "one.toml"
    path.write_text(ONE_CASE, encoding="utf-8")
    suite.load_file(path)
    path.write_text(ONE_CASE.replace("same.id", "cached.two"), encoding="utf-8")
    assert [case.id for case in suite.load_file(path)] == ["cached.two"]
    # One entry per file: the new parse replaced the old one.
    assert len(list(cache.iterdir())) == 1


def test_off_and_files_outside_the_shipped_suite_are_not_cached(
    shipped: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fixtures, cache = shipped
    elsewhere = tmp_path / "mine.toml"
    elsewhere.write_text(ONE_CASE, encoding="utf-8")
    suite.load_file(elsewhere)
    assert not cache.exists()
    monkeypatch.setenv(suite.PARSE_CACHE_ENV, "off")
    path = fixtures / "one.toml"
    path.write_text(ONE_CASE, encoding="utf-8")
    assert suite.parse_cache_dir() is None
    suite.load_file(path)
    assert not cache.exists()


def test_a_parse_json_cannot_hold_is_not_kept(shipped: tuple[Path, Path]) -> None:
    fixtures, cache = shipped
    path = fixtures / "dated.toml"
    text = "when = 1979-05-27T07:32:00Z\n"
    assert suite.parse_toml(text, path) == tomllib.loads(text)
    assert not cache.exists() or not list(cache.iterdir())


def test_an_unwritable_cache_still_parses(shipped: tuple[Path, Path]) -> None:
    fixtures, cache = shipped
    cache.write_text("a file where the directory would be", encoding="utf-8")
    path = fixtures / "one.toml"
    path.write_text(ONE_CASE, encoding="utf-8")
    assert [case.id for case in suite.load_file(path)] == ["same.id"]


def test_a_damaged_entry_is_parsed_again(shipped: tuple[Path, Path]) -> None:
    fixtures, cache = shipped
    path = fixtures / "one.toml"
    path.write_text(ONE_CASE, encoding="utf-8")
    suite.load_file(path)
    (entry,) = cache.iterdir()
    entry.write_text("{not json", encoding="utf-8")
    assert [case.id for case in suite.load_file(path)] == ["same.id"]
    assert json.loads(entry.read_text(encoding="utf-8"))["data"] == tomllib.loads(ONE_CASE)


def test_the_shipped_suite_loads_alike_with_and_without_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(suite.PARSE_CACHE_ENV, "off")
    parsed = suite.load_suite()
    monkeypatch.setenv(suite.PARSE_CACHE_ENV, str(tmp_path / "cache"))
    suite.load_suite()  # fills the cache
    cached = suite.load_suite()
    assert len(list((tmp_path / "cache").iterdir())) == len(suite.fixture_files())
    assert [json.dumps(vars(c), sort_keys=True) for c in cached] == [
        json.dumps(vars(c), sort_keys=True) for c in parsed
    ]
