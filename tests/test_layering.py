"""The package's layers, as DESIGN.md draws them.

The reference core (`pytest_planmode/reference/`) decides from its own
values: it imports the standard library, its own modules, the neutral
`pytest_planmode.spec_values` and its parsing libraries, never the contract
(pydantic models), the harness, pytest or the adapter that wraps it. The
contract describes the wire and imports nothing of the reference. The
adapter (`pytest_planmode/targets/reference/`) is the only place that sees
both.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pytest_planmode"

#: First-party modules the reference core may import.
CORE_MAY_IMPORT = ("pytest_planmode.reference", "pytest_planmode.spec_values")
#: Third-party modules the reference core must not import.
CORE_MUST_NOT = ("pydantic", "pydantic_core", "pytest", "_pytest", "hypothesis", "syrupy")
#: First-party modules the contract must not import.
CONTRACT_MUST_NOT = ("pytest_planmode.reference", "pytest_planmode.targets", "pytest_planmode.harness")


def imported_modules(source: str, module: str) -> Iterator[tuple[int, str]]:
    """Every module `source` imports (at any depth, `importlib.import_module`
    with a literal name included), with its line."""
    package = module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            yield node.lineno, base
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.lineno, node.args[0].value


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def core_violations(source: str, module: str) -> list[str]:
    found = []
    for line, name in imported_modules(source, module):
        first_party = _within(name, ("pytest_planmode",))
        if (first_party and not _within(name, CORE_MAY_IMPORT)) or _within(name, CORE_MUST_NOT):
            found.append(f"{module}:{line} imports {name}")
    return found


def contract_violations(source: str, module: str) -> list[str]:
    return [
        f"{module}:{line} imports {name}"
        for line, name in imported_modules(source, module)
        if _within(name, CONTRACT_MUST_NOT) or _within(name, ("pytest", "_pytest"))
    ]


def _modules(folder: str) -> list[tuple[str, str]]:
    found = []
    for path in sorted((PACKAGE / folder).rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        module = ".".join(parts)  # a package's own `__init__` keeps its name: `from .` is the package
        found.append((path.read_text(encoding="utf-8"), module))
    return found


def test_the_reference_core_imports_neither_contract_nor_pydantic_nor_pytest() -> None:
    modules = _modules("reference")
    assert len(modules) > 40
    problems = [p for source, module in modules for p in core_violations(source, module)]
    assert problems == []


def test_the_contract_imports_nothing_of_the_reference() -> None:
    modules = _modules("contract")
    assert len(modules) > 10
    problems = [p for source, module in modules for p in contract_violations(source, module)]
    assert problems == []


@pytest.mark.parametrize(
    "source",
    [
        "from pytest_planmode.contract.planmode_tools import ToolEntry\n",
        "import pydantic\n",
        "def f():\n    import pytest\n",
        "from pytest_planmode.harness import CaseFailure\n",
        "from pytest_planmode.targets.reference.ops import handlers\n",
        "import importlib\nm = importlib.import_module('pydantic')\n",
        "from ...contract import Operation\n",
    ],
)
def test_the_core_check_catches_a_forbidden_import(source: str) -> None:
    assert core_violations(source, "pytest_planmode.reference.planmode.example")


@pytest.mark.parametrize(
    "source",
    [
        "from pytest_planmode.reference.oplmodes.appearance import THEME_TOKENS\n",
        "from ..reference import planmode\n",
        "import pytest\n",
    ],
)
def test_the_contract_check_catches_a_reference_import(source: str) -> None:
    assert contract_violations(source, "pytest_planmode.contract.example")


def test_the_core_check_accepts_the_neutral_module_and_the_standard_library() -> None:
    source = "import re\nfrom pytest_planmode.spec_values import THEME_TOKENS\nfrom . import registry\n"
    assert core_violations(source, "pytest_planmode.reference.oplmodes.example") == []
