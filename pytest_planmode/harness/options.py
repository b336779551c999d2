"""The run's options, read and checked once: every `--planmode-*` value (or
its ini key) becomes one field of a frozen `Options`, and every check a
value needs happens here, before a target starts; a bad value is a
`pytest.UsageError` naming the option."""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_planmode import lineup
from pytest_planmode.limits import DEFAULT_MAX_LINE, DEFAULT_STARTUP_TIMEOUT, DEFAULT_TIMEOUT
from pytest_planmode.suite import FIXTURES_DIR

#: Options that have no ini key.
NO_INI = ("write-expectations",)


def raw_option(config: pytest.Config, name: str) -> Any:
    """A planmode option as given: the command line wins over the ini key."""
    dest = "planmode_" + name.replace("-", "_")
    value = config.getoption(dest)
    if value is None and name not in NO_INI:
        value = config.getini(dest) or None
    return value


@dataclass(frozen=True)
class Options:
    targets: tuple[lineup.GivenTarget, ...]
    timeout: float
    startup_timeout: float
    max_line: int
    strict: bool
    level: str
    spec_filter: str | None
    fixtures_dir: Path
    sandbox: bool
    #: `--planmode-sandbox-programs`: the reviewed programs the sandbox checks
    #: judge; None for every program.
    sandbox_programs: frozenset[str] | None
    report_path: str | None
    html_path: str | None
    #: `[NAME=]FILE` values; assigned to targets once their names are known.
    expectations: tuple[str, ...]
    write_expectations: tuple[str, ...]
    pi_node: str | None
    #: Which Pi hosts pi: targets (`--planmode-pi`); None for the default.
    pi: str | None
    is_worker: bool
    #: Examples per property check when exploring; None for the fixed examples.
    explore: int | None = None


def read_options(config: pytest.Config, target_specs: list[str]) -> Options:
    """Every planmode option of `config`, checked."""
    try:
        given = lineup.parse_targets(target_specs)
    except lineup.LineupError as exc:
        raise pytest.UsageError(str(exc)) from None
    level = raw_option(config, "level") or "all"
    if level not in ("all", "must"):
        raise pytest.UsageError(f"planmode_level must be 'all' or 'must', got {level!r}")
    spec = raw_option(config, "spec")
    spec_filter: str | None = str(spec).strip() if spec is not None else None
    if spec is not None and not spec_filter:
        raise pytest.UsageError("--planmode-spec needs a non-empty text to look for in spec sections")
    if spec_filter is not None:
        _check_spec_filter(spec_filter)
    fixtures = raw_option(config, "fixtures")
    fixtures_dir = Path(fixtures).resolve() if fixtures else FIXTURES_DIR
    if not fixtures_dir.is_dir():
        raise pytest.UsageError(f"--planmode-fixtures {fixtures}: not a directory")
    from pytest_planmode.sandbox_session import sandbox_flag, sandbox_programs

    report_path = raw_option(config, "report")
    html_path = raw_option(config, "html")
    # Checked now, not after the run: a run whose results cannot be written is wasted.
    if report_path:
        check_writable(report_path, "--planmode-report")
    if html_path:
        check_writable(html_path, "--planmode-html")
    pi_node = raw_option(config, "pi-node")
    pi = raw_option(config, "pi")
    programs = sandbox_programs(raw_option(config, "sandbox-programs"))
    from pytest_planmode.hypothesis_profiles import explore_examples

    try:
        explore = explore_examples(raw_option(config, "explore"))
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    return Options(
        targets=tuple(given),
        timeout=_positive_number(raw_option(config, "timeout"), "timeout", DEFAULT_TIMEOUT),
        startup_timeout=_positive_number(
            raw_option(config, "startup-timeout"), "startup-timeout", DEFAULT_STARTUP_TIMEOUT
        ),
        max_line=int(_positive_number(raw_option(config, "max-line"), "max-line", DEFAULT_MAX_LINE)),
        strict=bool(raw_option(config, "strict")),
        level=str(level),
        spec_filter=spec_filter,
        fixtures_dir=fixtures_dir,
        sandbox=sandbox_flag(raw_option(config, "sandbox")) or programs is not None,
        sandbox_programs=programs,
        report_path=report_path,
        html_path=html_path,
        expectations=tuple(raw_option(config, "expectations") or ()),
        write_expectations=tuple(raw_option(config, "write-expectations") or ()),
        pi_node=str(pi_node) if pi_node else None,
        pi=str(pi) if pi else None,
        is_worker=hasattr(config, "workerinput"),
        explore=explore,
    )


def target_option(options: Options, name: str) -> str | None:
    """The value of a target kind's own option (`pi-node`, `pi`), as the
    target loader asks for it."""
    return {"pi-node": options.pi_node, "pi": options.pi}.get(name)


@dataclass
class TargetFiles:
    """One target's expectations: the files read, what they list, the file
    to write and what it already records (it survives a partial refresh)."""

    paths: list[str] = field(default_factory=list)
    expectations: dict[str, str] = field(default_factory=dict)
    write_path: str | None = None
    written_before: dict[str, str] = field(default_factory=dict)


def expectations_files(options: Options, names: list[str]) -> dict[str, TargetFiles]:
    """Per target name, its expectations files, read and checked."""
    try:
        read = lineup.assign_files("expectations", options.expectations, names)
        written = lineup.one_file_each("write-expectations", options.write_expectations, names)
    except lineup.LineupError as exc:
        raise pytest.UsageError(str(exc)) from None
    files = {name: TargetFiles() for name in names}
    for name, paths in read.items():
        files[name].paths = paths
        for path in paths:
            files[name].expectations.update(load_expectations(path))
    flag = "--planmode-write-expectations"
    for name, path in written.items():
        files[name].write_path = path
        check_writable(path, flag)
        if Path(path).exists():
            files[name].written_before = load_expectations(path, flag)
    return files


def load_expectations(path: str, flag: str = "--planmode-expectations") -> dict[str, str]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise pytest.UsageError(f"{flag} {path}: cannot read: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise pytest.UsageError(f"{flag} {path}: not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise pytest.UsageError(f"{flag} {path}: expected a JSON object mapping case id -> reason")
    bad = [k for k, v in data.items() if not isinstance(v, str) or not v.strip()]
    if bad:
        raise pytest.UsageError(
            f"{flag} {path}: every case needs a non-empty reason string; missing for {sorted(bad)[:10]}"
        )
    return dict(data)


def _positive_number(value: Any, name: str, default: float) -> float:
    """An option value in seconds or bytes: finite and greater than 0."""
    if value is None:
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise pytest.UsageError(f"--planmode-{name} must be a number, got {value!r}") from None
    if not math.isfinite(number) or number <= 0:
        raise pytest.UsageError(f"--planmode-{name} must be finite and greater than 0, got {value!r}")
    return number


def check_writable(path: str, flag: str) -> None:
    """A usage error unless a file can be written at `path` (its missing
    parent directories are created when it is written)."""
    target = Path(path)
    if target.is_dir():
        raise pytest.UsageError(f"{flag} {path}: is a directory")
    if target.exists():
        if not os.access(target, os.W_OK):
            raise pytest.UsageError(f"{flag} {path}: the file is not writable")
        return
    probe = target.absolute().parent
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise pytest.UsageError(f"{flag} {path}: {probe} is not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise pytest.UsageError(f"{flag} {path}: cannot create files in {probe}")


def _check_spec_filter(text: str) -> None:
    """A --planmode-spec text that no known spec section contains can select nothing."""
    from pytest_planmode.suite import spec_sections

    known = sorted(f"{doc} § {head}" for doc, heads in spec_sections().items() for head in heads)
    if not any(text.casefold() in section.casefold() for section in known):
        raise pytest.UsageError(
            f"--planmode-spec {text!r}: no case's spec section contains it; sections read "
            f"'<document> § <heading>', e.g. {known[0]!r}"
        )
