"""The cross-field rules of the input models, stated in the published
JSON Schemas.

Each rule a model's validator enforces across its fields is written here
once more as JSON Schema, so that an input the published schema accepts is
one the model accepts. A rule JSON Schema cannot state (an index into
another array, an order in time, the size of decoded bytes) is written in
words in the model's schema description instead.

:class:`RuleSchema` is the schema generator that adds them (used by
`schemas_export`): a model's rules are added to its own schema, and a
model inherits the rules of the models it derives from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from pytest_planmode.contract import (
    host_events,
    oplmodes_config,
    oplmodes_models,
    oplmodes_modes,
    planmode_lifecycle,
    planmode_models,
    planmode_settings,
    planmode_tools,
)
from pytest_planmode.contract.events import EventScript

#: What `base64.b64decode(..., validate=True)` accepts: groups of four
#: characters of the alphabet, the last one padded.
BASE64_PATTERN = r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"


@dataclass(frozen=True)
class Rule:
    """One cross-field rule: in words, and as a JSON Schema (None when
    JSON Schema cannot state it)."""

    text: str
    schema: dict[str, Any] | None = None


def _absent_or_null(*names: str) -> dict[str, Any]:
    return {"properties": {name: {"type": "null"} for name in names}}


def _given(name: str, kind: str, *absent: str) -> dict[str, Any]:
    """`name` is given with JSON type `kind`; each of `absent` is absent or null."""
    return {
        "required": [name],
        "properties": {name: {"type": kind}, **{other: {"type": "null"} for other in absent}},
    }


RULES: dict[type[BaseModel], tuple[Rule, ...]] = {
    planmode_settings.FileEntry: (
        Rule(
            "A `file` entry has exactly one of `text` or `base64`; `fill` goes with `text` only.",
            {
                "if": {"properties": {"kind": {"const": "file"}}},
                "then": {
                    "oneOf": [
                        _given("text", "string", "base64"),
                        {
                            "required": ["base64"],
                            "properties": {
                                "base64": {"type": "string"},
                                "text": {"type": "null"},
                                "fill": {"maxProperties": 0},
                            },
                        },
                    ]
                },
            },
        ),
        Rule(
            "Any other entry has no content: no `text`, `base64`, `fill` or `padToBytes` (0 allowed).",
            {
                "if": {"properties": {"kind": {"not": {"const": "file"}}}},
                "then": {
                    "properties": {
                        "text": {"type": "null"},
                        "base64": {"type": "null"},
                        "fill": {"maxProperties": 0},
                        "padToBytes": {"enum": [None, 0]},
                    }
                },
            },
        ),
        Rule(
            "`to` is for `symlink` entries only.",
            {
                "if": {"properties": {"kind": {"not": {"const": "symlink"}}}},
                "then": _absent_or_null("to"),
            },
        ),
        Rule(
            "`base64` is valid padded base64.",
            {"properties": {"base64": {"anyOf": [{"type": "null"}, {"pattern": BASE64_PATTERN}]}}},
        ),
        Rule("`padToBytes` is at least the size of the content (not stated as JSON Schema)."),
    ),
    planmode_settings.SaveEdit: (
        Rule(
            "An edit has either a `value` (any JSON value, null included) or `reset = true`, not both.",
            {
                "oneOf": [
                    {"required": ["value"], "properties": {"reset": {"const": False}}},
                    {
                        "required": ["reset"],
                        "properties": {"reset": {"const": True}},
                        "not": {"required": ["value"]},
                    },
                ]
            },
        ),
    ),
    planmode_settings.SettingsSaveInput: (
        Rule(
            "`inject.edit` is the index of an edit of `edits`, and that edit is a save "
            "(not stated as JSON Schema)."
        ),
    ),
    oplmodes_config.ConfigLoadInput: (
        Rule(
            "Give `document` or `text` (a string), not both.",
            {"not": {"required": ["document", "text"], "properties": {"text": {"type": "string"}}}},
        ),
    ),
    host_events.ToolCall: (
        Rule(
            "A `bash` or `powershell` call carries its command: `input.command` is a string.",
            {
                "if": {"required": ["tool"], "properties": {"tool": {"enum": list(host_events.SHELL_TOOLS)}}},
                "then": {
                    "required": ["input"],
                    "properties": {
                        "input": {"required": ["command"], "properties": {"command": {"type": "string"}}}
                    },
                },
            },
        ),
    ),
    host_events.UiAnswer: (
        Rule(
            "An answer names its item in exactly one way: `label` (null dismisses), `index` or "
            "`role`; `plan` goes with a role.",
            {
                "oneOf": [{"required": [way]} for way in host_events.ANSWER_WAYS],
                "if": {"required": ["plan"], "properties": {"plan": {"type": "string"}}},
                "then": {"required": ["role"], "properties": {"role": {"type": "string"}}},
            },
        ),
    ),
    host_events.SessionTree: (
        Rule(
            "The target is either `to` (a label) or `entries`, exactly one of the two.",
            {"oneOf": [_given("to", "string", "entries"), _given("entries", "array", "to")]},
        ),
    ),
    EventScript: (
        Rule(
            "Events are in non-decreasing virtual time: an event without `at` happens at the "
            "previous event's instant (not stated as JSON Schema)."
        ),
        Rule(
            "A `ui.answer` names its item by `index` or `role` only in an operation whose menus "
            "take positions or roles (its description lists the roles); elsewhere by `label` "
            "(not stated as JSON Schema)."
        ),
    ),
    oplmodes_modes.ModesScriptInput: (
        Rule(
            "Tool calls happen inside an agent run (`agent.start` ... `agent.settle`), session "
            "moves between runs; a `session.tree` event gives the new branch's `entries`; a "
            "`ui.answer` may name its item by `index` (0 first) or by `role`: "
            + "; ".join(f"`{role}`, {what}" for role, what in oplmodes_modes.MENU_ROLES.items())
            + " (not stated as JSON Schema)."
        ),
    ),
    planmode_tools.ToolsAuthorizeInput: (
        Rule(
            "Tool calls and contexts happen inside an agent run, session moves between runs and "
            "at most one run is open; commands are `/plan` with one of its arguments; the tools "
            "picker is only dismissed (`label = null`); `handler.settle` follows an `extension.hold` "
            "of its handler; `session.tree` names a label given earlier in the same session; "
            "`session.resume` gives no entries (not stated as JSON Schema)."
        ),
    ),
    planmode_lifecycle.LifecycleRunInput: (
        Rule(
            "Contexts and tool calls happen inside an agent run and tree moves between runs; "
            "resume, reload and restart end the open run; `ui.answer` answers the menu open "
            "before it (the ready menu opens when a run that called `plan_mode_complete` "
            "settles, `/plan` opens the Plan menu) with an item it offers; `session.tree` names "
            "a label given earlier; a path typed for an export (`/plan export PATH`, the export "
            "input) is relative, `~/…`, `@…` or under a root (not stated as JSON Schema)."
        ),
    ),
    planmode_models.ModelsSwitchInput: (
        Rule(
            "`trigger` is one of the Plan boundaries its description lists, at 0 ms "
            "(not stated as JSON Schema)."
        ),
    ),
    planmode_models.ModelsSessionInput: (
        Rule(
            "Commands are `/plan start|exit|off|implement`, each valid in the mode it needs; "
            "`plan_mode_complete` is called inside a Plan-mode run with a non-empty plan; the "
            "ready menu and the fresh screen are answered with an item they offer before "
            "anything else the user does (not stated as JSON Schema)."
        ),
    ),
    oplmodes_models.ModelsScriptInput: (
        Rule(
            "Commands are `/mode <name>` (`/mode normal` leaves the mode; not `off` or "
            "`execute`); `provider.change` gives only what opl-modes reads of a provider; "
            "`session.resume` gives no entries (not stated as JSON Schema)."
        ),
    ),
}


def rules_of(model: type[BaseModel]) -> list[Rule]:
    """The rules of `model` and of the models it derives from."""
    found: list[Rule] = []
    for base in model.__mro__:
        origin = getattr(base, "__pydantic_generic_metadata__", {}).get("origin") or base
        found.extend(r for r in RULES.get(origin, ()) if r not in found)
    return found


class RuleSchema(GenerateJsonSchema):
    """Pydantic's JSON Schema generator, with each model's cross-field rules."""

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        out = super().model_schema(schema)
        rules = rules_of(schema["cls"])
        if not rules:
            return out
        stated = [r.schema for r in rules if r.schema is not None]
        if stated:
            out["allOf"] = [*out.get("allOf", []), *stated]
        words = "Rules across fields:\n" + "\n".join(f"- {r.text}" for r in rules)
        own = out.get("description")
        out["description"] = f"{own}\n\n{words}" if own else words
        return out
