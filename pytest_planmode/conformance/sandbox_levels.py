"""Which effects a sandbox check fails on, per shell gate and level.

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
- opl-modes (`oplmodes.bash.check`): writes and executions are `must`:
  the allowlist "covers read-only inspection and text filters only", the
  destructive base blocks "file mutation primitives" and "every redirect
  that names a file", and a hidden `$(...)` payload "is split out and
  checked" (opl-modes.md § Mode behavior). A secret in the output and
  network contact are `reference`: the spec keeps `env`/`printenv` off the
  safe list "since they could dump provider API keys" and blocks `jq`'s
  environment access, named forms only, and calls the list "a heuristic
  backstop, not a process-isolation boundary". The checks of this gate carry
  the tag `-read-only` in their ids (`oplmodes.bash.sandbox.suite-read-only`):
  until suite 0.6.0 their `must` level also failed on secrets.

Segments trusted through `safeSubcommands` are never sent here. Commands
naming a program that runs project code (test runners, compilers, package
managers: `sandbox_table.RUNNER_NAMES`) are judged by their own checks
(`*.sandbox.runners`): the sandbox runs them in its tiny project and
judges what they do beyond the bare form the specs admit
(`pytest_planmode/sandbox/runners.py`); each costs seconds, so the other
checks leave them to those. No program is exempt (`EXEMPT_PROGRAMS` is
empty: every admitted program can be installed for the sandbox).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_planmode.sandbox import Effect, Result, programs_in, world
from pytest_planmode.strategies.sandbox_table import EXEMPT_PROGRAMS, RUNNER_NAMES


@dataclass(frozen=True)
class Gate:
    operation: str
    prefix: str
    shell: str
    must: frozenset[str]
    reference: frozenset[str]
    #: Which suite operations' commands are tried against this gate.
    sources: tuple[str, ...]
    #: Appended to each check's kind in its id (`suite` -> `suite-read-only`):
    #: set when what a gate's checks fail on changed, so that the ids change too.
    tag: str = ""

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
        frozenset({"write", "exec"}),
        frozenset({"network", "secret"}),
        _BASH_SOURCES,
        tag="-read-only",
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


def runs_project(command: str) -> bool:
    """Whether `command` names a program that runs project code (judged by
    the runner checks)."""
    return any(program in RUNNER_NAMES for program in programs_in(command))
