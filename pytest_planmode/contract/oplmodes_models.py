"""opl-modes model overrides as an event script: capture, restore, persist
across `/reload` and `/resume`, serialized changes, the pinned OFF model.

Scripts speak the host vocabulary (``host_events``): `/mode <name>`
commands (`/mode normal` leaves the mode), `/reload`, `/resume`, `/new`, a
provider changing (`provider.change`: the registry finds the model or not,
its credentials, its change latency) and the user's own `/model` pick
(`model.select`).

Models are written ``"<provider>/<id>"`` in the registry, events and trace;
a mode's ``model`` stays raw JSON (``{"provider": …, "id": …}``) because a
blank or partial one is part of the behaviour. The session starts at 0 ms
in mode ``off``; every model change takes its registry entry's
``changeLatencyMs`` of virtual time.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from pytest_planmode.contract import Operation
from pytest_planmode.contract import host_events as host
from pytest_planmode.contract.base import ContractInput, ContractOutput, effect, explanation
from pytest_planmode.contract.events import EventScript, Observation


class RegistryModel(ContractInput):
    model: str = Field(description="`provider/id` of a model Pi's registry knows.")
    credentials: bool = Field(default=True, description="False: Pi refuses to switch to it.")
    change_latency_ms: int = Field(default=0, ge=0, description="Virtual ms a change to this model takes.")


ModelEvent = Annotated[
    host.Command
    | host.SessionReload
    | host.SessionResume
    | host.SessionNew
    | host.ProviderChange
    | host.ModelSelect,
    Field(discriminator="type"),
]

#: The `/mode` argument that leaves every mode (opl-modes.md § Commands,
#: flags, and shortcuts: `/mode normal` selects the built-in normal mode).
NORMAL = "normal"

#: What opl-modes reads of a provider: whether the registry finds the model,
#: its credentials, and how long `pi.setModel` takes.
PROVIDER_FIELDS = ("resolves", "credentials", "change_latency_ms")


class ModelsScriptInput(EventScript[ModelEvent]):
    modes: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="The raw `modes` configuration; only each mode's `model` is read here.",
    )
    registry: list[RegistryModel] = Field(description="Pi's model registry at session start.")
    initial_model: str = Field(description="The session model at start (`--model` or default).")

    @model_validator(mode="after")
    def _replayable(self) -> ModelsScriptInput:
        """Mode changes are `/mode <name>` commands (`/mode normal` leaves the
        mode); a provider change says only what opl-modes reads of it."""
        for index, event in enumerate(self.events):
            where = f"events[{index}] ({event.type})"
            if isinstance(event, host.Command):
                arg = event.args.strip()
                if event.name != "mode" or not arg or " " in arg:
                    raise ValueError(
                        f"{where}: this operation's scripts select modes with /mode <name> "
                        f"(/mode {NORMAL} leaves the mode), not /{event.name} {event.args}".rstrip()
                    )
                if arg in ("off", "execute"):
                    raise ValueError(f"{where}: /mode {arg} is not a mode command here (use /mode {NORMAL})")
            elif isinstance(event, host.ProviderChange):
                unread = sorted(
                    name
                    for name in event.model_fields_set
                    if name not in (*PROVIDER_FIELDS, "model", "type", "at")
                )
                if unread:
                    raise ValueError(
                        f"{where}: opl-modes reads only {', '.join(PROVIDER_FIELDS)} of a provider, "
                        f"not {', '.join(unread)}"
                    )
            elif isinstance(event, host.SessionResume) and event.entries is not None:
                raise ValueError(f"{where}: resumes this session here (no entries)")
        return self


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
