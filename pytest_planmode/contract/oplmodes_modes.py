"""opl-modes session lifecycle as an event script: commands, flags, the
cycle shortcut, menus, execute handoff, plan completion, persistence and
resume, the shared mode state (opl-modes.md § Commands, flags, and
shortcuts; § Extension features; § Execute handoff; § Tool inheritance
warning; § Architecture)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, model_validator

from pytest_planmode.contract import Operation
from pytest_planmode.contract import host_events as host
from pytest_planmode.contract.base import ContractInput, ContractOutput, effect, explanation
from pytest_planmode.contract.events import EventScript, Observation, ScriptEvent
from pytest_planmode.spec_values import PI_BUILTIN_TOOLS

SessionEntry = host.SessionEntry


class ToolsRegistered(ScriptEvent):
    """Pi's tool registry changes (extensions register tools): these names
    from now on."""

    type: Literal["tools.registry"]
    tools: list[str] = Field(description="Pi's tool registry from now on.")


class ActiveToolsChanged(ScriptEvent):
    """Another extension or the user sets Pi's active tools
    (`pi.setActiveTools`), outside opl-modes."""

    type: Literal["tools.set-active"]
    tools: list[str] = Field(description="The active tools as changed outside opl-modes.")


class ConfigWrite(ScriptEvent):
    """`~/.pi/agent/configs/opl-modes.json` is written as JSON (an editor);
    opl-modes reads it when its module loads, so `/reload` picks it up."""

    type: Literal["config.write"]
    config: Any = Field(default=None, description="The document written; omit to remove the file.")


ModesEvent = Annotated[
    host.SessionStart
    | host.SessionResume
    | host.SessionTree
    | host.SessionReload
    | host.Command
    | host.KeyPress
    | host.UiAnswer
    | host.AgentStart
    | host.ToolCall
    | host.AgentSettle
    | host.ClockAdvance
    | ToolsRegistered
    | ActiveToolsChanged
    | ConfigWrite,
    Field(discriminator="type"),
]

_IN_RUN = ("tool.call", "agent.settle")
_BETWEEN_RUNS = ("session.start", "session.resume", "session.tree", "session.reload", "agent.start")


#: What a `ui.answer` role picks in this operation's menus (opl-modes.md §
#: Execute handoff names the items; their exact texts are left open).
MENU_ROLES = {
    "execute": (
        "an `Execute:` entry of the mode picker or of `/execute`'s selection (`plan` names "
        "its plan; without it, the only one), or the action menu's Execute"
    ),
    "refine": "the action menu's Refine entry, whatever cycle count it shows",
    "save-exit": "the action menu's Save & Exit",
    "discard-exit": "the action menu's Discard & Exit",
}


class ModesScriptInput(EventScript[ModesEvent], ContractInput):
    menu_roles: ClassVar[dict[str, str]] = MENU_ROLES
    menu_positions: ClassVar[bool] = True

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

    @model_validator(mode="after")
    def _replayable(self) -> ModesScriptInput:
        """Tool calls happen inside an agent run, session moves between runs
        (a session move aborts a run: settle it first, `outcome = "aborted"`)."""
        in_run = False
        for index, event in enumerate(self.events):
            where = f"events[{index}] ({event.type})"
            problem = host.misplaced(
                needs_run=event.type in _IN_RUN, needs_no_run=event.type in _BETWEEN_RUNS, in_run=in_run
            )
            if problem:
                raise ValueError(f"{where} {problem}")
            if isinstance(event, host.SessionTree) and event.entries is None:
                raise ValueError(f"{where}: give the new branch's entries")
            if event.type == "agent.start":
                in_run = True
            elif event.type == "agent.settle":
                in_run = False
        return self


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
    result: dict[str, Any] | None = effect(
        description=(
            "The result of a tool.call: `tool`, `allowed`, `decidedBy` (`pi`: the tool is not "
            "active, Pi answers it and opl-modes never sees it; `extension`: opl-modes' "
            "`tool_call` gate or the tool itself), `message`."
        )
    )
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
    summary=(
        "Run an opl-modes host script (commands, keys, menu answers, agent runs, tool calls, "
        "resume, reload) and trace it."
    ),
    kind="script",
)

OPERATIONS = [SCRIPT]
