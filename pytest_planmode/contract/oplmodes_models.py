"""opl-modes model overrides as an event script: capture, restore, persist
across `/reload` and `/resume`, serialized changes, the pinned OFF model.

Models are written ``"<provider>/<id>"`` in the registry, events and trace;
a mode's ``model`` stays raw JSON (``{"provider": …, "id": …}``) because a
blank or partial one is part of the behaviour. The session starts at 0 ms
in mode ``off``; every model change takes its registry entry's
``changeLatencyMs`` of virtual time.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from pytest_planmode.contract import Operation
from pytest_planmode.contract.base import ContractInput, ContractOutput, effect, explanation
from pytest_planmode.contract.events import EventScript, Observation, ScriptEvent


class RegistryModel(ContractInput):
    model: str = Field(description="`provider/id` of a model Pi's registry knows.")
    credentials: bool = Field(default=True, description="False: Pi refuses to switch to it.")
    change_latency_ms: int = Field(default=0, ge=0, description="Virtual ms a change to this model takes.")


class ModeEnter(ScriptEvent):
    """Select a mode (`/mode <name>`, `/chat`, `/plan`, the cycle shortcut)."""

    type: Literal["mode.enter"]
    mode: str = Field(description="A mode name; `off` is the same as `mode.exit`.")


class ModeExit(ScriptEvent):
    """Leave the current mode for `off`."""

    type: Literal["mode.exit"]


class Reload(ScriptEvent):
    """`/reload`: the extension restarts and reads its state back from the session."""

    type: Literal["reload"]


class Resume(ScriptEvent):
    """`/resume` of this session: state is read back from the session entries."""

    type: Literal["resume"]


class SessionNew(ScriptEvent):
    """A new session: no mode, no restore point."""

    type: Literal["session.new"]


class RegistryRemove(ScriptEvent):
    type: Literal["registry.remove"]
    model: str


class RegistryAdd(ScriptEvent):
    type: Literal["registry.add"]
    model: str
    credentials: bool = True
    change_latency_ms: int = Field(default=0, ge=0)


class Credentials(ScriptEvent):
    """`/login` (configured = true) or credentials removed (false) for a model."""

    type: Literal["credentials"]
    model: str
    configured: bool


class ModelSelect(ScriptEvent):
    """The user picks a model by hand (`/model`); applied at once."""

    type: Literal["model.select"]
    model: str


ModelEvent = Annotated[
    ModeEnter
    | ModeExit
    | Reload
    | Resume
    | SessionNew
    | RegistryRemove
    | RegistryAdd
    | Credentials
    | ModelSelect,
    Field(discriminator="type"),
]


class ModelsScriptInput(EventScript[ModelEvent]):
    modes: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="The raw `modes` configuration; only each mode's `model` is read here.",
    )
    registry: list[RegistryModel] = Field(description="Pi's model registry at session start.")
    initial_model: str = Field(description="The session model at start (`--model` or default).")


class ModelObservation(Observation):
    type: Literal[
        "session.start",
        "state.loaded",
        "mode",
        "capture",
        "change.start",
        "change.end",
        "restore.dropped",
        "restore.retry",
        "restore.released",
        "persist",
        "model.select",
        "warning",
    ] = effect()
    mode: str | None = effect(description="The mode, where the entry has one (null otherwise).")
    model: str | None = effect(description="The model, where the entry has one (null otherwise).")
    reason: Literal["mode", "restore", "pin"] | None = explanation(description="Why a model change was made.")
    ok: bool | None = effect(description="change.end: whether Pi switched (null otherwise).")
    restore_model: str | None = effect(description="persist / state.loaded: the restore point.")
    restore_failures: int | None = effect(
        description="persist / state.loaded: failed restores of that point."
    )
    message: str | None = effect(description="A warning's text (null otherwise).")


class PersistedEntry(ContractOutput):
    mode: str = effect()
    restore_model: str | None = effect()
    restore_failures: int = effect()


class ModelChange(ContractOutput):
    at: int = effect(description="When the change started.")
    end: int = effect(description="When it finished.")
    model: str = effect()
    reason: Literal["mode", "restore", "pin"] = explanation(description="Why the change was made.")
    ok: bool = effect(description="False when Pi refused it (no credentials).")


class ModelsScriptOutput(ContractOutput):
    trace: list[ModelObservation] = explanation(
        description=(
            "What happened, in virtual time order, internal steps (capture, dropped restore points) included."
        )
    )
    changes: list[ModelChange] = effect(
        description="Every model change the extension made, in order (a digest of the trace)."
    )
    model: str = effect(description="The session model once every change settled.")
    mode: str = effect(description="The mode at the end of the script.")
    restore_point: str | None = explanation(description="The restore point held at the end.")
    persisted: PersistedEntry | None = effect(description="The last mode session entry written.")
    warnings: list[str] = effect(description="Every warning shown, in order.")


SCRIPT = Operation(
    name="oplmodes.models.script",
    input=ModelsScriptInput,
    output=ModelsScriptOutput,
    summary=(
        "Mode model overrides on a virtual clock: capture once, restore on exit, persist "
        "across /reload and /resume, serialized changes, pinned OFF model."
    ),
    kind="script",
)

OPERATIONS = [SCRIPT]
