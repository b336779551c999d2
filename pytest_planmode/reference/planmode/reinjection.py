"""Plan reinjection: what each retention policy guarantees and what an
Implement action sends (pi-plan-mode-settings.md § Plan reinjection).

The policy is read once, at the Implement action, and stored with the
implementation: a later Settings save cannot shorten or extend it.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_planmode.reference.planmode.settings_values import RETENTION_POLICIES

DEFAULT_POLICY = "clear-on-start"

#: The kickoff the planning session receives when it implements its own
#: ready plan: the spec quotes it for `clear-on-start`; the reference sends
#: the same words under every policy (the plan is already in history).
IMPLEMENT_HERE_KICKOFF = "Implement the plan."

#: The reference's wording before the complete plan in a kickoff (the spec
#: only says the prompt holds the complete plan).
FULL_PLAN_KICKOFF_PREFIX = "Implement the following plan.\n\n"


@dataclass(frozen=True)
class PolicyRule:
    """How long a policy guarantees the exact plan in model context."""

    guarantees: bool
    ends_after_first_run: bool
    label: str


#: One row per stable JSON value; the labels are the Settings wording.
POLICY_RULES: dict[str, PolicyRule] = {
    "clear-on-start": PolicyRule(False, False, "Off — conversation history only"),
    "clear-after-first-run": PolicyRule(True, True, "Through first implementation run"),
    "keep": PolicyRule(True, False, "Until manually cleared"),
}
assert tuple(POLICY_RULES) == RETENTION_POLICIES


def rule(policy: str) -> PolicyRule:
    """§ Plan reinjection: the rule of one stored policy."""
    return POLICY_RULES[policy]


@dataclass(frozen=True)
class Kickoff:
    text: str
    holds_plan: bool


def kickoff(how: str, plan: str) -> Kickoff:
    """§ Plan reinjection: the planning session is sent `Implement the plan.`
    and relies on its history; a fresh session or a saved plan gets the
    complete plan in one ordinary kickoff prompt, because its planning
    history is unavailable or intentionally excluded."""
    if how == "here":
        return Kickoff(IMPLEMENT_HERE_KICKOFF, holds_plan=False)
    return Kickoff(FULL_PLAN_KICKOFF_PREFIX + plan, holds_plan=True)


@dataclass(frozen=True)
class ContextDecision:
    injected: bool
    copies: int


def decide_context(plan_in_history: bool, guaranteed: bool) -> ContextDecision:
    """§ Plan reinjection: the `context` hook restores the exact plan only
    while a guarantee is active and only when ordinary context no longer
    holds it, so a guaranteed context carries the plan exactly once."""
    history = 1 if plan_in_history else 0
    if guaranteed and not plan_in_history:
        return ContextDecision(injected=True, copies=history + 1)
    return ContextDecision(injected=False, copies=history)
