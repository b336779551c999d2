"""`planmode pi install [VERSION ...]`: install the real Pi ahead of time."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pytest_planmode.hosts.pi import install


def _install(args: argparse.Namespace) -> int:
    versions = list(args.versions) or list(install.VERSIONS)
    cache = install.cache_dir()
    status = 0
    for version in versions:
        try:
            done = install.install(version, cache, force=args.force)
        except install.InstallError as exc:
            print(f"planmode pi install: {exc}", file=sys.stderr)
            status = 1
            continue
        print(f"Pi {done.version}: {done.root} (node: {done.node})")
    return status


def _where(args: argparse.Namespace) -> int:
    status = 0
    for version in list(args.versions) or list(install.VERSIONS):
        try:
            found = install.find(version)
        except install.InstallError as exc:
            print(f"{version}: {exc}")
            status = 1
        else:
            print(f"Pi {found.version}: {found.root} (node: {found.node})")
    return status


def add_pi_command(sub: Any) -> None:
    pi = sub.add_parser("pi", help="install the real Pi that pi: targets run extensions in")
    psub = pi.add_subparsers(dest="action", metavar="ACTION")
    psub.required = True
    known = ", ".join(install.VERSIONS)
    run = psub.add_parser(
        "install",
        help=f"install pinned Pi releases (default: {known}) into the cache "
        f"(${install.CACHE_ENV}, default ~/.cache/pytest-planmode/pi); needs the npm registry",
    )
    run.add_argument("versions", nargs="*", metavar="VERSION", help=f"Pi versions (default: {known})")
    run.add_argument("--force", action="store_true", help="reinstall even when already installed")
    run.set_defaults(func=_install)
    where = psub.add_parser("where", help="show where each Pi version is installed, if it is")
    where.add_argument("versions", nargs="*", metavar="VERSION")
    where.set_defaults(func=_where)
