"""opl-modes configuration: `~/.pi/agent/configs/opl-modes.json` and the
effective mode registry it yields (opl-modes.md § Configuration)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StringConstraints, model_validator
from pydantic.alias_generators import to_camel

from pytest_planmode.contract import Operation
from pytest_planmode.contract.base import ContractInput, ContractOutput, effect, explanation
from pytest_planmode.spec_values import COLOR_PATTERN, MODE_NAME_PATTERN, THEME_TOKENS

TOKEN_PATTERN = "^(" + "|".join(sorted(THEME_TOKENS)) + ")$"

# -- the document (published as settings/opl-modes.schema.json) --------------

ToolName = Annotated[str, StringConstraints(pattern=r"\S")]
Color = Annotated[str, StringConstraints(pattern=COLOR_PATTERN)]
NonBlank = Annotated[str, StringConstraints(pattern=r"\S")]
ModeName = Annotated[str, StringConstraints(pattern="^(?!normal$)" + MODE_NAME_PATTERN + "$")]


def _no_null(schema: dict[str, Any]) -> None:
    """Optional fields are omitted, never null: drop the `null` branch the
    `X | None` annotations put in the published schema."""
    for prop in schema.get("properties", {}).values():
        branches = prop.get("anyOf")
        if isinstance(branches, list) and {"type": "null"} in branches:
            rest = [b for b in branches if b != {"type": "null"}]
            del prop["anyOf"]
            if len(rest) == 1:
                prop.update(rest[0])
            else:
                prop["anyOf"] = rest
            prop.pop("default", None)


class _Doc(BaseModel):
    # Unknown fields are tolerated (they are warned about, not errors).
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        regex_engine="python-re",
        json_schema_extra=_no_null,
    )

    @model_validator(mode="before")
    @classmethod
    def _omitted_not_null(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for name, info in cls.model_fields.items():
                key = info.alias or name
                if key in data and data[key] is None:
                    raise ValueError(f"{key} must be omitted rather than null")
        return data


class UiConfig(_Doc):
    hide_notify: StrictBool | None = Field(default=None, description="Suppress mode notifications.")
    hide_widget: StrictBool | None = Field(default=None, description="Suppress mode widgets.")


class ShortcutsConfig(_Doc):
    cycle_mode: NonBlank | None = Field(
        default=None, description="Key that cycles enabled visible modes (default shift+tab)."
    )


class CleanupConfig(_Doc):
    cleanup_on_complete: StrictBool | None = Field(
        default=None, description="Delete the active plan after a successful plan_complete."
    )


class BashPatternsConfig(_Doc):
    safe_patterns: list[str] | None = None
    destructive_patterns: list[str] | None = None


class ModelConfig(_Doc):
    provider: str | None = None
    id: str | None = None


class AppearanceConfig(_Doc):
    prefix: str | None = Field(default=None, description="opl-input prefix.")
    prefix_color: Color | None = None
    border_color: Color | None = None
    mode_color: Color | None = Field(default=None, description="opl-footer mode colour (default muted).")


class ModeConfig(_Doc):
    enabled: StrictBool | None = None
    visible: StrictBool | None = Field(
        default=None,
        description="false hides the mode from the picker and cycle; /mode <name> still works.",
    )
    allow_plan_complete: StrictBool | None = None
    allow_execute: StrictBool | None = None
    prompt: str | None = None
    tools: list[ToolName] | None = Field(
        default=None, description="Omitted: the mode inherits all tools (write-capable)."
    )
    safe_patterns: list[str] | None = None
    destructive_patterns: list[str] | None = None
    unrestricted_bash: StrictBool | None = None
    model: ModelConfig | None = None
    labels: dict[str, str] | None = Field(
        default=None,
        description="Widget labels; keys ending in Color take Pi theme colour tokens.",
        json_schema_extra={"patternProperties": {"Colou?r$": {"type": "string", "pattern": TOKEN_PATTERN}}},
    )
    appearance: AppearanceConfig | None = None

    @model_validator(mode="after")
    def _label_colours(self) -> ModeConfig:
        for key, value in (self.labels or {}).items():
            if re.search("Colou?r$", key) and not re.fullmatch(TOKEN_PATTERN, value):
                raise ValueError(f"labels.{key}: {value!r} is not a Pi theme colour token")
        return self


class OplModesDocument(_Doc):
    """`~/.pi/agent/configs/opl-modes.json`: every field is optional."""

    ui: UiConfig | None = None
    shortcuts: ShortcutsConfig | None = None
    cleanup: CleanupConfig | None = None
    default_notify_template: NonBlank | None = Field(
        default=None,
        description="Notification template for custom modes; {Name} is the capitalised name.",
    )
    bash_patterns: BashPatternsConfig | None = None
    modes: dict[ModeName, ModeConfig] | None = Field(
        default=None,
        description="Add or override modes; names are command words, `normal` is reserved.",
        json_schema_extra={
            "additionalProperties": False,
            # What _builtin_rules checks, for readers of the JSON Schema.
            "properties": {
                "off": {"properties": {"enabled": {"const": True}}},
                "execute": {"properties": {"enabled": {"const": True}, "allowPlanComplete": {"const": True}}},
            },
        },
    )
    chat_allowed_tools: list[ToolName] | None = Field(
        default=None,
        description="Deprecated alias of modes.chat.tools, used only when that is omitted.",
    )
    plan_allowed_tools: list[ToolName] | None = Field(
        default=None,
        description="Deprecated alias of modes.plan.tools, used only when that is omitted.",
    )
    lazy_tools: list[ToolName] | None = None

    @model_validator(mode="after")
    def _builtin_rules(self) -> OplModesDocument:
        modes = self.modes or {}
        off, execute = modes.get("off"), modes.get("execute")
        if off is not None and off.enabled is False:
            raise ValueError("modes.off.enabled: off (normal) cannot be disabled")
        if execute is not None and (execute.enabled is False or execute.allow_plan_complete is False):
            raise ValueError("modes.execute: execute cannot be disabled and always allows plan_complete")
        return self


SCHEMAS = {"settings/opl-modes.schema.json": OplModesDocument}

# -- the operation -------------------------------------------------------------


class ConfigLoadInput(ContractInput):
    document: Any = Field(
        default=None,
        description=(
            "The parsed opl-modes.json (any JSON value). Omit both `document` and `text` "
            "when there is no file."
        ),
    )
    text: str | None = Field(default=None, description="The file's text, when testing parsing too.")

    @model_validator(mode="after")
    def _one_source(self) -> ConfigLoadInput:
        if "document" in self.model_fields_set and self.text is not None:
            raise ValueError("give `document` or `text`, not both")
        return self


class ConfigProblem(ContractOutput):
    field: str = explanation(description="JSON path of the value, e.g. `modes.review.tools[2]`.")
    mode: str | None = explanation(description="The mode it belongs to, if any.")
    message: str = effect(description="The message shown.")


class EffectiveAppearance(ContractOutput):
    prefix: str | None = effect(description="null: opl-input's compiled default.")
    prefix_color: str | None = effect()
    border_color: str | None = effect()
    mode_color: str = effect(description="The footer colour; `muted` when not configured.")


class EffectiveBash(ContractOutput):
    unrestricted: bool = effect()
    safe_patterns: list[str] = effect()
    destructive_patterns: list[str] = effect()


class EffectiveModel(ContractOutput):
    provider: str = effect()
    id: str = effect()


class EffectiveMode(ContractOutput):
    name: str = effect()
    builtin: bool = explanation()
    enabled: bool = effect()
    visible: bool = effect()
    tools: list[str] | None = effect(
        description=(
            "The mode's own list; null when it inherits the resting set (all tools or the pinned off set)."
        )
    )
    tools_source: Literal["builtin", "config", "alias", "inherit", "snapshot", "pinned"] = explanation()
    inherits_all_tools: bool = effect()
    allow_plan_complete: bool = effect(description="The planCompleteAllowed() predicate for this mode.")
    allow_execute: bool = effect()
    prompt: str | None = effect()
    labels: dict[str, str] = effect()
    appearance: EffectiveAppearance = effect()
    model: EffectiveModel | None = effect(description="null: no override (blank or partial model).")
    bash: EffectiveBash | None = effect(
        description="The mode's Bash policy (null when the Bash gate module is not available)."
    )
    notification: str | None = effect(description="What entering the mode announces (null for off).")


class CleanupOut(ContractOutput):
    cleanup_on_complete: bool = effect()


class ShortcutsOut(ContractOutput):
    cycle_mode: str = effect()


class UiOut(ContractOutput):
    hide_notify: bool = effect()
    hide_widget: bool = effect()


class ConfigLoadOutput(ContractOutput):
    modes: dict[str, EffectiveMode] = effect()
    mode_order: list[str] = effect()
    cycle: list[str] = effect(description="Modes the cycle shortcut visits, in order.")
    picker: list[str] = effect(description="Mode names the /mode picker lists (off shown as `normal`).")
    lazy_tools: list[str] = effect()
    ignored_lazy_tools: list[str] = explanation(
        description="Protected names listed in lazyTools, silently ignored."
    )
    cleanup: CleanupOut = effect()
    shortcuts: ShortcutsOut = effect()
    shortcut_conflict: str | None = effect(
        description="The shift+tab / app.thinking.cycle notice, if it applies."
    )
    ui: UiOut = effect()
    notify_template: str = effect()
    problems: list[ConfigProblem] = effect(
        description="Values that were rejected (the default stays in effect), one message each."
    )
    warnings: list[ConfigProblem] = effect(
        description="Accepted but worth telling: deprecations, unknown fields, write-capable modes."
    )


LOAD = Operation(
    name="oplmodes.config.load",
    input=ConfigLoadInput,
    output=ConfigLoadOutput,
    summary=(
        "Load opl-modes.json (any JSON value) into the effective mode registry, with problems and warnings."
    ),
)

OPERATIONS = [LOAD]
