"""The published JSON Schema of `pi-plan-mode.json` agrees with the loader.

`jsonschema` is not a dependency, so a small validator for exactly the
keywords the generated schema uses is written here; an unknown keyword fails
the test instead of being ignored. Regular expressions follow ECMAScript
(`$` matches only at the very end).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given

from pytest_planmode.contract.planmode_settings import FileEntry, PiPlanModeDocument
from pytest_planmode.reference.planmode.settings import (
    CANONICAL_NAME,
    LEGACY_NAME,
    MAX_BYTES,
    MAX_DEPTH,
    nesting_depth,
    parse_json,
)
from pytest_planmode.schemas_export import generate
from pytest_planmode.strategies import planmode_settings as s
from pytest_planmode.suite import FIXTURES_DIR, load_file

SCHEMA = generate()["settings/pi-plan-mode.schema.json"]
_IGNORED = {"$schema", "title", "description", "default", "$defs"}
_TYPES: dict[str, Any] = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}


def _ecma(pattern: str) -> re.Pattern[str]:
    return re.compile(re.sub(r"(?<!\\)\$", r"\\Z", pattern))


def _is_type(value: Any, name: str) -> bool:
    if name in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        return name == "number" or float(value).is_integer()
    return isinstance(value, _TYPES[name])


def errors(value: Any, schema: dict[str, Any] | bool, root: dict[str, Any], at: str = "$") -> list[str]:
    """Every violation of `schema` by `value` (draft 2020-12 subset)."""
    if schema is True:
        return []
    if schema is False:
        return [f"{at}: no value is allowed here"]
    found: list[str] = []
    for key, rule in schema.items():
        if key in _IGNORED:
            continue
        if key == "$ref":
            assert rule.startswith("#/$defs/"), rule
            found += errors(value, root["$defs"][rule[len("#/$defs/"):]], root, at)
        elif key == "type":
            names = rule if isinstance(rule, list) else [rule]
            if not any(_is_type(value, n) for n in names):
                found.append(f"{at}: not {rule}")
        elif key == "enum":
            if not any(type(value) is type(option) and value == option for option in rule):
                found.append(f"{at}: not one of {rule}")
        elif key == "const":
            if not (type(value) is type(rule) and value == rule):
                found.append(f"{at}: not {rule!r}")
        elif key == "anyOf":
            if all(errors(value, sub, root, at) for sub in rule):
                found.append(f"{at}: matches none of anyOf")
        elif key in ("minLength", "maxLength"):
            # JSON Schema counts code points, as Python does.
            short = key == "minLength" and isinstance(value, str) and len(value) < rule
            long = key == "maxLength" and isinstance(value, str) and len(value) > rule
            if short or long:
                found.append(f"{at}: length {len(value)} breaks {key}={rule}")
        elif key == "pattern":
            if isinstance(value, str) and not _ecma(rule).search(value):
                found.append(f"{at}: does not match {rule!r}")
        elif key == "minItems":
            if isinstance(value, list) and len(value) < rule:
                found.append(f"{at}: fewer than {rule} items")
        elif key == "items":
            if isinstance(value, list):
                for index, item in enumerate(value):
                    found += errors(item, rule, root, f"{at}[{index}]")
        elif key == "required":
            if isinstance(value, dict):
                found += [f"{at}: {name} is required" for name in rule if name not in value]
        elif key in ("properties", "patternProperties", "additionalProperties", "propertyNames"):
            continue  # handled together below
        else:
            raise AssertionError(f"the schema uses {key!r}, which this validator does not know")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        patterns = schema.get("patternProperties", {})
        for name, item in value.items():
            matched = False
            if name in properties:
                matched = True
                found += errors(item, properties[name], root, f"{at}.{name}")
            for pattern, sub in patterns.items():
                if _ecma(pattern).search(name):
                    matched = True
                    found += errors(item, sub, root, f"{at}.{name}")
            if not matched and "additionalProperties" in schema:
                found += errors(item, schema["additionalProperties"], root, f"{at}.{name}")
            if "propertyNames" in schema:
                found += errors(name, schema["propertyNames"], root, f"{at}.<key {name!r}>")
    return found


def _fixture_documents() -> list[tuple[str, Any, bool]]:
    """(case id, document, loader says valid) for every load fixture whose
    deciding file is JSON within the size and depth limits."""
    out = []
    for case in load_file(FIXTURES_DIR / "planmode" / "settings-load.toml"):
        if "previousFiles" in case.input:
            continue
        files = case.input.get("files", {})
        name = CANONICAL_NAME if CANONICAL_NAME in files else LEGACY_NAME
        if name not in files or files[name]["kind"] != "file":
            continue
        data = FileEntry.model_validate(files[name]).content()
        try:
            text = data.decode("utf-8")
            if text.startswith("\ufeff") or len(data) > MAX_BYTES or nesting_depth(text) > MAX_DEPTH:
                continue
            document = parse_json(text)
        except ValueError:
            continue
        status = case.expect["status"]
        assert status in {"valid", "legacy", "invalid"}, case.id
        out.append((case.id, document, status != "invalid"))
    return out


FIXTURE_DOCUMENTS = _fixture_documents()


def test_enough_fixture_documents_of_both_kinds() -> None:
    valid = sum(1 for _, _, ok in FIXTURE_DOCUMENTS if ok)
    invalid = len(FIXTURE_DOCUMENTS) - valid
    assert valid >= 40 and invalid >= 60, (valid, invalid)


@pytest.mark.parametrize(("case_id", "document", "valid"), FIXTURE_DOCUMENTS, ids=lambda v: v if isinstance(v, str) else "")
def test_schema_accepts_valid_and_rejects_invalid_fixture_documents(
    case_id: str, document: Any, valid: bool
) -> None:
    problems = errors(document, SCHEMA, SCHEMA)
    if valid:
        assert problems == [], f"{case_id}: the schema rejects a valid document: {problems}"
    else:
        assert problems, f"{case_id}: the schema accepts a document the loader rejects"


@pytest.mark.parametrize(("case_id", "document", "valid"), FIXTURE_DOCUMENTS, ids=lambda v: v if isinstance(v, str) else "")
def test_model_agrees_with_the_loader(case_id: str, document: Any, valid: bool) -> None:
    """The pydantic model the schema is generated from (JSON mode, strict)."""
    text = json.dumps(document)
    try:
        PiPlanModeDocument.model_validate_json(text)
        accepted = True
    except ValueError:
        accepted = False
    assert accepted == valid, case_id


@given(doc=s.valid_documents())
def test_schema_accepts_generated_valid_documents(doc: dict[str, Any]) -> None:
    assert errors(doc, SCHEMA, SCHEMA) == []


@given(case=s.documents_with_one_invalid_field())
def test_schema_rejects_generated_invalid_documents(case: tuple[dict[str, Any], str]) -> None:
    doc, field = case
    problems = errors(doc, SCHEMA, SCHEMA)
    assert problems and all(p.startswith(f"$.{field}") for p in problems), problems


def test_validator_can_fail() -> None:
    assert errors({"thinkingLevel": "loud"}, SCHEMA, SCHEMA)
    assert errors({"safeSubcommands": {" ": ["x"]}}, SCHEMA, SCHEMA)
    assert errors({"defaultPlanExportPath": "plan.md\n"}, SCHEMA, SCHEMA)
    assert errors([], SCHEMA, SCHEMA)
    assert errors({"planModel": {"provider": "p", "modelId": "m" * 513}}, SCHEMA, SCHEMA)
