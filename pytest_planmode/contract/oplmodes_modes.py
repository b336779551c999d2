"""opl-modes session lifecycle as an event script: commands, flags, the
cycle shortcut, menus, execute handoff, plan completion, persistence and
resume, the shared mode state (opl-modes.md § Commands, flags, and
shortcuts; § Extension features; § Execute handoff; § Tool inheritance
warning; § Architecture)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_planmode.contract import Operation
from pytest_planmode.contract.base import ContractInput, ContractOutput, effect, explanation
from pytest_planmode.contract.events import EventScript, Observation, ScriptEvent
from pytest_planmode.spec_values import PI_BUILTIN_TOOLS


class SessionEntry(BaseModel):
    """A session entry as Pi stores it. Entries of other extensions, or with
    any other shape, are allowed: resume must skip what is not its own."""

    model_config = ConfigDict(populate_by_name=True, extra="allow", frozen=True)

    type: str = Field(default="custom", description="Pi's entry kind; opl-modes writes `custom`.")
    custom_type: str | None = Field(
        default=None,
        alias="customType",
        description="`mode-switcher`, or the legacy `chat-mode` / `plan-mode`; anything else is foreign.",
    )
    data: Any = None


class SessionStart(ScriptEvent):
    type: Literal["session_start"]
    flags: list[str] = Field(default_factory=list, description="`--chat` and/or `--plan`.")
    entries: list[SessionEntry] = Field(
        default_factory=list, description="Entries of the session being opened."
    )


class SessionResume(ScriptEvent):
    type: Literal["session_resume"]
    entries: list[SessionEntry] = Field(default_factory=list)


class BranchChange(ScriptEvent):
    type: Literal["branch_change"]
    entries: list[SessionEntry] = Field(default_factory=list, description="Entries on the new branch.")


class Command(ScriptEvent):
    type: Literal["command"]
    text: str = Field(description="What was typed, e.g. `/plan auth`.")


class Key(ScriptEvent):
    type: Literal["key"]
    key: str = Field(description="A key press, e.g. `shift+tab`.")


class Pick(ScriptEvent):
    type: Literal["pick"]
    entry: str | None = Field(description="The chosen entry of the open menu; null dismisses it.")


class AgentEnd(ScriptEvent):
    type: Literal["agent_end"]


class ToolCall(ScriptEvent):
    type: Literal["tool_call"]
    tool: str
    input: dict[str, Any] = Field(default_factory=dict)


class AgentBeforeSettle(ScriptEvent):
    type: Literal["agent_before_settle"]
    outcome: Literal["completed", "aborted", "errored"]


class ToolsRegistered(ScriptEvent):
    type: Literal["tools_registered"]
    tools: list[str] = Field(description="Pi's tool registry from now on.")


class ActiveToolsChanged(ScriptEvent):
    type: Literal["active_tools_changed"]
    tools: list[str] = Field(description="The active tools as changed outside opl-modes.")


class Reload(ScriptEvent):
    """`/reload`: the module is loaded again, reading opl-modes.json anew;
    the mode is restored from the session's own entries."""

    type: Literal["reload"]
    config: Any = Field(
        default=None, description="The opl-modes.json document now on disk; omit for no file."
    )


ModesEvent = Annotated[
    SessionStart
    | SessionResume
    | BranchChange
    | Command
    | Key
    | Pick
    | AgentEnd
    | ToolCall
    | AgentBeforeSettle
    | ToolsRegistered
    | ActiveToolsChanged
    | Reload,
    Field(discriminator="type"),
]


class ModesScriptInput(EventScript[ModesEvent], ContractInput):
    config: Any = Field(default=None, description="The opl-modes.json document; omit for no file.")
    registered_tools: list[str] = Field(default_factory=lambda: list(PI_BUILTIN_TOOLS))
    active_tools: list[str] | None = Field(
        default=None,
        description="Active tools when the session opens (default: every registered tool).",
    )
    pi_version: str = Field(default="0.87.0")
    plans: list[str] = Field(
        default_factory=list,
        description="Plan filenames present in `.pi/plans/`, e.g. `plan-auth.md`.",
    )
    keybindings: dict[str, str] = Field(
        default_factory=dict,
        description='Pi\'s keybindings.json, e.g. {"app.thinking.cycle": "ctrl+t"}.',
    )


class Notification(ContractOutput):
    level: Literal["info", "warning", "error"] = effect()
    message: str = effect()


class Menu(ContractOutput):
    kind: Literal["mode", "execute", "plan-action"] = explanation(description="Which menu it is.")
    entries: list[str] = effect(description="The entries shown.")


class ToolResult(ContractOutput):
    tool: str = effect()
    allowed: bool = effect()
    message: str | None = effect()


class PlanFileChange(ContractOutput):
    action: Literal["created", "loaded", "saved", "deleted"] = effect()
    path: str = effect()


class Widget(ContractOutput):
    text: str = effect(description="`labels.widget`, else the capitalised mode name.")
    color: str | None = effect(description="`labels.widgetColor` (a theme token); null for the default.")


class Step(ContractOutput):
    event: str = effect(description="The event's type.")
    mode: str = effect(description="The mode after the event.")
    plan_file: str | None = effect()
    active_tools: list[str] = effect()
    notifications: list[Notification] = effect()
    menu: Menu | None = effect(description="A menu the event opened.")
    result: dict[str, Any] | None = effect(description="The result of a tool_call.")
    persisted: dict[str, Any] | None = effect(description="The session entry the event appended.")
    plan_files: list[PlanFileChange] = effect()
    thinking_cycled: bool = effect(description="Pi's app.thinking.cycle fired on this key press too.")
    ignored: str | None = explanation(description="Why the event changed nothing, when it did not.")
    refine_cycles: int = explanation()
    published: dict[str, Any] = effect(description="Shared state for opl-input/opl-footer (`__agentMode`).")
    widget: Widget | None = effect(description="The mode widget; null in normal mode or with ui.hideWidget.")


class FinalState(ContractOutput):
    mode: str = effect()
    plan_file: str | None = effect()
    active_tools: list[str] = effect()
    refine_cycles: int = explanation()
    plans: list[str] = effect(description="Plan files present in `.pi/plans/`.")
    entries: list[dict[str, Any]] = effect(description="The session entries this extension appended.")
    published: dict[str, Any] = effect()
    widget: Widget | None = effect()
    warned_tools: list[str] = explanation()


class ModesObservation(Observation):
    """`mode`, `notify`, `menu`, `plan_file`, `persisted`, `published`, `thinking_cycle`."""


class ModesScriptOutput(ContractOutput):
    steps: list[Step] = effect(description="One per event, in order.")
    final: FinalState = effect()
    trace: list[ModesObservation] = explanation()
    config_problems: list[str] = effect(description="Messages of configuration problems.")


SCRIPT = Operation(
    name="oplmodes.modes.script",
    input=ModesScriptInput,
    output=ModesScriptOutput,
    summary="Run an opl-modes session script (commands, keys, menus, tool calls, resume) and trace it.",
    kind="script",
)

OPERATIONS = [SCRIPT]
