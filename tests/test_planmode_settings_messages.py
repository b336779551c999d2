"""What people read: the warnings and a migrated settings file (snapshots)."""

from __future__ import annotations

from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from pytest_planmode.targets.reference.adapter import REFERENCE

FILES: dict[str, dict[str, Any]] = {
    "invalid-json": {"pi-plan-mode.json": {"kind": "file", "text": '{"thinkingLevel": "high",'}},
    "invalid-thinking": {"pi-plan-mode.json": {"kind": "file", "text": '{"thinkingLevel": "secret"}'}},
    "invalid-model": {
        "pi-plan-mode.json": {
            "kind": "file",
            "text": '{"normalModel": [{"provider": "p", "modelId": "m"}, {"provider": "secret"}]}',
        }
    },
    "invalid-safe-subcommands": {
        "pi-plan-mode.json": {"kind": "file", "text": '{"safeSubcommands": {"secret": [1]}}'}
    },
    "too-large": {"pi-plan-mode.json": {"kind": "file", "text": "{}", "padToBytes": 70000}},
    "directory": {"pi-plan-mode.json": {"kind": "directory"}},
    "unreadable": {"pi-plan-mode.json": {"kind": "unreadable"}},
    "legacy": {"plan-mode.json": {"kind": "file", "text": '{"thinkingLevel": "high"}'}},
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_load_warnings(name: str, snapshot: SnapshotAssertion) -> None:
    out = REFERENCE.call("planmode.settings.load", {"files": FILES[name]})["output"]
    assert all("secret" not in warning for warning in out["warnings"])
    assert out["warnings"] == snapshot


def test_migrated_file(snapshot: SnapshotAssertion) -> None:
    legacy = (
        '{"thinkingLevel":"high","toolVisibility":{"plan_mode_question":"hidden"},'
        '"safeSubcommands":{" git ":["blame"]},"custom":[1,2.5,null,"é"]}'
    )
    out = REFERENCE.call(
        "planmode.settings.save",
        {
            "files": {"plan-mode.json": {"kind": "file", "text": legacy}},
            "edits": [{"field": "defaultPlanExportPath", "value": "docs/PLAN.md"}],
        },
    )["output"]
    assert out["files"]["plan-mode.json"]["text"] == legacy
    assert out["files"]["pi-plan-mode.json"]["text"] == snapshot


def test_refusal_messages(snapshot: SnapshotAssertion) -> None:
    out = REFERENCE.call(
        "planmode.settings.save",
        {
            "files": {"pi-plan-mode.json": {"kind": "file", "text": "{}"}},
            "edits": [
                {"field": "safeSubcommands", "value": {}},
                {"field": "thinkingLevel", "value": "loud"},
                {"field": "thinkingLevel", "value": "low"},
            ],
            "inject": {"edit": 2, "step": "rename"},
        },
    )["output"]
    assert [r["message"] for r in out["results"]] == snapshot
