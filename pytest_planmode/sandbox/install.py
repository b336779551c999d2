"""The test runners, compilers and package managers the sandbox observes,
installed ahead of time into one directory (`planmode sandbox install`).

The specs admit them in some forms (they run the project's own code), so
the sandbox runs them rather than leaving them out: a form that writes,
deletes, opens or reaches beyond what the bare admitted form does is
seen. From the npm registry (pinned): the TypeScript compiler, jest,
vitest, pnpm, yarn and Biome; from PyPI: ruff. The directory is mounted
read-only into every sandbox at `world.TOOLS` and its programs come first
on the sandboxed PATH. Programs from Debian (npm, npx, pytest, go, cargo,
pip) are found on the machine's PATH as before; a program found nowhere
makes a command naming it inconclusive, with that reason.

The directory is `$PLANMODE_SANDBOX_TOOLS` if set; else, run as root,
`/usr/local/lib/pytest-planmode/sandbox` (the sandbox maps root to an
unprivileged user, who cannot enter root's home); else
`pytest-planmode/sandbox` under `$XDG_CACHE_HOME` (default `~/.cache`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ENV = "PLANMODE_SANDBOX_TOOLS"
#: npm packages, pinned: name -> version.
NPM_PACKAGES: dict[str, str] = {
    "typescript": "7.0.2",
    "jest": "30.5.2",
    "vitest": "4.1.12",
    "pnpm": "12.23.0",
    "yarn": "1.22.22",
    "@biomejs/biome": "2.6.8",
}
#: PyPI packages, pinned (ruff is one static program).
PIP_PACKAGES: dict[str, str] = {"ruff": "0.17.6"}
#: Where each kind of program lands under the directory.
NODE_BIN = "node/node_modules/.bin"
PYTHON_BIN = "python/bin"
MARKER = ".planmode-sandbox-tools.json"
INSTALL_TIMEOUT = 900.0


class InstallError(Exception):
    """An install failed; the message says why and what to do."""


def tools_dir() -> Path:
    explicit = os.environ.get(ENV)
    if explicit:
        return Path(explicit)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return Path("/usr/local/lib/pytest-planmode/sandbox")
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pytest-planmode" / "sandbox"


def installed(directory: Path | None = None) -> dict[str, str]:
    """What the directory holds (package -> version), empty when nothing."""
    marker = (directory or tools_dir()) / MARKER
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _run(argv: list[str], cwd: Path, what: str) -> None:
    try:
        done = subprocess.run(
            argv, cwd=cwd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        raise InstallError(
            f"{what} did not finish within {INSTALL_TIMEOUT:g} s (is the registry reachable?)"
        ) from None
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
        raise InstallError(f"{what} failed (exit {done.returncode}); it said:\n{tail}")


def install(directory: Path | None = None, *, force: bool = False) -> Path:
    """Install every pinned package into the directory (atomically: a
    failed install leaves the previous one in place). Needs npm and pip."""
    target = directory or tools_dir()
    wanted = {**NPM_PACKAGES, **PIP_PACKAGES}
    if not force and installed(target) == wanted:
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise InstallError("npm is not on PATH: install Node.js with npm (Debian: nodejs, npm)")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        os.chmod(staging, 0o755)
        node = staging / "node"
        node.mkdir()
        manifest = {"name": "planmode-sandbox-tools", "private": True, "dependencies": NPM_PACKAGES}
        (node / "package.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        npm_argv = [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"]
        _run(npm_argv, node, "npm install (sandbox programs)")
        pins = [f"{name}=={version}" for name, version in PIP_PACKAGES.items()]
        pip_argv = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps"]
        _run(
            [*pip_argv, "--target", str(staging / "python"), *pins], staging, "pip install (sandbox programs)"
        )
        (staging / MARKER).write_text(json.dumps(wanted, indent=2) + "\n", encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return target


def bin_dirs(directory: Path | None = None) -> list[Path]:
    """The directory's program folders that exist, in PATH order."""
    base = directory or tools_dir()
    return [base / sub for sub in (NODE_BIN, PYTHON_BIN) if (base / sub).is_dir()]
