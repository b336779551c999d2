"""Plan workflows over time: when the allowlist is resolved, what restores
it, and which contract a call is judged under (pi-plan-mode-settings.md
§ Default Plan policy tools; § Plan helper tools).

A script of events is replayed on a virtual clock. Resolution happens once
per Plan workflow, at its first provider-bound context, after every
`before_agent_start` handler has settled: at instant
R = max(context instant, latest `settlesAt`). If R is the context's own
instant, resolution happens as the context event is processed; otherwise
after every event stamped at or before R and before any event stamped later.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_planmode.reference.planmode import tool_events as ev
from pytest_planmode.reference.planmode.plan_helpers import PlanContract
from pytest_planmode.reference.planmode.settings import read_document
from pytest_planmode.reference.planmode.tool_freeze import (
    FrozenPolicy,
    PolicyNames,
    freeze,
    policy_names,
)
from pytest_planmode.reference.planmode.tool_picker import PickerRow, picker_rows
from pytest_planmode.reference.planmode.tool_policy import CallContext, authorize
from pytest_planmode.reference.planmode.tool_registry import Registry, Tool


@dataclass
class _Contract:
    id: str
    active: bool
    names: PolicyNames
    policy: FrozenPolicy | None = None


@dataclass
class _Workflows:
    """Mutable replay state, private to one :func:`replay` call."""

    registry: Registry
    settings: dict[str, Any]
    selection: Sequence[Any] | None
    contracts: dict[str, _Contract] = field(default_factory=dict)
    effective: str | None = None
    #: Contract whose resolution boundary is still open.
    opening: str | None = None
    settle_until: int = 0
    resolve_at: int | None = None
    trace: list[dict[str, Any]] = field(default_factory=list)
    counter: int = 0
    #: Rows of the open picker: a snapshot, never updated in place.
    picker: tuple[PickerRow, ...] | None = None

    # -- resolution -----------------------------------------------------

    def due(self, now: int, inclusive: bool) -> None:
        """Resolve a scheduled boundary that lies before `now` (or at it)."""
        if self.resolve_at is None:
            return
        if self.resolve_at < now or (inclusive and self.resolve_at <= now):
            self.resolve(self.resolve_at)

    def resolve(self, at: int) -> None:
        contract = self.contracts[self.opening] if self.opening else None
        self.resolve_at = None
        self.opening = None
        if contract is None:
            return
        contract.policy = freeze(self.registry, contract.names)
        policy = contract.policy
        self.trace.append(
            {
                "at": at,
                "type": "resolved",
                "contract": contract.id,
                "basis": policy.basis,
                "allowlist": list(policy.allowlist),
                "pending": list(policy.pending),
                "resolutions": [
                    {
                        "name": r.name,
                        "admitted": r.admitted,
                        "reason": r.reason,
                        "pending": r.pending,
                    }
                    for r in policy.resolutions
                ],
            }
        )

    # -- helpers --------------------------------------------------------

    def current(self) -> _Contract | None:
        return self.contracts.get(self.effective) if self.effective else None

    def restored(self, at: int, cause: str) -> None:
        contract = self.current()
        policy = contract.policy if contract else None
        self.trace.append(
            {
                "at": at,
                "type": "restored",
                "cause": cause,
                "contract": contract.id if contract else None,
                "allowlist": list(policy.allowlist) if policy else None,
            }
        )

    # -- events ---------------------------------------------------------

    def register(self, event: ev.Registered) -> None:
        self.registry = self.registry.register(event.tool)

    def unregister(self, event: ev.Unregistered) -> None:
        self.registry = self.registry.update(event.name, registered=False)

    def change_active(self, event: ev.ActiveSetChanged) -> None:
        for name in event.names:
            self.registry = self.registry.update(name, active=event.active)

    def expose(self, event: ev.ExposureChanged) -> None:
        self.registry = self.registry.update(event.name, exposure=event.exposure)

    def declare(self, event: ev.Declared) -> None:
        self.registry = self.registry.update(event.name, active=True)

    def exit_plan(self, event: ev.PlanExited) -> None:
        # Plan mode ends: the workflow's contract stops authorizing.
        contract = self.current()
        if contract is not None:
            contract.active = False
            if self.opening == contract.id:
                self.opening, self.resolve_at = None, None

    def handler_settles(self, event: ev.AgentStartHandler) -> None:
        if self.opening is not None:
            self.settle_until = max(self.settle_until, event.settles_at)
            if self.resolve_at is not None:
                self.resolve_at = max(self.resolve_at, event.settles_at)

    def context(self, event: ev.ContextBuilt) -> None:
        if self.opening is not None and self.resolve_at is None:
            self.resolve_at = max(event.at, self.settle_until)
            self.due(event.at, inclusive=True)

    def restore(self, event: ev.StateRestored) -> None:
        # Reload (or a restart) and resume restore the stored state as it
        # is: the frozen allowlist comes back without reopening the
        # resolution boundary.
        self.restored(event.at, event.cause)

    def save_settings(self, event: ev.SettingsSaved) -> None:
        # Saved names apply only when a later workflow starts: the names of
        # a workflow are captured at its start, so nothing here touches them.
        # `changes` holds the changed fields; `None` removes one, so a null
        # `defaultPlanTools` resets to automatic (the whole override goes).
        # Settings and JSON edits (`via`) are read the same way.
        merged = {**self.settings, **event.changes}
        merged = {key: value for key, value in merged.items() if value is not None}
        reading = read_document(merged)
        if reading.invalid is not None:
            # Invalid values leave the previous effective settings in place.
            self.trace.append(
                {"at": event.at, "type": "settings", "applied": False, "warning": reading.invalid.detail}
            )
            return
        self.settings = merged
        self.trace.append({"at": event.at, "type": "settings", "applied": True})

    def select(self, event: ev.SelectionMade) -> None:
        self.selection = list(event.tools)

    def start(self, event: ev.PlanStarted) -> None:
        self.counter += 1
        contract_id = event.contract or f"plan-{self.counter}"
        # A new workflow records a new contract; it supersedes the previous
        # one, which can no longer authorize helpers.
        previous = self.current()
        if previous is not None:
            previous.active = False
        self.contracts[contract_id] = _Contract(
            contract_id, True, policy_names(self.settings, self.selection)
        )
        self.effective = contract_id
        self.opening = contract_id
        self.settle_until = event.at
        self.resolve_at = None

    def new_session(self, event: ev.NewSession) -> None:
        # A fresh session stores no selection and no Plan contract: the
        # global setting is its baseline again.
        self.selection = None
        self.contracts = {}
        self.effective = None
        self.opening, self.resolve_at = None, None
        self.restored(event.at, "new")

    def navigate(self, event: ev.Navigated) -> None:
        target = self.contracts.get(event.contract) if event.contract else None
        if target is None:
            self.effective = None
        else:
            target.active = event.active
            self.effective = target.id
        if self.opening is not None and self.opening != self.effective:
            # The open boundary belonged to the branch we left.
            self.opening, self.resolve_at = None, None
        self.restored(event.at, "navigate")

    def use_picker(self, event: ev.PickerAction) -> None:
        # § Default Plan policy tools: the menu takes a fresh registered and
        # active snapshot each time it opens; an open picker does not update.
        if event.action == "close":
            self.picker = None
            return
        if event.action == "open":
            chosen = policy_names(self.settings, self.selection)
            self.picker = picker_rows(self.registry, chosen)
        rows = self.picker
        self.trace.append(
            {
                "at": event.at,
                "type": "picker",
                "event": event.action,
                "rows": None
                if rows is None
                else [{"name": r.name, "label": r.label, "selected": r.selected} for r in rows],
            }
        )

    def call(self, event: ev.ToolCalled) -> None:
        contract = self.current()
        ctx = CallContext(
            contract=PlanContract(contract.id, contract.active) if contract else None,
            policy=contract.policy if contract else None,
            registry=self.registry,
        )
        verdict = authorize(ctx, event.tool, event.via, event.contract)
        entry: dict[str, Any] = {
            "at": event.at,
            "type": "verdict",
            "tool": event.tool,
            "via": event.via,
            "verdict": verdict.verdict,
            "reason": verdict.reason,
            "cause": verdict.cause,
        }
        self.trace.append(entry)


#: Each event's handler, by the event's type.
_HANDLERS: Mapping[type[Any], Callable[[_Workflows, Any], None]] = {
    ev.Registered: _Workflows.register,
    ev.Unregistered: _Workflows.unregister,
    ev.ActiveSetChanged: _Workflows.change_active,
    ev.ExposureChanged: _Workflows.expose,
    ev.Declared: _Workflows.declare,
    ev.SettingsSaved: _Workflows.save_settings,
    ev.SelectionMade: _Workflows.select,
    ev.PlanStarted: _Workflows.start,
    ev.PlanExited: _Workflows.exit_plan,
    ev.AgentStartHandler: _Workflows.handler_settles,
    ev.ContextBuilt: _Workflows.context,
    ev.StateRestored: _Workflows.restore,
    ev.NewSession: _Workflows.new_session,
    ev.Navigated: _Workflows.navigate,
    ev.PickerAction: _Workflows.use_picker,
    ev.ToolCalled: _Workflows.call,
}


@dataclass(frozen=True)
class Replay:
    trace: tuple[dict[str, Any], ...]
    allowlist: tuple[str, ...] | None
    pending: tuple[str, ...] | None


def replay(
    registry: Sequence[Tool],
    settings: Mapping[str, Any],
    selection: Sequence[Any] | None,
    events: Sequence[ev.ToolEvent],
) -> Replay:
    """§ Default Plan policy tools: replay a script of registry changes,
    workflow boundaries and calls; every call gets a verdict and a reason."""
    state = _Workflows(Registry.of(registry), dict(settings), selection)
    for event in events:
        state.due(event.at, inclusive=False)
        _HANDLERS[type(event)](state, event)
    state.due(2**63, inclusive=True)
    contract = state.current()
    policy = contract.policy if contract else None
    return Replay(
        trace=tuple(state.trace),
        allowlist=policy.allowlist if policy else None,
        pending=policy.pending if policy else None,
    )
