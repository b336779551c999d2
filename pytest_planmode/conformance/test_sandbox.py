"""Sandbox checks (`--planmode-sandbox`): run what the target allows and
observe what it did.

For each shell gate, every command of the suite that the target allows
under the built-in policy, every command of a deterministic sweep over the
option table, and commands drawn by a grammar-aware generator are run in
the sandbox (`pytest_planmode.sandbox`); an allowed command must show no
effect. Only the suite's own command text runs, never text a target
supplies: the target's answer only decides whether a command runs.

Levels, per effect, from the specs:

- pi-plan-mode (`planmode.bash.check`, `planmode.powershell.check`):
  writes, program executions and network contact are `must`. The
  reviewed policy is read-only inspection that "rejects ... shell expansion
  and substitution ... explicit external diff, textconv, filter, or
  signature helpers, mutating flags" and avoids transport helpers
  (pi-plan-mode-settings.md § Safe shell subcommands). A secret in the
  output, and a file outside the working tree printed by Git, are
  `reference`: the spec says read-only "does not mean private"; leaving
  out `env`/`printenv` and `--no-index` is reference-choices.md's.
- opl-modes (`oplmodes.bash.check`): writes, executions and secrets are
  `must`: "file mutation primitives" are blocked, a hidden `$(...)` payload
  "is split out and checked", and `env`/`printenv` are left out "since they
  could dump provider API keys" (opl-modes.md § Mode behavior). Network
  contact is `reference` (the allowlist "covers read-only inspection").

Segments naming a package manager or project check runner (npm, cargo,
pytest, ...) are exempt, as are segments trusted through `safeSubcommands`
(never sent here): the specs admit them knowing they may run project code,
write their caches or reach the network.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_planmode.sandbox import Effect, Result, programs_in, world
from pytest_planmode.sandbox.table import EXEMPT_PROGRAMS
from pytest_planmode.strategies import sandbox_commands as gen

if TYPE_CHECKING:
    from pytest_planmode.harness import TargetClient
    from pytest_planmode.sandbox_session import SandboxSession

MAX_LISTED = 25


@dataclass(frozen=True)
class Gate:
    operation: str
    prefix: str
    shell: str
    must: frozenset[str]
    reference: frozenset[str]
    #: Which suite operations' commands are tried against this gate.
    sources: tuple[str, ...]

    def input(self, command: str) -> dict[str, Any]:
        if self.operation.startswith("oplmodes."):
            return {"command": command, "mode": "plan"}
        return {"command": command, "cwd": world.REPO}


_BASH_SOURCES = ("planmode.bash.check", "oplmodes.bash.check", "oplmodes.bash.segments")
GATES = (
    Gate(
        "planmode.bash.check",
        "planmode.bash",
        "bash",
        frozenset({"write", "exec", "network"}),
        frozenset({"secret", "git-outside"}),
        _BASH_SOURCES,
    ),
    Gate(
        "planmode.powershell.check",
        "planmode.powershell",
        "pwsh",
        frozenset({"write", "exec", "network"}),
        frozenset({"secret", "git-outside"}),
        ("planmode.powershell.check",),
    ),
    Gate(
        "oplmodes.bash.check",
        "oplmodes.bash",
        "bash",
        frozenset({"write", "exec", "secret"}),
        frozenset({"network"}),
        _BASH_SOURCES,
    ),
)


def effect_class(effect: Effect) -> str:
    """The class a level is decided for: a canary file printed by Git is
    a read outside the working tree through Git."""
    if effect.kind == "canary-file":
        return "git-outside" if "git" in effect.program.split(", ") else "canary-file"
    return effect.kind


def violations(gate: Gate, level: str, result: Result) -> list[Effect]:
    kinds = gate.must if level == "must" else gate.reference
    return [effect for effect in result.effects if effect_class(effect) in kinds]


def exempt(command: str) -> bool:
    return any(program in EXEMPT_PROGRAMS for program in programs_in(command))


def judge(target: TargetClient, session: SandboxSession, gate: Gate, level: str, command: str) -> str | None:
    """None when `command` is blocked, exempt or did nothing it must not;
    otherwise the failure text: command, verdict and each effect."""
    verdict = target.call(gate.operation, gate.input(command))
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
    return (
        f"{gate.shell} -c {command!r}\n"
        f"  {gate.operation} answered {json.dumps(shown, ensure_ascii=False)[:300]}\n"
        "  observed in the sandbox:\n" + "\n".join(f"    - {effect}" for effect in bad)
    )


def _report(gate: Gate, level: str, problems: list[str], tried: int) -> None:
    if problems:
        listed = "\n".join(problems[:MAX_LISTED])
        more = f"\n... and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
        pytest.fail(
            f"{len(problems)} of {tried} commands allowed by {gate.operation} had effects at level "
            f"{level!r} ({', '.join(sorted(gate.must if level == 'must' else gate.reference))}):\n"
            f"{listed}{more}",
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


@pytest.fixture(scope="session")
def planmode_sandbox(request: pytest.FixtureRequest) -> SandboxSession:
    session = request.config.pluginmanager.get_plugin("planmode-sandbox")
    if session is None:
        pytest.skip("the sandbox checks run only with --planmode-sandbox")
    return session  # type: ignore[no-any-return]


def _params(kind: str) -> list[Any]:
    params = []
    for gate in GATES:
        for level in ("must", "reference"):
            suffix = kind if level == "must" else f"{kind}-reference"
            params.append(
                pytest.param(
                    gate,
                    level,
                    id=f"{gate.prefix}.sandbox.{suffix}",
                    marks=pytest.mark.planmode(
                        operation=gate.operation, level=level, id=f"{gate.prefix}.sandbox.{suffix}"
                    ),
                )
            )
    return params


@pytest.mark.parametrize(("gate", "level"), _params("suite"))
def test_suite_commands_allowed_have_no_effect(
    planmode_target: TargetClient, planmode_sandbox: SandboxSession, gate: Gate, level: str, request: Any
) -> None:
    commands = suite_commands(request.config, gate.sources)
    problems = [p for c in commands if (p := judge(planmode_target, planmode_sandbox, gate, level, c))]
    _report(gate, level, problems, len(commands))


@pytest.mark.parametrize(("gate", "level"), _params("sweep"))
def test_swept_commands_allowed_have_no_effect(
    planmode_target: TargetClient, planmode_sandbox: SandboxSession, gate: Gate, level: str
) -> None:
    commands = list(gen.sweep(powershell=gate.shell == "pwsh"))
    problems = [p for c in commands if (p := judge(planmode_target, planmode_sandbox, gate, level, c))]
    _report(gate, level, problems, len(commands))


def strategy(gate: Gate) -> st.SearchStrategy[str]:
    if gate.shell == "pwsh":
        return gen.powershell_commands()
    return gen.bash_commands(substitutions=gate.operation.startswith("oplmodes."))


@pytest.mark.parametrize(("gate", "level"), _params("generated"))
@given(data=st.data())
def test_generated_commands_allowed_have_no_effect(
    planmode_target: TargetClient,
    planmode_sandbox: SandboxSession,
    gate: Gate,
    level: str,
    data: st.DataObject,
) -> None:
    command = data.draw(strategy(gate), label="command")
    problem = judge(planmode_target, planmode_sandbox, gate, level, command)
    assert problem is None, problem
