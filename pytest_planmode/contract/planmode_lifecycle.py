"""pi-plan-mode Plan lifecycle: reinjection, thinking, export, toggle shortcut.

Two operations:

``planmode.lifecycle.run`` (script)
    A script of host events (``host_events``: `/plan` commands, menu
    answers by label, agent runs with `context` and the model's
    `plan_mode_complete` call, settles with or without a queued follow-up,
    compaction, tree navigation, resume, `/reload`, restarts, settings
    written or saved, thinking changes, working-directory changes, a Pi API
    call the host fails) run from initial settings, answered by an
    observation trace and the state at the end. The lifecycle has no event
    of its own: a host that loads the real extension replays each event.
``planmode.export.run`` (pure)
    One ``/plan export`` request against a described set of pre-existing
    paths: what is written where, byte for byte, or why not, and the Plan
    state afterwards.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from pytest_planmode.contract import Operation
from pytest_planmode.contract import host_events as host
from pytest_planmode.contract.base import ContractInput, ContractOutput, effect, explanation, screen
from pytest_planmode.contract.events import EventScript, Observation
from pytest_planmode.contract.screen import SCREEN_DESCRIPTION, ScreenEntry
from pytest_planmode.contract.virtual_paths import ROOTED_PATTERN, TYPED_PATTERN

#: Pi's own thinking levels (a level Pi can be at). `inherit` is a setting
#: value only, never a level.
PiThinking = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
ImplementHow = Literal["here", "fresh", "saved"]
PlanSource = Literal["ready", "saved", "active"]
Mode = Literal["normal", "planning", "ready"]

_SETTINGS_DOC = (
    "The pi-plan-mode settings document in effect at session start, as raw JSON values; "
    "the lifecycle acts on `thinkingLevel`, `implementationPlanRetention`, "
    "`defaultPlanExportPath` and `toggleShortcut`. An invalid value in any field "
    "invalidates the whole document: a `settings-invalid` notice is observed and "
    "the defaults apply (§ Thinking level)."
)


# --------------------------------------------------------------------------
# Pre-existing paths (shared by both operations)


class PathEntry(ContractInput):
    """One path that exists before the script starts. Every ancestor of a
    listed path, and of the working directory, exists as a directory."""

    path: str = Field(
        description="A path under a root (`$CWD/…`, `$HOME/…`, `$TMP/…`).", pattern=ROOTED_PATTERN
    )
    kind: Literal["file", "directory", "symlink"]
    content: str = Field(default="", description="A file's text (UTF-8).")
    target: str | None = Field(
        default=None,
        description="A symlink's target, under a root or relative to the link's directory.",
        pattern=TYPED_PATTERN,
    )


# --------------------------------------------------------------------------
# Events: the host vocabulary (`host_events`), read as the Plan lifecycle
# reads it. The lifecycle has no event of its own.

#: The `/plan` subcommands the lifecycle acts on (§ 6 of the host facts:
#: `show`, `finalize` and `tools` change nothing it reports).
PLAN_COMMANDS = ("", "start", "show", "finalize", "implement", "save", "export", "exit", "off", "tools")

#: "Proposed plan ready. What next?", shown when a run in which the model
#: called `plan_mode_complete` settles fully (`agent_settled`, idle, nothing
#: queued).
READY_MENU = (
    "Implement here",
    "Start fresh and implement",
    "Export plan…",
    "Save for later",
    "Stay in Plan mode",
    "Discard plan and exit",
)

#: The items of the menu `/plan` opens, by state: launch (Start Plan mode),
#: while planning (with or without a ready plan), saved plan, active
#: implementation plan. Only the items the lifecycle acts on are accepted.
PLAN_MENU = (
    "Start Plan mode",
    *READY_MENU,
    "Exit Plan mode",
    "Start a new plan",
    "Clear active implementation plan",
)

#: The ready plan's Start fresh screen: a thinking row (answered by a level
#: name; it starts from the current level) and `Start`.
FRESH_SCREEN = ("Start", "off", "minimal", "low", "medium", "high", "xhigh", "max")

Menu = Literal["ready", "plan", "fresh", "export"]

#: The tool the model calls to hand in a plan (`{plan}`), active only in Plan mode.
COMPLETE_TOOL = "plan_mode_complete"

LifecycleEvent = Annotated[
    host.Command
    | host.UiAnswer
    | host.AgentStart
    | host.AgentQueue
    | host.AgentSettle
    | host.Context
    | host.ToolCall
    | host.ClockAdvance
    | host.ThinkingSelect
    | host.SessionReload
    | host.SessionRestart
    | host.SessionResume
    | host.SessionLabel
    | host.SessionTree
    | host.SessionCompact
    | host.SettingsWrite
    | host.SettingsScreen
    | host.CwdChange
    | host.ApiFail,
    Field(discriminator="type"),
]


def _check_typed_path(path: str, where: str) -> None:
    """§ Virtual paths: a path typed for an export is relative, `~/…`, `@…`
    or under a root, never a real absolute path."""
    if path and not re.match(TYPED_PATTERN, path):
        raise ValueError(
            f"{where}: the export path {path!r} does not match the virtual-path pattern "
            "(relative, `~/…`, `@…`, or under `$CWD`, `$HOME`, `$AGENT`, `$TMP`)"
        )


#: Events of an open agent run, and events between runs.
_IN_RUN = (host.Context, host.ToolCall, host.AgentQueue, host.AgentSettle)
_BETWEEN_RUNS = (host.SessionLabel, host.SessionTree)
#: Session replacements and reloads: Pi aborts the open run first.
_ENDS_RUN = (host.SessionResume, host.SessionReload, host.SessionRestart)
#: Answers that hand a plan to an implementation (its kickoff starts a run).
_KICKOFFS = {("ready", "Implement here"), ("fresh", "Start"), ("plan", "Implement here")}


def open_menus(events: Sequence[Any]) -> list[Menu | None]:
    """The menu or screen open before each event, from the events alone,
    checking that a Pi host can replay the script.

    Menus: the ready menu opens when a run in which `plan_mode_complete`
    was called settles with no follow-up queued; `/plan` alone opens the
    state's menu; on the ready menu, Start fresh and implement opens the
    fresh screen; Export plan… opens the export input (answered by the path
    typed, empty for the configured one, or dismissed). A user's or Pi's
    other event closes what is open (the user left it); `api.fail` and
    `clock.advance` do not.

    Runs: `context`, `tool.call`, `agent.queue` and `agent.settle` happen
    inside a run, tree moves between runs; resume, reload and restart abort
    the open run. An Implement action sends its kickoff prompt, which starts
    a run unless nothing was implemented or the host failed the delivery,
    which the events alone do not tell: after one, both are accepted.

    Raises ValueError, naming the event, for an answer with nothing open, an
    item the open menu does not offer, a tree navigation to a label never
    given, or an event outside its place in the runs.
    """
    menus: list[Menu | None] = []
    menu: Menu | None = None
    in_run: bool | None = False  # None: a kickoff may have started one
    completed = False
    queued = 0
    labels: set[str] = set()
    for index, event in enumerate(events):
        menus.append(menu)
        where = f"events[{index}] ({event.type})"
        problem = host.misplaced(
            needs_run=isinstance(event, _IN_RUN), needs_no_run=isinstance(event, _BETWEEN_RUNS), in_run=in_run
        )
        if problem:
            raise ValueError(f"{where} {problem}")
        if isinstance(event, host.UiAnswer):
            label = event.label
            if menu == "export" and label is not None:
                _check_typed_path(label.strip(), where)
            if menu is None:
                raise ValueError(
                    f"{where}: nothing is open to answer (the ready menu opens when a run that "
                    "called plan_mode_complete settles; `/plan` opens the Plan menu)"
                )
            offered = {"ready": READY_MENU, "plan": PLAN_MENU, "fresh": FRESH_SCREEN}.get(menu)
            if label is not None and offered is not None and label not in offered:
                raise ValueError(
                    f"{where}: the {menu} menu offers no item {label!r}; it offers {list(offered)}"
                )
            if (menu, label) in _KICKOFFS or (menu == "plan" and label == "Start fresh and implement"):
                in_run = None
            if menu == "ready" and label == "Start fresh and implement":
                menu = "fresh"
            elif menu in ("ready", "plan") and label == "Export plan…":
                menu = "export"
            elif not (menu == "fresh" and label not in (None, "Start")):
                menu = None
            continue
        if isinstance(event, (host.ApiFail, host.ClockAdvance)):
            # A host condition or time passing: what is open stays open.
            continue
        menu = None
        if isinstance(event, host.AgentStart):
            if in_run is True:
                raise ValueError(f"{where}: a run is already open (agent.settle ends it)")
            in_run, completed = True, False
        elif isinstance(event, host.ToolCall) and event.tool == COMPLETE_TOOL:
            completed = True
        elif isinstance(event, host.AgentQueue):
            queued += 1
        elif isinstance(event, host.AgentSettle):
            if queued:
                queued -= 1
                in_run = True
            else:
                menu = "ready" if completed else None
                in_run, completed = False, False
        elif isinstance(event, _ENDS_RUN):
            in_run, completed, queued = False, False, 0
        elif isinstance(event, host.Command) and event.name == "plan":
            args = event.args.strip()
            if args == "":
                menu = "plan"
            elif args == "implement":
                in_run = None
            elif args.startswith("export "):
                _check_typed_path(args.removeprefix("export ").strip(), where)
        elif isinstance(event, host.SessionLabel):
            labels.add(event.label)
        elif isinstance(event, host.SessionTree) and event.to is not None and event.to not in labels:
            raise ValueError(
                f"{where}: no entry is labelled {event.to!r} (label one with session.label first)"
            )
    return menus


class LifecycleRunInput(EventScript[LifecycleEvent]):
    """A Plan lifecycle script in host events, from initial settings."""

    settings: dict[str, Any] = Field(default_factory=dict, description=_SETTINGS_DOC)
    thinking: PiThinking = Field(default="medium", description="Pi's thinking level at start.")
    saved_plan: str | None = Field(default=None, description="A plan saved earlier, if any.")
    cwd: str = Field(default="$CWD", pattern=ROOTED_PATTERN, description="Pi's working directory.")
    home: str = Field(default="$HOME", pattern=ROOTED_PATTERN, description="Where `~` points.")
    paths: list[PathEntry] = Field(default_factory=list)

    @model_validator(mode="after")
    def _answers_fit_their_menus(self) -> LifecycleRunInput:
        open_menus(self.events)
        return self


# --------------------------------------------------------------------------
# Observations


class ContextObserved(Observation):
    """What one assembled context carried (what the `context` hook returned)."""

    type: Literal["context"] = effect()
    session: int = effect(
        description="1 at start; each fresh implementation session or resume takes the next number."
    )
    mode: Mode = effect(description="Plan mode's state when the context was assembled, as its status shows.")
    plan_in_history: bool = effect(description="Ordinary history held the exact plan.")
    injected: bool = effect(description="A hidden injection was added to this context.")
    injection: str | None = effect(description="The injected text (the exact plan); null when none.")
    plan_copies: int = effect(description="Copies of the exact plan in the context.")
    active_plan: bool = explanation(description="An active (guaranteed) plan existed for this context.")


class KickoffObserved(Observation):
    """The prompt an Implement action sends."""

    type: Literal["kickoff"] = effect()
    session: int = effect(description="The session the prompt is sent in.")
    how: ImplementHow = explanation(description="The Implement action that sent it.")
    text: str = effect(description="The prompt's text.")
    holds_plan: bool = effect(description="The prompt holds the complete plan.")
    policy: str = explanation(description="The retention policy this implementation stores.")


class ThinkingObserved(Observation):
    """Pi's thinking level changed; in the trace, also a restore that was
    skipped (no level is set then)."""

    type: Literal["thinking"] = effect()
    level: str = effect(description="The level set (in the trace, for `restore-skipped`: the level kept).")
    cause: Literal[
        "plan-start", "restore", "restore-skipped", "manual", "fresh-session", "handoff-failed"
    ] = explanation()


class ModeObserved(Observation):
    type: Literal["mode"] = effect()
    mode: Mode = effect()
    cause: str = explanation()


class ActivePlanObserved(Observation):
    """The active-plan state was set or cleared (internal state)."""

    type: Literal["active-plan"] = effect()
    change: Literal["set", "cleared", "re-armed", "armed", "restored"] = explanation()
    policy: str = explanation()
    reason: str = explanation()


class ShortcutObserved(Observation):
    """The toggle shortcut: registered binding beside the configured value."""

    type: Literal["shortcut"] = effect()
    loaded: str | None = effect(description="The binding this runtime registered (null: none).")
    configured: str | None = explanation(description="The value in the settings.")
    registered: bool = effect(description="A binding was registered at this instant.")


class ExportObserved(Observation):
    type: Literal["export"] = effect()
    outcome: Literal["written", "refused", "cancelled", "failed"] = effect()
    source: PlanSource | None = explanation(description="Which plan was exported.")
    destination: str | None = effect(description="The file written or refused.")
    code: str | None = explanation()
    content: str | None = explanation(description="The text written (the written file holds it).")


class NoticeObserved(Observation):
    type: Literal["notice"] = effect()
    code: str = explanation(description="A stable code for the notice.")
    text: str = effect(description="The notice as shown.")


TraceEntry = Annotated[
    ContextObserved
    | KickoffObserved
    | ThinkingObserved
    | ModeObserved
    | ActivePlanObserved
    | ShortcutObserved
    | ExportObserved
    | NoticeObserved,
    Field(discriminator="type"),
]


class Notice(ContractOutput):
    """A notice shown to the user: its text, and the reference's code for it."""

    text: str = effect(description="The notice as shown.")
    code: str = explanation(description="A stable code, e.g. `settings-invalid`, `not-applicable`.")


class ActivePlanState(ContractOutput):
    plan: str = explanation()
    policy: str = explanation()
    armed: bool = explanation(description="`clear-after-first-run`: its first run has begun in this session.")
    session: int = explanation()


class ShortcutState(ContractOutput):
    loaded: str | None = effect(description="The binding registered by this extension runtime.")
    configured: str | None = explanation(description="The value in the settings now.")
    pending: bool = explanation(description="The configured value differs from the loaded one.")
    registrations: int = effect(description="Bindings registered so far (one per runtime, if enabled).")


class WrittenFile(ContractOutput):
    path: str = effect()
    content: str = effect()


class FinalState(ContractOutput):
    mode: Mode = effect(description="Plan mode's state, as its status shows.")
    ready_plan: str | None = effect(description="The ready plan the Implement actions offer.")
    saved_plan: str | None = effect(description="The plan saved for later.")
    active_plan: ActivePlanState | None = explanation(description="The active implementation plan.")
    thinking: str = effect(description="Pi's thinking level.")
    thinking_snapshot: dict[str, str] | None = explanation(
        description="`{prior, applied}` while a fixed Plan thinking level is applied."
    )
    session: int = effect()
    plan_in_history: bool = effect()
    settings: dict[str, Any] = explanation(description="The effective values of the four fields.")
    shortcut: ShortcutState = effect()
    cwd: str = effect()
    written: list[WrittenFile] = effect(description="The files written, with their text.")


class LifecycleRunOutput(ContractOutput):
    trace: list[TraceEntry] = explanation(
        description="Every observation, in order, internal state changes included."
    )
    contexts: list[ContextObserved] = effect()
    kickoffs: list[KickoffObserved] = effect()
    thinking: list[ThinkingObserved] = effect(
        description="Each thinking level set, in order (a skipped restore sets none: it is in `trace` only)."
    )
    exports: list[ExportObserved] = effect()
    notices: list[Notice] = effect(description="The notices shown, in order.")
    final: FinalState = effect()
    screen: list[ScreenEntry] | None = screen(description=SCREEN_DESCRIPTION)


# --------------------------------------------------------------------------
# planmode.export.run


class ExportRequest(ContractInput):
    path: str | None = Field(
        default=None, pattern=TYPED_PATTERN, description="`/plan export <path>`; omitted: configured."
    )
    cancel: bool = False
    preview_width: int | None = Field(
        default=None, ge=2, description="Terminal columns available for the destination preview."
    )


class PlanState(ContractInput):
    source: PlanSource | None = Field(description="What is exported; null: there is no plan.")
    plan: str = ""


class ExportRunInput(ContractInput):
    cwd: str = Field(default="$CWD", pattern=ROOTED_PATTERN, description="Pi's working directory.")
    home: str = Field(default="$HOME", pattern=ROOTED_PATTERN, description="Where `~` points.")
    paths: list[PathEntry] = Field(default_factory=list)
    settings: dict[str, Any] = Field(
        default_factory=dict,
        description=(
            "The raw settings document; `defaultPlanExportPath` is used, and an invalid value "
            "in any field invalidates the document, so the export falls back to `PLAN.md`."
        ),
    )
    request: ExportRequest = Field(default_factory=ExportRequest)
    state: PlanState


class StateAfter(ContractOutput):
    plan_mode: bool = effect(description="Plan mode is still active (a ready plan stays ready).")
    source_kept: bool = explanation(description="The exported plan is still held in its state.")


class ExportRunOutput(ContractOutput):
    outcome: Literal["written", "refused", "cancelled", "failed"] = effect()
    code: str | None = explanation(description="Why not written, e.g. `exists-file`, `parent-not-directory`.")
    reason: str | None = explanation()
    requested: str = explanation(description="The raw path used: explicit, configured or the default.")
    destination: str | None = effect(description="The resolved absolute destination, used as is.")
    preview: str | None = explanation(description="The destination as previewed in `previewWidth` columns.")
    content: str | None = effect(description="The exact text written.")
    size: int | None = effect(description="Bytes written.")
    created_directories: list[str] = effect()
    state_after: StateAfter = effect()
    settings_after: dict[str, Any] = effect(description="The settings after the export (never edited).")
    screen: list[ScreenEntry] | None = screen(description=SCREEN_DESCRIPTION)


class LifecycleVocabulary(ContractInput):
    """The shared Plan-lifecycle vocabulary: every event and observation type."""

    events: list[LifecycleEvent]
    observations: list[TraceEntry]


SCHEMAS = {"events/planmode-lifecycle.schema.json": LifecycleVocabulary}

RUN = Operation(
    name="planmode.lifecycle.run",
    input=LifecycleRunInput,
    output=LifecycleRunOutput,
    summary=(
        "Run a Plan lifecycle event script: reinjection per retention policy, kickoff "
        "prompts, thinking level, exports, toggle shortcut registration."
    ),
    kind="script",
    sandbox=True,
)

EXPORT_RUN = Operation(
    name="planmode.export.run",
    input=ExportRunInput,
    output=ExportRunOutput,
    summary="Resolve and perform one /plan export against described pre-existing paths.",
    sandbox=True,
)

OPERATIONS = [RUN, EXPORT_RUN]
