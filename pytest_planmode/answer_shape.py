"""Whether an answer has its operation's output shape, before any case
compares the values it names.

An answer is validated whole against the operation's output model
(`contract`), strictly: `1` is not `true`, `"1"` is not `1`. Every effect
field must be present and well-typed; an explanation field may be left
out, and when present it must be well-typed (`contract.base`). Fields the
contract does not declare are allowed and not checked: the contract lets a
target add fields (`ContractOutput`), a port often carries its own debugging
state, and a typo of an effect field is caught anyway because the field it
meant is then missing.

JSON has one number type, so an integral number (`1.0`) is an integer, as
JSON Schema reads it.

Problems are written like the mismatches of `matching`: the field's path,
what the contract asks for, what came.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from pytest_planmode.contract import operations

#: Deeper error locations are shown as pydantic gives them.
MAX_DEPTH = 16

#: At most this many problems are listed per answer; the rest are counted.
MAX_PROBLEMS = 5

_EXPECTED = {
    "model_type": "an object",
    "model_attributes_type": "an object",
    "dict_type": "an object",
    "list_type": "a list",
    "bool_type": "a boolean",
    "int_type": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "string_type": "a string",
    "none_required": "null",
}


def _show(value: Any, limit: int = 120) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _path(value: Any, loc: Sequence[int | str], missing: bool) -> list[int | str]:
    """The path through `value` that an error location names.

    A location also holds labels of union members (a tag value, a type
    name) that are not fields of the value. Of the ways to read it, the
    best ends at the location's last element (the field at fault) and
    follows the value the furthest."""
    if len(loc) > MAX_DEPTH:
        return list(loc)
    return _read(value, loc, missing)[1]


def _read(value: Any, loc: Sequence[int | str], missing: bool) -> tuple[bool, list[int | str]]:
    if not loc:
        return False, []
    head, rest = loc[0], loc[1:]
    best = _read(value, rest, missing)
    in_dict = isinstance(value, dict) and isinstance(head, str) and head in value
    in_list = isinstance(value, list) and isinstance(head, int) and 0 <= head < len(value)
    step: Any = value[head] if in_dict or in_list else _NOTHING
    if step is _NOTHING and missing and not rest and isinstance(value, dict) and isinstance(head, str):
        return True, [head]
    if step is not _NOTHING:
        ends, tail = _read(step, rest, missing) if rest else (True, [])
        followed = (ends, [head, *tail])
        if (followed[0], len(followed[1])) >= (best[0], len(best[1])):
            best = followed
    return best


_NOTHING = object()


def _render(path: Sequence[int | str]) -> str:
    text = "output"
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def _expected(error: ErrorDetails) -> str:
    kind = error["type"]
    if kind == "union_tag_invalid":
        return f"one of {(error.get('ctx') or {}).get('expected_tags', '?')}"
    if kind in _EXPECTED:
        return _EXPECTED[kind]
    text = error["msg"]
    for prefix in ("Input should be ", "Value should be ", "Value error, "):
        if text.startswith(prefix):
            text = text.removeprefix(prefix)
            break
    return text.replace("a valid ", "a ", 1)


def _integral(value: Any) -> Any:
    """`value` with every integral float written as an int."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_integral(v) for v in value]
    if isinstance(value, dict):
        return {k: _integral(v) for k, v in value.items()}
    return value


def shape_problems(operation: str, output: dict[str, Any]) -> list[str]:
    """Every place where `output` does not have `operation`'s output
    shape, at most :data:`MAX_PROBLEMS` lines; none for a well-shaped answer."""
    model = operations()[operation].output
    try:
        model.model_validate(output, strict=True)
        return []
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
    except RecursionError:
        return ["output: nested too deeply to be checked against the contract"]
    if any(e["type"] == "int_type" and isinstance(e["input"], float) for e in errors):
        output = _integral(output)
        try:
            model.model_validate(output, strict=True)
            return []
        except ValidationError as exc:
            errors = exc.errors(include_url=False)
    # A union reports once per member: one line per field, its
    # alternatives joined.
    missing_at: list[str] = []
    wanted: dict[str, tuple[list[str], str]] = {}
    for error in errors:
        missing = error["type"] in ("missing", "union_tag_not_found")
        loc = list(error["loc"])
        came = error["input"]
        if error["type"] in ("union_tag_invalid", "union_tag_not_found"):
            # The tag is the field that is wrong or missing.
            tag = str((error.get("ctx") or {}).get("discriminator", "type")).strip("'")
            loc.append(tag)
            came = came.get(tag) if isinstance(came, dict) else came
        where = _render(_path(output, loc, missing))
        if missing:
            if where not in missing_at:
                missing_at.append(where)
            continue
        alternatives, _ = wanted.setdefault(where, ([], _show(came)))
        if (text := _expected(error)) not in alternatives:
            alternatives.append(text)
    problems = [f"{where}: missing (required: every answer carries it)" for where in missing_at]
    problems += [f"{where}: expected {' or '.join(alts)}, got {got}" for where, (alts, got) in wanted.items()]
    if len(problems) > MAX_PROBLEMS:
        problems = [*problems[:MAX_PROBLEMS], f"... {len(problems) - MAX_PROBLEMS} more shape problem(s)"]
    return problems
