"""The kit as a user installs it: from a built wheel, in a fresh virtual
environment, run from an unrelated directory."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from pytest_planmode.suite import CONFORMANCE_DIR, load_suite


def run(cmd: list[str], cwd: Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHON"))}
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=900, **kwargs)  # type: ignore[call-overload, no-any-return]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel built from this checkout installed in it."""
    base = tmp_path_factory.mktemp("wheel")
    dist = base / "dist"
    # Built from a copy: setuptools writes `build/` into the tree it builds,
    # and two xdist workers building the checkout at once collide there.
    source = base / "source"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "dist", "*.egg-info", "node_modules", "mutants", "__pycache__", ".tox"
        ),
    )
    built = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(dist), str(source)], cwd=base)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = dist.glob("pytest_planmode-*.whl")
    venv = base / "venv"
    made = run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], cwd=base)
    assert made.returncode == 0, made.stderr
    pip = run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)], cwd=base)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    return venv


def test_wheel_ships_the_whole_suite(installed: Path, tmp_path: Path) -> None:
    """Every fixture case and property module is in the wheel, and a slice
    of the suite runs from an unrelated directory."""
    python = str(installed / "bin" / "python")
    where = run([python, "-c", "import pytest_planmode, sys; print(pytest_planmode.__file__)"], cwd=tmp_path)
    assert str(ROOT) not in where.stdout, "the wheel's venv imported the checkout"
    listing = run(
        [
            python,
            "-c",
            "import json; from pytest_planmode.suite import CONFORMANCE_DIR, load_suite; "
            "print(json.dumps([[c.id for c in load_suite()], sorted(p.name for p in CONFORMANCE_DIR.glob('test_*.py'))]))",
        ],
        cwd=tmp_path,
    )
    assert listing.returncode == 0, listing.stderr[-2000:]
    ids, modules = json.loads(listing.stdout)
    assert sorted(ids) == sorted(c.id for c in load_suite())
    assert modules == sorted(p.name for p in CONFORMANCE_DIR.glob("test_*.py"))
    report = tmp_path / "report.json"
    result = run(
        [python, "-m", "pytest", "-p", "no:cacheprovider", "--planmode-target=reference",
         f"--planmode-report={report}", "-m", "oplmodes_plans_resolve"],
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    (data,) = json.loads(report.read_text())["targets"]
    plans = {c.id for c in load_suite() if c.operation == "oplmodes.plans.resolve"}
    assert plans < set(data["results"]) and set(data["results"].values()) == {"passed"}
    assert any(".property." in case_id for case_id in data["results"])


@pytest.mark.whole_suite
def test_wheel_runs_the_whole_suite(installed: Path, tmp_path: Path) -> None:
    """The porting guide's first check, as written: the whole suite against
    the reference from the installed wheel, strict."""
    report = tmp_path / "report.json"
    result = run(
        [str(installed / "bin" / "python"), "-m", "pytest", "-p", "no:cacheprovider", "--planmode-target=reference",
         "--planmode-strict", "-q", f"--planmode-report={report}"],
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    (data,) = json.loads(report.read_text())["targets"]
    assert {c.id for c in load_suite()} <= set(data["results"])
    assert data["totals"]["failed"] == 0 and data["totals"]["error"] == 0
    assert any(".property." in case_id for case_id in data["results"])


def test_wheel_cli_and_plugin_switch(installed: Path, tmp_path: Path) -> None:
    lint = run([str(installed / "bin" / "planmode"), "fixtures", "lint"], cwd=tmp_path)
    assert lint.returncode == 0 and ": ok" in lint.stdout, lint.stderr
    off = run(
        [
            str(installed / "bin" / "python"),
            "-m",
            "pytest",
            "-p",
            "no:planmode",
            "--planmode-target=reference",
        ],
        cwd=tmp_path,
    )
    assert off.returncode == 4 and "unrecognized arguments" in off.stderr


def test_wheel_explains_every_operation(installed: Path, tmp_path: Path) -> None:
    from pytest_planmode.contract import operations

    for name in ("planmode.lifecycle.run", "oplmodes.modes.script", "planmode.bash.check"):
        out = run([str(installed / "bin" / "planmode"), "explain", "--operation", name], cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith(name) and "output fields (effect" in out.stdout
        assert "example exchange" in out.stdout
    assert (
        "events (by their `type`):"
        in run(
            [str(installed / "bin" / "planmode"), "explain", "--operation", "planmode.lifecycle.run"],
            cwd=tmp_path,
        ).stdout
    )
    assert len(operations()) > 10


def test_sdist_ships_the_docs(tmp_path: Path) -> None:
    code = "import sys; from setuptools import build_meta; print(build_meta.build_sdist(sys.argv[1]))"
    # The build backend pip would use (the project's license expression
    # needs a recent setuptools), in a venv of its own.
    venv = tmp_path / "venv"
    assert run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path).returncode == 0
    python = str(venv / "bin" / "python")
    got = run([python, "-m", "pip", "install", "--quiet", "setuptools>=77"], cwd=tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    built = run([python, "-c", code, str(tmp_path)], cwd=ROOT)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    import tarfile

    (sdist,) = tmp_path.glob("pytest_planmode-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    for doc in ("docs/porting.md", "docs/areas/planmode-lifecycle.md", "CHANGELOG.md", "LICENSE"):
        assert doc in names, sorted(names)[:50]
