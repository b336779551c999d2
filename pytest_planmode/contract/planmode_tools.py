"""pi-plan-mode tool policy: Plan allowlist resolution and freezing, the
Plan helper tools and per-call verdicts (pi-plan-mode-settings.md § Plan
helper tools; § Default Plan policy tools; § Enable inactive built-in search
tools in Pi).

Pi's tool registry is data here: each entry has a name, registered/active
flags, an exposure and source metadata. Plan mode reads it; it never
registers or activates anything.

`planmode.tools.authorize` scripts speak the Plan-lifecycle vocabulary of
``planmode_lifecycle`` wherever an event is the same real-world event
(`plan.start`, `plan.exit`, `reload`, `resume`, `settings.save`, `context`,
`tree.navigate`); the registry, picker, selection, handler-settling, call and
fresh-session events are the tool policy's own.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from pytest_planmode.contract import Operation
from pytest_planmode.contract.base import ContractInput, ContractOutput, effect, explanation
from pytest_planmode.contract.events import EventScript, Observation, ScriptEvent
from pytest_planmode.contract.planmode_lifecycle import (
    PlanExit,
    PlanStart,
    Reload,
    Resume,
    SettingsSave,
)

Source = Literal["built-in", "user-extension", "project-extension", "override"]
Verdict = Literal["allow", "deny", "shell-policy"]


class ToolEntry(ContractInput):
    """One entry of Pi's tool registry."""

    name: str = Field(min_length=1)
    registered: bool = True
    active: bool = Field(
        default=True,
        description=("In Pi's active tool set (for `deferred` tools: declared, e.g. by `tool_search`)."),
    )
    exposure: str | None = Field(
        default=None,
        description=(
            "Public exposure: `direct`, `model-only`, `codemode`, `deferred`, `hidden`, "
            "`unsupported`; MCP `codemode-deferred` means `deferred`; missing (older Pi) "
            "means `direct`; any other value is treated as `unsupported`."
        ),
    )
    source: Source = Field(
        default="built-in",
        description=(
            "Effective source metadata. `override`: an extension tool registered under a "
            "built-in name. A later entry with the same name replaces an earlier one."
        ),
    )
    annotations: dict[str, Any] = Field(
        default_factory=dict,
        description="Server annotations (e.g. MCP `readOnlyHint`): they never grant permission.",
    )


SETTINGS_DESCRIPTION = (
    "The pi-plan-mode settings document (raw JSON). `defaultPlanTools` is used: omitted "
    "means automatic safe built-ins; an invalid value in any field invalidates the "
    "document, which falls back to them with a warning. Unknown keys and the retired "
    "`toolVisibility` are ignored."
)


# --- planmode.tools.freeze -------------------------------------------------


class ToolsFreezeInput(ContractInput):
    registry: list[ToolEntry] = Field(description="Pi's live registry at the resolution boundary.")
    settings: dict[str, Any] = Field(default_factory=dict, description=SETTINGS_DESCRIPTION)
    session_selection: list[Any] | None = Field(
        default=None,
        description=(
            "The selection stored in the session by 'Choose tools, then start…' or `/plan tools`; "
            "absent when the session has none. It takes precedence over `defaultPlanTools`."
        ),
    )


class NameResolution(ContractOutput):
    name: str = effect()
    admitted: bool = explanation()
    reason: str = explanation(
        description=(
            "`admitted`, `policy-blocked`, `plan-helper`, `unregistered`, `hidden`, "
            "`unsupported-exposure`, `inactive`, `override-needs-opt-in`."
        )
    )
    pending: bool = explanation(
        description="An explicit name unavailable now: it waits for the next Plan workflow."
    )


class ToolsFreezeOutput(ContractOutput):
    basis: Literal["session-selection", "settings", "automatic"] = explanation(
        description="Where the resolved names came from."
    )
    allowlist: list[str] = effect(description="The frozen executable allowlist, in name order of the basis.")
    pending: list[str] = explanation(description="Explicit names waiting for the next Plan workflow.")
    resolutions: list[NameResolution] = explanation(
        description="One entry per resolved name (the safe built-ins when automatic)."
    )
    helpers: list[str] = effect(description="Plan helpers, callable under an active Plan contract.")
    active_tools: list[str] = effect(description="Pi's active set, unchanged: Plan mode never activates.")
    warnings: list[str] = effect(description="Warnings shown, as text.")


# --- planmode.tools.picker -------------------------------------------------


class ToolsPickerInput(ContractInput):
    registry: list[ToolEntry] = Field(description="The registry snapshot taken when the picker opens.")
    settings: dict[str, Any] = Field(default_factory=dict, description=SETTINGS_DESCRIPTION)
    session_selection: list[Any] | None = None


class PickerRow(ContractOutput):
    name: str = effect()
    label: Literal[
        "available",
        "inactive in Pi",
        "blocked by Plan policy",
        "pending registration",
        "unavailable",
    ] = effect(description="The label the row shows.")
    selected: bool = effect(description="Part of the current policy intent (the row is checked).")


class ToolsPickerOutput(ContractOutput):
    basis: Literal["session-selection", "settings", "automatic"] = explanation()
    rows: list[PickerRow] = effect()


# --- planmode.tools.authorize ------------------------------------------------


class RegisterEvent(ScriptEvent):
    """Pi (or an extension) registers a tool; the same name replaces the entry."""

    type: Literal["registry.register"]
    tool: ToolEntry


class UnregisterEvent(ScriptEvent):
    type: Literal["registry.unregister"]
    name: str


class ActivateEvent(ScriptEvent):
    """Pi changes its active set (Plan mode itself never does)."""

    type: Literal["registry.activate", "registry.deactivate"]
    names: list[str]


class ExposeEvent(ScriptEvent):
    type: Literal["registry.expose"]
    name: str
    exposure: str | None


class DeclareEvent(ScriptEvent):
    """Pi's `tool_search` declares a tool (it becomes active) mid-workflow."""

    type: Literal["tool-search.declare"]
    name: str


class SelectionEvent(ScriptEvent):
    """A selection accepted through 'Choose tools, then start…' or `/plan tools`."""

    type: Literal["selection"]
    tools: list[Any]


class PlanStartEvent(PlanStart):
    """`plan.start` of the shared Plan-lifecycle vocabulary: a new Plan
    workflow starts, recording a new Plan contract. The tool policy does not
    model Plan mode's states, so a start while a contract is active always
    opens a new workflow that supersedes it."""

    contract: str | None = Field(default=None, description="Contract id; default `plan-<n>`.")


class BeforeAgentStartEvent(ScriptEvent):
    """A `before_agent_start` handler that settles at `settlesAt`."""

    type: Literal["before-agent-start"]
    handler: str = "handler"
    settles_at: int = Field(ge=0)


class ContextEvent(ScriptEvent):
    """A provider-bound context; the workflow's first one is the resolution boundary."""

    type: Literal["context"]


class NewSessionEvent(ScriptEvent):
    """A fresh session (no selection, no Plan contract). Specific to the tool
    policy: the shared Plan-lifecycle vocabulary has no fresh-session event
    (its `implement` with `how = "fresh"` also hands a plan over)."""

    type: Literal["session.new"]


class NavigateEvent(ScriptEvent):
    """Tree navigation to a branch whose latest Plan contract is `contract`
    (null: none), `active` or not on that branch."""

    type: Literal["tree.navigate"]
    contract: str | None
    active: bool = True


class PickerEvent(ScriptEvent):
    """The inactive `/plan` tools picker: `picker.open` takes a fresh registry
    snapshot, `picker.show` renders the open picker again, `picker.close`."""

    type: Literal["picker.open", "picker.show", "picker.close"]


class ToolCallEvent(ScriptEvent):
    type: Literal["tool.call"]
    tool: str
    via: str | None = Field(default=None, description="The orchestrator of a nested call.")
    contract: str | None = Field(
        default=None, description="The Plan contract the call was issued under, when known."
    )


ToolScriptEvent = Annotated[
    RegisterEvent
    | UnregisterEvent
    | ActivateEvent
    | ExposeEvent
    | DeclareEvent
    | SettingsSave
    | SelectionEvent
    | PlanStartEvent
    | PlanExit
    | BeforeAgentStartEvent
    | ContextEvent
    | Reload
    | Resume
    | NewSessionEvent
    | NavigateEvent
    | PickerEvent
    | ToolCallEvent,
    Field(discriminator="type"),
]


class ToolsAuthorizeInput(EventScript[ToolScriptEvent]):
    registry: list[ToolEntry] = Field(default_factory=list, description="The registry at instant 0.")
    settings: dict[str, Any] = Field(default_factory=dict, description=SETTINGS_DESCRIPTION)
    session_selection: list[Any] | None = Field(
        default=None, description="A selection already stored in the session."
    )


class ResolvedObservation(Observation):
    type: Literal["resolved"] = effect()
    contract: str = explanation()
    basis: str = explanation()
    allowlist: list[str] = explanation()
    pending: list[str] = explanation()
    resolutions: list[NameResolution] = explanation()


class RestoredObservation(Observation):
    type: Literal["restored"] = effect()
    cause: str = explanation()
    contract: str | None = explanation()
    allowlist: list[str] | None = explanation()


class SettingsObservation(Observation):
    type: Literal["settings"] = effect()
    applied: bool = explanation()
    warning: str | None = explanation()


class VerdictObservation(Observation):
    type: Literal["verdict"] = effect()
    tool: str = effect(description="The tool called.")
    via: str | None = effect(description="The orchestrator of a nested call (null: a direct call).")
    verdict: Verdict = effect(description="What the `tool_call` hook answered.")
    reason: str = explanation(
        description=(
            "allow: `allowed`, `outside-plan-mode`, `plan-helper`; shell-policy: `limited-shell`; "
            "deny: `policy-blocked`, `no-active-plan-contract`, `stale-plan-contract`, "
            "`before-resolution`, `unregistered`, `hidden`, `unsupported-exposure`, "
            "`orchestrator-not-admitted`, `nested-model-only`, `not-selected`, `not-admitted`, "
            "`override-needs-opt-in`, `codemode-only`, `inactive`."
        )
    )
    cause: str | None = explanation(
        description=(
            "`not-admitted`: the resolution reason; `orchestrator-not-admitted`: the orchestrator's reason."
        ),
    )


class PickerObservation(Observation):
    type: Literal["picker"] = effect()
    event: str = effect(description="`open` (fresh snapshot) or `show` (the open picker as it is).")
    rows: list[PickerRow] | None = effect(description="The rows shown; null when no picker is open.")


TraceEntry = Annotated[
    ResolvedObservation | RestoredObservation | SettingsObservation | VerdictObservation | PickerObservation,
    Field(discriminator="type"),
]


class ToolsAuthorizeOutput(ContractOutput):
    trace: list[TraceEntry] = explanation(
        description="Everything the reference did, in order, resolutions and restores included."
    )
    verdicts: list[VerdictObservation] = effect(
        description="What the `tool_call` hook answered for each call, in call order."
    )
    allowlist: list[str] | None = explanation(
        description="The effective contract's frozen allowlist at the end (null: none resolved)."
    )
    pending: list[str] | None = explanation()


FREEZE = Operation(
    name="planmode.tools.freeze",
    input=ToolsFreezeInput,
    output=ToolsFreezeOutput,
    summary=(
        "Resolve the Plan policy names (session selection, defaultPlanTools or automatic safe "
        "built-ins) against a registry snapshot: frozen allowlist, pending names, "
        "a reason per name."
    ),
)

PICKER = Operation(
    name="planmode.tools.picker",
    input=ToolsPickerInput,
    output=ToolsPickerOutput,
    summary="Rows of the Plan policy tools picker: label and selection of each tool.",
)

AUTHORIZE = Operation(
    name="planmode.tools.authorize",
    input=ToolsAuthorizeInput,
    output=ToolsAuthorizeOutput,
    summary=(
        "Run a script of registry changes, workflow boundaries and tool calls; "
        "answer a verdict and a reason for each call."
    ),
    kind="script",
)

OPERATIONS = [FREEZE, PICKER, AUTHORIZE]
