"""pi-plan-mode tool policy: Plan allowlist resolution and freezing, the
Plan helper tools and per-call verdicts (pi-plan-mode-settings.md § Plan
helper tools; § Default Plan policy tools; § Enable inactive built-in search
tools in Pi).

Pi's tool registry is data here: each entry has a name, registered/active
flags, an exposure and source metadata. Plan mode reads it; it never
registers or activates anything.

`planmode.tools.authorize` scripts speak the host vocabulary of
``host_events`` (agent runs, `context`, `tool.call` with its input, `/plan`
commands, UI answers, settings writes and saves, reload, resume, new
session, tree navigation, another extension's held `before_agent_start`
handler, tree labels); the registry events are the tool policy's own.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from pytest_planmode.contract import Operation
from pytest_planmode.contract import host_events as host
from pytest_planmode.contract.base import ContractInput, ContractOutput, effect, explanation, screen
from pytest_planmode.contract.events import EventScript, Observation, ScriptEvent
from pytest_planmode.contract.screen import SCREEN_DESCRIPTION, ScreenEntry

Source = Literal["built-in", "user-extension", "project-extension", "override"]
Verdict = Literal["allow", "deny"]


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
    """An extension registers a tool (`pi.registerTool`); the same name
    replaces the entry."""

    type: Literal["tools.register"]
    tool: ToolEntry


class UnregisterEvent(ScriptEvent):
    """The tool's extension is gone (e.g. a reload without it)."""

    type: Literal["tools.unregister"]
    name: str


class ActivateEvent(ScriptEvent):
    """Pi's active set changes (`pi.setActiveTools` by another extension or
    the user); Plan mode itself never does this."""

    type: Literal["tools.activate", "tools.deactivate"]
    names: list[str]


class ExposeEvent(ScriptEvent):
    """Pi changes a tool's public exposure."""

    type: Literal["tools.expose"]
    name: str
    exposure: str | None


class DeclareEvent(ScriptEvent):
    """Pi's `tool_search` declares a tool (it becomes active) mid-workflow."""

    type: Literal["tools.declare"]
    name: str


class ChooseEvent(ScriptEvent):
    """The user accepts a selection in the tools chooser: `/plan tools`
    (`start = false`) or the menu's **Choose tools, then start…**
    (`start = true`: Plan mode starts with it)."""

    type: Literal["tools.choose"]
    tools: list[Any]
    start: bool = False


#: `/plan` arguments this operation's scripts use: start, exit (or off),
#: and the tools picker.
PLAN_COMMAND_ARGS = ("start", "exit", "off", "tools")


ToolScriptEvent = Annotated[
    RegisterEvent
    | UnregisterEvent
    | ActivateEvent
    | ExposeEvent
    | DeclareEvent
    | ChooseEvent
    | host.Command
    | host.UiAnswer
    | host.UiShow
    | host.SettingsWrite
    | host.SettingsScreen
    | host.HandlerHold
    | host.HandlerSettle
    | host.AgentStart
    | host.Context
    | host.ToolCall
    | host.AgentSettle
    | host.ClockAdvance
    | host.SessionReload
    | host.SessionResume
    | host.SessionNew
    | host.SessionLabel
    | host.SessionTree,
    Field(discriminator="type"),
]

#: Events that need an open agent run, and events that need none open.
_IN_RUN = ("context", "tool.call")
_BETWEEN_RUNS = ("session.reload", "session.resume", "session.new", "session.tree")


class ToolsAuthorizeInput(EventScript[ToolScriptEvent]):
    registry: list[ToolEntry] = Field(
        default_factory=list,
        description=(
            "Pi's registry when the script starts. The extension's own helpers "
            "(`plan_mode_question`, `plan_mode_complete`) are registered and active unless listed."
        ),
    )
    settings: dict[str, Any] = Field(default_factory=dict, description=SETTINGS_DESCRIPTION)
    session_selection: list[Any] | None = Field(
        default=None, description="A selection already stored in the session."
    )
    pi_settings: host.PiSettings | None = Field(
        default=None,
        description=(
            "Pi's own settings when it starts (§ Enable inactive built-in search tools in Pi): "
            "its `defaultTools` decides which built-in entries of the registry are active."
        ),
    )

    @model_validator(mode="after")
    def _replayable(self) -> ToolsAuthorizeInput:
        """Each script is one a Pi host can replay: calls and contexts inside
        a run, session moves between runs, known commands and labels."""
        in_run = False
        labels: set[str] = set()
        held: set[str] = set()
        for index, event in enumerate(self.events):
            where = f"events[{index}] ({event.type})"
            problem = host.misplaced(
                needs_run=event.type in _IN_RUN, needs_no_run=event.type in _BETWEEN_RUNS, in_run=in_run
            )
            if problem:
                raise ValueError(f"{where} {problem}")
            if isinstance(event, host.AgentStart):
                if in_run:
                    raise ValueError(f"{where}: a run is already open (agent.settle ends it)")
                in_run = True
            elif isinstance(event, host.AgentSettle):
                if not in_run:
                    raise ValueError(f"{where}: no agent run is open")
                in_run = False
            elif isinstance(event, host.Command):
                if event.name != "plan" or event.args.strip() not in PLAN_COMMAND_ARGS:
                    raise ValueError(
                        f"{where}: this operation's scripts use /plan "
                        f"{' | '.join(PLAN_COMMAND_ARGS)}, not /{event.name} {event.args}".rstrip()
                    )
            elif isinstance(event, host.UiAnswer) and event.label is not None:
                raise ValueError(f"{where}: the tools picker is only dismissed here (label = null)")
            elif isinstance(event, host.HandlerHold):
                held.add(event.handler)
            elif isinstance(event, host.HandlerSettle):
                if event.handler not in held:
                    raise ValueError(f"{where}: no extension.hold for handler {event.handler!r}")
                held.discard(event.handler)
            elif isinstance(event, host.SessionLabel):
                labels.add(event.label)
            elif isinstance(event, host.SessionTree) and event.to not in labels:
                raise ValueError(
                    f"{where}: no session.label {event.to!r} before it (entries are not used here)"
                )
            elif isinstance(event, host.SessionResume) and event.entries is not None:
                raise ValueError(f"{where}: resumes this session here (no entries)")
            elif isinstance(event, host.SessionNew):
                labels = set()
        return self


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
    decided_by: Literal["pi", "extension"] = effect(
        description=(
            "`pi`: Pi's own gate answered (the tool, or the orchestrator of a nested call, is "
            "not registered or not active) and the call never reached the extension; "
            "`extension`: the extension's `tool_call` verdict."
        )
    )
    verdict: Verdict = effect(description="What the call came to (a shell call: after its limited shell).")
    reason: str = explanation(
        description=(
            "pi: `not-found`; allow: `allowed`, `outside-plan-mode`, `plan-helper`; "
            "allow or deny after the shell's own policy: `limited-shell`; "
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
    screen: list[ScreenEntry] | None = screen(description=SCREEN_DESCRIPTION)


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
        "Run a host script of registry changes, /plan commands, agent runs and tool calls; "
        "answer a verdict and a reason for each call."
    ),
    kind="script",
)

OPERATIONS = [FREEZE, PICKER, AUTHORIZE]
