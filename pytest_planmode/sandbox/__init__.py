"""A sandbox that runs one shell command line and reports what it did.

Linux only, built on `unshare`-style namespaces (user, mount, PID, network,
IPC, UTS: entered through system calls, no setuid helper) and `strace -f`.
The command sees the machine's programs on a read-only root, a fake HOME
with key-looking files, a Git working tree with a remote (its working
directory), a canary file outside the tree, canary secrets in its
environment, loopback-only networking, a process limit, a wall-time limit
and an output cap; it holds no capability and cannot see the tracer. Its
effects are observed (see `observe.py`); a command naming a program the
machine lacks is *inconclusive: <program> not installed*, never clean.

The mechanism: `runner.py` starts the resident process (`_zygote.py`, over
the system calls of `_linux.py`), `world.py` is what the command sees,
`observe.py` reads the trace and the output. The command line is parsed
only to know which programs it names (`commands.py`).

Nothing here decides whether an effect is acceptable: the sandbox checks
in `conformance/test_sandbox.py` do, per operation and level.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field

from pytest_planmode.sandbox import runners, world
from pytest_planmode.sandbox.commands import programs_in
from pytest_planmode.sandbox.observe import Effect, observe
from pytest_planmode.sandbox.runner import SandboxUnavailable, Zygote

__all__ = ["Effect", "Result", "Sandbox", "SandboxUnavailable", "programs_in", "world"]

SHELLS = ("bash", "pwsh")
DEFAULT_TIMEOUT = 5.0
DEFAULT_CAP = 1 << 20


@dataclass(frozen=True)
class Result:
    command: str
    shell: str
    #: "observed" (it ran to completion; `effects` is what it did) or
    #: "inconclusive" (`reason` says why nothing can be concluded).
    status: str
    effects: tuple[Effect, ...] = ()
    reason: str = ""
    exit: int | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    seconds: float = 0.0
    programs: tuple[str, ...] = field(default=())
    #: Effects the bare admitted forms of the runners it names have too
    #: (`runners.py`): shown, never judged.
    admitted: tuple[Effect, ...] = ()

    def describe(self) -> str:
        lines = [
            f"{self.shell} -c {self.command!r}: {self.status}" + (f": {self.reason}" if self.reason else "")
        ]
        lines += [f"  {effect}" for effect in self.effects]
        if self.admitted:
            lines.append(f"  ({len(self.admitted)} effect(s) its admitted runner form has too, not judged)")
        return "\n".join(lines)


class Sandbox:
    """One resident sandbox process; run commands one at a time."""

    def __init__(self, *, timeout: float = DEFAULT_TIMEOUT, cap: int = DEFAULT_CAP) -> None:
        self.timeout = timeout
        self.cap = cap
        self._zygote = Zygote()
        self._baselines: dict[str, runners.Baseline] = {}

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._zygote.close()

    def run(self, command: str, *, shell: str = "bash", programs: Iterable[str] | None = None) -> Result:
        """Run `command` with `shell` (`bash` or `pwsh`). `programs` are the
        programs the command line itself names (executing them is not an
        effect); by default they are read from the command line."""
        if shell not in SHELLS:
            raise ValueError(f"shell must be one of {SHELLS}, got {shell!r}")
        named = tuple(sorted(set(programs_in(command) if programs is None else programs)))
        shell_path = shutil.which(shell, path=world.BASE_ENV["PATH"])
        if shell_path is None:
            return Result(command, shell, "inconclusive", reason=f"{shell} not installed", programs=named)
        missing = [p for p in named if not _builtin(p, shell) and world.which(p) is None]
        if missing:
            reason = "; ".join(f"{name} not installed" for name in missing)
            return Result(command, shell, "inconclusive", reason=reason, programs=named)
        argv = (
            [shell_path, "-c", command]
            if shell == "bash"
            else [shell_path, "-NoProfile", "-NonInteractive", "-Command", command]
        )
        runs_project = shell == "bash" and not runners.PROGRAMS.isdisjoint(named)
        timeout = max(self.timeout, runners.RUNNER_TIMEOUT) if runs_project else self.timeout
        raw = self._zygote.run(argv, timeout=timeout, cap=self.cap)
        observation = observe(
            raw.trace, (raw.stdout, raw.stderr), shell=shell_path, programs=named, root=raw.root
        )
        effects = tuple(observation.effects)
        admitted: tuple[Effect, ...] = ()
        unfinished: list[str] = []
        if runs_project:
            forms = runners.forms_of(command)
            baselines = [self.baseline(form) for form in forms]
            unfinished = [form for form, b in zip(forms, baselines, strict=True) if not b.complete]
            admitted = tuple(e for e in effects if any(b.covers(e) for b in baselines))
            effects = tuple(e for e in effects if e not in admitted)
        status, reason = "observed", ""
        if raw.trace_cut:
            status, reason = "inconclusive", "its trace grew past the sandbox's cap"
        elif unfinished:
            status = "inconclusive"
            reason = f"the admitted form it is judged against ({', '.join(unfinished)}) did not end in time"
        elif raw.timed_out:
            reason = f"timed out after {timeout:g} s"
            status = "observed" if effects else "inconclusive"
        elif raw.exit == 127 and b"command not found" in raw.stderr:
            status, reason = "inconclusive", "a program it runs is not installed"
        if raw.output_capped:
            reason = (reason + "; " if reason else "") + f"output cut at {self.cap} bytes"
        return Result(
            command, shell, status, effects, reason, raw.exit, raw.stdout, raw.stderr, raw.seconds, named,
            admitted,
        )  # fmt: skip

    def baseline(self, form: str) -> runners.Baseline:
        """What the bare admitted runner form `form` does in this sandbox
        (run once, then remembered)."""
        if form not in self._baselines:
            bash = shutil.which("bash", path=world.BASE_ENV["PATH"]) or "/bin/bash"
            argv = [bash, "-c", form]
            named = tuple(programs_in(form))
            # Twice a command's time: a bare form cut short would excuse too little.
            raw = self._zygote.run(argv, timeout=2 * max(self.timeout, runners.RUNNER_TIMEOUT), cap=self.cap)
            observed = observe(raw.trace, (raw.stdout, raw.stderr), shell=bash, programs=named, root=raw.root)
            complete = not raw.timed_out and not raw.trace_cut
            self._baselines[form] = runners.Baseline.of(observed.effects, complete, observed.ran)
        return self._baselines[form]


_BASH_BUILTINS = frozenset(
    [
        "cd",
        "echo",
        "printf",
        "pwd",
        "type",
        "read",
        "test",
        "[",
        "true",
        "false",
        ":",
        "command",
        "builtin",
        "exec",
        "eval",
        "export",
        "set",
        "unset",
        "shift",
        "source",
        ".",
        "times",
        "trap",
        "ulimit",
        "umask",
        "wait",
        "hash",
        "help",
        "history",
        "jobs",
        "kill",
        "let",
        "local",
        "mapfile",
        "readarray",
        "return",
        "alias",
        "unalias",
        "declare",
        "typeset",
        "getopts",
        "enable",
        "disown",
        "fg",
        "bg",
        "caller",
        "compgen",
        "complete",
        "dirs",
        "popd",
        "pushd",
        "shopt",
        "suspend",
        "logout",
        "exit",
        "break",
        "continue",
    ]
)


def _builtin(name: str, shell: str) -> bool:
    if shell == "bash":
        return name in _BASH_BUILTINS
    # PowerShell resolves cmdlets (`Verb-Noun`) itself.
    return "-" in name or name.lower() in ("echo", "ls", "dir", "cat", "gci", "gc", "pwd", "select")
