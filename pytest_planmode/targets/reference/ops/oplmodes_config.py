from __future__ import annotations

from typing import Any

from pytest_planmode.contract import oplmodes_config
from pytest_planmode.contract.oplmodes_config import (
    CleanupOut,
    ConfigLoadInput,
    ConfigLoadOutput,
    ConfigProblem,
    EffectiveAppearance,
    EffectiveBash,
    EffectiveMode,
    EffectiveModel,
    ShortcutsOut,
    UiOut,
)
from pytest_planmode.reference.oplmodes import appearance as ap
from pytest_planmode.reference.oplmodes import config as cfg
from pytest_planmode.reference.oplmodes import messages as msg
from pytest_planmode.reference.oplmodes.registry import (
    CHAT,
    EXECUTE,
    OFF,
    PLAN,
    ModeDef,
    cycle_modes,
    display_name,
    picker_modes,
    plan_complete_allowed,
)
from pytest_planmode.targets.reference.convert import output
from pytest_planmode.targets.reference.ops import handler


def load_from_input(inp: Any, field: str = "document") -> cfg.OplConfig:
    """The effective configuration for an operation input that carries the
    document in `field` (absent = no file) or as `text`: every operation
    reads its opl-modes.json through here, and so through :func:`cfg.load`."""
    text = getattr(inp, "text", None)
    if text is not None:
        return cfg.load_text(text)
    if field in inp.model_fields_set:
        return cfg.load(getattr(inp, field))
    return cfg.load(None, present=False)


def _bash(config: cfg.OplConfig, mode: str) -> tuple[EffectiveBash | None, list[ConfigProblem]]:
    """The mode's Bash policy from the Bash gate module (its own area); the
    loader must not fail if that module is missing or raises."""
    try:
        from pytest_planmode.reference.oplmodes.bash_gate import resolve_bash_policy
    except ImportError:
        return None, []
    try:
        policy = resolve_bash_policy(config.document, mode)
    except Exception as exc:
        message = f"modes.{mode}: the Bash policy could not be resolved ({exc})"
        return None, [ConfigProblem(field=f"modes.{mode}", mode=mode, message=message)]
    problems = [
        ConfigProblem(field=f"modes.{mode}", mode=mode, message=str(problem))
        for problem in (*policy.problems, *policy.ignored)
    ]
    bash = output(
        EffectiveBash,
        unrestricted=bool(policy.unrestricted),
        safe_patterns=[str(p) for p in policy.safe_patterns],
        destructive_patterns=[str(p) for p in policy.destructive_patterns],
    )
    return bash, problems


def notification(config: cfg.OplConfig, mode: ModeDef) -> str | None:
    if mode.name == OFF:
        return None
    if mode.name in (CHAT, PLAN, EXECUTE):
        return msg.mode_on(mode.name)
    return ap.render_template(config.notify_template, mode.name)


def effective_mode(config: cfg.OplConfig, mode: ModeDef, bash: EffectiveBash | None) -> EffectiveMode:
    look = mode.appearance
    return output(
        EffectiveMode,
        mode,
        inherits_all_tools=mode.tools is None,
        allow_plan_complete=plan_complete_allowed(mode),
        appearance=output(EffectiveAppearance, look, mode_color=look.mode_color or ap.DEFAULT_MODE_COLOR),
        model=EffectiveModel(provider=mode.model[0], id=mode.model[1]) if mode.model else None,
        bash=bash,
        notification=notification(config, mode),
    )


def _problem(p: cfg.Problem) -> ConfigProblem:
    return output(ConfigProblem, p)


@handler(oplmodes_config.LOAD)
def load(inp: ConfigLoadInput) -> ConfigLoadOutput:
    config = load_from_input(inp)
    modes: dict[str, EffectiveMode] = {}
    problems = [_problem(p) for p in config.problems]
    seen = {p.message for p in problems}
    for name, mode in config.modes.items():
        bash, bash_problems = _bash(config, name)
        for problem in bash_problems:
            # A shared-pattern problem is reported once, not once per mode.
            if problem.message not in seen:
                seen.add(problem.message)
                problems.append(problem)
        modes[name] = effective_mode(config, mode, bash)
    return output(
        ConfigLoadOutput,
        config,
        modes=modes,
        mode_order=list(config.modes),
        cycle=cycle_modes(config.modes),
        picker=[display_name(m) for m in picker_modes(config.modes)],
        cleanup=output(CleanupOut, config),
        shortcuts=ShortcutsOut(cycle_mode=config.cycle_key),
        shortcut_conflict=cfg.shortcut_conflict(config.cycle_key),
        ui=output(UiOut, config),
        problems=problems,
    )
