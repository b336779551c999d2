from __future__ import annotations

from collections.abc import Callable

from pytest_planmode.contract import planmode_shell
from pytest_planmode.contract.planmode_shell import ShellCheckInput, ShellCheckOutput
from pytest_planmode.reference.planmode.bash_policy import check_bash
from pytest_planmode.reference.planmode.powershell_policy import check_powershell
from pytest_planmode.reference.planmode.safe_subcommand_match import (
    NO_TRUST,
    TrustedPrefixes,
)
from pytest_planmode.reference.planmode.settings import read_document
from pytest_planmode.reference.planmode.shell_verdict import Verdict
from pytest_planmode.targets.reference.convert import output
from pytest_planmode.targets.reference.ops import handler


def trusted_prefixes(raw: object, given: bool = True) -> tuple[TrustedPrefixes, str | None]:
    """The trust a raw `safeSubcommands` value grants (`given` is false when
    the setting is absent), read as the one field of a settings document:
    an invalid value, JSON null included, invalidates the document and the
    default policy applies, so nothing is trusted."""
    if not given:
        return NO_TRUST, None
    reading = read_document({"safeSubcommands": raw})
    error = reading.invalid.detail if reading.invalid is not None else None
    return TrustedPrefixes.of(reading.settings), error


def _answer(inp: ShellCheckInput, check: Callable[[str, str, TrustedPrefixes], Verdict]) -> ShellCheckOutput:
    trust, error = trusted_prefixes(inp.safe_subcommands, "safe_subcommands" in inp.model_fields_set)
    verdict = check(inp.command, inp.cwd, trust)
    return output(ShellCheckOutput, verdict, settings_error=error)


@handler(planmode_shell.BASH_CHECK)
def bash_check(inp: ShellCheckInput) -> ShellCheckOutput:
    return _answer(inp, check_bash)


@handler(planmode_shell.POWERSHELL_CHECK)
def powershell_check(inp: ShellCheckInput) -> ShellCheckOutput:
    return _answer(inp, check_powershell)
