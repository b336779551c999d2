"""The Plan lifecycle as an event script (pi-plan-mode-settings.md
§ Plan reinjection, § Thinking level, § Implementation model and thinking,
§ Export destination, § Toggle shortcut).

:func:`run` folds host events (:mod:`pytest_planmode.reference.host_events`)
over a frozen :class:`State` and records what an observer sees: each
assembled context, kickoff prompts, thinking changes, active-plan changes,
exports, shortcut registrations and notices. A command or a menu answer is
the action it is here (`/plan implement`, **Implement here** on the ready
menu): the run follows which menu is open, whether the open run completed a
plan, follow-ups queued in it and the Pi calls the host will fail, as the
extension does. Nothing here reads a clock; `at` is carried through from the
events.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_planmode.reference import host_events as host
from pytest_planmode.reference.planmode import export as exporting
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
        #: The menu or screen open before the current event (`ready`,
        #: `plan`, `fresh` or `export`), and the one open after it.
        self.open: str | None = None
        self.menu: str | None = None
        #: Whether the open run called `plan_mode_complete`.
        self.completed = False
        #: Follow-ups queued in the open run (`agent.queue`).
        self.queued = 0
        #: Pi API calls the host fails the next time the extension makes them.
        self.failing: set[str] = set()
        #: The fresh screen's thinking choice, for its Start.
        self.fresh_thinking: str | None = None

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

    # -- actions: what a command or a menu answer does ----------------------

    def plan_start(self) -> None:
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

    def plan_ready(self, plan: str) -> None:
        if self.state.mode == "normal":
            self.notice("not-applicable", "a plan completes only in Plan mode")
            return
        self.set(mode="ready", ready_plan=plan, plan_in_history=True)
        self.see("mode", mode="ready", cause="plan-ready")

    def plan_save(self) -> None:
        plan = self.state.ready_plan
        if self.state.mode != "ready" or plan is None:
            self.notice("not-applicable", "there is no ready plan to save")
            return
        self.set(saved_plan=plan)
        self.leave_plan_mode("plan-save")

    def implement(self, how: str, session: str = "current") -> None:
        """An Implement action (`how`: `here`, `fresh`, or `offered`: what the
        menu or `/plan implement` offers, the ready plan in Plan mode, else
        the saved plan; `session`: `fresh` for the direct fresh action), and
        its failed delivery when the host fails a call its handoff makes (a
        fresh session: `newSession`, then the kickoff through
        `sendUserMessage`; otherwise the kickoff only)."""
        thinking, self.fresh_thinking = self.fresh_thinking, None
        calls = {"newSession", "sendUserMessage"} if "fresh" in (how, session) else {"sendUserMessage"}
        failed = self.failing & calls
        self.failing -= failed
        before = self.hand_off(how, thinking, session)
        if failed:
            # A failed session replacement comes before the kickoff is sent.
            self.handoff_failed(before, sent="newSession" not in failed)

    def hand_off(self, how: str, thinking: str | None, session: str) -> State | None:
        """§ Plan reinjection: the policy in effect now is stored with this
        implementation; the kickoff depends on where it runs. The state
        before it, or None when there was nothing to implement."""
        before = self.state
        if how == "offered":
            fresh_offer = session == "fresh"
            if before.mode == "normal":
                how = "saved"
            else:
                how = "fresh" if fresh_offer else "here"
            session = "fresh" if fresh_offer and how == "saved" else "current"
        if how == "saved":
            plan = before.saved_plan
            if before.mode != "normal" or plan is None:
                self.notice("not-applicable", "there is no saved plan to implement outside Plan mode")
                return None
            fresh = session == "fresh"
            menu_level = before.thinking
            self.set(saved_plan=None)
        else:
            plan = before.ready_plan
            if before.mode != "ready" or plan is None:
                self.notice("not-applicable", "there is no ready plan to implement")
                return None
            fresh = how == "fresh"
            # The fresh screen's thinking row starts from the level current
            # while the menu is open, i.e. the Plan-mode level.
            menu_level = before.thinking
            self.leave_plan_mode("implement")
        self.clear_active("superseded")
        policy = before.settings.implementation_plan_retention
        number = before.session + 1 if fresh else before.session
        self.set(session=number, plan_in_history=True)
        if fresh:
            level = plan_thinking.fresh_session_level(thinking, menu_level)
            self.set(thinking=level)
            self.see("thinking", level=level, cause="fresh-session")
        kick = reinjection.kickoff(how, plan)
        self.see(
            "kickoff",
            session=number,
            how=how,
            text=kick.text,
            holds_plan=kick.holds_plan,
            policy=policy,
        )
        if reinjection.rule(policy).guarantees:
            self.set(active=ActivePlan(plan, policy, armed=False, session=number))
            self.see("active-plan", change="set", policy=policy, reason="implement")
        return before

    def handoff_failed(self, before: State | None, sent: bool) -> None:
        """§ Plan reinjection: failed delivery restores the ready or saved
        plan and runs no automatic cleanup. `sent`: the kickoff prompt was
        handed to Pi before the delivery failed."""
        if before is None:
            self.notice("not-applicable", "no Implement handoff is pending")
            return
        if not sent:
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

    def plan_exit(self) -> None:
        if self.state.mode != "normal":
            self.leave_plan_mode("plan-exit")
        elif self.state.active is not None:
            self.clear_active("plan-exit")
        else:
            self.notice("nothing-to-exit", "Plan mode is not active and no plan is active")

    def export(self, path: str | None, cancel: bool = False) -> None:
        """§ Export destination: the ready, else active, else saved plan; a
        ready-plan export ends Plan mode; saved and active exports keep their
        state; failed or cancelled exports change nothing."""
        state = self.state
        available: dict[str, str | None] = {
            "ready": state.ready_plan if state.mode == "ready" else None,
            "active": state.active.plan if state.active is not None else None,
            "saved": state.saved_plan,
        }
        source = next((s for s, p in available.items() if p is not None), None)
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
            explicit=path,
            configured=state.settings.default_plan_export_path,
            cwd=state.cwd,
            home=self.home,
            cancel=cancel,
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

    def save_settings(self, changes: Mapping[str, Any], *, through_screen: bool) -> None:
        """§ Thinking level / § Plan reinjection / § Export destination /
        § Toggle shortcut: a save changes the effective settings at once,
        but each field takes effect at its own boundary (next Plan workflow,
        next Implement, next export, next runtime)."""
        merged_changes = dict(changes)
        if through_screen and merged_changes.get("defaultPlanExportPath") == "":
            # § Export destination: an empty value submitted in Settings means "use PLAN.md".
            merged_changes["defaultPlanExportPath"] = None
        merged = {**self.state.raw_settings, **merged_changes}
        merged = {key: value for key, value in merged.items() if value is not None}
        reading = read_document(merged)
        if reading.invalid is not None:
            self.notice("settings-rejected", reading.invalid.detail)
            return
        settings = reading.settings
        self.set(raw_settings=merged, settings=settings)
        if "toggleShortcut" in changes:
            state = toggle.configure(self.state.shortcut, settings.toggle_shortcut)
            self.set(shortcut=state)
            self.see("shortcut", loaded=state.loaded, configured=state.configured, registered=False)

    # -- host events ----------------------------------------------------------

    def on_command(self, event: host.Command) -> None:
        """`/plan <args>`: `/plan` alone opens the Plan menu; other commands
        are not the lifecycle's."""
        if event.name != "plan":
            return
        word, _, rest = event.args.strip().partition(" ")
        if word == "":
            self.menu = "plan"
        elif word == "start":
            self.plan_start()
        elif word in ("exit", "off"):
            self.plan_exit()
        elif word == "save":
            self.plan_save()
        elif word == "implement":
            self.implement("offered")
        elif word == "export":
            self.export(rest.strip() or None)

    def on_answer(self, event: host.UiAnswer) -> None:
        """An item of the menu open before it, by its label: the ready menu
        (after a run that completed a plan), the Plan menu (`/plan`), the
        ready plan's fresh screen and the export input."""
        label, menu = event.label, self.open
        # What stays open: Start fresh on the ready menu opens the fresh
        # screen, Export plan… the export input, a thinking level keeps the
        # fresh screen; anything else closes it.
        if menu == "ready" and label == "Start fresh and implement":
            self.menu = "fresh"
        elif menu in ("ready", "plan") and label == "Export plan…":
            self.menu = "export"
        elif menu == "fresh" and label not in (None, "Start"):
            self.menu = "fresh"
        else:
            self.menu = None
        if menu == "export":
            if label is None:
                self.export(None, cancel=True)
            else:
                self.export(label.strip() or None)
            return
        if menu == "fresh":
            if label == "Start":
                self.implement("fresh")
            else:
                self.fresh_thinking = label
            return
        if label in ("Implement here", "Start fresh and implement"):
            session = "fresh" if label == "Start fresh and implement" else "current"
            if menu == "ready":
                # Start fresh on the ready menu opens the fresh screen first.
                if session != "fresh":
                    self.implement("here")
            else:
                self.implement("offered", session)
        elif label in ("Start Plan mode", "Start a new plan"):
            self.plan_start()
        elif label == "Save for later":
            self.plan_save()
        elif label in ("Discard plan and exit", "Exit Plan mode", "Clear active implementation plan"):
            self.plan_exit()

    def on_agent_start(self, event: host.AgentStart) -> None:
        self.completed = False

    def on_queue(self, event: host.AgentQueue) -> None:
        self.queued += 1

    def on_settle(self, event: host.AgentSettle) -> None:
        """With a follow-up queued Pi fires `agent_end` only: the run goes on.
        A run that settles fully after `plan_mode_complete` opens the ready menu."""
        if self.queued:
            self.queued -= 1
            return
        if self.completed:
            self.menu = "ready"
        self.completed = False
        active = self.state.active
        if active is not None and reinjection.rule(active.policy).ends_after_first_run and active.armed:
            self.clear_active("first-run-settled")

    def on_context(self, event: host.Context) -> None:
        """§ Plan reinjection: the `context` hook."""
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

    def on_tool_call(self, event: host.ToolCall) -> None:
        """The model hands in a plan with `plan_mode_complete{plan}`; other tools are not the lifecycle's."""
        if event.tool != COMPLETE_TOOL:
            return
        self.completed = True
        self.plan_ready(str(event.input.get("plan", "")))

    def end_run(self) -> None:
        """Reload, restart and resume abort the open run: nothing queued, no plan completed."""
        self.completed = False
        self.queued = 0

    def on_resume(self, event: host.SessionResume) -> None:
        """§ Plan reinjection: a resumed guaranteed-plan cleanup policy
        re-arms against the first context in the replacement session."""
        self.end_run()
        self.set(session=self.state.session + 1)
        active = self.state.active
        if active is not None:
            self.set(active=replace(active, armed=False, session=self.state.session))
            if reinjection.rule(active.policy).ends_after_first_run:
                self.see("active-plan", change="re-armed", policy=active.policy, reason="resume")

    def on_reload(self, event: host.SessionReload | host.SessionRestart) -> None:
        """§ Toggle shortcut: a new extension runtime (a reload, or Pi
        started again) registers the configured value."""
        self.end_run()
        state = toggle.new_runtime(self.state.shortcut)
        self.set(shortcut=state)
        self.see(
            "shortcut",
            loaded=state.loaded,
            configured=state.configured,
            registered=state.loaded is not None,
        )

    def on_thinking(self, event: host.ThinkingSelect) -> None:
        self.set(thinking=event.level)
        self.see("thinking", level=event.level, cause="manual")

    def on_tree(self, event: host.SessionTree) -> None:
        """A labelled point has history as it was there; a branch given by
        its entries holds none of this conversation's text, so not the exact
        plan. Not a new runtime: a pending shortcut change stays pending."""
        if event.to is None:
            self.set(plan_in_history=False)
        elif event.to in self.state.labels:
            self.set(plan_in_history=self.state.labels[event.to])

    def on_label(self, event: host.SessionLabel) -> None:
        self.set(labels={**self.state.labels, event.label: self.state.plan_in_history})

    def on_compact(self, event: host.SessionCompact) -> None:
        # The summary replaces ordinary history; the exact plan is gone from it.
        self.set(plan_in_history=False)

    def on_cwd(self, event: host.CwdChange) -> None:
        self.set(cwd=event.cwd)

    def on_api_fail(self, event: host.ApiFail) -> None:
        self.failing.add(event.call)


#: The tool the model calls to hand in a plan (`{plan}`), active only in Plan mode.
COMPLETE_TOOL = "plan_mode_complete"


def _nothing(run: _Run, event: Any) -> None:
    """An event that changes nothing the lifecycle reads."""


#: The host events a Plan-lifecycle script replays.
LifecycleEvent = (
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
    | host.ApiFail
)

#: Each event's handler, by the event's class.
_EVENTS: Mapping[type[Any], Callable[[_Run, Any], None]] = {
    host.Command: _Run.on_command,
    host.UiAnswer: _Run.on_answer,
    host.AgentStart: _Run.on_agent_start,
    host.AgentQueue: _Run.on_queue,
    host.AgentSettle: _Run.on_settle,
    host.Context: _Run.on_context,
    host.ToolCall: _Run.on_tool_call,
    host.ClockAdvance: _nothing,
    host.ThinkingSelect: _Run.on_thinking,
    host.SessionReload: _Run.on_reload,
    host.SessionRestart: _Run.on_reload,
    host.SessionResume: _Run.on_resume,
    host.SessionLabel: _Run.on_label,
    host.SessionTree: _Run.on_tree,
    host.SessionCompact: _Run.on_compact,
    host.SettingsWrite: lambda run, event: run.save_settings(event.settings, through_screen=False),
    host.SettingsScreen: lambda run, event: run.save_settings(event.settings, through_screen=True),
    host.CwdChange: _Run.on_cwd,
    host.ApiFail: _Run.on_api_fail,
}

#: Events that leave the open menu or screen open: a host condition, time passing.
_KEEP_MENU = (host.UiAnswer, host.ApiFail, host.ClockAdvance)


def run(
    events: Iterable[LifecycleEvent],
    *,
    settings: Mapping[str, Any],
    thinking_level_now: str,
    saved_plan: str | None,
    cwd: str,
    home: str,
    fs: exporting.ModelFileSystem,
) -> Result:
    """Run a lifecycle script of host events (:data:`LifecycleEvent`), each
    handled by its class's entry in :data:`_EVENTS`; the trace lists
    observations in order."""
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
        runner.open = runner.menu
        if not isinstance(event, _KEEP_MENU):
            # A user's or Pi's other event closes what is open (the user left it).
            runner.menu = None
        _EVENTS[type(event)](runner, event)
    return Result(runner.trace, runner.state, runner.written)
