"""One name per thing: the layers spell each operation and area the same way.

- A `pi:` translation is `targets/pi/<operation with _>.py` and declares that
  operation; every other module there is shared (`_…`) or the base.
- A contract area `contract/<spec>_<area>.py` has its converter
  `targets/reference/ops/<spec>_<area>.py` and its conformance module
  `conformance/test_<spec>_<area>.py` (or `test_<area>.py` for the area of
  both specs), under the same name.
- An operation's input and output models are `<Area><Verb>Input` and
  `…Output` (`planmode.tools.authorize`: `ToolsAuthorizeInput`), unless one
  model serves several operations (`ShellCheckInput`: bash and PowerShell).
- The reference core spells an operation area as the operations do
  (`tools_…`, `models_…`, never `tool_…`, `model_…`).
- A fixture file is named by the area its cases pin, words joined by `-`,
  never by how its cases were found (that is a group's `found` field).
- A file the docs name exists.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

from pytest_planmode.contract import operations
from pytest_planmode.targets import pi as pi_targets
from pytest_planmode.targets.pi import TRANSLATIONS

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "pytest_planmode"
#: Modules of targets/pi/ that are not one operation's translation.
PI_SHARED = {"translation", "events"}
#: Words that say how cases were found, not what they pin.
FINDER_WORDS = ("mutation", "power", "sandbox", "found", "gaps", "edges")
FIXTURE_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*\.toml$")
#: Operation areas whose name is plural, with the singular a module must not use.
PLURAL_AREAS = {"tools": "tool", "models": "model"}


def translation_problems(modules: Iterable[str], declared: dict[str, str]) -> list[str]:
    """`modules`: the module names of targets/pi/; `declared`: module ->
    the operation its OPERATION names."""
    problems = []
    for name in modules:
        if name.startswith("_") or name in PI_SHARED:
            continue
        operation = declared.get(name)
        if operation is None:
            problems.append(f"targets/pi/{name}.py declares no OPERATION")
        elif name != operation.replace(".", "_"):
            problems.append(
                f"targets/pi/{name}.py translates {operation}: name it {operation.replace('.', '_')}.py"
            )
    return problems


def area_problems(areas: Iterable[str], files: set[str]) -> list[str]:
    """`areas`: contract module names; `files`: paths present (relative to the package)."""
    problems = []
    for area in areas:
        converter = f"targets/reference/ops/{area}.py"
        if converter not in files:
            problems.append(f"contract/{area}.py has no {converter}")
        # One conformance module per area, or one for the area of both specs.
        shared = f"conformance/test_{area.split('_', 1)[1]}.py"
        if f"conformance/test_{area}.py" not in files and shared not in files:
            problems.append(f"contract/{area}.py has no conformance/test_{area}.py")
    return problems


def camel(operation: str) -> str:
    """`planmode.tools.authorize` -> `ToolsAuthorize`."""
    _, area, verb = operation.split(".")
    return "".join(word.capitalize() for word in re.split(r"[-_]", f"{area}-{verb}"))


def model_problems(models: dict[str, tuple[str, str]]) -> list[str]:
    """`models`: operation -> (input model name, output model name)."""
    users: dict[str, int] = {}
    for names in models.values():
        for name in names:
            users[name] = users.get(name, 0) + 1
    problems = []
    for operation, names in models.items():
        for name, suffix in zip(names, ("Input", "Output"), strict=True):
            if users[name] == 1 and name != camel(operation) + suffix:
                problems.append(
                    f"{operation}: its {suffix.lower()} model is {name}, not {camel(operation)}{suffix}"
                )
    return problems


def core_problems(modules: Iterable[str]) -> list[str]:
    """`modules`: paths of the reference core's modules (`planmode/tool_x.py`)."""
    problems = []
    for path in modules:
        stem = path.rsplit("/", 1)[-1].removesuffix(".py")
        for plural, singular in PLURAL_AREAS.items():
            if stem == singular or stem.startswith(singular + "_"):
                problems.append(f"reference/{path}: the area is spelled {plural}, as its operations do")
    return problems


def fixture_problems(names: Iterable[str]) -> list[str]:
    """`names`: fixture file paths relative to fixtures/ (`planmode/bash.toml`)."""
    problems = []
    for path in names:
        name = path.rsplit("/", 1)[-1]
        if not FIXTURE_NAME.match(name):
            problems.append(f"{path}: words joined by '-', lower case (e.g. tools-authorize.toml)")
        words = set(name.removesuffix(".toml").replace("_", "-").split("-"))
        finder = sorted(words & set(FINDER_WORDS))
        if finder:
            problems.append(
                f"{path}: named by how its cases were found ({finder[0]}); name the area they pin"
            )
    return problems


#: A file of the kit the docs name: a TOML file by path or name
#: (`tools.toml`), a module by its path (a bare `x.py` may be the reader's).
DOC_PATH = re.compile(r"`([\w./-]+\.toml|[\w.-]+/[\w./-]+\.py)`")


def doc_problems(docs: Iterable[Path], exists: set[str]) -> list[str]:
    problems = []
    for doc in docs:
        for match in DOC_PATH.finditer(doc.read_text(encoding="utf-8")):
            path = match.group(1)
            if not any(e == path or e.endswith("/" + path) for e in exists):
                shown = doc.relative_to(ROOT) if doc.is_relative_to(ROOT) else doc.name
                problems.append(f"{shown} names {path}, which does not exist")
    return problems


def _package_files() -> set[str]:
    return {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*") if p.is_file()}


def test_each_translation_is_named_by_its_operation() -> None:
    declared: dict[str, str] = {}
    names = [m.name for m in pkgutil.iter_modules(pi_targets.__path__)]
    for name in names:
        module = importlib.import_module(f"{pi_targets.__name__}.{name}")
        operation = getattr(module, "OPERATION", None)
        if isinstance(operation, str):
            declared[name] = operation
            assert TRANSLATIONS.get(operation) is getattr(module, "TRANSLATION", None), name
    assert translation_problems(names, declared) == []
    assert {op.replace(".", "_") for op in TRANSLATIONS} <= set(names)


def test_each_contract_area_has_its_converter_and_conformance_module_of_the_same_name() -> None:
    areas = {op.input.__module__.rsplit(".", 1)[-1] for op in operations().values()}
    assert len(areas) > 8
    assert area_problems(sorted(areas), _package_files()) == []


def test_each_operation_model_is_named_by_its_operation() -> None:
    models = {name: (op.input.__name__, op.output.__name__) for name, op in operations().items()}
    assert model_problems(models) == []


def test_the_reference_core_spells_the_areas_as_the_operations_do() -> None:
    modules = [p.relative_to(PACKAGE / "reference").as_posix() for p in (PACKAGE / "reference").rglob("*.py")]
    assert len(modules) > 40
    assert core_problems(modules) == []


def test_fixture_files_are_named_by_area() -> None:
    names = [p.relative_to(PACKAGE / "fixtures").as_posix() for p in (PACKAGE / "fixtures").rglob("*.toml")]
    assert len(names) > 20
    assert fixture_problems(names) == []


def test_the_files_the_docs_name_exist() -> None:
    docs = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
    exists = {p.name for p in ROOT.iterdir() if p.is_file()}
    for top in ("pytest_planmode", "docs", "tests", "benchmarks", "examples"):
        exists |= {
            p.relative_to(ROOT).as_posix()
            for p in (ROOT / top).rglob("*")
            if p.is_file() and "node_modules" not in p.parts
        }
    assert doc_problems(docs, exists) == []


# -- each check catches a planted misspelling ----------------------------------


@pytest.mark.parametrize(
    ("modules", "declared"),
    [
        (["planmode_tool_authorize"], {"planmode_tool_authorize": "planmode.tools.authorize"}),
        (["planmode_tools_authorise"], {"planmode_tools_authorise": "planmode.tools.authorize"}),
        (["tools_authorize"], {}),
    ],
)
def test_a_misspelt_translation_is_caught(modules: list[str], declared: dict[str, str]) -> None:
    assert translation_problems(modules, declared)


@pytest.mark.parametrize(
    "models",
    [
        {"planmode.models.fresh": ("FreshInput", "ModelsFreshOutput")},
        {"oplmodes.plans.resolve": ("PlansResolveInput", "PlanResolveOutput")},
    ],
)
def test_a_misnamed_operation_model_is_caught(models: dict[str, tuple[str, str]]) -> None:
    assert model_problems(models)


def test_a_model_shared_by_operations_keeps_its_own_name() -> None:
    shared = {"planmode.bash.check": ("ShellCheckInput", "ShellCheckOutput")}
    shared["planmode.powershell.check"] = shared["planmode.bash.check"]
    assert model_problems(shared) == []


def test_a_converter_under_another_name_is_caught() -> None:
    files = {"targets/reference/ops/planmode_tool.py", "conformance/test_planmode_tools.py"}
    assert area_problems(["planmode_tools"], files) == [
        "contract/planmode_tools.py has no targets/reference/ops/planmode_tools.py"
    ]


@pytest.mark.parametrize(
    "module", ["planmode/tool_workflow.py", "planmode/model_switch.py", "oplmodes/tool.py"]
)
def test_a_singular_area_in_the_core_is_caught(module: str) -> None:
    assert core_problems([module])


@pytest.mark.parametrize(
    "name",
    [
        "planmode/tools_authorize.toml",
        "planmode/bash-mutation-edges.toml",
        "oplmodes/power.toml",
        "oplmodes/bash-sandbox-found.toml",
        "planmode/Bash.toml",
    ],
)
def test_a_misnamed_fixture_file_is_caught(name: str) -> None:
    assert fixture_problems([name])


def test_a_doc_naming_a_missing_file_is_caught(tmp_path: Path) -> None:
    planted = tmp_path / "x.md"
    planted.write_text(
        "See `pytest_planmode/fixtures/planmode/tools.toml` and "
        "`pytest_planmode/fixtures/planmode/tools_authorise.toml`.\n",
        encoding="utf-8",
    )
    exists = {"pytest_planmode/fixtures/planmode/tools.toml"}
    assert doc_problems([planted], exists) == [
        "x.md names pytest_planmode/fixtures/planmode/tools_authorise.toml, which does not exist"
    ]
