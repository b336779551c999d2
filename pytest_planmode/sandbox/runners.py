"""Programs that run the project's own code (test runners, compilers,
linters, package managers), and what their admitted forms do by design.

The specs admit them in some forms knowing they run project code, write
their caches or ask the registry. The sandbox runs them, in the tiny
project of `world.py`, and judges a command on what it does *beyond* the
bare admitted form it starts with (its baseline): `jest` writes its cache
under /tmp, `vitest run` writes `node_modules/.vite`, `go test` its build
cache, `npm view` asks the registry's name server; `jest --coverage`,
`tsc --noEmit -incremental` or `vitest --outputFile=r.json` write more,
and that is an effect. One mechanism for every program: run the bare
form once per sandbox, then excuse the same effects in the same places.

Places are compared with random-looking name parts (hashes, time stamps,
random directory names: six or more letters, digits, `_` and `-` holding a
digit, or sixteen or more in mixed case)
folded to `*`, so two runs of the same form have the same places. A
write is excused where the baseline wrote the same place or inside a
directory the baseline created (a `mkdir` that failed, the directory being
there already, created nothing); a program execution where the baseline
ran the same program (its interpreter included: `jest -w 2` starts more
`node` processes), a program of the same private tool directory (one not
on PATH: `go test -cover` runs the toolchain's `cover` beside the
`compile` and `link` the bare form ran) or a program inside a directory
the baseline created (the runner's own build output: `cargo test
--release` runs the test binary it built under `target/`); a network
contact where the baseline reached the same address. Secrets and canary
files printed are never excused.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass

from pytest_planmode.sandbox import world

#: Program -> its admitted bare forms, keyed by the subcommand words that
#: select them (an empty key: any arguments). The specs' forms
#: (reference-choices.md § pi-plan-mode: limited Bash, § opl-modes:
#: built-in safe list).
FORMS: dict[str, dict[tuple[str, ...], str]] = {
    "npm": {
        ("test",): "npm test",
        ("t",): "npm test",
        ("ls",): "npm ls",
        ("list",): "npm list",
        ("view",): "npm view typescript",
        ("info",): "npm info typescript",
        ("search",): "npm search typescript",
        ("outdated",): "npm outdated",
        ("audit",): "npm audit",
        ("run", "test"): "npm run test",
        ("run", "check"): "npm run check",
        ("run", "typecheck"): "npm run typecheck",
        ("run", "lint"): "npm run lint",
    },
    "yarn": {
        ("list",): "yarn list",
        ("info",): "yarn info typescript",
        ("why",): "yarn why typescript",
        ("audit",): "yarn audit",
    },
    "tsc": {(): "tsc --noEmit"},
    "jest": {(): "jest"},
    "vitest": {(): "vitest run"},
    "pytest": {(): "pytest"},
    "ruff": {(): "ruff --version"},
    "biome": {(): "biome --version"},
    "go": {("test",): "go test", ("vet",): "go vet"},
    "cargo": {("test",): "cargo test", ("check",): "cargo check"},
}
#: Every program that runs project code or a registry client: commands
#: naming one get RUNNER_TIMEOUT (they start a runtime and compile).
PROGRAMS = frozenset([*FORMS, "npx", "pnpm", "pip"])
RUNNER_TIMEOUT = 30.0

_RANDOM = re.compile(r"[A-Za-z0-9_-]*[0-9][A-Za-z0-9_-]*")
#: A random name may hold no digit: sixteen or more name characters in
#: mixed case are folded too.
_LONG_RANDOM = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{16,}(?![A-Za-z0-9_-])")
_OPERATORS = frozenset([";", "&&", "||", "|", "&", "(", ")", "|&"])


def place(path: str) -> str:
    """`path` resolved against the working tree, with random-looking name
    parts folded to `*`."""
    resolved = os.path.normpath(path if path.startswith("/") else os.path.join(world.REPO, path))
    return _RANDOM.sub(_fold, _LONG_RANDOM.sub(_fold_long, resolved))


def _fold(match: re.Match[str]) -> str:
    return "*" if len(match.group()) >= 6 else match.group()


def _fold_long(match: re.Match[str]) -> str:
    text = match.group()
    return "*" if any(c.isupper() for c in text) and any(c.islower() for c in text) else text


def forms_of(command: str) -> list[str]:
    """The bare admitted forms the runner segments of `command` start with."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()")
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        tokens = command.split()
    found: list[str] = []
    for index, token in enumerate(tokens):
        program = os.path.basename(token)
        if program not in FORMS or (index > 0 and tokens[index - 1] not in _OPERATORS):
            continue
        words: list[str] = []
        for word in tokens[index + 1 :]:
            if word in _OPERATORS:
                break
            if not word.startswith("-"):
                words.append(word)
        for key, form in FORMS[program].items():
            if tuple(words[: len(key)]) == key and form not in found:
                found.append(form)
    return found


@dataclass(frozen=True)
class Baseline:
    places: frozenset[str]
    created: frozenset[str]
    programs: frozenset[str]
    addresses: frozenset[str]
    #: False when the bare form did not end in time (a loaded machine):
    #: what it would have done is unknown, so commands judged against it
    #: are inconclusive.
    complete: bool = True
    #: Directories off PATH the bare form ran programs from.
    tool_directories: frozenset[str] = frozenset()

    @staticmethod
    def of(effects: Iterable[object], complete: bool = True, ran: Iterable[str] = ()) -> Baseline:
        """The baseline of a bare form that had `effects` and executed the
        programs `ran` (paths)."""
        places: set[str] = set()
        created: set[str] = set()
        programs = {os.path.basename(path) for path in ran}
        on_path = {os.path.normpath(part) for part in world.BASE_ENV["PATH"].split(":") if part}
        tools = {os.path.dirname(path) for path in ran if path.startswith("/")} - on_path
        addresses: set[str] = set()
        for effect in effects:
            kind = getattr(effect, "kind", "")
            path = getattr(effect, "path", "")
            detail = getattr(effect, "detail", "")
            if kind == "write":
                key = place(path) if path else detail.split("(", 1)[0]
                places.add(key)
                if (
                    detail.startswith(("mkdir(", "mkdirat("))
                    and path
                    and not getattr(effect, "failed", False)
                ):
                    created.add(key)
            elif kind == "exec":
                programs.add(os.path.basename(path))
            elif kind == "network":
                addresses.add(path)
        return Baseline(
            frozenset(places),
            frozenset(created),
            frozenset(programs),
            frozenset(addresses),
            complete,
            frozenset(tools),
        )

    def _inside_created(self, key: str) -> bool:
        return any(key.startswith(made + "/") for made in self.created)

    def covers(self, effect: object) -> bool:
        kind = getattr(effect, "kind", "")
        path = getattr(effect, "path", "")
        if kind == "write":
            key = place(path) if path else getattr(effect, "detail", "").split("(", 1)[0]
            return key in self.places or self._inside_created(key)
        if kind == "exec":
            return (
                os.path.basename(path) in self.programs
                or os.path.dirname(path) in self.tool_directories
                or self._inside_created(place(path))
            )
        if kind == "network":
            return path in self.addresses
        return False
