"""Sandbox checks (`--planmode-sandbox`): run what the target allows and
observe what it did.

For each shell gate, every command of the suite that the target allows
under the built-in policy, every command of a deterministic sweep over the
option table, and commands drawn by a grammar-aware generator are run in
the sandbox (`pytest_planmode.sandbox`); an allowed command must show no
effect. Only the suite's own command text runs, never text a target
supplies: the target's answer only decides whether a command runs.

Levels, per effect, are decided in `pytest_planmode/conformance/sandbox_levels.py`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_planmode.conformance.sandbox_levels import (
    GATES,
    Gate,
    effect_class,
    exempt,
    runs_project,
    violations,
)
from pytest_planmode.sandbox import world
from pytest_planmode.strategies import sandbox_commands as gen
from pytest_planmode.strategies import sandbox_table
from pytest_planmode.strategies.sandbox_table import Program

if TYPE_CHECKING:
    from pytest_planmode.harness import TargetClient
    from pytest_planmode.sandbox_session import SandboxSession

MAX_PER_CLASS = 10


def judge(
    target: TargetClient, session: SandboxSession, gate: Gate, level: str, command: str, runners: bool = False
) -> tuple[str, str] | None:
    """None when `command` is blocked, exempt, left to the other checks
    (`runners`: only commands naming a program that runs project code are
    judged; otherwise only the others) or did nothing it must not;
    otherwise its first effect class and the failure text: the command,
    the target's verdict and each effect."""
    if runs_project(command) != runners:
        return None
    verdict = session.verdict(target, gate.operation, gate.input(command))
    if verdict.get("allowed") is not True:
        return None
    if exempt(command):
        session.note_exempt(command)
        return None
    result = session.run(gate.shell, command)
    bad = violations(gate, level, result)
    if not bad:
        return None
    shown = {k: verdict.get(k) for k in ("allowed", "blocked", "segments") if k in verdict}
    return effect_class(bad[0]), (
        f"{gate.shell} -c {command!r}\n"
        f"  {gate.operation} answered {json.dumps(shown, ensure_ascii=False)[:300]}\n"
        "  observed in the sandbox:\n" + "\n".join(f"    - {effect}" for effect in bad)
    )


def _report(gate: Gate, level: str, problems: list[tuple[str, str]], tried: int) -> None:
    """Fail with every effect class found and up to MAX_PER_CLASS commands each."""
    if not problems:
        return
    by_class: dict[str, list[str]] = {}
    for name, text in problems:
        by_class.setdefault(name, []).append(text)
    parts = []
    for name, texts in sorted(by_class.items()):
        texts.sort(key=len)  # the simplest examples first
        more = f"\n... and {len(texts) - MAX_PER_CLASS} more" if len(texts) > MAX_PER_CLASS else ""
        parts.append(f"[{name}] {len(texts)} command(s):\n" + "\n".join(texts[:MAX_PER_CLASS]) + more)
    kinds = ", ".join(sorted(gate.must if level == "must" else gate.reference))
    pytest.fail(
        f"{len(problems)} of {tried} commands allowed by {gate.operation} had effects at level "
        f"{level!r} ({kinds}):\n" + "\n".join(parts),
        pytrace=False,
    )


def suite_commands(config: pytest.Config, operations: tuple[str, ...]) -> list[str]:
    """Every string command of the suite's fixture cases for `operations`."""
    from pytest_planmode.suite import FIXTURES_DIR, fixture_files, load_file

    run = config.pluginmanager.get_plugin("planmode-run")
    root: Path = run.fixtures_dir if run is not None else FIXTURES_DIR
    seen: dict[str, None] = {}
    for path in fixture_files(root):
        for case in load_file(path, root=root):
            command = case.input.get("command") if isinstance(case.input, dict) else None
            if case.operation in operations and isinstance(command, str) and command.strip():
                seen.setdefault(command, None)
    return list(seen)


def _require_shell(gate: Gate) -> None:
    """Every command of a gate whose shell is missing is inconclusive: the
    check skips saying so, it never passes."""
    if shutil.which(gate.shell, path=world.BASE_ENV["PATH"]) is None:
        pytest.skip(f"inconclusive: {gate.shell} is not installed, so no {gate.operation} command can run")


@pytest.fixture(scope="session")
def planmode_sandbox(request: pytest.FixtureRequest) -> SandboxSession:
    session = request.config.pluginmanager.get_plugin("planmode-sandbox")
    if session is None:
        pytest.skip("the sandbox checks run only with --planmode-sandbox")
    return session  # type: ignore[no-any-return]


#: The section each gate's sandbox checks cite: the reviewed policy is read-only
#: inspection (pi-plan-mode), the gate restricts Bash to safe inspection (opl-modes).
SPECS = {
    "planmode.bash.check": "pi-plan-mode-settings.md § Safe shell subcommands",
    "planmode.powershell.check": "pi-plan-mode-settings.md § Safe shell subcommands",
    "oplmodes.bash.check": "opl-modes.md § Mode behavior",
}


def _params(kind: str) -> list[Any]:
    params = []
    for gate in GATES:
        for level in ("must", "reference"):
            suffix = f"{kind}{gate.tag}" if level == "must" else f"{kind}{gate.tag}-reference"
            params.append(
                pytest.param(
                    gate,
                    level,
                    id=f"{gate.prefix}.sandbox.{suffix}",
                    marks=pytest.mark.planmode(
                        operation=gate.operation,
                        level=level,
                        id=f"{gate.prefix}.sandbox.{suffix}",
                        spec=SPECS[gate.operation],
                        sandbox=True,
                    ),
                )
            )
    return params


@pytest.mark.parametrize(("gate", "level"), _params("suite"))
def test_suite_commands_allowed_have_no_effect(
    planmode_target: TargetClient, planmode_sandbox: SandboxSession, gate: Gate, level: str, request: Any
) -> None:
    _require_shell(gate)
    commands = _selected(planmode_sandbox, gate, suite_commands(request.config, gate.sources))
    problems = [p for c in commands if (p := judge(planmode_target, planmode_sandbox, gate, level, c))]
    _report(gate, level, problems, len(commands))


@pytest.mark.parametrize(("gate", "level"), _params("sweep"))
def test_swept_commands_allowed_have_no_effect(
    planmode_target: TargetClient, planmode_sandbox: SandboxSession, gate: Gate, level: str
) -> None:
    _require_shell(gate)
    powershell = gate.shell == "pwsh"
    chosen = _chosen_programs(planmode_sandbox, gate)
    commands = list(gen.sweep(chosen, powershell=powershell))
    problems = [p for c in commands if (p := judge(planmode_target, planmode_sandbox, gate, level, c))]
    _report(gate, level, problems, len(commands))


def _bash_params(kind: str) -> list[Any]:
    return [p for p in _params(kind) if p.values[0].shell == "bash"]


@pytest.mark.parametrize(("gate", "level"), _bash_params("runners"))
def test_runner_commands_allowed_have_no_effect(
    planmode_target: TargetClient, planmode_sandbox: SandboxSession, gate: Gate, level: str, request: Any
) -> None:
    """Test runners, compilers and package managers: the suite's commands
    naming them and the runner sweep (every option of each in every
    spelling it accepts), judged on what they do beyond the bare form the
    specs admit."""
    _require_shell(gate)
    runners = sandbox_table.RUNNER_PROGRAMS
    if planmode_sandbox.chosen is not None:
        runners = [program for program in runners if program.name in planmode_sandbox.chosen]
        if not runners:
            pytest.skip("none of the programs chosen with --planmode-sandbox-programs runs project code")
    commands = [c for c in suite_commands(request.config, gate.sources) if runs_project(c)]
    commands = [c for c in commands + list(gen.sweep(runners)) if planmode_sandbox.selects(c)]
    problems = [p for c in commands if (p := judge(planmode_target, planmode_sandbox, gate, level, c, True))]
    _report(gate, level, problems, len(commands))


def _chosen_programs(session: SandboxSession, gate: Gate) -> list[Program] | None:
    """The programs `--planmode-sandbox-programs` chose for this gate's shell
    (None: all); the check skips when none of them belongs to it."""
    chosen = session.programs(powershell=gate.shell == "pwsh")
    if chosen == []:
        pytest.skip(f"none of the programs chosen with --planmode-sandbox-programs runs in {gate.shell}")
    return chosen


def _selected(session: SandboxSession, gate: Gate, commands: list[str]) -> list[str]:
    _chosen_programs(session, gate)
    return [command for command in commands if session.selects(command)]


def strategy(gate: Gate, programs: list[Program] | None = None) -> st.SearchStrategy[str]:
    if gate.shell == "pwsh":
        return gen.powershell_commands(programs)
    return gen.bash_commands(substitutions=gate.operation.startswith("oplmodes."), programs=programs)


@pytest.mark.parametrize(("gate", "level"), _params("generated"))
@given(data=st.data())
def test_generated_commands_allowed_have_no_effect(
    planmode_target: TargetClient,
    planmode_sandbox: SandboxSession,
    gate: Gate,
    level: str,
    data: st.DataObject,
) -> None:
    _require_shell(gate)
    command = data.draw(strategy(gate, _chosen_programs(planmode_sandbox, gate)), label="command")
    problem = judge(planmode_target, planmode_sandbox, gate, level, command)
    assert problem is None, problem[1]
