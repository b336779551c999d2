"""Naming several targets and giving each its own files (pytest_planmode.lineup)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_planmode.lineup import (
    GivenTarget,
    LineupError,
    assign_files,
    assign_names,
    one_file_each,
    parse_targets,
    split_name,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("reference", (None, "reference")),
        ("ref=reference", ("ref", "reference")),
        ("node=exec:node t.mjs --x=1", ("node", "exec:node t.mjs --x=1")),
        ("exec:tool --flag=x", (None, "exec:tool --flag=x")),
        ("dir/a=b.json", (None, "dir/a=b.json")),
        ("=x", (None, "=x")),
        ("a=", (None, "a=")),
    ],
)
def test_split_name(value: str, expected: tuple[str | None, str]) -> None:
    assert split_name(value) == expected


def test_names_come_from_the_given_name_then_the_handshake() -> None:
    given = parse_targets(["reference", "exec:node a.mjs", "exec:node b.mjs", "mine=exec:x"])
    names = assign_names(given, ["pytest-planmode reference", "My Port", "My Port", "whatever"])
    assert names == ["reference", "my-port", "my-port-2", "mine"]


def test_a_derived_name_never_takes_a_given_one() -> None:
    given = [GivenTarget("my-port", "exec:a"), GivenTarget(None, "exec:b")]
    assert assign_names(given, ["x", "My port"]) == ["my-port", "my-port-2"]


def test_the_same_name_twice_is_an_error() -> None:
    with pytest.raises(LineupError, match="the name 'a' is given to several targets"):
        parse_targets(["a=reference", "a=exec:x"])
    with pytest.raises(LineupError, match="no target given"):
        parse_targets(["  "])


def test_files_go_to_their_target_or_to_every_target() -> None:
    files = assign_files("expectations", ["node=n.json", "all.json"], ["reference", "node"])
    assert files == {"reference": ["all.json"], "node": ["n.json", "all.json"]}


def test_a_file_for_an_unknown_target_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(LineupError, match="there is no target named 'nod' \\(targets: reference, node\\)"):
        assign_files("expectations", ["nod=n.json"], ["reference", "node"])
    existing = tmp_path / "nod=n.json"
    existing.write_text("{}")
    assert assign_files("expectations", [str(existing)], ["node"]) == {"node": [str(existing)]}


def test_files_to_write_need_a_name_each_with_several_targets() -> None:
    assert one_file_each("write-expectations", ["out.json"], ["only"]) == {"only": "out.json"}
    assert one_file_each("write-expectations", ["node=n.json"], ["reference", "node"]) == {"node": "n.json"}
    with pytest.raises(LineupError, match="give NAME=FILE for each target"):
        one_file_each("write-expectations", ["out.json"], ["reference", "node"])
    with pytest.raises(LineupError, match="is given 2 files"):
        one_file_each("write-expectations", ["node=a.json", "node=b.json"], ["reference", "node"])
