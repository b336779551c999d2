from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pytest_planmode.contract import planmode_lifecycle
from pytest_planmode.contract import planmode_lifecycle as life
from pytest_planmode.contract.planmode_lifecycle import (
    ExportRunInput,
    ExportRunOutput,
    LifecycleRunInput,
    LifecycleRunOutput,
    PathEntry,
)
from pytest_planmode.reference.planmode import export as exporting
from pytest_planmode.reference.planmode import lifecycle, messages
from pytest_planmode.reference.planmode import lifecycle_events as ev
from pytest_planmode.reference.planmode.settings import read_document
from pytest_planmode.targets.reference.convert import output, value
from pytest_planmode.targets.reference.ops import MODEL_ROOTS, handler

#: Each script event's reference class, by its contract class.
_EVENTS: dict[type[Any], type[ev.LifecycleEvent]] = {
    life.PlanStart: ev.PlanStart,
    life.PlanRun: ev.PlanRun,
    life.PlanReady: ev.PlanReady,
    life.PlanSave: ev.PlanSave,
    life.Implement: ev.Implement,
    life.Context: ev.Context,
    life.RunSettled: ev.RunSettled,
    life.Resume: ev.Resume,
    life.PlanExit: ev.PlanExit,
    life.Supersede: ev.Supersede,
    life.SettingsSave: ev.SettingsSave,
    life.HandoffFailed: ev.HandoffFailed,
    life.ThinkingManual: ev.ThinkingManual,
    life.Reload: ev.Reload,
    life.TreeNavigate: ev.TreeNavigate,
    life.Compaction: ev.Compaction,
    life.CwdChange: ev.CwdChange,
    life.Export: ev.Export,
}


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


@handler(planmode_lifecycle.RUN)
def run(inp: LifecycleRunInput) -> LifecycleRunOutput:
    result = lifecycle.run(
        [value(_EVENTS[type(event)], event) for event in inp.events],
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
            "thinking": only("thinking"),
            "exports": only("export"),
            "notices": [{"text": obs["text"], "code": obs["code"]} for obs in only("notice")],
            "final": final,
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
    return output(
        ExportRunOutput,
        result,
        preview=None
        if result.destination is None
        else exporting.preview(result.destination, inp.request.preview_width),
        state_after=state_after,
        settings_after=dict(inp.settings),
    )


@handler(planmode_lifecycle.EXPORT_RUN)
def export(inp: ExportRunInput) -> ExportRunOutput:
    return export_once(inp, model_fs(inp.paths, inp.cwd, inp.home))
