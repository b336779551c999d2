"""The published JSON Schema of `pi-plan-mode.json` agrees with the loader."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from schema_check import errors

from pytest_planmode.contract.planmode_settings import FileEntry, PiPlanModeDocument
from pytest_planmode.reference.planmode.settings import (
    CANONICAL_NAME,
    LEGACY_NAME,
    MAX_BYTES,
    MAX_DEPTH,
    nesting_depth,
    parse_json,
)
from pytest_planmode.strategies import planmode_settings as s
from pytest_planmode.suite import FIXTURES_DIR, load_file

SCHEMA = "settings/pi-plan-mode.schema.json"


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
        if "status" not in case.expect:
            continue  # an effect-only must case: its `.explained` twin pins the status
        status = case.expect["status"]
        assert status in {"valid", "legacy", "invalid"}, case.id
        out.append((case.id, document, status != "invalid"))
    return out


FIXTURE_DOCUMENTS = _fixture_documents()


def test_enough_fixture_documents_of_both_kinds() -> None:
    valid = sum(1 for _, _, ok in FIXTURE_DOCUMENTS if ok)
    invalid = len(FIXTURE_DOCUMENTS) - valid
    assert valid >= 40 and invalid >= 60, (valid, invalid)


@pytest.mark.parametrize(
    ("case_id", "document", "valid"), FIXTURE_DOCUMENTS, ids=lambda v: v if isinstance(v, str) else ""
)
def test_schema_accepts_valid_and_rejects_invalid_fixture_documents(
    case_id: str, document: Any, valid: bool
) -> None:
    problems = errors(SCHEMA, document)
    if valid:
        assert problems == [], f"{case_id}: the schema rejects a valid document: {problems}"
    else:
        assert problems, f"{case_id}: the schema accepts a document the loader rejects"


@pytest.mark.parametrize(
    ("case_id", "document", "valid"), FIXTURE_DOCUMENTS, ids=lambda v: v if isinstance(v, str) else ""
)
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
    assert errors(SCHEMA, doc) == []


@given(case=s.documents_with_one_invalid_field())
def test_schema_rejects_generated_invalid_documents(case: tuple[dict[str, Any], str]) -> None:
    doc, field = case
    problems = errors(SCHEMA, doc)
    assert problems and all(p.startswith(f"$.{field}") for p in problems), problems


def test_validator_can_fail() -> None:
    assert errors(SCHEMA, {"thinkingLevel": "loud"})
    assert errors(SCHEMA, {"safeSubcommands": {" ": ["x"]}})
    assert errors(SCHEMA, {"defaultPlanExportPath": "plan.md\n"})
    assert errors(SCHEMA, [])
    assert errors(SCHEMA, {"planModel": {"provider": "p", "modelId": "m" * 513}})
