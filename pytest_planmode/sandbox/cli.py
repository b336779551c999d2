"""`planmode sandbox install|where`: the programs the sandbox observes."""

from __future__ import annotations

import argparse
import shutil
import sys
from typing import Any

from pytest_planmode.sandbox import install, runners, world


def _install(args: argparse.Namespace) -> int:
    try:
        done = install.install(force=args.force)
    except install.InstallError as exc:
        print(f"planmode sandbox install: {exc}", file=sys.stderr)
        return 1
    pins = ", ".join(f"{name} {version}" for name, version in install.installed(done).items())
    print(f"sandbox programs: {done} ({pins})")
    return 0


def _where(args: argparse.Namespace) -> int:
    directory = install.tools_dir()
    print(f"install directory: {directory} ({'present' if directory.is_dir() else 'absent'})")
    missing = 0
    for program in sorted(runners.PROGRAMS | {"node", "python3"}):
        found = world.which(program)
        missing += found is None
        print(f"  {program}: {found or 'not installed (its commands are inconclusive)'}")
    if shutil.which("strace") is None:
        print("  strace: not installed (the sandbox cannot start)")
    return 1 if missing else 0


def add_sandbox_command(sub: Any) -> None:
    box = sub.add_parser("sandbox", help="install or show the programs the sandbox checks observe")
    bsub = box.add_subparsers(dest="action", metavar="ACTION")
    bsub.required = True
    run = bsub.add_parser(
        "install",
        help="install the pinned test runners, compilers and package managers (npm registry, PyPI) into "
        f"the sandbox's program directory (${install.ENV}; default {install.tools_dir()})",
    )
    run.add_argument("--force", action="store_true", help="reinstall even when already installed")
    run.set_defaults(func=_install)
    where = bsub.add_parser("where", help="show where the sandbox finds each program that runs project code")
    where.set_defaults(func=_where)
