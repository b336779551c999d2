"""What opl-modes says to the user, for every text more than one place
shows (opl-modes.md § Commands, flags, and shortcuts; § Configuration;
§ Tool inheritance warning). Cases pin these texts: each is written once.

The tools operations report a mode that cannot be entered as an error
value, spelled in lower case (`mode 'review' is disabled …`); a command
shows the same fact as a notification, a sentence (`Mode 'review' is
disabled …`). Both spellings are pinned by existing cases, so both are
kept, side by side here.
"""

from __future__ import annotations

from pytest_planmode.reference.oplmodes.appearance import capitalize


def unknown_tool(name: str, mode: str, key: str) -> str:
    """§ Tool inheritance warning: a name in a mode's own tools list that Pi
    does not know (`mode` as shown, `key` as configured)."""
    return (
        f'Unknown tool "{name}" in the {mode} mode tools list: Pi ignores names it does not know; '
        f"check modes.{key}.tools"
    )


def mode_disabled(mode: str, key: str) -> str:
    """The notification when a disabled mode is asked for."""
    return f"Mode {mode!r} is disabled (modes.{key}.enabled is false)"


def mode_disabled_error(mode: str, key: str) -> str:
    """The same fact as the tools operations' error value."""
    return f"mode {mode!r} is disabled (modes.{key}.enabled is false)"


def unknown_mode(mode: str) -> str:
    """The notification when a mode that does not exist is asked for."""
    return f"Unknown mode {mode!r}"


def unknown_mode_error(mode: str) -> str:
    """The same fact as the tools operations' error value."""
    return f"unknown mode {mode!r}"


def mode_on(mode: str) -> str:
    """A built-in mode's announcement (`Chat mode ON`)."""
    return f"{capitalize(mode)} mode ON"


def mode_off(mode: str) -> str:
    return f"{capitalize(mode)} mode OFF"


def mode_on_with_plan(mode: str, path: str | None) -> str:
    """Execute, or Plan with a plan file: the announcement names the file."""
    return f"{capitalize(mode)} mode ON: {path}"
