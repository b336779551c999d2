from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_planmode.contract import planmode_shell
from pytest_planmode.contract.planmode_shell import ShellCheckInput, ShellCheckOutput
from pytest_planmode.reference.json_values import json_text
from pytest_planmode.reference.planmode import bash_policy, powershell_policy
from pytest_planmode.reference.planmode.bash_policy import check_bash
from pytest_planmode.reference.planmode.powershell_policy import check_powershell
from pytest_planmode.reference.planmode.safe_subcommand_match import (
    NO_TRUST,
    TrustedPrefixes,
)
from pytest_planmode.reference.planmode.settings import read_document
from pytest_planmode.reference.planmode.shell_verdict import Verdict
from pytest_planmode.targets.reference.convert import output
from pytest_planmode.targets.reference.ops import fast_path, handler


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


#: The trust of each `safeSubcommands` value seen, keyed on its JSON text
#: (settings values repeat: a run sends a handful of them thousands of times).
_TRUST_OF: dict[str, tuple[TrustedPrefixes, str | None]] = {}
_TRUST_OF_MAX = 256


def _trust_of(raw: object) -> tuple[TrustedPrefixes, str | None]:
    """:func:`trusted_prefixes` of a given value, computed once per value."""
    key = json_text(raw)
    if key is None:
        return trusted_prefixes(raw)
    found = _TRUST_OF.get(key)
    if found is None:
        found = trusted_prefixes(raw)
        if len(_TRUST_OF) >= _TRUST_OF_MAX:
            _TRUST_OF.clear()
        _TRUST_OF[key] = found
    return found


Decide = Callable[[str, str, TrustedPrefixes], Verdict]


def _fast_path(decision: tuple[int, Decide, Decide]) -> Callable[[Any], dict[str, Any] | None]:
    """The hot path of a shell check: the wire-form output for a payload of
    exactly `command` and `cwd` strings, with or without `safeSubcommands`
    (None for any other shape). `decision` is the check in parts (see
    `bash_policy.DECISION`), so that a request costs no call of the check's
    own on top of its cache."""
    limit, cached, uncached = decision

    def fast(payload: Any) -> dict[str, Any] | None:
        if type(payload) is not dict:
            return None
        command = payload.get("command")
        cwd = payload.get("cwd")
        if type(command) is not str or type(cwd) is not str:
            return None
        size = len(payload)
        if size == 2:
            trust: TrustedPrefixes = NO_TRUST
            error = None
        elif size == 3 and "safeSubcommands" in payload:
            trust, error = _trust_of(payload["safeSubcommands"])
        else:
            return None
        verdict = cached(command, cwd, trust) if len(command) <= limit else uncached(command, cwd, trust)
        return {
            "allowed": verdict.allowed,
            "blocked": verdict.blocked,
            "segments": [*verdict.segments],
            "rule": verdict.rule,
            "reason": verdict.reason,
            "settingsError": error,
        }

    return fast


def _answer(inp: ShellCheckInput, check: Callable[[str, str, TrustedPrefixes], Verdict]) -> ShellCheckOutput:
    given = "safe_subcommands" in inp.model_fields_set
    trust, error = _trust_of(inp.safe_subcommands) if given else (NO_TRUST, None)
    verdict = check(inp.command, inp.cwd, trust)
    return output(ShellCheckOutput, verdict, settings_error=error)


@handler(planmode_shell.BASH_CHECK)
def bash_check(inp: ShellCheckInput) -> ShellCheckOutput:
    return _answer(inp, check_bash)


@handler(planmode_shell.POWERSHELL_CHECK)
def powershell_check(inp: ShellCheckInput) -> ShellCheckOutput:
    return _answer(inp, check_powershell)


bash_check_fast = fast_path(planmode_shell.BASH_CHECK)(_fast_path(bash_policy.DECISION))
powershell_check_fast = fast_path(planmode_shell.POWERSHELL_CHECK)(_fast_path(powershell_policy.DECISION))
