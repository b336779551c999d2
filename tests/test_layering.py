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


# -- the whole package: no circle, no import up the layers ---------------------

#: The package's layers, top first; a module belongs to the layer of the
#: longest prefix that names it. A module may import its own layer and the
#: layers below, never one above.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "entry points",
        (
            "pytest_planmode.plugin",
            "pytest_planmode.cli",
            "pytest_planmode.cli_check",
            "pytest_planmode.serve",
            "pytest_planmode.conformance",
            "pytest_planmode.contract_docs",
            "pytest_planmode.schemas_export",
        ),
    ),
    (
        "harness",
        (
            "pytest_planmode.harness",
            "pytest_planmode.sandbox_session",
            "pytest_planmode.properties",
            "pytest_planmode.hypothesis_profiles",
        ),
    ),
    (
        "failure words",
        ("pytest_planmode.failure_text", "pytest_planmode.observability", "pytest_planmode.answer_shape"),
    ),
    ("reports", ("pytest_planmode.reports",)),
    ("targets", ("pytest_planmode.targets", "pytest_planmode.hosts")),
    (
        "suite and contract",
        (
            "pytest_planmode.suite",
            "pytest_planmode.contract",
            "pytest_planmode.strategies",
            "pytest_planmode.sandbox",
        ),
    ),
    (
        "foundations",
        (
            "pytest_planmode",
            "pytest_planmode.reference",
            "pytest_planmode.spec_values",
            "pytest_planmode.matching",
            "pytest_planmode.lineup",
            "pytest_planmode.limits",
            "pytest_planmode.pipe_lines",
            "pytest_planmode.implementation_text",
        ),
    ),
)
#: The harness's rooms (and the plugin that registers them): none over this many lines.
HARNESS_MAX_LINES = 500


def package_sources() -> dict[str, str]:
    """Module name -> source of every module of the package (a package's
    `__init__` under the package's own name)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path.read_text(encoding="utf-8")
    return found


def _ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def import_graph(sources: dict[str, str], packages: set[str] | None = None) -> dict[str, set[str]]:
    """Module -> the modules of `sources` it imports. `from P import m` of a
    submodule counts as importing `P.m`; importing a module from outside its
    package runs the package's `__init__` too, so that counts as well."""
    packages = packages if packages is not None else set()
    graph: dict[str, set[str]] = {}
    for module, source in sources.items():
        own = module if module in packages else module.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(source)):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = own.split(".")
                    parts = parts[: len(parts) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                subs = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in sources]
                names = subs if len(subs) == len(node.names) else [base, *subs]
            for name in names:
                while name and name not in sources:
                    name = name.rpartition(".")[0]
                if not name:
                    continue
                found.add(name)
                mine = set(_ancestors(module)) | {module}
                found.update(a for a in _ancestors(name) if a in sources and a not in mine)
        found.discard(module)
        graph[module] = found
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every group of modules that import each other in a loop (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def layer_of(module: str) -> int:
    """The index of a module's layer (0 is the top)."""
    best, best_len = len(LAYERS), -1
    for number, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if _within(module, (prefix,)) and len(prefix) > best_len:
                best, best_len = number, len(prefix)
    return best


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{module} ({LAYERS[layer_of(module)][0]}) imports {name} ({LAYERS[layer_of(name)][0]})"
        for module, names in graph.items()
        for name in names
        if layer_of(name) < layer_of(module)
    )


def _package_graph() -> dict[str, set[str]]:
    sources = package_sources()
    packages = {".".join(p.relative_to(PACKAGE.parent).parent.parts) for p in PACKAGE.rglob("__init__.py")}
    return import_graph(sources, packages)


def test_every_module_has_a_layer() -> None:
    assert [m for m in package_sources() if layer_of(m) == len(LAYERS)] == []


def test_the_package_has_no_import_circle() -> None:
    assert circles(_package_graph()) == []


def test_no_module_imports_from_a_higher_layer() -> None:
    assert upward_imports(_package_graph()) == []


def test_no_harness_module_is_over_500_lines() -> None:
    rooms = [*sorted((PACKAGE / "harness").glob("*.py")), PACKAGE / "plugin.py"]
    assert len(rooms) > 5
    long = {
        p.name: n for p in rooms if (n := len(p.read_text(encoding="utf-8").splitlines())) > HARNESS_MAX_LINES
    }
    assert long == {}


def test_the_circle_check_finds_a_loop_through_a_package_face() -> None:
    sources = {
        "pkg": "",
        "pkg.low": "from pkg.high import thing\n",
        "pkg.sub": "from pkg.sub.inner import x\n",
        "pkg.sub.inner": "x = 1\n",
        "pkg.high": "import pkg.sub.inner\n",
        "pkg.sub.back": "from pkg import low\n",
    }
    graph = import_graph(sources, {"pkg", "pkg.sub"})
    assert "pkg.sub" in graph["pkg.high"]  # the face runs on an import from outside
    assert circles(graph) == []
    sources["pkg.sub"] = "from pkg.sub import inner\nfrom pkg.sub.back import y\n"
    assert circles(import_graph(sources, {"pkg", "pkg.sub"})) == [
        ["pkg.high", "pkg.low", "pkg.sub", "pkg.sub.back"]
    ]


def test_the_layer_check_finds_an_import_up() -> None:
    graph = {"pytest_planmode.targets.exec_target": {"pytest_planmode.plugin", "pytest_planmode.limits"}}
    assert upward_imports(graph) == [
        "pytest_planmode.targets.exec_target (targets) imports pytest_planmode.plugin (entry points)"
    ]


def contributing_layers(text: str) -> list[str]:
    """The layer names of CONTRIBUTING.md's whole-package table, top first."""
    section = text.split("## The whole package, top to bottom", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| layer")]
    return [row.split("|")[1].strip() for row in rows if not set(row) <= set("| -")]


def test_the_contributing_guide_draws_the_layers_this_test_checks() -> None:
    text = (PACKAGE.parent / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert contributing_layers(text) == [name for name, _ in LAYERS]


def test_the_guide_check_notices_a_layer_left_out() -> None:
    text = (PACKAGE.parent / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert contributing_layers(text.replace("| reports |", "| report writers |")) != [n for n, _ in LAYERS]
