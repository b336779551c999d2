"""Plan files of opl-modes (opl-modes.md § Commands, flags, and shortcuts;
§ Tool inheritance warning, the resume rules)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

PLANS_DIR = ".pi/plans"
PREFIX = "plan-"
SUFFIX = ".md"

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def is_letter_or_digit(ch: str) -> bool:
    """A Unicode letter (L*) or number (N*): what "letter or digit" means here."""
    return unicodedata.category(ch)[0] in "LN"


def slug(name: str) -> str:
    """Reference choice (the spec does not fix the filename's form): the name
    is lowercased and every run of characters that are not letters or digits
    becomes one hyphen, trimmed at both ends. A slug therefore never carries a
    path separator, a dot or whitespace into the filename."""
    out: list[str] = []
    for ch in name.lower():
        if is_letter_or_digit(ch):
            out.append(ch)
        elif out and out[-1] != "-":
            out.append("-")
    return "".join(out).strip("-")


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
    text = slug(name)
    if not text:
        return PlanFile(
            False,
            None,
            f"plan name {name!r} has no letter or digit; a plan name must contain at least one",
        )
    return PlanFile(True, plan_path(f"{PREFIX}{text}{SUFFIX}"), None)


def is_plan_file(filename: str) -> bool:
    """opl-modes.md § Commands, flags, and shortcuts: plans are Markdown
    files with the `plan-` filename prefix, so a file is a plan only with the
    prefix and the `.md` suffix (both case-sensitive, as written)."""
    return filename.startswith(PREFIX) and filename.endswith(SUFFIX) and len(filename) > len(PREFIX + SUFFIX)


def resolve_resumed(filename: str) -> PlanFile:
    """A plan filename restored from a session entry (opl-modes.md § Tool
    inheritance warning): filenames with a path separator or `..` are
    dropped, so a stale or foreign branch cannot point plan reads outside
    `.pi/plans/`. Empty names and control characters are dropped too
    (reference choice: fail closed), and so is a filename that is not a plan
    file (§ Commands, flags, and shortcuts: the `plan-` prefix and the `.md`
    suffix)."""
    if filename in ("", "."):
        return PlanFile(False, None, f"plan filename {filename!r} names no file: dropped")
    if "/" in filename or "\\" in filename:
        return PlanFile(False, None, f"plan filename {filename!r} has a path separator: dropped")
    if ".." in filename:
        return PlanFile(False, None, f"plan filename {filename!r} contains '..': dropped")
    if _CONTROL.search(filename):
        return PlanFile(False, None, f"plan filename {filename!r} has a control character: dropped")
    if not is_plan_file(filename):
        return PlanFile(
            False, None, f"plan filename {filename!r} lacks the plan- prefix or the .md suffix: dropped"
        )
    return PlanFile(True, plan_path(filename), None)
