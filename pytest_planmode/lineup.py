"""Several targets in one run: what each is called, and which per-target
file (expectations to read, expectations to write) belongs to which.

A target is given as `TARGET` or `NAME=TARGET`. Without a name, the
built-in reference is `reference` and any other target is named after the
implementation its handshake announces (`planmode-node-example`), with
`-2`, `-3` ... when two announce the same name. Names appear in item names
(`<case id>[<name>]`, only when several targets run), in the terminal
summary and in the report.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


class LineupError(Exception):
    """An option naming targets or per-target files is unusable; the message says why."""


@dataclass(frozen=True)
class GivenTarget:
    name: str | None
    spec: str


def split_name(value: str) -> tuple[str | None, str]:
    """`NAME=REST` -> (NAME, REST); anything else -> (None, value).

    A name holds no `:` or `/`, so `exec:tool --flag=x` and `dir/a=b.json`
    are never mistaken for a named value."""
    name, sep, rest = value.partition("=")
    if sep and rest and NAME.fullmatch(name):
        return name, rest
    return None, value


def parse_targets(values: Iterable[str]) -> list[GivenTarget]:
    given = []
    for value in values:
        value = value.strip()
        if not value:
            continue
        name, spec = split_name(value)
        given.append(GivenTarget(name, spec.strip()))
    if not given:
        raise LineupError("--planmode-target: no target given")
    named = [g.name for g in given if g.name]
    twice = sorted({n for n in named if named.count(n) > 1})
    if twice:
        raise LineupError(f"--planmode-target: the name {twice[0]!r} is given to several targets")
    return given


def slug(text: str) -> str:
    """An implementation name as a target name: lowercase, other runs -> `-`."""
    out = re.sub(r"[^a-z0-9_.]+", "-", text.lower()).strip("-.")
    return out or "target"


def assign_names(given: Sequence[GivenTarget], announced: Sequence[str]) -> list[str]:
    """Each target's name: its given name, else a name from `announced`
    (the handshake's implementation name), made unique."""
    taken = {g.name for g in given if g.name}
    names = []
    for target, implementation in zip(given, announced, strict=True):
        if target.name:
            names.append(target.name)
            continue
        base = "reference" if target.spec == "reference" else slug(implementation)
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}-{n}"
        taken.add(name)
        names.append(name)
    return names


def assign_files(option: str, values: Iterable[str], names: Sequence[str]) -> dict[str, list[str]]:
    """Per target name, the files an option gives it.

    `NAME=FILE` is for target NAME only; a plain `FILE` is for every target.
    A `NAME=` naming no target is an error, unless the whole value is an
    existing file (a file name may hold `=`)."""
    files: dict[str, list[str]] = {name: [] for name in names}
    for value in values:
        name, path = split_name(value)
        if name is not None and name not in files and not Path(value).exists():
            raise LineupError(
                f"--planmode-{option} {value}: there is no target named {name!r} "
                f"(targets: {', '.join(names)})"
            )
        if name is None or name not in files:
            for each in files.values():
                each.append(value)
        else:
            files[name].append(path)
    return files


def one_file_each(option: str, values: Iterable[str], names: Sequence[str]) -> dict[str, str]:
    """Per target name, the one file to write (targets without one get none)."""
    values = list(values)
    if len(names) > 1 and any(split_name(v)[0] not in names for v in values):
        raise LineupError(
            f"--planmode-{option}: with several targets, give NAME=FILE for each target "
            f"whose file to write (targets: {', '.join(names)})"
        )
    out: dict[str, str] = {}
    for name, paths in assign_files(option, values, names).items():
        if len(paths) > 1:
            raise LineupError(f"--planmode-{option}: target {name!r} is given {len(paths)} files to write")
        if paths:
            out[name] = paths[0]
    return out
