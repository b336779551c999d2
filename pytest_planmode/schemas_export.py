"""Generate the shipped JSON Schemas from the contract models.

`planmode schemas write` regenerates `pytest_planmode/schemas/`; `planmode
schemas check` (run by the tests) fails when a checked-in schema has drifted
from its model.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from pytest_planmode import contract
from pytest_planmode.contract import operations
from pytest_planmode.contract.cross_field import RuleSchema
from pytest_planmode.hosts.pi import steps as host_steps

SCHEMAS_DIR = Path(__file__).resolve().parent / "schemas"


def _schema(
    model: type[BaseModel], mode: str, title: str | None = None, description: str | None = None
) -> dict[str, Any]:
    schema = model.model_json_schema(by_alias=True, mode=mode, schema_generator=RuleSchema)  # type: ignore[arg-type]
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
    if title:
        schema["title"] = title
    if description:
        own = schema.get("description")
        schema["description"] = f"{description}\n\n{own}" if own else description
    return schema


def generate() -> dict[str, dict[str, Any]]:
    """Relative path -> schema document, for every schema the kit ships."""
    out: dict[str, dict[str, Any]] = {}
    for name, op in operations().items():
        about = op.describe()
        out[f"operations/{name}.input.schema.json"] = _schema(op.input, "validation", f"{name} input", about)
        out[f"operations/{name}.output.schema.json"] = _schema(
            op.output, "serialization", f"{name} output", about
        )
    for info in sorted(pkgutil.iter_modules(contract.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{contract.__name__}.{info.name}")
        for rel, model in getattr(module, "SCHEMAS", {}).items():
            if rel in out:
                raise RuntimeError(f"schema {rel} is declared twice")
            out[rel] = _schema(model, "validation")
    # The host steps a `pi:` translation sends (hosts/pi/steps.py).
    for rel, model in host_steps.SCHEMAS.items():
        if rel in out:
            raise RuntimeError(f"schema {rel} is declared twice")
        out[rel] = _schema(model, "validation")
    return dict(sorted(out.items()))


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def write(directory: Path = SCHEMAS_DIR) -> list[Path]:
    written = []
    expected = generate()
    for rel, schema in expected.items():
        path = directory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    for stale in directory.rglob("*.json"):
        if stale.relative_to(directory).as_posix() not in expected:
            stale.unlink()
    return written


def drift(directory: Path = SCHEMAS_DIR) -> list[str]:
    """What differs between the checked-in schemas and the models."""
    problems = []
    expected = generate()
    for rel, schema in expected.items():
        path = directory / rel
        if not path.exists():
            problems.append(f"{rel}: missing")
        elif path.read_text(encoding="utf-8") != render(schema):
            problems.append(f"{rel}: differs from its model")
    for path in directory.rglob("*.json"):
        rel = path.relative_to(directory).as_posix()
        if rel not in expected:
            problems.append(f"{rel}: no model declares it")
    return problems
