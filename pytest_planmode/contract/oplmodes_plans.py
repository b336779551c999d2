"""opl-modes plan files: names given to `/plan`, filenames restored on resume."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from pytest_planmode.contract import Operation
from pytest_planmode.contract.base import ContractInput, ContractOutput, effect, explanation


class PlansResolveInput(ContractInput):
    source: Literal["command", "resume"] = Field(
        description=(
            "`command`: `value` is the name typed after `/plan` or `/execute`. "
            "`resume`: `value` is a plan filename read back from a session entry."
        )
    )
    value: str


class PlansResolveOutput(ContractOutput):
    accepted: bool = effect(description="False when the name is rejected or the filename dropped.")
    path: str | None = effect(
        description=(
            "The plan file relative to the project, `.pi/plans/plan-<name>.md`; null when not accepted."
        ),
    )
    reason: str | None = explanation(description="Why it was rejected, for people.")


RESOLVE = Operation(
    name="oplmodes.plans.resolve",
    input=PlansResolveInput,
    output=PlansResolveOutput,
    summary="Resolve a plan name or a resumed plan filename to a file under .pi/plans/.",
)

OPERATIONS = [RESOLVE]
