"""User-provided Bash patterns: compiled once, rejected when they do not
compile, and run under a time budget (opl-modes.md § Configuration,
`bashPatterns` and per-mode `safePatterns`/`destructivePatterns`).

Patterns come from a configuration file, so one of them may backtrack
catastrophically (`(a|aa)+$` on "aaaa…a!"). Python's own `re` cannot be
interrupted, so user patterns run on the `regex` package, whose searches take
a `timeout`. Every check gets one budget (:data:`CHECK_BUDGET_SECONDS`) shared
by all its user-pattern searches; a search that runs out of it decides the
command as blocked (fail closed). Without the `regex` package the run time
cannot be bounded, so user patterns are reported as a problem and the gate
blocks instead of running them.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

#: Total time every user pattern of one check may spend searching.
CHECK_BUDGET_SECONDS = 0.25

try:
    _regex: Any = importlib.import_module("regex")
except ImportError:  # pragma: no cover - depends on the installation
    _regex = None


@dataclass(frozen=True)
class UserPattern:
    """One configured pattern: its source text and compiled form, or the
    reason it cannot be used."""

    source: str
    compiled: Any | None
    error: str | None


class PatternTimeout(Exception):
    """A user pattern exceeded the check's time budget."""

    def __init__(self, pattern: str) -> None:
        super().__init__(pattern)
        self.pattern = pattern


@lru_cache(maxsize=512)
def compile_patterns(patterns: tuple[str, ...]) -> tuple[UserPattern, ...]:
    """Compile each pattern once; the cache is keyed by the whole tuple, so
    a configuration's arrays are compiled the first time they are used.
    (§ Configuration: user arrays are regular expressions.)"""
    out: list[UserPattern] = []
    for source in patterns:
        if _regex is None:
            out.append(
                UserPattern(
                    source,
                    None,
                    "the 'regex' package is not installed, so the "
                    "run time of user patterns cannot be bounded",
                )
            )
            continue
        try:
            # VERSION0 keeps the `re` dialect, which configuration authors know.
            out.append(UserPattern(source, _regex.compile(source, _regex.VERSION0), None))
        except Exception as exc:  # the regex package raises its own error type
            message = str(exc) or type(exc).__name__
            out.append(UserPattern(source, None, message))
    return tuple(out)


def problems(patterns: tuple[UserPattern, ...], mode: str, kind: str) -> tuple[str, ...]:
    """Messages for the patterns that cannot be used, naming mode and pattern."""
    if _regex is None:
        return tuple(
            f"mode {mode!r}: {kind} pattern {p.source!r} cannot be used ({p.error})" for p in patterns
        )
    return tuple(
        f"mode {mode!r}: {kind} pattern {p.source!r} is not a valid regular expression "
        f"({p.error}); fix or remove it in opl-modes.json"
        for p in patterns
        if p.compiled is None
    )


@dataclass
class Budget:
    """The time left for one check's user-pattern searches."""

    deadline: float
    clock: Callable[[], float] = time.monotonic

    @classmethod
    def start(
        cls, seconds: float = CHECK_BUDGET_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> Budget:
        return cls(clock() + seconds, clock)

    def search(self, pattern: UserPattern, text: str) -> bool:
        """Whether `pattern` matches somewhere in `text`; raises
        :class:`PatternTimeout` once the budget is spent."""
        assert pattern.compiled is not None
        left = self.deadline - self.clock()
        if left <= 0:
            raise PatternTimeout(pattern.source)
        try:
            return pattern.compiled.search(text, timeout=left) is not None
        except TimeoutError:
            raise PatternTimeout(pattern.source) from None


def is_regex_available() -> bool:
    """Whether user patterns can run with a bounded time."""
    return _regex is not None


__all__ = [
    "CHECK_BUDGET_SECONDS",
    "Budget",
    "PatternTimeout",
    "UserPattern",
    "compile_patterns",
    "is_regex_available",
    "problems",
]
