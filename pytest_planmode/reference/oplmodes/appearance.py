"""Mode appearance and notification text (opl-modes.md § Mode appearance,
§ Configuration).

Colours accept Pi theme tokens, six-digit hex, or the three-digit `#abc`
shorthand, which is expanded to `#aabbcc`. The spec does not enumerate the
theme tokens; the reference accepts the foreground colour tokens of Pi's
theme (the list below, case-sensitive, as Pi's theme names them). Hex digits
are normalised to lower case so equal colours compare equal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_planmode.reference.json_values import json_kind
from pytest_planmode.spec_values import COLOR_PATTERN, THEME_TOKENS

__all__ = ["COLOR_PATTERN", "THEME_TOKENS"]

#: The footer's colour for a mode that sets no `modeColor`.
DEFAULT_MODE_COLOR = "muted"

#: Notification template for custom modes when `defaultNotifyTemplate` is
#: not configured (reference choice).
DEFAULT_NOTIFY_TEMPLATE = "{Name} mode ON"

APPEARANCE_COLOR_FIELDS = ("prefixColor", "borderColor", "modeColor")

_HEX6 = re.compile(r"#[0-9a-fA-F]{6}")
_HEX3 = re.compile(r"#[0-9a-fA-F]{3}")


@dataclass(frozen=True)
class ColorResult:
    color: str | None
    error: str | None


def normalize_color(value: object, where: str, *, tokens_only: bool = False) -> ColorResult:
    """Check one colour value (opl-modes.md § Mode appearance): a theme token
    is kept as is, six-digit hex is lower-cased, `#abc` becomes `#aabbcc`.
    Anything else is rejected with a message naming `where`. Widget label
    colours (`tokens_only`) take theme tokens only, as § Tool inheritance
    warning asks."""
    if not isinstance(value, str):
        return ColorResult(None, f"{where}: expected a colour string, got {json_kind(value)}")
    if value in THEME_TOKENS:
        return ColorResult(value, None)
    if not tokens_only:
        if _HEX6.fullmatch(value):
            return ColorResult(value.lower(), None)
        if _HEX3.fullmatch(value):
            r, g, b = value[1].lower(), value[2].lower(), value[3].lower()
            return ColorResult(f"#{r}{r}{g}{g}{b}{b}", None)
        accepted = "a Pi theme token (e.g. accent, muted), six-digit hex (#157cd6) or #abc"
    else:
        accepted = "a Pi theme colour token (e.g. accent, muted, success)"
    return ColorResult(None, f"{where}: {value!r} is not a colour; use {accepted}")


def capitalize(name: str) -> str:
    """`{Name}` of the notification template (opl-modes.md § Configuration):
    the mode name with its first character upper-cased, the rest unchanged."""
    return name[:1].upper() + name[1:]


def render_template(template: str, name: str) -> str:
    """Fill a notification template: `{Name}` is the capitalised mode name;
    `{name}` (reference choice) is the name as configured."""
    return template.replace("{Name}", capitalize(name)).replace("{name}", name)
