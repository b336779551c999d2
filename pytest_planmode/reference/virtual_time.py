"""A tiny deterministic virtual clock for the reference's stateful behaviour.

Nothing here reads a real clock or sleeps. Time is an integer number of
virtual milliseconds that only moves when the caller says so, so a script
that says "authentication answers after 2,500 ms" is decided by arithmetic,
and a slow machine cannot change an outcome.

Two pieces, each small enough to be checked by hand:

* :func:`race` decides a promise racing a timeout (the two-second
  authentication budget of pi-plan-mode-settings.md § Auto model switch).
* :class:`Scheduler` is a discrete-event queue ordering happenings by
  virtual instant, then by a caller-given rank, then by arrival (opl-modes'
  serialized model changes run on it).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class RaceResult:
    """How a promise raced a timeout armed at ``started_at``."""

    #: True when the answer arrived strictly before the timeout fired.
    in_time: bool
    #: The instant the race was decided: the answer's instant when in time,
    #: otherwise the timeout's instant (``started_at + budget_ms``).
    settled_at: int
    #: When the answer itself arrives; None for an answer that never comes.
    #: For a lost race this is the instant of the late, discarded result.
    answer_at: int | None


def race(started_at: int, answer_after_ms: int | None, budget_ms: int) -> RaceResult:
    """Decide a promise started at ``started_at`` that answers after
    ``answer_after_ms`` (None: never) against a timeout of ``budget_ms``.

    Tie rule: an answer arriving at exactly ``started_at + budget_ms`` lost.
    The timeout is a timer armed when the attempt starts, and in the
    JavaScript event loop due timers run before the I/O callbacks of the same
    turn, so "does not finish in time" includes finishing at the deadline
    itself (pi-plan-mode-settings.md § Auto model switch; the exact boundary
    is a reference choice).
    """
    if budget_ms < 0 or started_at < 0:
        raise ValueError("instants and budgets are non-negative")
    deadline = started_at + budget_ms
    if answer_after_ms is None:
        return RaceResult(in_time=False, settled_at=deadline, answer_at=None)
    if answer_after_ms < 0:
        raise ValueError("an answer cannot arrive before its request")
    answer_at = started_at + answer_after_ms
    if answer_at < deadline:
        return RaceResult(in_time=True, settled_at=answer_at, answer_at=answer_at)
    return RaceResult(in_time=False, settled_at=deadline, answer_at=answer_at)


@dataclass(order=True)
class _Entry(Generic[T]):
    at: int
    rank: int
    seq: int
    item: T = field(compare=False)


@dataclass
class Scheduler(Generic[T]):
    """A discrete-event queue: items come out by (instant, rank, arrival).

    ``rank`` lets a caller say which of two same-instant happenings goes
    first (for instance, a script event before a change completing at the
    same instant) without relying on insertion order.
    """

    now: int = 0
    _heap: list[_Entry[T]] = field(default_factory=list)
    _seq: int = 0

    def push(self, at: int, item: T, rank: int = 0) -> None:
        """Schedule ``item`` at ``at``; the past cannot be scheduled."""
        if at < self.now:
            raise ValueError(f"cannot schedule at {at} ms: the clock is already at {self.now} ms")
        heapq.heappush(self._heap, _Entry(at, rank, self._seq, item))
        self._seq += 1

    def pop(self) -> tuple[int, T] | None:
        """The next item and its instant, moving the clock there; None when empty."""
        if not self._heap:
            return None
        entry = heapq.heappop(self._heap)
        self.now = entry.at
        return entry.at, entry.item

    def __len__(self) -> int:
        return len(self._heap)


__all__ = ["RaceResult", "Scheduler", "race"]
