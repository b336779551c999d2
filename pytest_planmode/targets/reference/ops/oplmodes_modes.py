from __future__ import annotations

from pytest_planmode.contract.oplmodes_modes import ModesScriptInput, ModesScriptOutput
from pytest_planmode.reference.oplmodes import config as cfg
from pytest_planmode.reference.oplmodes.lifecycle import run_script
from pytest_planmode.targets.reference.ops import handler


@handler("oplmodes.modes.script")
def script(inp: ModesScriptInput) -> ModesScriptOutput:
    config = cfg.load(inp.config) if "config" in inp.model_fields_set else cfg.load(None, present=False)
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
