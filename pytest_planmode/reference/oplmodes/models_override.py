"""opl-modes per-mode model overrides (opl-modes.md § Tool inheritance
warning, model-override paragraph; § Mode appearance).

A mode with a usable ``model`` switches to it on entry; the model active
before is captured once (only when no restore point is held) and restored on
exit. The restore point is persisted with the mode session entry, so
``/reload`` and ``/resume`` read it back. A restore target gone from the
registry is dropped at once; one without credentials is retried once, then
released. Every model change goes through one serial queue, so a rapid exit
cannot leave a superseded mode model active. ``modes.off.model`` pins OFF:
it is applied on every exit to OFF and at session start.

The simulation runs on :class:`~pytest_planmode.reference.virtual_time.Scheduler`:
nothing sleeps.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_planmode.reference import host_events as host
from pytest_planmode.reference.oplmodes.config import load as load_config
from pytest_planmode.reference.virtual_time import Scheduler

OFF = "off"

#: Ranks of same-instant happenings: a model change that completes at an
#: instant is settled before a script event of that instant is handled,
#: because the change was already in flight.
_RANK_COMPLETION = 0
_RANK_EVENT = 1


@dataclass(frozen=True)
class RegistryEntry:
    credentials: bool = True
    change_latency_ms: int = 0


#: The `/mode` argument that leaves the mode (`/mode normal`).
NORMAL = "normal"

#: The host events a model-override script replays.
Event = (
    host.Command
    | host.SessionReload
    | host.SessionResume
    | host.SessionNew
    | host.ProviderChange
    | host.ModelSelect
)


@dataclass(frozen=True)
class RestorePoint:
    model: str
    failures: int = 0


@dataclass(frozen=True)
class SessionEntry:
    """The mode session entry: the mode and its restore point."""

    mode: str
    restore: RestorePoint | None


@dataclass(frozen=True)
class Obs:
    at: int
    type: str
    mode: str | None = None
    model: str | None = None
    reason: str | None = None
    ok: bool | None = None
    restore_model: str | None = None
    restore_failures: int | None = None
    message: str | None = None


@dataclass(frozen=True)
class ScriptResult:
    trace: tuple[Obs, ...]
    model: str
    mode: str
    restore_point: str | None
    persisted: SessionEntry | None
    warnings: tuple[str, ...]


def mode_overrides(modes: Mapping[str, Any]) -> dict[str, str]:
    """Every mode's usable model override, by mode name, as the one reader
    of opl-modes.json (:func:`config.load`) reads `modes.<name>.model`
    (§ Tool inheritance warning: "A blank or partial `model` (for example
    `{ "provider": "", "id": "" }`) is treated as no override")."""
    config = load_config({"modes": dict(modes)})
    return {name: f"{mode.model[0]}/{mode.model[1]}" for name, mode in config.modes.items() if mode.model}


@dataclass(frozen=True)
class _Op:
    kind: str  # "apply", "restore", "pin"
    mode: str | None = None
    target: str | None = None


@dataclass(frozen=True)
class _Completion:
    op: _Op
    target: str
    ok: bool


@dataclass
class _Runner:
    """The simulation's mutable state; lives only inside :func:`run_script`."""

    overrides: dict[str, str]
    registry: dict[str, RegistryEntry]
    model: str
    mode: str = OFF
    restore: RestorePoint | None = None
    persisted: SessionEntry | None = None
    trace: list[Obs] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    pending: deque[_Op] = field(default_factory=deque)
    busy: bool = False
    clock: Scheduler[Event | _Completion] = field(default_factory=Scheduler)
    #: What the provider events said of each model so far: (resolves,
    #: credentials, change latency), kept for a model that stopped resolving.
    providers: dict[str, tuple[bool, bool, int]] = field(default_factory=dict)

    @property
    def now(self) -> int:
        return self.clock.now

    def note(self, kind: str, **values: Any) -> None:
        self.trace.append(Obs(self.now, kind, **values))

    def warn(self, message: str) -> None:
        self.warnings.append(message)
        self.note("warning", message=message)

    def persist(self) -> None:
        """The restore point is persisted in the mode session entry, so
        `/reload` and `/resume` inside a mode do not lose it."""
        entry = SessionEntry(self.mode, self.restore)
        if entry == self.persisted:
            return
        self.persisted = entry
        self.note(
            "persist",
            mode=entry.mode,
            restore_model=entry.restore.model if entry.restore else None,
            restore_failures=entry.restore.failures if entry.restore else 0,
        )

    # -- the serial queue -------------------------------------------------

    def submit(self, op: _Op) -> None:
        """Changes are serialized: an operation starts once every earlier
        one has finished."""
        self.pending.append(op)
        self.pump()

    def pump(self) -> None:
        while not self.busy and self.pending:
            self.run(self.pending.popleft())

    def change(self, op: _Op, target: str) -> None:
        entry = self.registry[target]
        self.note("change.start", model=target, reason=op.kind if op.kind != "apply" else "mode")
        self.busy = True
        self.clock.push(
            self.now + entry.change_latency_ms,
            _Completion(op, target, entry.credentials),
            _RANK_COMPLETION,
        )

    def run(self, op: _Op) -> None:
        if op.kind == "apply":
            self.run_apply(op)
        elif op.kind == "restore":
            self.run_restore(op)
        else:
            self.run_pin(op)

    def run_apply(self, op: _Op) -> None:
        target = op.target
        assert target is not None
        if target not in self.registry:
            self.warn(f"Model not found: {target}")
            return
        if target == self.model:
            return
        if self.restore is None:
            # Captured once per mode: a held point (even one waiting for its
            # retry) is kept, so the restore target stays the model before
            # the first overriding mode.
            self.restore = RestorePoint(self.model)
            self.note("capture", mode=op.mode, model=self.model)
            self.persist()
        self.change(op, target)

    def run_restore(self, op: _Op) -> None:
        point = self.restore
        if point is None:
            return
        if point.model not in self.registry:
            self.restore = None
            self.note("restore.dropped", model=point.model)
            self.persist()
            return
        if point.model == self.model:
            self.restore = None
            self.persist()
            return
        self.change(op, point.model)

    def run_pin(self, op: _Op) -> None:
        target = op.target
        assert target is not None
        if self.restore is not None:
            # The pinned baseline replaces restoring.
            self.restore = None
            self.persist()
        if target not in self.registry:
            self.warn(f"Model not found: {target}")
            return
        if target == self.model:
            return
        self.change(op, target)

    def complete(self, done: _Completion) -> None:
        self.busy = False
        self.note("change.end", model=done.target, reason=_reason(done.op), ok=done.ok)
        if done.ok:
            self.model = done.target
            if done.op.kind == "restore":
                self.restore = None
                self.persist()
        elif done.op.kind == "restore":
            failures = (self.restore.failures if self.restore else 0) + 1
            if failures >= 2:
                self.restore = None
                self.note("restore.released", model=done.target)
            else:
                self.restore = RestorePoint(done.target, failures)
                self.note("restore.retry", model=done.target)
            self.persist()
        else:
            self.warn(f"No credentials for {done.target}; keeping {self.model}")
        self.pump()

    # -- script events ----------------------------------------------------

    def session_start(self) -> None:
        self.note("session.start", model=self.model)
        self.pin_if_configured()

    def pin_if_configured(self) -> None:
        pin = self.overrides.get(OFF)
        if pin is not None:
            self.submit(_Op("pin", OFF, pin))

    def enter(self, mode: str) -> None:
        if mode == self.mode:
            return
        self.mode = mode
        self.note("mode", mode=mode)
        self.persist()
        if mode == OFF:
            if OFF in self.overrides:
                self.pin_if_configured()
            else:
                self.submit(_Op("restore", mode))
        elif mode in self.overrides:
            self.submit(_Op("apply", mode, self.overrides[mode]))
        else:
            # A mode without an override runs on the model from before any
            # overriding mode.
            self.submit(_Op("restore", mode))

    def load(self) -> None:
        """`/reload` and `/resume`: in-memory state is rebuilt from the last
        mode session entry."""
        entry = self.persisted
        self.mode = entry.mode if entry else OFF
        self.restore = entry.restore if entry else None
        self.note(
            "state.loaded",
            mode=self.mode,
            restore_model=self.restore.model if self.restore else None,
            restore_failures=self.restore.failures if self.restore else 0,
        )
        if self.mode == OFF:
            self.pin_if_configured()

    def command(self, event: host.Command) -> None:
        """`/mode <name>` selects a mode; `/mode normal` (or `off`) leaves it."""
        arg = event.args.strip()
        self.enter(OFF if arg == NORMAL else arg or OFF)

    def state_reloaded(self, event: host.SessionReload | host.SessionResume) -> None:
        """`/reload` and `/resume` both read the state back from the session."""
        self.load()

    def session_new(self, event: host.SessionNew) -> None:
        """A new session: no mode, no restore point."""
        self.mode, self.restore, self.persisted = OFF, None, None
        self.session_start()

    def provider_change(self, event: host.ProviderChange) -> None:
        """Only whether the model resolves, its credentials and its change
        latency matter here; the fields not given stay as they were. A model
        that stops resolving leaves the registry, one that starts (or whose
        latency changes) is (re-)added, a known model's credentials change in
        place."""
        was = self.providers.get(event.model, (False, True, 0))
        now = (
            was[0] if event.resolves is None else event.resolves,
            was[1] if event.credentials is None else event.credentials,
            was[2] if event.change_latency_ms is None else event.change_latency_ms,
        )
        self.providers[event.model] = now
        resolves, credentials, latency = now
        if not resolves:
            if was[0]:
                self.registry.pop(event.model, None)
        elif not was[0] or latency != was[2]:
            if event.model:
                self.registry[event.model] = RegistryEntry(credentials, latency)
        elif credentials != was[1] and event.model in self.registry:
            self.registry[event.model] = replace(self.registry[event.model], credentials=credentials)

    def model_selected(self, event: host.ModelSelect) -> None:
        """The user picks a model by hand; applied at once."""
        if event.model:
            self.model = event.model
            self.note("model.select", model=event.model)


#: Each script event's handler, by the event's class.
_EVENTS: Mapping[type[Any], Callable[[_Runner, Any], None]] = {
    host.Command: _Runner.command,
    host.SessionReload: _Runner.state_reloaded,
    host.SessionResume: _Runner.state_reloaded,
    host.SessionNew: _Runner.session_new,
    host.ProviderChange: _Runner.provider_change,
    host.ModelSelect: _Runner.model_selected,
}


def _reason(op: _Op) -> str:
    return "mode" if op.kind == "apply" else op.kind


def run_script(
    modes: Mapping[str, Any],
    registry: Iterable[tuple[str, RegistryEntry]],
    initial_model: str,
    events: Sequence[Event],
) -> ScriptResult:
    """§ Tool inheritance warning (model overrides) and § Mode appearance:
    run a script of mode changes and session events on the virtual clock."""
    known = dict(registry)
    runner = _Runner(
        overrides=mode_overrides(modes),
        registry=known,
        model=initial_model,
        providers={name: (True, e.credentials, e.change_latency_ms) for name, e in known.items()},
    )
    runner.session_start()
    for event in events:
        runner.clock.push(event.at, event, _RANK_EVENT)
    while (item := runner.clock.pop()) is not None:
        _, happening = item
        if isinstance(happening, _Completion):
            runner.complete(happening)
        else:
            _EVENTS[type(happening)](runner, happening)
    return ScriptResult(
        trace=tuple(runner.trace),
        model=runner.model,
        mode=runner.mode,
        restore_point=runner.restore.model if runner.restore else None,
        persisted=runner.persisted,
        warnings=tuple(runner.warnings),
    )


__all__ = [
    "NORMAL",
    "Event",
    "RegistryEntry",
    "ScriptResult",
    "mode_overrides",
    "run_script",
]
