from __future__ import annotations

from pytest_planmode.contract.oplmodes_modes import ModesScriptInput, ModesScriptOutput
from pytest_planmode.reference.oplmodes.lifecycle import run_script
from pytest_planmode.targets.reference.ops import handler
from pytest_planmode.targets.reference.ops.oplmodes_config import load_from_input


@handler("oplmodes.modes.script")
def script(inp: ModesScriptInput) -> ModesScriptOutput:
    config = load_from_input(inp, "config")
    events = [e.model_dump(mode="json", by_alias=True) for e in inp.events]
    for raw, event in zip(events, inp.events, strict=True):
        if event.type == "reload":
            raw["configPresent"] = "config" in event.model_fields_set
        if hasattr(event, "entries"):
            raw["entries"] = [e.model_dump(mode="json", by_alias=True) for e in event.entries]
    session = run_script(
        config,
        events,
        registered=inp.registered_tools,
        active=inp.active_tools,
        pi_version=inp.pi_version,
        existing_plans=inp.plans,
        keybindings=inp.keybindings,
    )
    return ModesScriptOutput.model_validate(
        {
            "steps": session.steps,
            "final": session.final(),
            "trace": session.trace,
            "configProblems": [p.message for p in config.problems],
        }
    )
