"""`python:` targets that answer like the reference except that they let
one narrow class of shell commands through (one trick, not a whole
program), or every command of one program (a leaky family).

    python:leaky:class_target("tree-next-word")
    python:leaky:family_target("sort")

Each class is a predicate on the command text, written from what the
trick looks like, never from the oracle's generator: the oracle must find
it unaided.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pytest_planmode.targets.reference.adapter import ReferenceAdapter

SHELL_OPERATIONS = ("planmode.bash.check", "oplmodes.bash.check")


def _search(pattern: str) -> Callable[[str], bool]:
    compiled = re.compile(pattern)
    return lambda command: compiled.search(command) is not None


#: Each class: (gate it leaks through, predicate on the command).
CLASSES: dict[str, tuple[str, Callable[[str], bool]]] = {
    # tree reads a bundle letter by letter, a value letter taking the next word.
    "tree-next-word": ("planmode.bash.check", _search(r"^tree .*-[A-Za-z]*[LPIHT][A-Za-z]*R")),
    # grep -d/--directories values read by unambiguous prefix.
    "enum-value-prefix": ("oplmodes.bash.check", _search(r"^grep .*(-[a-zA-Z]*d ?|--dir[a-z]*=)rec\b")),
    # BSD ps words with digits.
    "bsd-digits": ("planmode.bash.check", _search(r"^ps [a-zA-Z]*\d[a-zA-Z0-9]*|^ps [a-zA-Z]*e[a-zA-Z]*\d")),
    # ANSI-C quoting.
    "ansi-c": ("oplmodes.bash.check", _search(r"\$'")),
    # Parameter expansion with a default.
    "parameter-default": ("oplmodes.bash.check", _search(r"\$\{[A-Za-z_]+:-")),
    # Parameter indirection.
    "parameter-indirection": ("oplmodes.bash.check", _search(r"\$\{!")),
    # A glob over an outside path.
    "glob": ("oplmodes.bash.check", _search(r"^\w+ /\S*[?*]")),
    # A `cd` out of the tree before a relative name.
    "cd-relative": ("oplmodes.bash.check", _search(r"^cd /\S* && ")),
    # Doubled slashes and `.` components in a path.
    "path-spelling": ("planmode.bash.check", _search(r"^(cat|head|tail|wc) (//|\S*/\./|\S*//)")),
    # An abbreviated long option that writes (`sort --out=F`).
    "long-abbreviation": ("planmode.bash.check", _search(r"^sort .*--out(p|pu)?[= ]")),
    # A short value option bundled after a flag (`sort -ro F`).
    "bundled-value": ("planmode.bash.check", _search(r"^sort .*-[a-zA-Z]+o")),
}

#: Classes of programs that run project code (test runners, compilers,
#: package managers); each run starts a runtime, so they are tried apart.
RUNNER_CLASSES: dict[str, tuple[str, Callable[[str], bool]]] = {
    # tsc long options with one dash (`-incremental`).
    "tsc-single-dash": ("planmode.bash.check", _search(r"^tsc --noEmit .*(?<!\S)-[A-Za-z]{3,}")),
    # An explicit false after tsc's --noEmit.
    "tsc-noemit-false": ("oplmodes.bash.check", _search(r"^tsc .*noEmit\W+false")),
    # The kebab-case spelling of jest's --outputFile.
    "kebab-case": ("planmode.bash.check", _search(r"^jest .*--output-file")),
    # Words after `--` handed to the program an npm script runs.
    "npm-script-args": ("planmode.bash.check", _search(r"^npm (?:test|run \w+)\b.* -- ")),
    # jest's changed-files modes (they run git).
    "runner-runs-git": ("planmode.bash.check", _search(r"^jest .*--only-?[cC]hanged|^jest .*-o\b")),
}


class Leaky:
    def __init__(self, allows: Callable[[str, str], bool], name: str) -> None:
        self.reference = ReferenceAdapter()
        self.allows = allows
        self.name = name

    def hello(self, suite: str) -> dict[str, Any]:
        answer = self.reference.hello(suite)
        answer["implementation"] = {"name": self.name, "version": "0"}
        return answer

    def call(self, op: str, payload: dict[str, Any]) -> dict[str, Any]:
        answer = self.reference.call(op, payload)
        output = answer.get("output")
        command = payload.get("command")
        if (
            isinstance(output, dict)
            and output.get("allowed") is False
            and isinstance(command, str)
            and self.allows(op, command)
        ):
            cleared = {
                k: None for k in ("blocked", "rule", "reason", "blockedSegment", "pattern") if k in output
            }
            return {"output": {**output, **cleared, "allowed": True}}
        return answer


def class_target(name: str) -> Leaky:
    gate, predicate = CLASSES[name] if name in CLASSES else RUNNER_CLASSES[name]
    return Leaky(lambda op, command: op == gate and predicate(command), f"leaky: {name}")


def family_target(program: str) -> Leaky:
    """Every command whose every segment names `program` is allowed."""
    splitter = re.compile(r"\s*(?:&&|\|\||;|\|)\s*")

    def allows(op: str, command: str) -> bool:
        if op not in SHELL_OPERATIONS:
            return False
        words = [segment.split() for segment in splitter.split(command.strip())]
        return all(w and w[0] == program for w in words)

    return Leaky(allows, f"leaky family: {program}")
