"""pi-plan-mode model switching: one Plan-boundary direction on a virtual
clock, and the ready-plan "Start fresh and implement" screen.

Models are written ``"<provider>/<modelId>"`` everywhere in these shapes
(catalogues, the current model, behaviour keys, results): the provider is
everything before the first ``/``. Settings values stay raw JSON
(``{"provider": …, "modelId": …}`` or an array of them) because their
validation is part of the behaviour.

Time is virtual: the direction starts at 0 ms, every latency is a number of
virtual milliseconds, and each authentication has a budget of 2,000 ms.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from pytest_planmode.contract import Operation
from pytest_planmode.contract.base import ContractInput, ContractOutput, effect, explanation
from pytest_planmode.contract.events import EventScript, ScriptEvent

AUTH_BUDGET_MS = 2000

Trigger = Literal["plan.start", "plan.exit", "plan.save", "implement"]
ImplementHow = Literal["here", "fresh", "saved"]


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


class SwitchInput(_SessionInput):
    trigger: Trigger = Field(
        description=(
            "`plan.start` targets `planModel`; `plan.exit`, `plan.save` and `implement` target `normalModel`."
        )
    )
    how: ImplementHow | None = Field(
        default=None,
        description="With `implement`: `here` (default), `fresh`, or `saved` (preflight first).",
    )
    transition_fails: bool = Field(
        default=False,
        description="The transition fails after switching: restore the model.",
    )


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


class SwitchOutput(ContractOutput):
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


class FreshInput(_SessionInput):
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


class FreshOutput(ContractOutput):
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


class TransitionEvent(ScriptEvent):
    """A Plan boundary, named as in the lifecycle event vocabulary."""

    type: Literal["plan.start", "plan.exit", "plan.save", "implement"]
    how: ImplementHow | None = Field(default=None, description="With `implement`.")
    fails: bool = Field(default=False, description="The transition fails after switching (restore).")


class SettingsSave(ScriptEvent):
    """The settings document changes (Settings save or manual edit)."""

    type: Literal["settings.save"]
    settings: dict[str, Any] = Field(default_factory=dict, description="The new raw document.")
    settings_read_failed: bool = False


class CatalogueChange(ScriptEvent):
    """The session scope or Pi's available models change."""

    type: Literal["catalogue"]
    scoped_models: list[str] | None = None
    available_models: list[str] | None = None


class ProviderChange(ScriptEvent):
    """A model behaves differently from now on (a provider recovers or breaks)."""

    type: Literal["provider"]
    model: str
    behaviour: ModelBehaviour


SessionEvent = Annotated[
    TransitionEvent | SettingsSave | CatalogueChange | ProviderChange,
    Field(discriminator="type"),
]


class SessionScriptInput(EventScript[SessionEvent]):
    settings: dict[str, Any] = Field(default_factory=dict, description="The raw settings at start.")
    settings_read_failed: bool = False
    current_model: str
    thinking_level: str = "medium"
    scoped_models: list[str] = Field(default_factory=list)
    available_models: list[str] = Field(default_factory=list)
    models: dict[str, ModelBehaviour] = Field(default_factory=dict)


class TransitionResult(ContractOutput):
    at: int = effect(description="When the transition was asked for.")
    trigger: str = effect()
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


class SessionScriptOutput(ContractOutput):
    transitions: list[TransitionResult] = effect()
    log: list[LogEntry] = effect(description="Every step of every transition, in time order.")
    model: str = effect(description="The session model at the end, late answers included.")


SWITCH = Operation(
    name="planmode.models.switch",
    input=SwitchInput,
    output=SwitchOutput,
    summary=(
        "One Plan-boundary model switch on a virtual clock: fallback chain, 2,000 ms "
        "authentication budget per candidate, saved-plan preflight, restore after failure."
    ),
    kind="script",
)

FRESH = Operation(
    name="planmode.models.fresh",
    input=FreshInput,
    output=FreshOutput,
    summary=(
        "The ready-plan Start fresh screen and the saved-plan direct fresh action: initial "
        "model and thinking, re-resolution on Start, the handoff switch."
    ),
    kind="script",
)

SESSION = Operation(
    name="planmode.models.session",
    input=SessionScriptInput,
    output=SessionScriptOutput,
    summary=(
        "Several Plan boundaries in one session on a virtual clock: each direction starts "
        "from its first candidate; settings and catalogue changes apply to later transitions."
    ),
    kind="script",
)

OPERATIONS = [SWITCH, FRESH, SESSION]
