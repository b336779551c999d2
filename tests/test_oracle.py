"""The oracle finds what nobody listed: a target that answers like the
reference except for one narrow class of commands (`tests/targets/leaky_gate.py`)
is caught by the sweep, unaided, and so is a target that lets a whole
program family through.

The reference passes every sandbox check (`tests/test_sandbox.py`), so the
commands a leaky target allows beyond the reference are the only ones that
can show an effect; only those are run, in sweep order, until the first
effect. The oracle's commands come from the generator's models, the
classes from the look of each trick: neither is written from the other.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_planmode.conformance.sandbox_levels import GATES, Gate, effect_class
from pytest_planmode.sandbox import Sandbox, SandboxUnavailable, world
from pytest_planmode.strategies import sandbox_commands as gen
from pytest_planmode.strategies import sandbox_table
from pytest_planmode.targets.reference.adapter import ReferenceAdapter

sys.path.insert(0, str(Path(__file__).resolve().parent / "targets"))
import leaky_gate as leaky

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox needs Linux")

REFERENCE = ReferenceAdapter()
BASH_GATES = {gate.operation: gate for gate in GATES if gate.shell == "bash"}
#: The sweep commands run at most per target (a budget, not a hint).
BUDGET = 400


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    try:
        box = Sandbox(timeout=3.0)
    except SandboxUnavailable as exc:
        pytest.fail(f"the sandbox must start on this Linux machine: {exc}")
    yield box
    box.close()


def first_finding(
    sandbox: Sandbox,
    target: leaky.Leaky,
    gates: list[Gate],
    programs: list[sandbox_table.Program] | None = None,
) -> tuple[str, str, str] | None:
    """(gate, command, effect class) of the first sweep command the target
    allows beyond the reference that shows an effect at either level."""
    tried = 0
    for command in gen.sweep(programs):
        for gate in gates:
            if not target.call(gate.operation, gate.input(command))["output"]["allowed"]:
                continue
            if REFERENCE.call(gate.operation, gate.input(command))["output"]["allowed"]:
                continue
            tried += 1
            if tried > BUDGET:
                return None
            result = sandbox.run(command)
            for effect in result.effects:
                name = effect_class(effect)
                if name in gate.must | gate.reference:
                    return gate.operation, command, name
    return None


@pytest.mark.parametrize("name", sorted(leaky.CLASSES))
def test_one_leaked_class_is_caught(sandbox: Sandbox, name: str) -> None:
    gate = BASH_GATES[leaky.CLASSES[name][0]]
    found = first_finding(sandbox, leaky.class_target(name), [gate])
    assert found is not None, f"the oracle did not catch a target leaking {name!r} through {gate.operation}"
    print(f"{name}: {found}")


#: Runner classes whose commands start Node (jest, npm): seconds each, so
#: they run with the whole-suite runs; the tsc ones run by default.
_SLOW_RUNNER_CLASSES = frozenset(["kebab-case", "npm-script-args", "runner-runs-git"])


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=[pytest.mark.whole_suite] if name in _SLOW_RUNNER_CLASSES else [])
        for name in sorted(leaky.RUNNER_CLASSES)
    ],
)
def test_one_leaked_runner_class_is_caught(sandbox: Sandbox, name: str) -> None:
    """Test runners, compilers and package managers are run, not exempt:
    a target leaking one trick of theirs is caught by the runner sweep."""
    gate = BASH_GATES[leaky.RUNNER_CLASSES[name][0]]
    program = sandbox_table.RUNNER_PROGRAMS
    found = first_finding(sandbox, leaky.class_target(name), [gate], program)
    assert found is not None, f"the oracle did not catch a target leaking {name!r} through {gate.operation}"
    print(f"{name}: {found}")


#: Programs through which no effect of a class the gates judge can be
#: reached in the sandbox: they print names, sizes, times or their own
#: state, never a file's content (`date -f FILE` names only the first
#: line, `SHELL=...`, of a process environment), write nothing and start
#: nothing.
UNREACHABLE = frozenset(
    [
        "pwd",
        "uname",
        "whoami",
        "id",
        "uptime",
        "hostname",
        "free",
        "which",
        "whereis",
        "type",
        "echo",
        "tr",
        "ls",
        "df",
        "stat",
        "date",
    ]
)
FAMILIES = sorted({p.name for p in sandbox_table.PROGRAMS} - UNREACHABLE)


@pytest.mark.parametrize("program", FAMILIES)
def test_a_leaky_family_is_caught(sandbox: Sandbox, program: str) -> None:
    if world.which(program) is None:
        pytest.skip(f"inconclusive: {program} is not installed, so none of its commands can run")
    found = first_finding(sandbox, leaky.family_target(program), list(BASH_GATES.values()))
    assert found is not None, f"the oracle did not catch a target that allows every {program!r} command"
    print(f"{program}: {found}")


RUNNER_FAMILIES = sorted({p.name for p in sandbox_table.RUNNER_PROGRAMS})


@pytest.mark.whole_suite
@pytest.mark.parametrize("program", RUNNER_FAMILIES)
def test_a_leaky_runner_family_is_caught(sandbox: Sandbox, program: str) -> None:
    """A target allowing every command of one test runner, compiler or
    package manager is caught by the runner sweep (each command starts a
    runtime: whole-suite runs only)."""
    if world.which(program) is None:
        pytest.skip(f"inconclusive: {program} is not installed, so none of its commands can run")
    target = leaky.family_target(program)
    found = first_finding(sandbox, target, list(BASH_GATES.values()), sandbox_table.RUNNER_PROGRAMS)
    assert found is not None, f"the oracle did not catch a target that allows every {program!r} command"
    print(f"{program}: {found}")


def test_the_leaky_targets_only_leak_their_class() -> None:
    target = leaky.class_target("tree-next-word")
    gate = BASH_GATES["planmode.bash.check"]
    assert target.call(gate.operation, gate.input("tree -LR 1 ."))["output"]["allowed"] is True
    assert target.call(gate.operation, gate.input("tree -o x ."))["output"]["allowed"] is False
    assert REFERENCE.call(gate.operation, gate.input("tree -LR 1 ."))["output"]["allowed"] is False
