"""Whether an answer passes a case, and how a failure is carried: the words
and one-line summaries both fixture cases and property checks use."""

from __future__ import annotations

from typing import Any

from pytest_planmode.answer_shape import shape_problems
from pytest_planmode.matching import mismatches

#: The skip reason of a case that needs an explanation field from a target
#: that observes effects only; such a case counts as `explained`.
EXPLANATION_SKIP = "explanation: "

#: The heading of an answer's shape problems in a failure message.
SHAPE_HEADING = "shape (the answer does not have the operation's output shape):"


def judge_output(operation: str, expect: Any, output: dict[str, Any]) -> tuple[list[str], list[str]]:
    """What is wrong with an output answer to a case: its shape problems
    (checked whole against the operation's output model), then where it
    does not match `expect`. Both empty: the case passes."""
    shape = shape_problems(operation, output)
    # A field the shape check names is not named again by the mismatches.
    wrong = tuple(problem.split(": ", 1)[0] for problem in shape)
    problems = [p for p in mismatches(expect, output) if not _within(p.split(": ", 1)[0], wrong)]
    return shape, problems


def _within(path: str, outer: tuple[str, ...]) -> bool:
    return any(path == o or path.startswith((f"{o}.", f"{o}[")) for o in outer)


def unsupported_why(operation: str, message: str | None) -> str:
    """The operation and the target's own reason for answering it
    `unsupported`, when it gave one (a reason naming the operation first
    is not prefixed again)."""
    reason = (message or "").strip()
    if not reason:
        return operation
    return reason if reason.startswith(f"{operation}:") else f"{operation}: {reason}"


def unsupported_reason(operation: str, message: str | None) -> str:
    """The skip reason of an `unsupported` answer, with the target's reason."""
    return f"unsupported: the target answered unsupported for {unsupported_why(operation, message)}"


class CaseFailure(Exception):
    """A case failed; the message is complete and shown without a traceback.
    `summary`, when given, is its one line for reports and expectations."""

    def __init__(self, message: str, summary: str | None = None) -> None:
        super().__init__(message)
        self.summary = summary


def first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:300]
    return "failed"
