"""The Plan lifecycle as an event script (pi-plan-mode-settings.md
§ Plan reinjection, § Thinking level, § Implementation model and thinking,
§ Export destination, § Toggle shortcut).

:func:`run` folds events over a frozen :class:`State` and records what an
observer sees: each assembled context, kickoff prompts, thinking changes,
active-plan changes, exports, shortcut registrations and notices. Nothing
here reads a clock; `at` is carried through from the events.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_planmode.reference.planmode import export as exporting
from pytest_planmode.reference.planmode import lifecycle_events as ev
from pytest_planmode.reference.planmode import reinjection
from pytest_planmode.reference.planmode import shortcut as toggle
from pytest_planmode.reference.planmode import thinking as plan_thinking
from pytest_planmode.reference.planmode.settings import FALLBACK, EffectiveSettings, read_document

Obs = dict[str, Any]


def settings_view(settings: EffectiveSettings) -> dict[str, Any]:
    """The four fields the lifecycle acts on, as its final state reports
    them (an unconfigured export path or shortcut is null)."""
    return {
        "thinkingLevel": settings.thinking_level,
        "implementationPlanRetention": settings.implementation_plan_retention,
        "defaultPlanExportPath": settings.default_plan_export_path,
        "toggleShortcut": settings.toggle_shortcut,
    }


@dataclass(frozen=True)
class ActivePlan:
    plan: str
    policy: str
    armed: bool
    session: int


@dataclass(frozen=True)
class State:
    mode: str = "normal"
    ready_plan: str | None = None
    saved_plan: str | None = None
    active: ActivePlan | None = None
    thinking: str = "medium"
    snapshot: plan_thinking.Snapshot | None = None
    session: int = 1
    plan_in_history: bool = False
    raw_settings: Mapping[str, Any] = field(default_factory=dict)
    settings: EffectiveSettings = FALLBACK
    shortcut: toggle.Shortcut = field(default_factory=lambda: toggle.at_startup(None))
    cwd: str = "/"
    #: Whether history held the exact plan at each labelled point.
    labels: Mapping[str, bool] = field(default_factory=dict)
    #: The state before the Implement action of the previous event, so a
    #: failed handoff can put it back; None after any other event.
    before_handoff: State | None = None


@dataclass
class Result:
    trace: list[Obs]
    state: State
    written: list[tuple[str, str]]


class _Run:
    def __init__(self, state: State, fs: exporting.ModelFileSystem, home: str) -> None:
        self.state = state
        self.fs = fs
        self.home = home
        self.trace: list[Obs] = []
        self.written: list[tuple[str, str]] = []
        self.at = 0

    def see(self, kind: str, **fields: Any) -> None:
        self.trace.append({"at": self.at, "type": kind, **fields})

    def notice(self, code: str, text: str) -> None:
        self.see("notice", code=code, text=text)

    def set(self, **changes: Any) -> None:
        self.state = replace(self.state, **changes)

    # -- shared transitions ------------------------------------------------

    def leave_plan_mode(self, cause: str) -> None:
        """§ Thinking level: leaving Plan mode restores the snapshotted level
        only if Pi is still at the level Plan mode applied."""
        had_snapshot = self.state.snapshot is not None
        level, restored = plan_thinking.leave(self.state.snapshot, self.state.thinking)
        self.set(mode="normal", ready_plan=None, snapshot=None, thinking=level)
        self.see("mode", mode="normal", cause=cause)
        if had_snapshot:
            self.see("thinking", level=level, cause="restore" if restored else "restore-skipped")

    def clear_active(self, reason: str) -> None:
        active = self.state.active
        if active is not None:
            self.set(active=None)
            self.see("active-plan", change="cleared", policy=active.policy, reason=reason)

    # -- events --------------------------------------------------------------

    def plan_start(self, event: ev.PlanStart) -> None:
        if self.state.mode != "normal":
            self.notice("not-applicable", "Plan mode is already active")
            return
        # Reference choice: a new Plan workflow supersedes the active plan.
        self.clear_active("superseded")
        entry = plan_thinking.enter(self.state.settings.thinking_level, self.state.thinking)
        self.set(mode="planning", snapshot=entry.snapshot, thinking=entry.level, plan_in_history=False)
        self.see("mode", mode="planning", cause="plan-start")
        if entry.snapshot is not None:
            self.see("thinking", level=entry.level, cause="plan-start")

    def plan_run(self, event: ev.PlanRun) -> None:
        if self.state.mode == "normal":
            self.notice("not-applicable", "a planning run needs Plan mode")
            return
        self.context(ev.Context(event.at))
        self.run_settled(ev.RunSettled(event.at))

    def plan_ready(self, event: ev.PlanReady) -> None:
        if self.state.mode == "normal":
            self.notice("not-applicable", "a plan completes only in Plan mode")
            return
        self.set(mode="ready", ready_plan=event.plan, plan_in_history=True)
        self.see("mode", mode="ready", cause="plan-ready")

    def plan_save(self, event: ev.PlanSave) -> None:
        plan = self.state.ready_plan
        if self.state.mode != "ready" or plan is None:
            self.notice("not-applicable", "there is no ready plan to save")
            return
        self.set(saved_plan=plan)
        self.leave_plan_mode("plan-save")

    def implement(self, event: ev.Implement) -> None:
        """§ Plan reinjection: the policy in effect now is stored with this
        implementation; the kickoff depends on where it runs."""
        how = event.how
        before = self.state
        if how == "offered":
            fresh_offer = event.session == "fresh"
            if before.mode == "normal":
                how = "saved"
            else:
                how = "fresh" if fresh_offer else "here"
            event = replace(event, how=how, session="fresh" if fresh_offer and how == "saved" else "current")
        if how == "saved":
            plan = before.saved_plan
            if before.mode != "normal" or plan is None:
                self.notice("not-applicable", "there is no saved plan to implement outside Plan mode")
                return
            fresh = event.session == "fresh"
            menu_level = before.thinking
            self.set(saved_plan=None)
        else:
            plan = before.ready_plan
            if before.mode != "ready" or plan is None:
                self.notice("not-applicable", "there is no ready plan to implement")
                return
            fresh = how == "fresh"
            # The fresh screen's thinking row starts from the level current
            # while the menu is open, i.e. the Plan-mode level.
            menu_level = before.thinking
            self.leave_plan_mode("implement")
        self.clear_active("superseded")
        policy = before.settings.implementation_plan_retention
        session = before.session + 1 if fresh else before.session
        self.set(session=session, plan_in_history=True)
        if fresh:
            level = plan_thinking.fresh_session_level(event.thinking, menu_level)
            self.set(thinking=level)
            self.see("thinking", level=level, cause="fresh-session")
        kick = reinjection.kickoff(how, plan)
        self.see(
            "kickoff",
            session=session,
            how=how,
            text=kick.text,
            holds_plan=kick.holds_plan,
            policy=policy,
        )
        if reinjection.rule(policy).guarantees:
            self.set(active=ActivePlan(plan, policy, armed=False, session=session))
            self.see("active-plan", change="set", policy=policy, reason="implement")
        self.set(before_handoff=before)

    def context(self, event: ev.Context) -> None:
        """§ Plan reinjection: the `context` hook."""
        given = event.plan_in_history
        if given is not None:
            self.set(plan_in_history=given)
        active = self.state.active
        decision = reinjection.decide_context(self.state.plan_in_history, active is not None)
        self.see(
            "context",
            session=self.state.session,
            mode=self.state.mode,
            plan_in_history=self.state.plan_in_history,
            injected=decision.injected,
            injection=active.plan if decision.injected and active is not None else None,
            plan_copies=decision.copies,
            active_plan=active is not None,
        )
        if active is not None and reinjection.rule(active.policy).ends_after_first_run and not active.armed:
            # The first run is the one this context starts; its settling ends the guarantee.
            self.set(active=replace(active, armed=True))
            self.see("active-plan", change="armed", policy=active.policy, reason="first-context")

    def run_settled(self, event: ev.RunSettled) -> None:
        active = self.state.active
        if not event.fully or active is None:
            return
        if reinjection.rule(active.policy).ends_after_first_run and active.armed:
            self.clear_active("first-run-settled")

    def resume(self, event: ev.Resume) -> None:
        """§ Plan reinjection: a resumed guaranteed-plan cleanup policy
        re-arms against the first context in the replacement session."""
        self.set(session=self.state.session + 1)
        active = self.state.active
        if active is not None:
            self.set(active=replace(active, armed=False, session=self.state.session))
            if reinjection.rule(active.policy).ends_after_first_run:
                self.see("active-plan", change="re-armed", policy=active.policy, reason="resume")

    def plan_exit(self, event: ev.PlanExit) -> None:
        if self.state.mode != "normal":
            self.leave_plan_mode("plan-exit")
        elif self.state.active is not None:
            self.clear_active("plan-exit")
        else:
            self.notice("nothing-to-exit", "Plan mode is not active and no plan is active")

    def supersede(self, event: ev.Supersede) -> None:
        if self.state.active is None:
            self.notice("not-applicable", "there is no active plan to supersede")
            return
        self.clear_active("superseded")

    def settings_save(self, event: ev.SettingsSave) -> None:
        """§ Thinking level / § Plan reinjection / § Export destination /
        § Toggle shortcut: a save changes the effective settings at once,
        but each field takes effect at its own boundary (next Plan workflow,
        next Implement, next export, next runtime)."""
        changes = dict(event.settings)
        if event.via == "settings" and changes.get("defaultPlanExportPath") == "":
            # § Export destination: an empty value submitted in Settings means "use PLAN.md".
            changes["defaultPlanExportPath"] = None
        merged = {**self.state.raw_settings, **changes}
        merged = {key: value for key, value in merged.items() if value is not None}
        reading = read_document(merged)
        if reading.invalid is not None:
            self.notice("settings-rejected", reading.invalid.detail)
            return
        settings = reading.settings
        self.set(raw_settings=merged, settings=settings)
        if "toggleShortcut" in event.settings:
            state = toggle.configure(self.state.shortcut, settings.toggle_shortcut)
            self.set(shortcut=state)
            self.see("shortcut", loaded=state.loaded, configured=state.configured, registered=False)

    def handoff_failed(self, event: ev.HandoffFailed) -> None:
        """§ Plan reinjection: failed delivery restores the ready or saved
        plan and runs no automatic cleanup."""
        before = self.state.before_handoff
        if before is None:
            self.notice("not-applicable", "no Implement handoff is pending")
            return
        if not event.sent:
            # The prompt was never handed to Pi: no kickoff was sent.
            kickoffs = [i for i, entry in enumerate(self.trace) if entry.get("type") == "kickoff"]
            if kickoffs:
                del self.trace[kickoffs[-1]]
        current = self.state
        self.state = replace(
            before,
            # Settings and the shortcut are not part of the handoff.
            raw_settings=current.raw_settings,
            settings=current.settings,
            shortcut=current.shortcut,
            labels=current.labels,
        )
        restored = "ready" if before.mode == "ready" else "saved"
        self.notice(
            "handoff-failed",
            f"the implementation could not be delivered; the {restored} plan is kept",
        )
        if before.mode == "ready":
            self.see("mode", mode="ready", cause="handoff-failed")
        if current.thinking != before.thinking:
            self.see("thinking", level=before.thinking, cause="handoff-failed")

    def thinking_manual(self, event: ev.ThinkingManual) -> None:
        self.set(thinking=event.level)
        self.see("thinking", level=event.level, cause="manual")

    def reload(self, event: ev.Reload) -> None:
        """§ Toggle shortcut: a new extension runtime registers the configured value."""
        state = toggle.new_runtime(self.state.shortcut)
        self.set(shortcut=state)
        self.see(
            "shortcut",
            loaded=state.loaded,
            configured=state.configured,
            registered=state.loaded is not None,
        )

    def tree_navigate(self, event: ev.TreeNavigate) -> None:
        # Not a new runtime: a pending shortcut change stays pending.
        given = event.plan_in_history
        if event.to is not None:
            given = self.state.labels.get(event.to, given)
        if given is not None:
            self.set(plan_in_history=given)

    def label(self, event: ev.Label) -> None:
        self.set(labels={**self.state.labels, event.name: self.state.plan_in_history})

    def compaction(self, event: ev.Compaction) -> None:
        # The summary replaces ordinary history; the exact plan is gone from it.
        self.set(plan_in_history=False)

    def cwd_change(self, event: ev.CwdChange) -> None:
        self.set(cwd=event.cwd)

    def export(self, event: ev.Export) -> None:
        """§ Export destination: a ready-plan export ends Plan mode; saved and
        active exports keep their state; failed or cancelled exports change
        nothing."""
        state = self.state
        available: dict[str, str | None] = {
            "ready": state.ready_plan if state.mode == "ready" else None,
            "active": state.active.plan if state.active is not None else None,
            "saved": state.saved_plan,
        }
        source = event.source or next((s for s, p in available.items() if p is not None), None)
        plan = available.get(source) if source is not None else None
        if source is None or plan is None:
            self.see(
                "export",
                outcome="refused",
                source=source,
                destination=None,
                code="nothing-to-export",
                content=None,
            )
            return
        result = exporting.export_plan(
            self.fs,
            plan=plan,
            explicit=event.path,
            configured=state.settings.default_plan_export_path,
            cwd=state.cwd,
            home=self.home,
            cancel=event.cancel,
        )
        self.see(
            "export",
            outcome=result.outcome,
            source=source,
            destination=result.destination,
            code=result.code,
            content=result.content,
        )
        if result.outcome == "written" and result.destination is not None and result.content is not None:
            self.written.append((result.destination, result.content))
            if source == "ready":
                self.leave_plan_mode("export")


#: Each event's handler, by the event's class.
_EVENTS: Mapping[type[Any], Callable[[_Run, Any], None]] = {
    ev.PlanStart: _Run.plan_start,
    ev.PlanRun: _Run.plan_run,
    ev.PlanReady: _Run.plan_ready,
    ev.PlanSave: _Run.plan_save,
    ev.Implement: _Run.implement,
    ev.Context: _Run.context,
    ev.RunSettled: _Run.run_settled,
    ev.Resume: _Run.resume,
    ev.PlanExit: _Run.plan_exit,
    ev.Supersede: _Run.supersede,
    ev.SettingsSave: _Run.settings_save,
    ev.HandoffFailed: _Run.handoff_failed,
    ev.ThinkingManual: _Run.thinking_manual,
    ev.Reload: _Run.reload,
    ev.TreeNavigate: _Run.tree_navigate,
    ev.Label: _Run.label,
    ev.Compaction: _Run.compaction,
    ev.CwdChange: _Run.cwd_change,
    ev.Export: _Run.export,
}


def run(
    events: Iterable[ev.LifecycleEvent],
    *,
    settings: Mapping[str, Any],
    thinking_level_now: str,
    saved_plan: str | None,
    cwd: str,
    home: str,
    fs: exporting.ModelFileSystem,
) -> Result:
    """Run a lifecycle script of :mod:`lifecycle_events` values, each handled
    by its class's entry in :data:`_EVENTS`; the trace lists observations in
    order."""
    notices: list[Obs] = []
    reading = read_document(settings)
    effective = reading.settings
    raw: Mapping[str, Any] = dict(settings)
    if reading.invalid is not None:
        # § Thinking level: invalid settings warn and fall back to the defaults.
        raw = {}
        notices.append(
            {"at": 0, "type": "notice", "code": "settings-invalid", "text": reading.invalid.detail}
        )
    state = State(
        thinking=thinking_level_now,
        saved_plan=saved_plan,
        raw_settings=raw,
        settings=effective,
        shortcut=toggle.at_startup(effective.toggle_shortcut),
        cwd=cwd,
    )
    runner = _Run(state, fs, home)
    runner.trace.extend(notices)
    for event in events:
        runner.at = event.at
        failed = isinstance(event, ev.HandoffFailed)
        if not failed:
            # Only the event right after an Implement can report its failed delivery.
            runner.set(before_handoff=None)
        _EVENTS[type(event)](runner, event)
        if failed:
            runner.set(before_handoff=None)
    return Result(runner.trace, runner.state, runner.written)
