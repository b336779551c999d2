"""An operation's contract as text, from the shipped models and fixtures,
so it travels with the installed package (`planmode explain --operation`):
its summary, the event vocabulary of a script operation, the input and
output fields with their descriptions, and one request/answer exchange."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pytest_planmode.suite import Case


def _type_of(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " | ".join(_type_of(s) for s in schema[key])
    kind = schema.get("type")
    if kind == "array":
        return f"array of {_type_of(schema.get('items', {}))}"
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    return str(kind or "any")


def _fields(schema: dict[str, Any], indent: str = "  ") -> list[str]:
    required = set(schema.get("required", ()))
    lines = []
    for name, prop in schema.get("properties", {}).items():
        flag = "" if name in required else " (optional)"
        # An output field's class: an effect is checked, an explanation is for people.
        role = f" [{prop['x-planmode']}]" if "x-planmode" in prop else ""
        lines.append(f"{indent}{name}: {_type_of(prop)}{flag}{role}")
        description = prop.get("description")
        if description:
            lines.append(f"{indent}    {' '.join(str(description).split())}")
    return lines or [f"{indent}(no fixed fields)"]


def _events(schema: dict[str, Any]) -> list[str]:
    """The `type` vocabulary of the models in the schema's definitions."""
    lines = []
    for name, definition in sorted(schema.get("$defs", {}).items()):
        kind = definition.get("properties", {}).get("type", {})
        tag = kind.get("const", (kind.get("enum") or [None])[0] if len(kind.get("enum", [])) == 1 else None)
        if tag is None:
            continue
        lines.append(f"  {tag}  ({name})")
        if definition.get("description"):
            lines.append(f"      {' '.join(str(definition['description']).split())}")
        lines.extend(line for line in _fields(definition, "      ") if not line.lstrip().startswith("type:"))
    return lines


def explain_operation(name: str, cases: Sequence[Case]) -> str | None:
    from pytest_planmode.contract import operations

    op = operations().get(name)
    if op is None:
        return None
    input_schema = op.input.model_json_schema()
    lines = [f"{op.name}  ({op.kind})", op.describe(), ""]
    events = _events(input_schema)
    if events:
        lines += ["events (by their `type`):", *events, ""]
    lines += ["input fields:", *_fields(input_schema), ""]
    from pytest_planmode.observability import field_rows

    lines += [
        "output fields (effect: required, what an implementation visibly does; explanation:",
        "optional, why the reference did it; must cases pin effects only):",
        *(
            f"  {row.path}  [{row.cls or 'unclassified'}]"
            + (f": {row.description}" if row.description else "")
            for row in field_rows(op.output)
        ),
        "",
    ]
    example = next((case for case in cases if case.operation == name), None)
    if example is not None:
        from pytest_planmode.targets.loader import resolve_target

        target = resolve_target("reference", timeout=5.0)
        outcome = target.request(name, example.input)
        answer: dict[str, Any] = (
            {"id": 1, "output": outcome.output}
            if outcome.kind == "output"
            else {"id": 1, "error": {"message": outcome.message}}
        )
        request = {"id": 1, "op": name, "input": example.input}
        lines += [
            f"example exchange (case {example.id}, the reference's answer):",
            f"  > {json.dumps(request, ensure_ascii=False)}",
            f"  < {json.dumps(answer, ensure_ascii=False)}",
            "",
        ]
    lines.append(
        "Schemas: pytest_planmode/schemas/operations/"
        f"{name}.input.schema.json and .output.schema.json; `planmode explain CASE_ID` for one case."
    )
    return "\n".join(lines)
