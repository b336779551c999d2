"""Plan files of opl-modes (opl-modes.md § Commands, flags, and shortcuts;
§ Tool inheritance warning, the resume rules)."""

from __future__ import annotations

import re
from dataclasses import dataclass

PLANS_DIR = ".pi/plans"
PREFIX = "plan-"
SUFFIX = ".md"

# Reference choice (the spec does not fix the slug): ASCII letters are
# lowercased and every run of other characters becomes one hyphen, so a name
# can never carry a path separator or a `..` into the filename.
_NOT_SLUG = re.compile(r"[^a-z0-9]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class PlanFile:
    accepted: bool
    path: str | None
    reason: str | None


def plan_path(filename: str) -> str:
    return f"{PLANS_DIR}/{filename}"


def resolve_name(name: str) -> PlanFile:
    """A name typed after `/plan` or `/execute` (opl-modes.md § Commands,
    flags, and shortcuts): it must contain at least one letter or digit, so
    `/plan .` or `/plan --` is rejected instead of producing `plan-.md`."""
    slug = _NOT_SLUG.sub("-", name.strip().lower()).strip("-")
    if not slug:
        return PlanFile(
            False,
            None,
            f"plan name {name!r} has no letter or digit; "
            "a plan name must contain at least one (a-z, 0-9)",
        )
    return PlanFile(True, plan_path(f"{PREFIX}{slug}{SUFFIX}"), None)


def resolve_resumed(filename: str) -> PlanFile:
    """A plan filename restored from a session entry (opl-modes.md § Tool
    inheritance warning): filenames with a path separator or `..` are
    dropped, so a stale or foreign branch cannot point plan reads outside
    `.pi/plans/`. Empty names and control characters are dropped too
    (reference choice: fail closed)."""
    if not filename:
        return PlanFile(False, None, "empty plan filename dropped")
    if "/" in filename or "\\" in filename:
        return PlanFile(False, None, f"plan filename {filename!r} has a path separator: dropped")
    if ".." in filename:
        return PlanFile(False, None, f"plan filename {filename!r} contains '..': dropped")
    if _CONTROL.search(filename):
        return PlanFile(False, None, f"plan filename {filename!r} has a control character: dropped")
    return PlanFile(True, plan_path(filename), None)
