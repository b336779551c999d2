"""Plan helper tools (pi-plan-mode-settings.md § Plan helper tools).

The helpers are registered with stable schemas from extension registration
onward and Plan mode never calls `setActiveTools()`, so seeing a helper is
no evidence that Plan mode is on: each call is authorized against the Plan
contract in force.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The helpers only a Plan contract authorizes. They are not ordinary tools:
#: `defaultPlanTools: []` leaves them callable in Plan mode.
HELPER_NAMES = ("plan_mode_question", "plan_mode_complete")

HELPER_ALLOWED = "plan-helper"
NO_ACTIVE_CONTRACT = "no-active-plan-contract"
STALE_CONTRACT = "stale-plan-contract"


@dataclass(frozen=True)
class PlanContract:
    """One Plan workflow's contract as recorded in the session branch."""

    id: str
    active: bool


def authorize_helper(effective: PlanContract | None, cited: str | None) -> tuple[bool, str]:
    """§ Plan helper tools: only the latest effective active Plan contract
    authorizes `plan_mode_question` / `plan_mode_complete`.

    `effective` is the latest contract of the current branch (None when the
    branch has none: ordinary planning or the `writing-plans` skill run
    their own workflow and record no Plan contract). `cited` is the
    contract a call was issued under, when it is known; a call issued under
    any other contract than the effective one is stale.
    """
    if effective is None or not effective.active:
        return False, NO_ACTIVE_CONTRACT
    if cited is not None and cited != effective.id:
        return False, STALE_CONTRACT
    return True, HELPER_ALLOWED
