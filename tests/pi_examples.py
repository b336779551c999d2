"""Shared by the `pi:` tests: the example extensions, a running target for
one of them, and planted-bug variants (a copy of an example's directory with
one substitution in one of its modules)."""

from __future__ import annotations

import atexit
import shutil
import textwrap
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from pytest_planmode.hosts.pi.client import PiHost
from pytest_planmode.matching import mismatches
from pytest_planmode.suite import Case, load_suite
from pytest_planmode.targets.pi_target import DEFAULT_PI, PiTarget

ROOT = Path(__file__).resolve().parent.parent
PLAN_DIR = ROOT / "examples" / "pi-extension"
OPL_DIR = ROOT / "examples" / "pi-extension-opl"
PLAN_EXAMPLE = PLAN_DIR / "index.mjs"
OPL_EXAMPLE = OPL_DIR / "index.mjs"


#: One host process per Pi release for the test process: importing Pi costs
#: seconds, and each run is a start of Pi whatever ran before in the process.
_HOSTS: dict[str, PiHost] = {}


def shared_host(pi: str = DEFAULT_PI) -> PiHost:
    """The test process's host for Pi release `pi` (closed at exit)."""
    if pi not in _HOSTS:
        if not _HOSTS:
            atexit.register(_close_hosts)
        _HOSTS[pi] = PiTarget(str(PLAN_EXAMPLE), pi=pi, timeout=120).host
    return _HOSTS[pi]


def _close_hosts() -> None:
    for host in _HOSTS.values():
        host.close()
    _HOSTS.clear()


def running(entry: Path, pi: str = DEFAULT_PI) -> Iterator[PiTarget]:
    """A handshaken `pi:` target for `entry` on the shared host of Pi
    release `pi`, closed afterwards (for fixtures)."""
    target = PiTarget(str(entry), pi=pi, timeout=120, host=shared_host(pi))
    target.handshake()
    yield target
    target.close()


def planted(
    tmp: Path, old: str, new: str, *, example: Path = PLAN_EXAMPLE, module: str = "index.mjs"
) -> Path:
    """The example with one planted bug: its directory's modules copied to
    `tmp`, `old` (which must occur exactly once) replaced by `new` in
    `module`; the copy's entry module."""
    for source in example.parent.glob("*.mjs"):
        shutil.copy(source, tmp / source.name)
    path = tmp / module
    text = path.read_text(encoding="utf-8")
    count = text.count(old)
    assert count == 1, f"{module}: the text to replace occurs {count} times, not once: {old!r}"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return tmp / example.name


@cache
def _suite() -> dict[str, Case]:
    return {c.id: c for c in load_suite()}


def case(case_id: str) -> Case:
    """The suite's case with this id."""
    return _suite()[case_id]


def problems(target: PiTarget, case_id: str) -> list[str]:
    """What the target's answer to the case gets wrong (empty: it passes)."""
    c = case(case_id)
    outcome = target.request(c.operation, c.input)
    assert outcome.kind == "output", outcome.message
    return mismatches(c.expect, outcome.output)


def extension(tmp: Path, source: str, name: str = "ext.mjs") -> Path:
    """An extension file `name` under `tmp` holding `source` (dedented)."""
    path = tmp / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path
