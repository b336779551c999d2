"""User-provided Bash patterns: compiled once, rejected when they do not
compile, and run under a time budget (opl-modes.md § Configuration,
`bashPatterns` and per-mode `safePatterns`/`destructivePatterns`).

Patterns come from a configuration file, so one of them may backtrack
catastrophically (`(a|aa)+$` on "aaaa…a!"). Python's own `re` cannot be
interrupted, so user patterns run on the `regex` package, whose searches take
a `timeout`. Every check gets one budget of CPU time
(:data:`CHECK_BUDGET_SECONDS`) shared by all its user-pattern searches; a
search that runs out of it decides the command as blocked (fail closed).
A search that times out is remembered with the CPU time it spent, so the
same pattern on the same text is not run again for a budget no larger (a run
checks one catastrophic command many times; the verdict is the same).
Without the `regex` package the run time cannot be bounded, so user patterns
are reported as a problem and the gate blocks instead of running them.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

#: Total CPU time every user pattern of one check may spend searching.
CHECK_BUDGET_SECONDS = 0.25
#: The wall-time ceiling of one check, as a multiple of its CPU budget.
WALL_FACTOR = 40

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


#: Searches that timed out: (compiled pattern, text) -> the most CPU time one
#: attempt spent without finishing. The engine is deterministic, so a budget
#: no larger than that cannot finish it either.
_UNFINISHED: dict[tuple[Any, str], float] = {}
_UNFINISHED_MAX = 16


def _remember_unfinished(pattern: UserPattern, text: str, spent: float) -> None:
    if len(_UNFINISHED) >= _UNFINISHED_MAX:
        _UNFINISHED.clear()
    key = (pattern.compiled, text)
    _UNFINISHED[key] = max(spent, _UNFINISHED.get(key, 0.0))


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
    """The CPU time left for one check's user-pattern searches.

    The budget is CPU time of the searching thread, not wall time, so the
    verdict does not depend on how busy the machine is: a search that runs out
    of wall time while the thread got less than half of it on a CPU was
    starved, not slow, and is tried again with twice the wall time. Only a
    search that spent the CPU it was given decides the command as blocked.
    A wall-time ceiling (:data:`WALL_FACTOR` times the budget) still bounds
    a check on a machine too busy to run it at all.
    """

    cpu_left: float
    wall_deadline: float
    clock: Callable[[], float] = time.monotonic
    cpu_clock: Callable[[], float] = time.thread_time

    @classmethod
    def start(
        cls,
        seconds: float = CHECK_BUDGET_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        cpu_clock: Callable[[], float] = time.thread_time,
    ) -> Budget:
        return cls(seconds, clock() + seconds * WALL_FACTOR, clock, cpu_clock)

    def search(self, pattern: UserPattern, text: str) -> bool:
        """Whether `pattern` matches somewhere in `text`; raises
        :class:`PatternTimeout` once the budget is spent, and at once when
        this search (on this text) already ran for as much CPU time as is
        left without finishing, here or in an earlier check: a starved
        attempt is tried again only while it may still finish in the budget."""
        assert pattern.compiled is not None
        stretch = 1.0
        while True:
            unfinished = _UNFINISHED.get((pattern.compiled, text))
            if unfinished is not None and self.cpu_left <= unfinished:
                # It needs more CPU time than is left: no attempt can finish it.
                self.cpu_left = 0.0
                raise PatternTimeout(pattern.source)
            wall_left = self.wall_deadline - self.clock()
            if self.cpu_left <= 0 or wall_left <= 0:
                raise PatternTimeout(pattern.source)
            allowed = min(self.cpu_left * stretch, wall_left)
            began = self.cpu_clock()
            try:
                found = pattern.compiled.search(text, timeout=allowed) is not None
            except TimeoutError:
                used = self.cpu_clock() - began
                _remember_unfinished(pattern, text, used)
                if used >= allowed / 2:
                    raise PatternTimeout(pattern.source) from None
                stretch *= 2
                continue
            self.cpu_left -= self.cpu_clock() - began
            return found


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
