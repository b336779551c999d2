"""The package stays ruff- and mypy --strict-clean."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from conftest import ROOT


def test_ruff_clean() -> None:
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    result = subprocess.run(
        [ruff, "check", "pytest_planmode", "tests", "benchmarks"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout[-6000:]


def test_ruff_format_clean() -> None:
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    result = subprocess.run(
        [ruff, "format", "--check", "pytest_planmode", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-6000:]


def test_mypy_strict_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "pytest_planmode"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout[-6000:]
