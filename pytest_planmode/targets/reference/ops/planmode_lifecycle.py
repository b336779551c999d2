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
from pytest_planmode.reference.planmode.settings import read_document
from pytest_planmode.targets.reference.convert import output
from pytest_planmode.targets.reference.host import host_event, members
from pytest_planmode.targets.reference.ops import MODEL_ROOTS, handler

#: Each script event's reference event, by its contract class: the host's
#: own, one class each (what it means is the lifecycle's business).
_EVENTS: dict[type[Any], Callable[[Any], lifecycle.LifecycleEvent]] = {
    cls: host_event for cls in members(life.LifecycleEvent)
}


def script_events(events: list[Any]) -> list[lifecycle.LifecycleEvent]:
    """The reference events of a host script, in order."""
    return [_EVENTS[type(event)](event) for event in events]


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
