from __future__ import annotations

from collections.abc import Callable

from pytest_planmode.contract.planmode_shell import ShellCheckInput, ShellCheckOutput
from pytest_planmode.reference.planmode.bash_policy import check_bash
from pytest_planmode.reference.planmode.powershell_policy import check_powershell
from pytest_planmode.reference.planmode.safe_subcommand_match import (
    NO_TRUST,
    TrustedPrefixes,
)
from pytest_planmode.reference.planmode.settings_values import InvalidSetting, safe_subcommands
from pytest_planmode.reference.planmode.shell_verdict import Verdict
from pytest_planmode.targets.reference.convert import output
from pytest_planmode.targets.reference.ops import handler


def trusted_prefixes(raw: object, given: bool = True) -> tuple[TrustedPrefixes, str | None]:
    """Normalise a raw `safeSubcommands` value (`given` is false when the
    setting is absent). An invalid value, JSON null included, invalidates the
    settings document and the default policy applies: nothing is trusted."""
    if not given:
        return NO_TRUST, None
    try:
        return TrustedPrefixes.from_settings(safe_subcommands(raw)), None
    except InvalidSetting as exc:
        return NO_TRUST, str(exc)


def _answer(inp: ShellCheckInput, check: Callable[[str, str, TrustedPrefixes], Verdict]) -> ShellCheckOutput:
    trust, error = trusted_prefixes(inp.safe_subcommands, "safe_subcommands" in inp.model_fields_set)
    verdict = check(inp.command, inp.cwd, trust)
    return output(ShellCheckOutput, verdict, settings_error=error)


@handler("planmode.bash.check")
def bash_check(inp: ShellCheckInput) -> ShellCheckOutput:
    return _answer(inp, check_bash)


@handler("planmode.powershell.check")
def powershell_check(inp: ShellCheckInput) -> ShellCheckOutput:
    return _answer(inp, check_powershell)
