"""Matching segments against configured `safeSubcommands`.

pi-plan-mode-settings.md § Safe shell subcommands: "Matches are literal and
case-sensitive after surrounding whitespace in each segment is removed. A
match requires the complete `<command> <subcommand>` prefix followed by a
token boundary ... extra whitespace or quotes inside the prefix do not
match."
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_planmode.reference.planmode.settings import EffectiveSettings


@dataclass(frozen=True)
class TrustedPrefixes:
    """The configured `<command> <subcommand>` prefixes, in first-seen order.
    Hashable, so a decision cache can key on it."""

    prefixes: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, normalised: Mapping[str, Sequence[str]]) -> TrustedPrefixes:
        """Build from the normalised setting (`settings_values.safe_subcommands`)."""
        return cls(tuple(f"{command} {sub}" for command, subs in normalised.items() for sub in subs))

    @classmethod
    def of(cls, settings: EffectiveSettings) -> TrustedPrefixes:
        """What effective settings trust (nothing for the fallback)."""
        return cls.from_settings(dict(settings.safe_subcommands))

    def match(self, segment: str) -> str | None:
        """The first prefix that trusts `segment` (already trimmed of spaces and
        tabs), or None. A token boundary is the end of the segment or a
        space or tab: the only word separators of the limited shells."""
        for prefix in self.prefixes:
            if segment.startswith(prefix):
                size = len(prefix)
                if len(segment) == size or segment[size] in " \t":
                    return prefix
        return None


NO_TRUST = TrustedPrefixes()
