"""pi-plan-mode's automatic model switch at Plan-mode boundaries.

One *direction* (Plan start → ``planModel``; Plan exit, plan save or any
implementation start → ``normalModel``) walks its fallback chain on a
virtual clock: every candidate's authentication races a fixed 2,000 ms
budget, a definite failure is still handed to Pi's model change, and a
timed-out authentication's late answer is recorded and discarded.

Models are keyed ``"provider/modelId"``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from pytest_planmode.reference import host_events as host
from pytest_planmode.reference.planmode import settings_values as sv
from pytest_planmode.reference.planmode.settings import read_document
from pytest_planmode.reference.virtual_time import race

#: Every candidate's authentication budget (§ Auto model switch).
AUTH_BUDGET_MS = 2000

AuthAnswer = Literal["ok", "fail", "throw", "hang"]
ChangeAnswer = Literal["accept", "refuse", "throw", "hang"]

DIRECTION_FIELD: Mapping[str, str] = {
    "plan.start": "planModel",
    "plan.exit": "normalModel",
    "plan.save": "normalModel",
    "implement": "normalModel",
}

#: How each direction names itself in a warning: the Settings row labels.
DIRECTION_LABEL: Mapping[str, str] = {
    "planModel": "Plan enter model",
    "normalModel": "Plan exit model",
}


@dataclass(frozen=True)
class Behaviour:
    """How Pi answers for one model."""

    resolves: bool = True
    auth: AuthAnswer = "ok"
    auth_latency_ms: int = 0
    credentials: bool = True
    change: ChangeAnswer = "accept"
    change_latency_ms: int = 0


DEFAULT_BEHAVIOUR = Behaviour()


@dataclass(frozen=True)
class Step:
    """One observable step of a transition at a virtual instant."""

    at: int
    type: str
    model: str | None = None
    outcome: str | None = None


@dataclass(frozen=True)
class Candidate:
    model: str
    result: str
    auth: str | None = None


@dataclass(frozen=True)
class SwitchWarning:
    kind: str
    message: str


@dataclass(frozen=True)
class ChainResult:
    """What walking one fallback chain did."""

    outcome: Literal["applied", "already-active", "all-failed", "stalled", "unchanged"]
    candidates: tuple[Candidate, ...]
    applied: str | None
    steps: tuple[Step, ...]
    #: Late answers of timed-out authentications: recorded, never acted on.
    late: tuple[Step, ...]
    end_at: int | None
    auth_attempts: int
    warning: SwitchWarning | None


@dataclass(frozen=True)
class Settings:
    """The part of a settings document the switch reads, after validation."""

    auto_switch: bool = False
    chains: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    disabled_reason: str | None = None
    error: str | None = None


def model_key(ref: sv.ModelRef) -> str:
    """A validated model as the contract writes it: ``provider/modelId``."""
    return f"{ref.provider}/{ref.model_id}"


def read_settings(raw: Mapping[str, Any], read_failed: bool) -> Settings:
    """§ Auto model switch: "Invalid values invalidate the settings document
    like every other field; a settings read failure falls back to no
    switching." Unknown fields are other features' business and ignored."""
    if read_failed:
        return Settings(disabled_reason="read-failed", error="the settings file could not be read")
    reading = read_document(raw)
    if reading.invalid is not None:
        return Settings(disabled_reason="invalid-settings", error=reading.invalid.detail)
    effective = reading.settings
    chains = {
        key: tuple(model_key(ref) for ref in chain)
        for key, chain in (("planModel", effective.plan_model), ("normalModel", effective.normal_model))
        if chain is not None
    }
    auto = effective.auto_switch_model
    return Settings(auto_switch=auto, chains=chains, disabled_reason=None if auto else "off")


def catalogue(scoped: Sequence[str], available: Sequence[str]) -> frozenset[str]:
    """§ Implementation model and thinking: the session's scoped models when
    that scope is non-empty, otherwise Pi's currently available models."""
    return frozenset(scoped) if scoped else frozenset(available)


def collapse_duplicates(chain: Sequence[str]) -> tuple[str, ...]:
    """§ Auto model switch: "duplicate candidates are collapsed to their first position"."""
    return tuple(dict.fromkeys(chain))


def _warning(direction: str, chain: Sequence[str], applied: str | None, current: str) -> SwitchWarning:
    label = DIRECTION_LABEL.get(direction, direction)
    if applied is None:
        return SwitchWarning(
            "all-failed",
            f"{label}: no configured model could be applied ({', '.join(chain)}); keeping {current}",
        )
    return SwitchWarning("fallback", f"{label}: {chain[0]} unavailable; switched to {applied}")


def walk_chain(
    chain: Sequence[str],
    *,
    current: str,
    available: frozenset[str],
    behaviours: Mapping[str, Behaviour],
    start_at: int,
    direction: str,
) -> ChainResult:
    """§ Auto model switch: try the candidates in order until one is applied.

    A candidate that cannot be resolved, is outside the catalogue, whose
    authentication does not finish within the budget, whose model change is
    refused or throws moves to the next. A *definite* authentication failure
    (``fail`` or ``throw`` in time) is not skipped: the model change decides.
    A candidate that is already the session model ends the walk untouched.
    """
    ordered = collapse_duplicates(chain)
    if not ordered:
        return ChainResult("unchanged", (), None, (), (), start_at, 0, None)
    now = start_at
    steps: list[Step] = []
    late: list[Step] = []
    done: list[Candidate] = []
    attempts = 0
    outcome: Literal["applied", "already-active", "all-failed", "stalled"] = "all-failed"
    applied: str | None = None
    end_at: int | None = None
    for model in ordered:
        if model == current:
            # "a target that is already active is left untouched": no
            # authentication, no model change.
            done.append(Candidate(model, "already-active"))
            outcome = "already-active"
            end_at = now
            break
        b = behaviours.get(model, DEFAULT_BEHAVIOUR)
        if not b.resolves:
            done.append(Candidate(model, "unresolved"))
            continue
        if model not in available:
            done.append(Candidate(model, "outside-catalogue"))
            continue
        attempts += 1
        steps.append(Step(now, "auth.start", model))
        decided = race(now, None if b.auth == "hang" else b.auth_latency_ms, AUTH_BUDGET_MS)
        now = decided.settled_at
        if not decided.in_time:
            steps.append(Step(now, "auth.timeout", model))
            if decided.answer_at is not None:
                # Not cancelled: it answers later and is discarded.
                late.append(Step(decided.answer_at, "auth.late", model, b.auth))
            done.append(Candidate(model, "auth-timeout", "timeout"))
            continue
        steps.append(Step(now, "auth.end", model, b.auth))
        steps.append(Step(now, "change.start", model))
        if b.change == "hang":
            # pi.setModel() has no cancellable API: the direction cannot finish.
            done.append(Candidate(model, "change-hung", b.auth))
            outcome = "stalled"
            break
        now += b.change_latency_ms
        if b.change == "throw":
            steps.append(Step(now, "change.end", model, "threw"))
            done.append(Candidate(model, "change-threw", b.auth))
            continue
        if b.change == "refuse" or not b.credentials:
            steps.append(Step(now, "change.end", model, "refused"))
            done.append(Candidate(model, "refused", b.auth))
            continue
        steps.append(Step(now, "change.end", model, "accepted"))
        done.append(Candidate(model, "applied", b.auth))
        outcome = "applied"
        applied = model
        end_at = now
        break
    else:
        end_at = now
    done.extend(Candidate(m, "not-tried") for m in ordered[len(done) :])
    in_effect = next((i for i, c in enumerate(done) if c.result in ("applied", "already-active")), None)
    warning: SwitchWarning | None = None
    if outcome == "all-failed":
        warning = _warning(direction, ordered, None, current)
    elif in_effect is not None and in_effect > 0:
        warning = _warning(direction, ordered, done[in_effect].model, current)
    return ChainResult(outcome, tuple(done), applied, tuple(steps), tuple(late), end_at, attempts, warning)


def merge_log(steps: Sequence[Step], late: Sequence[Step]) -> tuple[Step, ...]:
    """The transition's steps and the discarded late answers in time order; at
    one instant the transition's own steps come first."""
    tagged = [(s.at, 0, i, s) for i, s in enumerate(steps)]
    tagged += [(s.at, 1, i, s) for i, s in enumerate(late)]
    return tuple(item[3] for item in sorted(tagged, key=lambda t: (t[0], t[1], t[2])))


@dataclass(frozen=True)
class SwitchResult:
    outcome: str
    direction: str
    disabled_reason: str | None
    settings_error: str | None
    candidates: tuple[Candidate, ...]
    applied: str | None
    model: str
    log: tuple[Step, ...]
    warnings: tuple[SwitchWarning, ...]
    error: str | None
    elapsed_ms: int | None
    auth_attempts: int
    thinking_level: str
    saved_plan_kept: bool | None
    restored: bool


@dataclass(frozen=True)
class Transition:
    """One Plan-boundary transition as the switch sees it."""

    trigger: str
    how: str | None
    current: str
    thinking_level: str
    available: frozenset[str]
    behaviours: Mapping[str, Behaviour]
    transition_fails: bool = False
    #: The virtual instant the transition starts (a script runs several).
    start_at: int = 0


def _preflight(t: Transition, steps: list[Step], late: list[Step]) -> tuple[bool, int]:
    """§ Auto model switch: "Implementing a saved plan first preflights the
    session's current model ... under the same two-second budget but has no
    fallback". Returns (timed out, instant the preflight settled)."""
    b = t.behaviours.get(t.current, DEFAULT_BEHAVIOUR)
    steps.append(Step(t.start_at, "preflight.start", t.current))
    decided = race(t.start_at, None if b.auth == "hang" else b.auth_latency_ms, AUTH_BUDGET_MS)
    if decided.in_time:
        # Only a timeout aborts; a definite answer leaves the decision to the
        # model change that the implementation makes anyway.
        steps.append(Step(decided.settled_at, "preflight.end", t.current, b.auth))
        return False, decided.settled_at
    steps.append(Step(decided.settled_at, "preflight.timeout", t.current))
    if decided.answer_at is not None:
        late.append(Step(decided.answer_at, "preflight.late", t.current, b.auth))
    return True, decided.settled_at


def switch(t: Transition, settings: Settings) -> SwitchResult:
    """§ Auto model switch (with § Implementation model and thinking): one
    direction of the automatic switch, the saved-plan preflight, the thinking
    restore and the restore after a failed transition."""
    direction = DIRECTION_FIELD[t.trigger]
    saved = t.trigger == "implement" and t.how == "saved"
    steps: list[Step] = []
    late: list[Step] = []
    now = t.start_at
    auth_attempts = 0
    if saved:
        auth_attempts += 1
        timed_out, now = _preflight(t, steps, late)
        if timed_out:
            return SwitchResult(
                outcome="aborted",
                direction=direction,
                disabled_reason=settings.disabled_reason,
                settings_error=settings.error,
                candidates=(),
                applied=None,
                model=t.current,
                log=merge_log(steps, late),
                warnings=(),
                error=(
                    f"Saved plan not implemented: authentication for {t.current} did not finish "
                    f"within {AUTH_BUDGET_MS} ms; the saved plan is kept."
                ),
                elapsed_ms=now,
                auth_attempts=auth_attempts,
                thinking_level=t.thinking_level,
                saved_plan_kept=True,
                restored=False,
            )
    chain = settings.chains.get(direction, ()) if settings.auto_switch else ()
    walked = walk_chain(
        chain,
        current=t.current,
        available=t.available,
        behaviours=t.behaviours,
        start_at=now,
        direction=direction,
    )
    steps.extend(walked.steps)
    late.extend(walked.late)
    auth_attempts += walked.auth_attempts
    end_at = walked.end_at
    model = walked.applied or t.current
    if walked.applied is not None and end_at is not None:
        # Pi's model change may adjust the thinking level; the switch puts
        # the current level back so thinking settings are unaffected.
        steps.append(Step(end_at, "thinking.restore", None, t.thinking_level))
    restored = False
    if t.transition_fails and walked.applied is not None and end_at is not None:
        # § Auto model switch: restore the model active before the transition,
        # skipping the authentication probe entirely.
        b = t.behaviours.get(t.current, DEFAULT_BEHAVIOUR)
        steps.append(Step(end_at, "restore.start", t.current))
        if b.change == "hang":
            end_at = None
        else:
            end_at += b.change_latency_ms
            accepted = b.change == "accept" and b.credentials
            verdict = "accepted" if accepted else ("threw" if b.change == "throw" else "refused")
            steps.append(Step(end_at, "restore.end", t.current, verdict))
            if accepted:
                model = t.current
                restored = True
                steps.append(Step(end_at, "thinking.restore", None, t.thinking_level))
    if t.trigger == "implement" and not t.transition_fails and end_at is not None:
        # Switching completes inside the transition before any request it starts.
        steps.append(Step(end_at, "request", model))
    if not settings.auto_switch:
        outcome = "disabled"
    elif direction not in settings.chains:
        outcome = "unchanged"
    else:
        outcome = walked.outcome
    return SwitchResult(
        outcome=outcome,
        direction=direction,
        disabled_reason=settings.disabled_reason,
        settings_error=settings.error,
        candidates=walked.candidates,
        applied=walked.applied,
        model=model,
        log=merge_log(steps, late),
        warnings=(walked.warning,) if walked.warning else (),
        error=None,
        elapsed_ms=end_at,
        auth_attempts=auth_attempts,
        thinking_level=t.thinking_level,
        saved_plan_kept=(t.transition_fails or end_at is None) if saved else None,
        restored=restored,
    )


# -- several transitions in one session --------------------------------------


@dataclass(frozen=True)
class TransitionFault:
    """Host setup for the next Plan transition: it fails after its model
    switch (the step after the switch throws)."""

    at: int = 0


#: The events a session script replays: the host's, and the fault the
#: host sets up for the next transition.
SessionEvent = (
    host.Command
    | host.AgentStart
    | host.ToolCall
    | host.AgentSettle
    | host.UiAnswer
    | host.SettingsWrite
    | host.SettingsScreen
    | host.SettingsUnreadable
    | host.ClockAdvance
    | host.ModelsCatalogue
    | host.ProviderChange
    | TransitionFault
)

#: The tool the model calls to hand in a plan, in Plan mode.
COMPLETE_TOOL = "plan_mode_complete"


@dataclass(frozen=True)
class _Asked:
    """A Plan boundary asked for at `at`: `trigger` is `plan.start`,
    `plan.exit`, `plan.save` or `implement` (with `how`); `fails`: the host
    set it up to fail after its switch."""

    at: int
    trigger: str
    how: str | None = None
    fails: bool = False


@dataclass(frozen=True)
class TransitionRecord:
    """A transition of a script: when it was asked for, and what it did
    (None when an earlier model change hung and it never started)."""

    at: int
    trigger: str
    result: SwitchResult | None
    started_at: int | None


@dataclass(frozen=True)
class SessionResult:
    transitions: tuple[TransitionRecord, ...]
    log: tuple[Step, ...]
    model: str


def run_session(
    *,
    settings: Mapping[str, Any],
    settings_read_failed: bool = False,
    current: str,
    thinking_level: str,
    scoped: Sequence[str],
    available: Sequence[str],
    behaviours: Mapping[str, Behaviour],
    events: Sequence[SessionEvent],
) -> SessionResult:
    """§ Auto model switch across several Plan boundaries: "Fallback chains are
    not retried past a direction: each Plan boundary starts again from the
    first candidate"; "Changing these settings applies to later Plan
    transitions only".

    The extension's Plan state is followed along the script (a command or a
    menu answer is the Plan boundary it is there: `/plan implement` on a
    ready plan implements it here, outside Plan mode the saved plan), and
    so are the raw settings document (an edit changes the fields it gives)
    and each model's answers (a provider change changes the fields it gives).

    Transitions run one at a time: one asked for while another is switching
    starts when that one completes. A transition uses the settings in force
    when it was asked for, and the catalogue and provider behaviour in force
    when it starts (a change at that very instant included).
    """
    session = _Session(
        read_settings(settings, settings_read_failed),
        current,
        thinking_level,
        tuple(scoped),
        tuple(available),
        dict(behaviours),
        document=dict(settings),
    )
    for event in events:
        _SESSION_EVENTS[type(event)](session, event)
    session.run_pending(None)
    log = tuple(item[4] for item in sorted(session.ordered, key=lambda i: i[:4]))
    return SessionResult(tuple(session.records), log, session.model)


@dataclass
class _Session:
    """Mutable state of one :func:`run_session` call."""

    settings: Settings
    model: str
    thinking_level: str
    scope: tuple[str, ...]
    pool: tuple[str, ...]
    known: dict[str, Behaviour]
    #: The raw settings document, as the edits so far left it.
    document: dict[str, Any] = field(default_factory=dict)
    #: When the model is free again; None once a model change hung.
    free_at: int | None = 0
    records: list[TransitionRecord] = field(default_factory=list)
    ordered: list[tuple[int, int, int, int, Step]] = field(default_factory=list)
    pending: deque[tuple[_Asked, Settings]] = field(default_factory=deque)
    #: The extension's Plan state: `normal`, `planning` or `ready`; whether
    #: a plan is saved; whether the open run proposed a plan; the ready menu
    #: or the fresh screen when one is open; a fault set up for the next
    #: transition.
    mode: str = "normal"
    saved: bool = False
    proposed: bool = False
    screen: str | None = None
    fault: bool = False

    def run_pending(self, before: int | None) -> None:
        """Start the transitions asked for that start before `before`."""
        while self.pending:
            event, snapshot = self.pending[0]
            if self.free_at is None:
                # A hung model change never completes: nothing after it starts.
                self.pending.popleft()
                self.records.append(TransitionRecord(event.at, event.trigger, None, None))
                continue
            start = max(event.at, self.free_at)
            if before is not None and start >= before:
                return
            self.pending.popleft()
            result = switch(
                Transition(
                    trigger=event.trigger,
                    how=(event.how or "here") if event.trigger == "implement" else None,
                    current=self.model,
                    thinking_level=self.thinking_level,
                    available=catalogue(self.scope, self.pool),
                    behaviours=dict(self.known),
                    transition_fails=event.fails,
                    start_at=start,
                ),
                snapshot,
            )
            index = len(self.records)
            for position, step in enumerate(result.log):
                late = 1 if step.type in ("auth.late", "preflight.late") else 0
                self.ordered.append((step.at, late, index, position, step))
            self.records.append(TransitionRecord(event.at, event.trigger, result, start))
            self.model = result.model
            self.free_at = result.elapsed_ms

    def ask(self, at: int, trigger: str, how: str | None = None) -> None:
        """A Plan boundary, with the settings in force now and the fault set up for it."""
        self.pending.append((_Asked(at, trigger, how, self.fault), self.settings))
        self.fault = False

    # -- host events ---------------------------------------------------------

    def save_settings(self, event: host.SettingsWrite | host.SettingsScreen) -> None:
        for key, raw in event.settings.items():
            if raw is None:
                self.document.pop(key, None)
            else:
                self.document[key] = raw
        self.settings = read_settings(self.document, False)

    def settings_unreadable(self, event: host.SettingsUnreadable) -> None:
        self.settings = read_settings(self.document, True)

    def change_catalogue(self, event: host.ModelsCatalogue) -> None:
        # Transitions that start before this instant do not see the change.
        self.run_pending(event.at)
        self.scope = self.scope if event.scoped_models is None else event.scoped_models
        self.pool = self.pool if event.available_models is None else event.available_models

    def change_provider(self, event: host.ProviderChange) -> None:
        given = {
            f.name: getattr(event, f.name) for f in fields(Behaviour) if getattr(event, f.name) is not None
        }
        behaviour = replace(self.known.get(event.model, DEFAULT_BEHAVIOUR), **given)
        self.run_pending(event.at)
        self.known[event.model] = behaviour

    def fault_next(self, event: TransitionFault) -> None:
        self.fault = True

    def start_run(self, event: host.AgentStart) -> None:
        self.proposed = False

    def call(self, event: host.ToolCall) -> None:
        if event.tool == COMPLETE_TOOL:
            self.proposed = True

    def settle(self, event: host.AgentSettle) -> None:
        """A run that proposed a plan and completes opens the ready menu."""
        if self.proposed and event.outcome == "completed":
            self.mode, self.screen = "ready", "ready"

    def command(self, event: host.Command) -> None:
        """`/plan start`, `/plan exit` (or `off`), `/plan implement`: the
        ready plan here in Plan mode, else the saved plan."""
        args = event.args.strip()
        if args == "start":
            self.mode = "planning"
            self.ask(event.at, "plan.start")
        elif args in ("exit", "off"):
            self.mode = "normal"
            self.ask(event.at, "plan.exit")
        elif args != "implement":
            return
        elif self.mode == "ready":
            self.mode = "normal"
            self.ask(event.at, "implement", "here")
        elif self.mode == "normal" and self.saved:
            self.saved = False
            self.ask(event.at, "implement", "saved")

    def answer(self, event: host.UiAnswer) -> None:
        """The ready menu: Save for later, Implement here, Start fresh and
        implement (it opens the fresh screen, whose Start implements fresh);
        dismissing it or Stay in Plan mode closes it."""
        label = event.label
        if self.screen == "ready":
            self.screen = None
            if label == "Save for later":
                self.mode, self.saved = "normal", True
                self.ask(event.at, "plan.save")
            elif label == "Implement here":
                self.mode = "normal"
                self.ask(event.at, "implement", "here")
            elif label == "Start fresh and implement":
                self.screen = "fresh"
        elif self.screen == "fresh" and label == "Start":
            self.screen, self.mode = None, "normal"
            self.ask(event.at, "implement", "fresh")


def _nothing(session: _Session, event: Any) -> None:
    """The clock changes nothing the switch reads."""


#: Each session event's handler, by the event's class.
_SESSION_EVENTS: Mapping[type[Any], Callable[[_Session, Any], None]] = {
    host.Command: _Session.command,
    host.UiAnswer: _Session.answer,
    host.AgentStart: _Session.start_run,
    host.ToolCall: _Session.call,
    host.AgentSettle: _Session.settle,
    host.ClockAdvance: _nothing,
    TransitionFault: _Session.fault_next,
    host.SettingsWrite: _Session.save_settings,
    host.SettingsScreen: _Session.save_settings,
    host.SettingsUnreadable: _Session.settings_unreadable,
    host.ModelsCatalogue: _Session.change_catalogue,
    host.ProviderChange: _Session.change_provider,
}


__all__ = [
    "AUTH_BUDGET_MS",
    "Behaviour",
    "ChainResult",
    "SessionEvent",
    "SessionResult",
    "Settings",
    "SwitchResult",
    "Transition",
    "TransitionFault",
    "TransitionRecord",
    "catalogue",
    "collapse_duplicates",
    "read_settings",
    "run_session",
    "switch",
    "walk_chain",
]
