from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pytest_planmode.contract import host_events as host
from pytest_planmode.contract import planmode_lifecycle
from pytest_planmode.contract import planmode_lifecycle as life
from pytest_planmode.contract.planmode_lifecycle import (
    ExportRunInput,
    ExportRunOutput,
    LifecycleRunInput,
    LifecycleRunOutput,
    PathEntry,
)
from pytest_planmode.contract.screen import ScreenEntry, entry
from pytest_planmode.reference.planmode import export as exporting
from pytest_planmode.reference.planmode import lifecycle, messages
from pytest_planmode.reference.planmode import lifecycle_events as ev
from pytest_planmode.reference.planmode.settings import read_document
from pytest_planmode.targets.reference.convert import output
from pytest_planmode.targets.reference.ops import MODEL_ROOTS, handler


class _Replay:
    """What the host events leave pending between two events: the menu
    open before the current one, a Pi API call the host will fail, and the
    fresh screen's thinking choice."""

    def __init__(self) -> None:
        self.menu: life.Menu | None = None
        self.failing: set[str] = set()
        self.fresh_thinking: str | None = None
        #: Follow-ups queued in the open run (`agent.queue`).
        self.queued = 0

    def implement(self, at: int, how: str, session: str = "current") -> list[ev.LifecycleEvent]:
        """An Implement action, and its failed delivery when the host fails
        a call its handoff makes (a fresh session: `newSession`, then the
        kickoff through `sendUserMessage`; otherwise the kickoff only)."""
        thinking, self.fresh_thinking = self.fresh_thinking, None
        calls = {"newSession", "sendUserMessage"} if "fresh" in (how, session) else {"sendUserMessage"}
        failed = self.failing & calls
        self.failing -= failed
        action = ev.Implement(at, how=how, thinking=thinking, session=session)
        if not failed:
            return [action]
        # A failed session replacement comes before the kickoff is sent.
        return [action, ev.HandoffFailed(at, sent="newSession" not in failed)]


def _command(e: host.Command, r: _Replay) -> list[ev.LifecycleEvent]:
    """`/plan <args>` (§ 6.2 of the host facts); other commands are not the lifecycle's."""
    if e.name != "plan":
        return []
    word, _, rest = e.args.strip().partition(" ")
    if word == "start":
        return [ev.PlanStart(e.at)]
    if word in ("exit", "off"):
        return [ev.PlanExit(e.at)]
    if word == "save":
        return [ev.PlanSave(e.at)]
    if word == "implement":
        return r.implement(e.at, "offered")
    if word == "export":
        return [ev.Export(e.at, path=rest.strip() or None)]
    return []


def _answer(e: host.UiAnswer, r: _Replay) -> list[ev.LifecycleEvent]:
    """An item of the menu open before it (`life.open_menus`)."""
    label, menu = e.label, r.menu
    if menu == "export":
        return (
            [ev.Export(e.at, cancel=True)] if label is None else [ev.Export(e.at, path=label.strip() or None)]
        )
    if menu == "fresh":
        if label == "Start":
            return r.implement(e.at, "fresh")
        r.fresh_thinking = label
        return []
    if label in ("Implement here", "Start fresh and implement"):
        session = "fresh" if label == "Start fresh and implement" else "current"
        if menu == "ready":
            # Start fresh on the ready menu opens the fresh screen first.
            return [] if session == "fresh" else r.implement(e.at, "here")
        return r.implement(e.at, "offered", session)
    if label in ("Start Plan mode", "Start a new plan"):
        return [ev.PlanStart(e.at)]
    if label == "Save for later":
        return [ev.PlanSave(e.at)]
    if label in ("Discard plan and exit", "Exit Plan mode", "Clear active implementation plan"):
        return [ev.PlanExit(e.at)]
    return []


def _fail(e: host.ApiFail, r: _Replay) -> list[ev.LifecycleEvent]:
    r.failing.add(e.call)
    return []


def _tool_call(e: host.ToolCall, r: _Replay) -> list[ev.LifecycleEvent]:
    """The model hands in a plan with `plan_mode_complete{plan}`; other tools are not the lifecycle's."""
    if e.tool != life.COMPLETE_TOOL:
        return []
    return [ev.PlanReady(e.at, plan=str(e.input.get("plan", "")))]


def _queue(e: host.AgentQueue, r: _Replay) -> list[ev.LifecycleEvent]:
    r.queued += 1
    return []


def _settle(e: host.AgentSettle, r: _Replay) -> list[ev.LifecycleEvent]:
    """With a follow-up queued Pi fires `agent_end` only: the run settles partly."""
    if r.queued:
        r.queued -= 1
        return [ev.RunSettled(e.at, fully=False)]
    return [ev.RunSettled(e.at, fully=True)]


def _tree(e: host.SessionTree, r: _Replay) -> list[ev.LifecycleEvent]:
    """A branch given by its entries holds none of this conversation's text,
    so not the exact plan; a labelled point has history as it was there."""
    if e.to is not None:
        return [ev.TreeNavigate(e.at, to=e.to)]
    return [ev.TreeNavigate(e.at, plan_in_history=False)]


#: Each script event's reference events, by the event's contract class
#: (events that change nothing the lifecycle reads map to none).
_EVENTS: dict[type[Any], Callable[[Any, _Replay], list[ev.LifecycleEvent]]] = {
    host.Command: _command,
    host.UiAnswer: _answer,
    host.AgentStart: lambda e, r: [],
    host.AgentQueue: _queue,
    host.AgentSettle: _settle,
    host.Context: lambda e, r: [ev.Context(e.at)],
    host.ToolCall: _tool_call,
    host.ClockAdvance: lambda e, r: [],
    host.ThinkingSelect: lambda e, r: [ev.ThinkingManual(e.at, level=e.level)],
    host.SessionReload: lambda e, r: [ev.Reload(e.at)],
    host.SessionRestart: lambda e, r: [ev.Reload(e.at, restart=True)],
    host.SessionResume: lambda e, r: [ev.Resume(e.at)],
    host.SessionLabel: lambda e, r: [ev.Label(e.at, name=e.label)],
    host.SessionTree: _tree,
    host.SessionCompact: lambda e, r: [ev.Compaction(e.at)],
    host.SettingsWrite: lambda e, r: [ev.SettingsSave(e.at, settings=e.settings, via="json")],
    host.SettingsScreen: lambda e, r: [ev.SettingsSave(e.at, settings=e.settings, via="settings")],
    host.CwdChange: lambda e, r: [ev.CwdChange(e.at, cwd=e.cwd)],
    host.ApiFail: _fail,
}


def script_events(events: list[Any]) -> list[ev.LifecycleEvent]:
    """The reference events of a host script, in order."""
    replay = _Replay()
    converted: list[ev.LifecycleEvent] = []
    for event, menu in zip(events, life.open_menus(events), strict=True):
        replay.menu = menu
        converted.extend(_EVENTS[type(event)](event, replay))
    return converted


def model_fs(
    paths: Iterable[PathEntry], cwd: str, home: str, roots: Iterable[str] = MODEL_ROOTS.values()
) -> exporting.ModelFileSystem:
    """The in-memory tree an input describes: its paths, their ancestors,
    the working directory, home and every sandbox root."""
    entries = [
        (
            entry.path,
            exporting.Node(entry.kind, content=entry.content.encode("utf-8"), target=entry.target or ""),
        )
        for entry in paths
    ]
    return exporting.ModelFileSystem.of(entries, also=(cwd, home, *roots))


#: The Settings row of the toggle shortcut (reference wording).
SHORTCUT_ROW = "Plan mode shortcut"


def shortcut_row(loaded: str | None, configured: str | None) -> str:
    """§ Toggle shortcut: "Settings shows the configured value separately
    from the value loaded at startup" (reference wording)."""
    row = f"{SHORTCUT_ROW}: {configured or 'disabled'}"
    if loaded != configured:
        row += f" (loaded at startup: {loaded or 'none'}; applies after /reload or a restart)"
    return row


def lifecycle_screen(events: list[Any], trace: list[dict[str, Any]]) -> list[ScreenEntry]:
    """What the run showed, in order: each notice as a notification, and
    the Settings screen after each save through it that sets the shortcut
    (its shortcut row). A save's shortcut observation is matched to its
    event by instant, in event order."""
    saves = [
        e
        for e in events
        if isinstance(e, host.SettingsWrite | host.SettingsScreen) and "toggleShortcut" in e.settings
    ]
    through_settings: set[int] = set()
    used: set[int] = set()
    for save in saves:
        index = next(
            (
                i
                for i, obs in enumerate(trace)
                if i not in used
                and obs["type"] == "shortcut"
                and not obs["registered"]
                and obs["at"] == save.at
            ),
            None,
        )
        if index is None:
            continue  # a rejected save changes nothing
        used.add(index)
        if isinstance(save, host.SettingsScreen):
            through_settings.add(index)
    shown: list[ScreenEntry] = []
    for i, obs in enumerate(trace):
        if obs["type"] == "notice":
            shown.append(entry("notify", None, [obs["text"]]))
        elif i in through_settings:
            shown.append(entry("custom", "Settings", [shortcut_row(obs["loaded"], obs["configured"])]))
    return shown


@handler(planmode_lifecycle.RUN)
def run(inp: LifecycleRunInput) -> LifecycleRunOutput:
    result = lifecycle.run(
        script_events(list(inp.events)),
        settings=inp.settings,
        thinking_level_now=inp.thinking,
        saved_plan=inp.saved_plan,
        cwd=inp.cwd,
        home=inp.home,
        fs=model_fs(inp.paths, inp.cwd, inp.home),
    )
    state = result.state
    trace = result.trace

    def only(kind: str) -> list[dict[str, Any]]:
        return [obs for obs in trace if obs["type"] == kind]

    active = state.active
    final = {
        "mode": state.mode,
        "ready_plan": state.ready_plan,
        "saved_plan": state.saved_plan,
        "active_plan": None
        if active is None
        else {
            "plan": active.plan,
            "policy": active.policy,
            "armed": active.armed,
            "session": active.session,
        },
        "thinking": state.thinking,
        "thinking_snapshot": None
        if state.snapshot is None
        else {"prior": state.snapshot.prior, "applied": state.snapshot.applied},
        "session": state.session,
        "plan_in_history": state.plan_in_history,
        "settings": lifecycle.settings_view(state.settings),
        "shortcut": {
            "loaded": state.shortcut.loaded,
            "configured": state.shortcut.configured,
            "pending": state.shortcut.pending,
            "registrations": state.shortcut.registrations,
        },
        "cwd": state.cwd,
        "written": [{"path": path, "content": content} for path, content in result.written],
    }
    return LifecycleRunOutput.model_validate(
        {
            "trace": trace,
            "contexts": only("context"),
            "kickoffs": only("kickoff"),
            # A skipped restore calls no `setThinkingLevel`: it is in the trace only.
            "thinking": [obs for obs in only("thinking") if obs["cause"] != "restore-skipped"],
            "exports": only("export"),
            "notices": [{"text": obs["text"], "code": obs["code"]} for obs in only("notice")],
            "final": final,
            "screen": lifecycle_screen(list(inp.events), trace),
        }
    )


def configured_export_path(settings: dict[str, Any]) -> str | None:
    """§ Export destination and § Thinking level: the configured destination
    of a valid document; None (so `PLAN.md`) when it sets none or when any
    of its fields is invalid."""
    return read_document(settings).settings.default_plan_export_path


def export_once(inp: ExportRunInput, fs: exporting.FileSystem) -> ExportRunOutput:
    """One export against `fs`; shared by the operation and the real-directory check."""
    source = inp.state.source
    had_plan_mode = source == "ready"
    if source is None:
        return ExportRunOutput(
            outcome="refused",
            code="nothing-to-export",
            reason=messages.NOTHING_TO_EXPORT,
            requested=exporting.requested_path(inp.request.path, configured_export_path(inp.settings)),
            destination=None,
            content=None,
            size=None,
            created_directories=[],
            state_after={"plan_mode": False, "source_kept": False},
            settings_after=dict(inp.settings),
        )
    result = exporting.export_plan(
        fs,
        plan=inp.state.plan,
        explicit=inp.request.path,
        configured=configured_export_path(inp.settings),
        cwd=inp.cwd,
        home=inp.home,
        cancel=inp.request.cancel,
    )
    written = result.outcome == "written"
    # A ready-plan export ends Plan mode; saved and active plans stay.
    state_after = {
        "plan_mode": had_plan_mode and not written,
        "source_kept": not (written and source == "ready"),
    }
    preview = (
        None
        if result.destination is None
        else exporting.preview(result.destination, inp.request.preview_width)
    )
    # § Export destination: "every export input previews the concrete
    # resolved destination". A cancelled export is the one whose input was
    # opened (and dismissed); `/plan export [path]` exports at once.
    shown = (
        [] if preview is None or not inp.request.cancel else [entry("input", f"Export plan to {preview}", [])]
    )
    return output(
        ExportRunOutput,
        result,
        preview=preview,
        state_after=state_after,
        settings_after=dict(inp.settings),
        screen=shown,
    )


@handler(planmode_lifecycle.EXPORT_RUN)
def export(inp: ExportRunInput) -> ExportRunOutput:
    return export_once(inp, model_fs(inp.paths, inp.cwd, inp.home))
