"""Tool-call authorization in Plan mode (pi-plan-mode-settings.md § Default
Plan policy tools; § Plan helper tools).

One call in, one verdict with one reason out. The checks run in a fixed
order so that every denial names the first rule that stops the call; the
order puts what can never run (blocked names, current hidden exposure)
before what the frozen policy says.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_planmode.reference.planmode.plan_helpers import (
    HELPER_NAMES,
    PlanContract,
    authorize_helper,
)
from pytest_planmode.reference.planmode.tools_freeze import (
    BASIS_AUTOMATIC,
    BLOCKED_NAMES,
    INACTIVE,
    OVERRIDE_NEEDS_OPT_IN,
    POLICY_BLOCKED,
    SHELL_NAMES,
    FrozenPolicy,
    unavailability,
)
from pytest_planmode.reference.planmode.tools_registry import Registry

ALLOW = "allow"
DENY = "deny"
#: The tool is admitted but its command still has to pass the limited-shell
#: policy (evaluated elsewhere, on the command text).
SHELL_POLICY = "shell-policy"

# Call reasons beyond the resolution reasons of tools_freeze.
ALLOWED = "allowed"
OUTSIDE_PLAN_MODE = "outside-plan-mode"
LIMITED_SHELL = "limited-shell"
BEFORE_RESOLUTION = "before-resolution"
NOT_SELECTED = "not-selected"
NOT_ADMITTED = "not-admitted"
ORCHESTRATOR_NOT_ADMITTED = "orchestrator-not-admitted"
NESTED_MODEL_ONLY = "nested-model-only"
CODEMODE_ONLY = "codemode-only"


@dataclass(frozen=True)
class Verdict:
    verdict: str
    reason: str
    #: For `not-admitted`: the name's resolution reason at the freeze; for
    #: `orchestrator-not-admitted`: the orchestrator's own denial reason.
    cause: str | None = None


@dataclass(frozen=True)
class CallContext:
    """What a call is judged against: the branch's effective Plan contract,
    its frozen policy (None until resolution) and the live registry."""

    contract: PlanContract | None
    policy: FrozenPolicy | None
    registry: Registry


def authorize(ctx: CallContext, tool: str, via: str | None = None, cited: str | None = None) -> Verdict:
    """§ Default Plan policy tools / § Plan helper tools: the verdict for one
    call of `tool`, made directly (`via` None) or nested through the
    orchestrator `via`.

    - helpers: only the latest effective active Plan contract authorizes them;
    - outside an active Plan workflow the Plan policy does not apply;
    - `edit`, `write`, `update_plan`: blocked, nested or not, any source;
    - current hidden/unsupported exposure or a missing registration blocks
      even an admitted name;
    - a nested call needs an admitted orchestrator *and* its own admission;
      `model-only` tools never run nested;
    - the frozen allowlist is never widened by later activation;
    - a name admitted automatically stops running if an extension
      overrides it later (reference choice);
    - a direct call needs the tool active now (declared, for `deferred`);
      `codemode` tools are reachable only through an orchestrator
      (reference choice);
    - admitted `bash`/`powershell` go to the limited-shell policy.
    """
    if tool in HELPER_NAMES:
        allowed, reason = authorize_helper(ctx.contract, cited)
        return Verdict(ALLOW if allowed else DENY, reason)
    if ctx.contract is None or not ctx.contract.active:
        return Verdict(ALLOW, OUTSIDE_PLAN_MODE)
    if tool in BLOCKED_NAMES:
        return Verdict(DENY, POLICY_BLOCKED)
    policy = ctx.policy
    if policy is None:
        # Fail closed: nothing is executable before the allowlist is frozen.
        return Verdict(DENY, BEFORE_RESOLUTION)
    entry = ctx.registry.get(tool)
    gone = unavailability(entry)
    if gone is not None or entry is None:
        return Verdict(DENY, gone or "unregistered")
    if via is not None:
        orchestrator = authorize(ctx, via, None, cited)
        if orchestrator.reason != ALLOWED:
            return Verdict(DENY, ORCHESTRATOR_NOT_ADMITTED, orchestrator.reason)
        if entry.exposure == "model-only":
            return Verdict(DENY, NESTED_MODEL_ONLY)
    if tool not in policy.allowlist:
        resolution = policy.resolution(tool)
        if resolution is None:
            return Verdict(DENY, NOT_SELECTED)
        return Verdict(DENY, NOT_ADMITTED, resolution.reason)
    if policy.basis == BASIS_AUTOMATIC and entry.source != "built-in":
        # Reference choice (closes a hole): an extension that overrides an
        # automatically admitted built-in name after the boundary would
        # otherwise inherit trust nobody gave it explicitly.
        return Verdict(DENY, OVERRIDE_NEEDS_OPT_IN)
    if via is None:
        if entry.exposure == "codemode":
            return Verdict(DENY, CODEMODE_ONLY)
        if not entry.active:
            return Verdict(DENY, INACTIVE)
    if tool in SHELL_NAMES:
        return Verdict(SHELL_POLICY, LIMITED_SHELL)
    return Verdict(ALLOW, ALLOWED)
