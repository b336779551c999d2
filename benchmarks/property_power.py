"""How much the property checks catch, at the kit's example counts and at others.

    python benchmarks/property_power.py [--counts kit,0.7.0,N,...] [--bug NAME ...]

A property check's examples depend on how many it draws (Hypothesis sizes
its early examples by the budget), so a smaller count is not a prefix of a
larger one: whether a check still catches a bug with fewer examples is
measured, never assumed. Each planted bug below is a wrong target (the
reference with one rule broken); each is run against the property checks
of the modules it concerns (no fixture case) once per count:

- `kit`: the kit's own counts (`hypothesis_profiles.examples_of`);
- `0.7.0`: the counts of suite 0.7.0 (30 per check, 100 for the checks
  that now have their own number);
- a whole number N: N examples for every check.

It prints, per bug and count, the checks that failed it, and the totals:
bugs caught by at least one check, and (bug, check) failures. The bugs are
those the project's tests plant for the property checks
(tests/test_models_suite.py, tests/test_planmode_tools_properties.py) plus
generic ones defined here that break a rule across operations.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import re
import sys
import textwrap
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from pytest_planmode import hypothesis_profiles  # noqa: E402
from pytest_planmode.suite import CONFORMANCE_DIR  # noqa: E402
from pytest_planmode.targets.reference.adapter import REFERENCE  # noqa: E402

SHELL_OPERATIONS = ("planmode.bash.check", "planmode.powershell.check", "oplmodes.bash.check")


class _Wrong:
    """The reference, with the handshake naming the bug."""

    def hello(self, suite: str) -> dict[str, Any]:
        return {**REFERENCE.hello(suite), "implementation": {"name": type(self).__name__}}

    def call(self, op: str, payload: dict[str, Any]) -> dict[str, Any]:
        return REFERENCE.call(op, payload)


class DropsLastEvent(_Wrong):
    """A script's last event is never handled."""

    def call(self, op: str, payload: dict[str, Any]) -> dict[str, Any]:
        if isinstance(payload.get("events"), list) and payload["events"]:
            payload = {**payload, "events": payload["events"][:-1]}
        return REFERENCE.call(op, payload)


class DropsFirstEvent(_Wrong):
    """A script's first event is never handled."""

    def call(self, op: str, payload: dict[str, Any]) -> dict[str, Any]:
        if isinstance(payload.get("events"), list) and payload["events"]:
            payload = {**payload, "events": payload["events"][1:]}
        return REFERENCE.call(op, payload)


class CoarseCache(_Wrong):
    """Answers from a cache keyed by the operation and the input's length."""

    def __init__(self) -> None:
        self.cache: dict[tuple[str, int], dict[str, Any]] = {}

    def call(self, op: str, payload: dict[str, Any]) -> dict[str, Any]:
        key = (op, len(json.dumps(payload, sort_keys=True)))
        if key not in self.cache:
            self.cache[key] = REFERENCE.call(op, payload)
        return copy.deepcopy(self.cache[key])


def _rewrite(value: Any, leaf: Callable[[Any], Any]) -> Any:
    if isinstance(value, list):
        if value and all(isinstance(item, str) for item in value):
            return leaf(value)
        return [_rewrite(item, leaf) for item in value]
    if isinstance(value, dict):
        return {key: _rewrite(item, leaf) for key, item in value.items()}
    return leaf(value)


class ListsAsSets(_Wrong):
    """Every list of strings in the input loses its order."""

    def call(self, op: str, payload: dict[str, Any]) -> dict[str, Any]:
        return REFERENCE.call(op, _rewrite(payload, lambda v: sorted(v) if isinstance(v, list) else v))


class ShortStrings(_Wrong):
    """Reads the first 24 characters of every string only."""

    def call(self, op: str, payload: dict[str, Any]) -> dict[str, Any]:
        return REFERENCE.call(op, _rewrite(payload, lambda v: v[:24] if isinstance(v, str) else v))


class FirstTwoSegments(_Wrong):
    """A shell chain is decided by its first two segments."""

    def call(self, op: str, payload: dict[str, Any]) -> dict[str, Any]:
        if op in SHELL_OPERATIONS and isinstance(payload.get("command"), str):
            parts = re.split(r"(;|&&|\|\||\|)", payload["command"])
            payload = {**payload, "command": "".join(parts[:3])}
        return REFERENCE.call(op, payload)


class NamesAnyPunctuation(_Wrong):
    """Accepts plan names with no letter or digit."""

    def call(self, op: str, payload: dict[str, Any]) -> dict[str, Any]:
        answer = REFERENCE.call(op, payload)
        value = payload.get("value")
        if op == "oplmodes.plans.resolve" and isinstance(value, str) and not any(c.isalnum() for c in value):
            answer["output"] = {"accepted": True, "path": ".pi/plans/plan-.md", "reason": None}
        return answer


GENERIC = (DropsLastEvent, DropsFirstEvent, CoarseCache, ListsAsSets, ShortStrings)


def _planted_module() -> None:
    """The bugs as an importable module `planted_bugs`, with those of the tests."""
    import test_models_suite
    import test_planmode_tools_properties

    module = types.ModuleType("planted_bugs")
    exec(textwrap.dedent(test_models_suite.MUTANTS), module.__dict__)
    for index, (what, reasons, freeze_edit) in enumerate(TOOL_LEAKS):
        leaky = types.ModuleType(f"planted_leaky{index}")
        leaky_source = test_planmode_tools_properties.LEAKY.format(
            what=what, reasons=sorted(reasons) or "()", freeze_edit=freeze_edit
        )
        exec(leaky_source, leaky.__dict__)
        sys.modules[leaky.__name__] = leaky
    for cls in (*GENERIC, FirstTwoSegments, NamesAnyPunctuation):
        setattr(module, cls.__name__, cls)
    sys.modules[module.__name__] = module


#: The tool-policy leaks of tests/test_planmode_tools_properties.py.
TOOL_LEAKS = [
    ("admits names activated later", {"not-admitted", "not-selected"}, False),
    ("runs edit", {"policy-blocked"}, False),
    ("runs hidden tools", {"hidden"}, False),
    ("runs model-only tools nested", {"nested-model-only"}, False),
    ("admits edit at resolution", set(), True),
]

#: name: (target, conformance module or None for all, -k expression or None)
BUGS: dict[str, tuple[str, str | None, str | None]] = {
    "LateWins": ("python:planted_bugs:LateWins", "test_models.py", "switch"),
    "NoCollapse": ("python:planted_bugs:NoCollapse", "test_models.py", "switch"),
    "StickyFallback": ("python:planted_bugs:StickyFallback", "test_models.py", "session or boundar"),
    "Unserialized": ("python:planted_bugs:Unserialized", "test_models.py", "oplmodes"),
    **{
        f"ToolLeak{index}": (f"python:planted_leaky{index}:Leaky", "test_planmode_tools.py", None)
        for index in range(len(TOOL_LEAKS))
    },
    "FirstTwoSegments": ("python:planted_bugs:FirstTwoSegments", "test_planmode_shell.py", None),
    "FirstTwoSegments-opl": ("python:planted_bugs:FirstTwoSegments", "test_oplmodes_bash.py", None),
    "NamesAnyPunctuation": ("python:planted_bugs:NamesAnyPunctuation", "test_oplmodes_plans.py", None),
    **{cls.__name__: (f"python:planted_bugs:{cls.__name__}", None, None) for cls in GENERIC},
}

KIT = hypothesis_profiles.examples_of


def counts_of(name: str) -> Callable[[str], int]:
    if name == "kit":
        return KIT
    if name == "0.7.0":
        return lambda case_id: 100 if case_id in hypothesis_profiles.EXAMPLES else 30
    if name.isdigit() and int(name) > 0:
        return lambda case_id: int(name)
    raise SystemExit(f"--counts: {name!r} is neither kit, 0.7.0 nor a positive whole number")


class Outcomes:
    def __init__(self) -> None:
        self.failed: set[str] = set()
        self.ran: set[str] = set()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        case = dict(report.user_properties).get("planmode_case", report.nodeid)
        self.ran.add(str(case))
        if report.failed:
            self.failed.add(str(case))


def run(target: str, module: str | None, select: str | None, counts: Callable[[str], int]) -> Outcomes:
    hypothesis_profiles.examples_of = counts
    outcomes = Outcomes()
    where = CONFORMANCE_DIR / module if module else CONFORMANCE_DIR
    args = ["-q", "-p", "no:cacheprovider", f"--planmode-target={target}", str(where)]
    if select:
        args += ["-k", select]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            pytest.main(args, plugins=[outcomes])
    finally:
        hypothesis_profiles.examples_of = KIT
    return outcomes


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--counts", default="kit,0.7.0", help="comma-separated: kit, 0.7.0 or N (default: kit,0.7.0)"
    )
    parser.add_argument("--bug", action="append", choices=sorted(BUGS), help="only these bugs (repeatable)")
    args = parser.parse_args()
    names = [name.strip() for name in args.counts.split(",") if name.strip()]
    counts = {name: counts_of(name) for name in names}
    _planted_module()
    caught = dict.fromkeys(names, 0)
    failures = dict.fromkeys(names, 0)
    bugs = args.bug or list(BUGS)
    for bug in bugs:
        target, module, select = BUGS[bug]
        failed = {name: run(target, module, select, how).failed for name, how in counts.items()}
        for name in names:
            caught[name] += bool(failed[name])
            failures[name] += len(failed[name])
        print(f"{bug}: " + "; ".join(f"{name}: {len(failed[name])} check(s)" for name in names), flush=True)
        for check in sorted(set().union(*failed.values())):
            marks = "  ".join(f"{name}:{'failed' if check in failed[name] else 'passed'}" for name in names)
            print(f"    {check:75s} {marks}", flush=True)
    print(
        f"bugs caught by at least one property check, of {len(bugs)}: "
        + ", ".join(f"{name} {caught[name]}" for name in names)
    )
    print("(bug, check) failures: " + ", ".join(f"{name} {failures[name]}" for name in names))


if __name__ == "__main__":
    main()
