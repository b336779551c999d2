"""Plan workflows over time: when the allowlist is resolved, what restores
it, and which contract a call is judged under (pi-plan-mode-settings.md
§ Default Plan policy tools; § Plan helper tools).

A script of events is replayed in order. Resolution happens once per Plan
workflow, at its first provider-bound context, after every
`before_agent_start` handler has settled: at that context when no handler
of the run is still held, else when the last held handler settles.

A call first meets Pi's own gate: Pi emits `tool_call` only for a
registered, active tool (for a nested call: an active orchestrator); any
other call is Pi's refusal, not the extension's verdict. A call that
reaches the extension gets the Plan policy's verdict; an admitted shell
call is then decided by the limited-shell policy on its command.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_planmode.reference import host_events as host
from pytest_planmode.reference.planmode import tools_events as ev
from pytest_planmode.reference.planmode.bash_policy import check_bash
from pytest_planmode.reference.planmode.plan_helpers import HELPER_NAMES, PlanContract
from pytest_planmode.reference.planmode.powershell_policy import check_powershell
from pytest_planmode.reference.planmode.safe_subcommand_match import TrustedPrefixes
from pytest_planmode.reference.planmode.settings import read_document
from pytest_planmode.reference.planmode.tools_freeze import (
    FrozenPolicy,
    PolicyNames,
    freeze,
    policy_names,
)
from pytest_planmode.reference.planmode.tools_picker import PickerRow, picker_rows
from pytest_planmode.reference.planmode.tools_policy import ALLOW, DENY, SHELL_POLICY, CallContext, authorize
from pytest_planmode.reference.planmode.tools_registry import Registry, Tool

#: The session's working directory, as the virtual root it is in scripts.
CWD = "$CWD"


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
    #: The open boundary saw its context while a handler was still held.
    context_seen: bool = False
    #: Handlers held for the next run, and those of the open run not yet settled.
    held: set[str] = field(default_factory=set)
    running: set[str] = field(default_factory=set)
    #: The open run, and the contract effective when it started (None: none).
    in_run: bool = False
    run_contract: str | None = None
    #: What each tree label pointed at: the branch's latest contract and
    #: whether it was active at that entry.
    labels: dict[str, tuple[str | None, bool]] = field(default_factory=dict)
    trace: list[dict[str, Any]] = field(default_factory=list)
    counter: int = 0
    #: Rows of the open picker: a snapshot, never updated in place.
    picker: tuple[PickerRow, ...] | None = None

    # -- resolution -----------------------------------------------------

    def close_boundary(self) -> None:
        self.opening, self.context_seen = None, False

    def resolve(self, at: int) -> None:
        contract = self.contracts[self.opening] if self.opening else None
        self.close_boundary()
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

    def command(self, event: host.Command) -> None:
        """`/plan start` opens a workflow, `/plan tools` the picker; any
        other `/plan` word of these scripts (`exit`, `off`) ends Plan mode."""
        args = event.args.strip()
        if args == "start":
            self.start_plan()
        elif args == "tools":
            self.use_picker(event.at, "open")
        else:
            self.exit_plan()

    def exit_plan(self) -> None:
        # Plan mode ends: the workflow's contract stops authorizing.
        contract = self.current()
        if contract is not None:
            contract.active = False
            if self.opening == contract.id:
                self.close_boundary()

    def hold(self, event: host.HandlerHold) -> None:
        self.held.add(event.handler)

    def settle_handler(self, event: host.HandlerSettle) -> None:
        self.held.discard(event.handler)
        self.running.discard(event.handler)
        if self.opening is not None and self.context_seen and not self.running:
            self.resolve(event.at)

    def start_run(self, event: host.AgentStart) -> None:
        # Every extension's before_agent_start runs now; held ones stay
        # unsettled until their extension settles them.
        self.in_run = True
        self.run_contract = self.effective
        self.running |= self.held
        self.held = set()

    def settle_run(self, event: host.AgentSettle) -> None:
        self.in_run = False
        self.run_contract = None

    def context(self, event: host.Context) -> None:
        # A provider-bound context: a workflow's first is its resolution boundary.
        if self.opening is None or self.context_seen:
            return
        if self.running:
            self.context_seen = True
        else:
            self.resolve(event.at)

    def reload(self, event: host.SessionReload) -> None:
        # Reload (or a restart) and resume restore the stored state as it
        # is: the frozen allowlist comes back without reopening the
        # resolution boundary.
        self.restored(event.at, "reload")

    def resume(self, event: host.SessionResume) -> None:
        self.restored(event.at, "resume")

    def save_settings(self, event: host.SettingsWrite | host.SettingsScreen) -> None:
        # Saved names apply only when a later workflow starts: the names of
        # a workflow are captured at its start, so nothing here touches them.
        # `settings` holds the changed fields; `None` removes one, so a null
        # `defaultPlanTools` resets to automatic (the whole override goes).
        # Settings and JSON edits are read the same way.
        merged = {**self.settings, **event.settings}
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

    def choose(self, event: ev.Chosen) -> None:
        self.selection = list(event.tools)
        if event.start:
            self.start_plan()

    def start_plan(self) -> None:
        self.counter += 1
        contract_id = f"plan-{self.counter}"
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
        self.context_seen = False

    def new_session(self, event: host.SessionNew) -> None:
        # A fresh session stores no selection and no Plan contract: the
        # global setting is its baseline again.
        self.selection = None
        self.contracts = {}
        self.effective = None
        self.labels = {}
        self.close_boundary()
        self.restored(event.at, "new")

    def label(self, event: host.SessionLabel) -> None:
        contract = self.current()
        self.labels[event.label] = (contract.id, contract.active) if contract else (None, False)

    def navigate(self, event: host.SessionTree) -> None:
        # Tree navigation to the entry labelled `to` (no label is empty).
        contract_id, active = self.labels.get(event.to or "", (None, False))
        target = self.contracts.get(contract_id) if contract_id else None
        if target is None:
            self.effective = None
        else:
            target.active = active
            self.effective = target.id
        if self.opening is not None and self.opening != self.effective:
            # The open boundary belonged to the branch we left.
            self.close_boundary()
        self.restored(event.at, "navigate")

    def use_picker(self, at: int, action: str) -> None:
        """`open` takes a fresh snapshot (`/plan tools`), `show` renders the
        open picker (the host reads the screen), `close` (any answer)."""
        # § Default Plan policy tools: the menu takes a fresh registered and
        # active snapshot each time it opens; an open picker does not update.
        if action == "close":
            self.picker = None
            return
        if action == "open":
            chosen = policy_names(self.settings, self.selection)
            self.picker = picker_rows(self.registry, chosen)
        rows = self.picker
        self.trace.append(
            {
                "at": at,
                "type": "picker",
                "event": action,
                "rows": None
                if rows is None
                else [{"name": r.name, "label": r.label, "selected": r.selected} for r in rows],
            }
        )

    def callable_in_pi(self, name: str) -> bool:
        """Pi's gate: only a registered, active tool reaches `tool_call`.
        The helpers are the extension's own tools, registered (and so
        activated) with it unless the registry says otherwise."""
        entry = self.registry.get(name)
        if entry is None:
            return name in HELPER_NAMES
        return entry.registered and entry.active

    def call(self, event: host.ToolCall) -> None:
        entry: dict[str, Any] = {"at": event.at, "type": "verdict", "tool": event.tool, "via": event.via}
        caller = event.via if event.via is not None else event.tool
        if not self.callable_in_pi(caller):
            # Pi answers "Tool NAME not found" itself: no extension sees it.
            entry.update(decidedBy="pi", verdict=DENY, reason="not-found", cause=None)
            self.trace.append(entry)
            return
        contract = self.current()
        ctx = CallContext(
            contract=PlanContract(contract.id, contract.active) if contract else None,
            policy=contract.policy if contract else None,
            registry=self.registry,
        )
        verdict = authorize(ctx, event.tool, event.via, self.run_contract)
        outcome, reason = verdict.verdict, verdict.reason
        if outcome == SHELL_POLICY:
            shell = check_powershell if event.tool == "powershell" else check_bash
            command = event.input.get("command")
            decided = shell(command if isinstance(command, str) else "", CWD, self.trust())
            outcome = ALLOW if decided.allowed else DENY
        entry.update(decidedBy="extension", verdict=outcome, reason=reason, cause=verdict.cause)
        self.trace.append(entry)

    def trust(self) -> TrustedPrefixes:
        # The limited shell of a Plan call trusts what the current settings
        # document grants (read as every consumer reads it: an invalid
        # document trusts nothing).
        return TrustedPrefixes.of(read_document(self.settings).settings)


#: Each event's handler, by the event's type.
_HANDLERS: Mapping[type[Any], Callable[[_Workflows, Any], None]] = {
    ev.Registered: _Workflows.register,
    ev.Unregistered: _Workflows.unregister,
    ev.ActiveSetChanged: _Workflows.change_active,
    ev.ExposureChanged: _Workflows.expose,
    ev.Declared: _Workflows.declare,
    ev.Chosen: _Workflows.choose,
    host.SettingsWrite: _Workflows.save_settings,
    host.SettingsScreen: _Workflows.save_settings,
    host.Command: _Workflows.command,
    host.UiAnswer: lambda state, event: state.use_picker(event.at, "close"),
    host.UiShow: lambda state, event: state.use_picker(event.at, "show"),
    host.HandlerHold: _Workflows.hold,
    host.HandlerSettle: _Workflows.settle_handler,
    host.AgentStart: _Workflows.start_run,
    host.AgentSettle: _Workflows.settle_run,
    host.Context: _Workflows.context,
    host.ClockAdvance: lambda state, event: None,
    host.SessionReload: _Workflows.reload,
    host.SessionResume: _Workflows.resume,
    host.SessionNew: _Workflows.new_session,
    host.SessionLabel: _Workflows.label,
    host.SessionTree: _Workflows.navigate,
    host.ToolCall: _Workflows.call,
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
    workflow boundaries, agent runs and calls; every call gets a verdict,
    who decided it (Pi's gate or the extension) and a reason."""
    state = _Workflows(Registry.of(registry), dict(settings), selection)
    for event in events:
        _HANDLERS[type(event)](state, event)
    contract = state.current()
    policy = contract.policy if contract else None
    return Replay(
        trace=tuple(state.trace),
        allowlist=policy.allowlist if policy else None,
        pending=policy.pending if policy else None,
    )
