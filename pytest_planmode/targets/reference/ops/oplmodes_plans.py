from __future__ import annotations

from pytest_planmode.contract import oplmodes_plans
from pytest_planmode.contract.oplmodes_plans import PlansResolveInput, PlansResolveOutput
from pytest_planmode.reference.oplmodes import plans
from pytest_planmode.targets.reference.convert import output
from pytest_planmode.targets.reference.ops import handler


@handler(oplmodes_plans.RESOLVE)
def resolve(inp: PlansResolveInput) -> PlansResolveOutput:
    if inp.source == "command":
        result = plans.resolve_name(inp.value)
    else:
        result = plans.resolve_resumed(inp.value)
    return output(PlansResolveOutput, result)
