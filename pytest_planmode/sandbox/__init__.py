"""A sandbox that runs one shell command line and reports what it did.

Linux only, built on `unshare`-style namespaces (user, mount, PID, network,
IPC, UTS: entered through system calls, no setuid helper) and `strace -f`.
The command sees the machine's programs on a read-only root, a fake HOME
with key-looking files, a Git working tree with a remote (its working
directory), a canary file outside the tree, canary secrets in its
environment, loopback-only networking, a process limit, a wall-time limit
and an output cap. Its effects are observed (see `observe.py`); a command
naming a program the machine lacks is *inconclusive*, never clean.

Nothing here decides whether an effect is acceptable: the sandbox checks
in `conformance/test_sandbox.py` do, per operation and level.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field

from pytest_planmode.sandbox import world
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

    def describe(self) -> str:
        lines = [
            f"{self.shell} -c {self.command!r}: {self.status}" + (f" ({self.reason})" if self.reason else "")
        ]
        lines += [f"  {effect}" for effect in self.effects]
        return "\n".join(lines)


class Sandbox:
    """One resident sandbox process; run commands one at a time."""

    def __init__(self, *, timeout: float = DEFAULT_TIMEOUT, cap: int = DEFAULT_CAP) -> None:
        self.timeout = timeout
        self.cap = cap
        self._zygote = Zygote()

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
            return Result(command, shell, "inconclusive", reason=f"{shell} is not installed", programs=named)
        missing = [
            p
            for p in named
            if not _builtin(p, shell) and shutil.which(p, path=world.BASE_ENV["PATH"]) is None
        ]
        if missing:
            return Result(
                command, shell, "inconclusive", reason=f"not installed: {', '.join(missing)}", programs=named
            )
        argv = (
            [shell_path, "-c", command]
            if shell == "bash"
            else [shell_path, "-NoProfile", "-NonInteractive", "-Command", command]
        )
        raw = self._zygote.run(argv, timeout=self.timeout, cap=self.cap)
        observation = observe(raw.trace, (raw.stdout, raw.stderr), shell=shell_path, programs=named)
        effects = tuple(observation.effects)
        status, reason = "observed", ""
        if raw.timed_out:
            reason = f"timed out after {self.timeout:g} s"
            status = "observed" if effects else "inconclusive"
        elif raw.exit == 127 and b"command not found" in raw.stderr:
            status, reason = "inconclusive", "a program it runs is not installed"
        if raw.output_capped:
            reason = (reason + "; " if reason else "") + f"output cut at {self.cap} bytes"
        return Result(
            command, shell, status, effects, reason, raw.exit, raw.stdout, raw.stderr, raw.seconds, named
        )


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


# Command positions of a shell line, read without trusting any policy: the
# first word, and the word after an operator or an opening substitution
# outside single quotes. Over-naming would hide an `exec` effect, so a word
# counts only where the shell would run it.
_WRAPPERS = frozenset(
    [
        "time",
        "command",
        "builtin",
        "exec",
        "nohup",
        "nice",
        "timeout",
        "env",
        "sudo",
        "xargs",
        "then",
        "do",
        "else",
        "if",
        "while",
        "until",
        "!",
        "{",
    ]
)
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")


def programs_in(command: str) -> list[str]:
    """The programs a Bash (or PowerShell) line names in command position."""
    names: list[str] = []
    word = ""
    at_command = True
    quote = ""
    # Quote states around open `$(` substitutions (a substitution inside
    # double quotes still runs its program).
    stack: list[str] = []
    i = 0

    def finish() -> None:
        nonlocal word, at_command
        if word and at_command:
            if _ASSIGN.match(word):
                word = ""
                return
            names.append(word)
            at_command = word in _WRAPPERS
        elif word:
            at_command = False
        word = ""

    while i < len(command):
        char = command[i]
        if quote == "'":
            if char == "'":
                quote = ""
            else:
                word += char
        elif quote == '"' and char == '"':
            quote = ""
        elif char == "\\" and quote != "'":
            i += 1
            word += command[i : i + 1]
        elif char in "'\"" and not quote:
            quote = char
        elif command.startswith(("$(", "<(", ">("), i) and not (quote and command[i] != "$"):
            stack.append(quote)
            quote = ""
            finish()
            at_command = True
            i += 1
        elif char == "`":
            finish()
            at_command = True
        elif quote:
            word += char
        elif char == ")" and stack:
            finish()
            quote = stack.pop()
            at_command = False
        elif char in " \t":
            finish()
        elif char in ";&|()\n{}":
            finish()
            at_command = True
        elif char in "<>":
            if word.isdigit():
                word = ""
            finish()
            # the next word is a redirect target, not a program
            j = i + 1
            while j < len(command) and command[j] in "<>&| \t":
                j += 1
            k = j
            while k < len(command) and command[k] not in " \t;&|()<>":
                k += 1
            i = k - 1
        else:
            word += char
        i += 1
    finish()
    return [name for name in names if name]
