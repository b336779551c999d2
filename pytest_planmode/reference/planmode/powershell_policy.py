"""The limited-PowerShell decision.

pi-plan-mode-settings.md § Safe shell subcommands ("PowerShell supports `;`
and `|`, not `&&` or `||`") and reference-choices.md § pi-plan-mode: limited
PowerShell: reviewed cmdlets by canonical name, case-insensitively; `git`
follows the Bash rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from pytest_planmode.reference.planmode.git_policy import check_git
from pytest_planmode.reference.planmode.program_rules import names_environment_file
from pytest_planmode.reference.planmode.safe_subcommand_match import NO_TRUST, TrustedPrefixes
from pytest_planmode.reference.planmode.shell_verdict import SegmentBlock, Verdict, block, decide
from pytest_planmode.reference.shell.powershell_segments import segment_powershell
from pytest_planmode.reference.shell.segments import Segment

RC = "reference-choices.md § pi-plan-mode: limited PowerShell"

CACHE_MAX_CHARS = 4096


@dataclass(frozen=True)
class CmdletRule:
    """A reviewed cmdlet. `selectors` is None for "any argument"; otherwise
    the only parameters allowed, each followed by a static value, and
    positional values (which bind to `-Name`)."""

    name: str
    source: str
    selectors: frozenset[str] | None = None


_ANY_ARGUMENTS = [
    "Get-ChildItem",
    "Get-Content",
    "Get-Item",
    "Get-Location",
    "Resolve-Path",
    "Select-String",
    "Test-Path",
    "Measure-Object",
    "Sort-Object",
    "Format-List",
    "Format-Table",
    "Out-String",
    "Write-Output",
]

CMDLETS: dict[str, CmdletRule] = {name.lower(): CmdletRule(name, RC) for name in _ANY_ARGUMENTS} | {
    "get-process": CmdletRule("Get-Process", RC, frozenset(("-name", "-id"))),
    "get-service": CmdletRule("Get-Service", RC, frozenset(("-name", "-displayname"))),
}

# Provider drives that hold no files: `Env:` prints the environment (secrets,
# like `printenv`), the others expose variables, functions, the registry and
# certificates. A provider-qualified path (`…\Environment::`) is caught by
# its `::`. Reference choice, closes a hole: `Get-ChildItem Env:`.
_PROVIDER_DRIVE = re.compile(r"(?i)(?<![A-Za-z0-9_])(?:env|variable|function|alias|hklm|hkcu|cert|wsman):|::")


def _selectors(rule: CmdletRule, allowed: frozenset[str], args: tuple[str, ...]) -> SegmentBlock | None:
    index = 0
    while index < len(args):
        arg = args[index]
        if arg.startswith("-"):
            name, colon, _value = arg.partition(":")
            if name.lower() not in allowed:
                return block(
                    "powershell.parameter",
                    f"{rule.name} {name} is not reviewed (only {', '.join(sorted(allowed))})",
                )
            if not colon:
                if index + 1 >= len(args) or args[index + 1].startswith("-"):
                    return block("powershell.parameter", f"{rule.name} {name} needs a static value")
                index += 1
        index += 1
    return None


def check_powershell_segment(segment: Segment, cwd: str) -> SegmentBlock | None:
    """The built-in reviewed policy for one PowerShell segment
    (reference-choices.md § pi-plan-mode: limited PowerShell)."""
    words = segment.words
    raw_words = segment.raw_words
    program = words[0]
    args = words[1:]
    if raw_words[0] != program:
        return block("program.quoted", f"the command name {raw_words[0]!r} uses quotes")
    environ = names_environment_file(args)
    if environ is not None:
        return block("argument.environment-file", environ)
    if program == "git":
        return check_git(args, cwd)
    rule = CMDLETS.get(program.lower())
    if rule is None:
        return block(
            "program.unknown",
            f"{program!r} is not a reviewed cmdlet (aliases and module-qualified names are not reviewed)",
        )
    for arg in args:
        if _PROVIDER_DRIVE.search(arg):
            return block("powershell.provider-drive", f"{arg!r} names a non-file provider path")
    if rule.selectors is not None:
        return _selectors(rule, rule.selectors, args)
    return None


def _decide(command: str, cwd: str, trust: TrustedPrefixes) -> Verdict:
    return decide(command, segment_powershell(command), cwd, trust, check_powershell_segment)


_decide_cached = lru_cache(maxsize=4096)(_decide)

#: What :func:`check_powershell` does, in parts, for a caller that applies its
#: rule itself (the reference adapter's hot path): inputs up to the length
#: limit are decided through the cache, longer ones without.
DECISION = (CACHE_MAX_CHARS, _decide_cached, _decide)


def check_powershell(command: str, cwd: str, trust: TrustedPrefixes = NO_TRUST) -> Verdict:
    """Decide one limited-PowerShell submission (pi-plan-mode-settings.md
    § Safe shell subcommands). Pure; cached on the complete input."""
    if len(command) > CACHE_MAX_CHARS:
        return _decide(command, cwd, trust)
    return _decide_cached(command, cwd, trust)


def check_powershell_uncached(command: str, cwd: str, trust: TrustedPrefixes = NO_TRUST) -> Verdict:
    """:func:`check_powershell` without the cache (for measurements)."""
    return _decide(command, cwd, trust)
