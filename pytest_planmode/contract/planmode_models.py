"""pi-plan-mode model switching: one Plan-boundary direction on a virtual
clock, and the ready-plan "Start fresh and implement" screen.

Models are written ``"<provider>/<modelId>"`` everywhere in these shapes
(catalogues, the current model, behaviour keys, results): the provider is
everything before the first ``/``. Settings values stay raw JSON
(``{"provider": …, "modelId": …}`` or an array of them) because their
validation is part of the behaviour.

Time is virtual: the direction starts at 0 ms, every latency is a number of
virtual milliseconds, and each authentication has a budget of 2,000 ms.

Transitions are what the user does in Pi (pi-plan-mode-settings.md § Auto
model switch): `/plan start`, `/plan exit`, the ready menu's **Save for
later** and **Implement here**, the fresh screen's **Start**, and
`/plan implement` of a saved plan outside Plan mode. How Pi answers for each
model (registry resolution, authentication answers and delays, the model
change) is host setup: input data, not events.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from pytest_planmode.contract import Operation
from pytest_planmode.contract import host_events as host
from pytest_planmode.contract.base import ContractInput, ContractOutput, effect, explanation
from pytest_planmode.contract.events import EventScript, ScriptEvent

AUTH_BUDGET_MS = 2000


class ModelBehaviour(ContractInput):
    """How Pi answers for one model during the switch."""

    resolves: bool = Field(default=True, description="False: Pi's model registry cannot resolve this model.")
    auth: Literal["ok", "fail", "throw", "hang"] = Field(
        default="ok",
        description=(
            "Authentication answer: `ok`, `fail` (`ok: false`), `throw`, or `hang` (never answers)."
        ),
    )
    auth_latency_ms: int = Field(default=0, ge=0, description="Virtual ms until authentication answers.")
    credentials: bool = Field(
        default=True,
        description="Credentials configured; without them the model change refuses.",
    )
    change: Literal["accept", "refuse", "throw", "hang"] = Field(
        default="accept",
        description="Pi's model change: a refusal or throw moves on.",
    )
    change_latency_ms: int = Field(
        default=0, ge=0, description="Virtual ms the model change takes (not for `hang`)."
    )


class _SessionInput(ContractInput):
    settings: dict[str, Any] = Field(
        default_factory=dict,
        description=(
            "The raw settings document (`autoSwitchModel`, `planModel`, `normalModel`, "
            "and any other field, which is validated too: one invalid value disables switching)."
        ),
    )
    settings_read_failed: bool = Field(
        default=False, description="The settings file could not be read: no switching."
    )
    current_model: str = Field(description="The session's model before the transition.")
    thinking_level: str = Field(default="medium", description="Pi's current thinking level.")
    scoped_models: list[str] = Field(
        default_factory=list, description="Scoped models: the catalogue when non-empty."
    )
    available_models: list[str] = Field(
        default_factory=list, description="Available models: the catalogue otherwise."
    )
    models: dict[str, ModelBehaviour] = Field(
        default_factory=dict,
        description="Behaviour per `provider/modelId`; a model not listed uses the defaults.",
    )


#: The host action each Plan boundary is, and the state the host reaches
#: before it (`docs/areas/models.md` § A host script from the input).
TRIGGERS: dict[str, tuple[str, str | None]] = {
    "/plan start": ("plan.start", None),
    "/plan exit": ("plan.exit", None),
    "ui: Save for later": ("plan.save", None),
    "ui: Implement here": ("implement", "here"),
    "ui: Start": ("implement", "fresh"),
    "/plan implement": ("implement", "saved"),
}


def trigger_key(event: host.Command | host.UiAnswer) -> str:
    """A trigger event as a key of :data:`TRIGGERS`."""
    if isinstance(event, host.Command):
        return f"/{event.name} {event.args.strip()}".rstrip()
    return f"ui: {event.label}"


TriggerEvent = Annotated[host.Command | host.UiAnswer, Field(discriminator="type")]


class ModelsSwitchInput(_SessionInput):
    trigger: TriggerEvent = Field(
        description=(
            "The host action that is the Plan boundary, at 0 ms: `/plan start` (from normal mode; "
            "targets `planModel`), `/plan exit` (from Plan mode), the ready menu's `Save for later` "
            "or `Implement here`, the fresh screen's `Start` with its initial rows (opened by the "
            "ready menu's `Start fresh and implement`), or `/plan implement` of a saved plan outside "
            "Plan mode (preflight first); all but `/plan start` target `normalModel`."
        )
    )
    transition_fails: bool = Field(
        default=False,
        description=(
            "Host setup: the transition fails after switching (the host makes the step after "
            "the switch throw), so the model is restored."
        ),
    )

    @model_validator(mode="after")
    def _known_trigger(self) -> ModelsSwitchInput:
        key = trigger_key(self.trigger)
        if key not in TRIGGERS:
            raise ValueError(f"trigger {key!r} is not a Plan boundary; one of: {', '.join(TRIGGERS)}")
        if self.trigger.at != 0:
            raise ValueError("the trigger happens at 0 ms: the transition's log starts there")
        return self


class CandidateResult(ContractOutput):
    model: str = explanation()
    result: Literal[
        "applied",
        "already-active",
        "unresolved",
        "outside-catalogue",
        "auth-timeout",
        "refused",
        "change-threw",
        "change-hung",
        "not-tried",
    ] = explanation()
    auth: Literal["ok", "fail", "throw", "timeout"] | None = explanation(
        description="Authentication outcome, None when not authenticated."
    )


class LogEntry(ContractOutput):
    at: int = effect(description="Virtual instant in ms from the start of the transition.")
    type: Literal[
        "preflight.start",
        "preflight.end",
        "preflight.timeout",
        "preflight.late",
        "auth.start",
        "auth.end",
        "auth.timeout",
        "auth.late",
        "change.start",
        "change.end",
        "thinking.restore",
        "restore.start",
        "restore.end",
        "request",
    ] = effect()
    model: str | None = effect(description="The model asked about or changed to (null: none).")
    outcome: str | None = effect(
        description=(
            "auth/preflight end and late: ok, fail, throw; change/restore end: accepted, "
            "refused, threw; thinking.restore: the level; null otherwise."
        ),
    )


class Warning(ContractOutput):  # noqa: A001 - the class name is the published schema definition name
    kind: Literal["fallback", "all-failed", "unavailable"] = explanation()
    message: str = effect(description="The warning as shown.")


class ModelsSwitchOutput(ContractOutput):
    outcome: Literal[
        "disabled", "unchanged", "already-active", "applied", "all-failed", "stalled", "aborted"
    ] = explanation()
    disabled_reason: Literal["off", "invalid-settings", "read-failed"] | None = explanation()
    settings_error: str | None = explanation()
    direction: Literal["planModel", "normalModel"] = explanation()
    candidates: list[CandidateResult] = explanation(
        description="The configured chain after collapsing duplicates, with what happened to each."
    )
    applied: str | None = effect(description="The candidate the model change applied, if any.")
    model: str = effect(description="The session model once everything settled, late results included.")
    log: list[LogEntry] = effect(description="Every step with its virtual instant, in time order.")
    warnings: list[Warning] = effect(description="At most one per direction.")
    error: str | None = effect(description="Error notice of an aborted implementation (null: none).")
    elapsed_ms: int | None = effect(
        description="When the transition's switch completed; None when a model change hangs."
    )
    auth_attempts: int = effect(description="Authentications started, the saved-plan preflight included.")
    thinking_level: str = effect(description="The thinking level after the transition.")
    saved_plan_kept: bool | None = effect(
        description="Saved-plan implementation: the saved plan stays (null: not a saved-plan implementation)."
    )
    restored: bool = effect(description="The transition failed and the previous model was restored.")


class ModelsFreshInput(_SessionInput):
    action: Literal["screen", "saved-direct"] = Field(
        default="screen",
        description=(
            "`screen`: the ready-plan Start fresh screen; `saved-direct`: the saved-plan "
            "direct fresh action (same initial values, no picker)."
        ),
    )
    start_scoped_models: list[str] | None = Field(
        default=None, description="The scope when Start is pressed (default: unchanged)."
    )
    start_available_models: list[str] | None = Field(
        default=None, description="The available models when Start is pressed (default: unchanged)."
    )
    pick: str | None = Field(default=None, description="A model picked in the screen's model row.")
    pick_thinking: str | None = Field(default=None, description="A thinking level picked in the screen.")


class Notice(ContractOutput):
    kind: Literal["switched", "planning-fallback"] = explanation()
    message: str = effect(description="The notice as shown.")


class ModelsFreshOutput(ContractOutput):
    initial_model: str = effect(description="The model row's starting value.")
    fallbacks: list[str] = explanation(description="The remaining usable candidates, in order.")
    unavailable: list[str] = explanation(description="Configured candidates outside the catalogue.")
    initial_thinking: str = effect(description="The thinking row's starting value.")
    chain: list[str] = explanation(description="The chain applied on Start, after re-resolution.")
    notice: Notice | None = effect(description="What Start reported (null: nothing).")
    outcome: Literal["applied", "already-active", "all-failed", "stalled", "unchanged"] = explanation()
    applied: str | None = effect()
    model: str = effect(description="The fresh session's model.")
    thinking_level: str = effect(description="The fresh session's thinking level.")
    log: list[LogEntry] = effect()
    warnings: list[Warning] = effect()
    elapsed_ms: int | None = effect()
    planning_model: str = effect(description="The planning session's model: never switched.")
    planning_thinking: str = effect()
    settings_written: bool = effect(description="Always false: menu choices are one-shot.")


class TransitionFault(ScriptEvent):
    """Host setup for the next Plan transition: it fails after its model
    switch (the host makes the step after the switch throw: persisting the
    Plan state for `/plan start`, the handoff for an implementation)."""

    type: Literal["transition.fault"]


#: `/plan` arguments and menu labels of a session script, and where each is
#: valid (the state the extension is in).
_PLAN_ARGS = ("start", "exit", "off", "implement")
_READY_LABELS = ("Implement here", "Save for later", "Start fresh and implement", "Stay in Plan mode")


SessionEvent = Annotated[
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
    | TransitionFault,
    Field(discriminator="type"),
]


class ModelsSessionInput(EventScript[SessionEvent]):
    settings: dict[str, Any] = Field(default_factory=dict, description="The raw settings at start.")
    settings_read_failed: bool = False
    current_model: str
    thinking_level: str = "medium"
    scoped_models: list[str] = Field(default_factory=list)
    available_models: list[str] = Field(default_factory=list)
    models: dict[str, ModelBehaviour] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _replayable(self) -> ModelsSessionInput:
        """Each script is one a Pi host can replay: a plan is proposed by the
        model's `plan_mode_complete` call inside a Plan-mode run, the ready
        menu opens when that run settles, and each answer or command is
        valid where it is given (pi-plan-mode-settings.md § Auto model
        switch; the item labels are those of pi-plan-mode's ready menu)."""
        walk = PlanWalk()
        for index, event in enumerate(self.events):
            problem = walk.step(event)
            if problem:
                raise ValueError(f"events[{index}] ({event.type}): {problem}")
        return self


class PlanWalk:
    """The extension's state along a session script, as far as a script
    must know it to be replayable; :meth:`step` says what an event is."""

    def __init__(self) -> None:
        self.mode = "normal"  # normal | planning | ready
        self.saved = False
        self.in_run = False
        self.proposed = False
        self.screen: str | None = None  # ready | fresh: the open menu or screen
        self.fault = False
        #: The transition the last event was: (trigger, how, fails), if any.
        self.transition: tuple[str, str | None, bool] | None = None

    def step(self, event: Any) -> str | None:
        """Advance by `event`; an error text when it is not valid here."""
        self.transition = None
        if self.screen is not None and not isinstance(event, host.UiAnswer) and not _world(event):
            return f"the {self.screen} screen is open: answer it first (ui.answer)"
        if isinstance(event, host.AgentStart):
            if self.in_run:
                return "a run is already open (agent.settle ends it)"
            self.in_run, self.proposed = True, False
        elif isinstance(event, host.ToolCall):
            if not self.in_run:
                return host.NEEDS_RUN
            if event.tool != "plan_mode_complete" or self.mode == "normal":
                return "the only call here is plan_mode_complete, in Plan mode"
            if not isinstance(event.input.get("plan"), str) or not event.input["plan"].strip():
                return 'plan_mode_complete carries its plan: input = { plan = "..." }'
            self.proposed = True
        elif isinstance(event, host.AgentSettle):
            if not self.in_run:
                return "no agent run is open"
            self.in_run = False
            if self.proposed and event.outcome == "completed":
                self.mode, self.screen = "ready", "ready"
        elif isinstance(event, host.Command):
            return self._command(event)
        elif isinstance(event, host.UiAnswer):
            return self._answer(event)
        elif isinstance(event, TransitionFault):
            self.fault = True
        return None

    def _transition(self, trigger: str, how: str | None = None) -> None:
        self.transition = (trigger, how, self.fault)
        self.fault = False

    def _command(self, event: host.Command) -> str | None:
        args = event.args.strip()
        if event.name != "plan" or args not in _PLAN_ARGS:
            uses = " | ".join(_PLAN_ARGS)
            return f"this operation's scripts use /plan {uses}, not /{event.name} {args}".rstrip()
        if self.in_run:
            return "a /plan transition happens between runs: end the open run with agent.settle first"
        if args == "start":
            if self.mode != "normal" or self.saved:
                return "/plan start needs normal mode without a saved plan"
            self.mode = "planning"
            self._transition("plan.start")
        elif args in ("exit", "off"):
            if self.mode == "normal":
                return f"/plan {args} needs Plan mode"
            self.mode = "normal"
            self._transition("plan.exit")
        elif self.mode == "ready":
            self.mode = "normal"
            self._transition("implement", "here")
        elif self.mode == "normal" and self.saved:
            self.saved = False
            self._transition("implement", "saved")
        else:
            return "/plan implement needs a ready plan, or a saved plan outside Plan mode"
        return None

    def _answer(self, event: host.UiAnswer) -> str | None:
        if self.screen == "ready":
            if event.label is None or event.label == "Stay in Plan mode":
                self.screen = None
                return None
            if event.label not in _READY_LABELS:
                return f"the ready menu is answered here with one of: {', '.join(_READY_LABELS)}"
            self.screen = None
            if event.label == "Save for later":
                self.mode, self.saved = "normal", True
                self._transition("plan.save")
            elif event.label == "Implement here":
                self.mode = "normal"
                self._transition("implement", "here")
            else:
                self.screen = "fresh"
            return None
        if self.screen == "fresh":
            if event.label != "Start":
                return "the fresh screen is answered here with Start (its initial rows)"
            self.screen, self.mode = None, "normal"
            self._transition("implement", "fresh")
            return None
        return "no menu is open (the ready menu opens when a run that proposed a plan settles)"


def _world(event: Any) -> bool:
    """Events that happen around the user whatever the screen shows."""
    return isinstance(
        event,
        host.ClockAdvance
        | host.ModelsCatalogue
        | host.ProviderChange
        | host.SettingsWrite
        | host.SettingsUnreadable
        | TransitionFault,
    )


class TransitionResult(ContractOutput):
    at: int = effect(description="When the transition was asked for.")
    trigger: str = effect(
        description="The Plan boundary the event was: `plan.start`, `plan.exit`, `plan.save` or `implement`."
    )
    started_at: int | None = effect(
        description="When it started: after the previous one completed; None if never."
    )
    ended_at: int | None = effect(description="When its switch completed.")
    outcome: Literal[
        "disabled",
        "unchanged",
        "already-active",
        "applied",
        "all-failed",
        "stalled",
        "aborted",
        "blocked",
    ] = explanation(description="`blocked`: an earlier model change hung, it never started.")
    applied: str | None = effect()
    model: str = effect(description="The session model after this transition.")
    warnings: list[Warning] = effect()
    auth_attempts: int = effect()
    restored: bool = effect()


class ModelsSessionOutput(ContractOutput):
    transitions: list[TransitionResult] = effect()
    log: list[LogEntry] = effect(description="Every step of every transition, in time order.")
    model: str = effect(description="The session model at the end, late answers included.")


SWITCH = Operation(
    name="planmode.models.switch",
    input=ModelsSwitchInput,
    output=ModelsSwitchOutput,
    summary=(
        "One Plan-boundary model switch on a virtual clock: fallback chain, 2,000 ms "
        "authentication budget per candidate, saved-plan preflight, restore after failure."
    ),
    kind="script",
)

FRESH = Operation(
    name="planmode.models.fresh",
    input=ModelsFreshInput,
    output=ModelsFreshOutput,
    summary=(
        "The ready-plan Start fresh screen and the saved-plan direct fresh action: initial "
        "model and thinking, re-resolution on Start, the handoff switch."
    ),
    kind="script",
)

SESSION = Operation(
    name="planmode.models.session",
    input=ModelsSessionInput,
    output=ModelsSessionOutput,
    summary=(
        "Several Plan boundaries in one session on a virtual clock: each direction starts "
        "from its first candidate; settings and catalogue changes apply to later transitions."
    ),
    kind="script",
)

OPERATIONS = [SWITCH, FRESH, SESSION]
