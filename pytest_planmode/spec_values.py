"""Values the specs fix that the contract and the reference both need.

The contract publishes them in JSON Schemas; the reference decides with
them. Neither side imports the other, so they live here, below both.
"""

from __future__ import annotations

#: Pi theme foreground colour tokens accepted as colours (reference choice:
#: the spec says "Pi theme tokens" without listing them).
THEME_TOKENS: frozenset[str] = frozenset(
    {
        "accent",
        "border",
        "borderAccent",
        "borderMuted",
        "success",
        "error",
        "warning",
        "muted",
        "dim",
        "text",
        "thinkingText",
        "userMessageText",
        "customMessageText",
        "customMessageLabel",
        "toolTitle",
        "toolOutput",
        "mdHeading",
        "mdLink",
        "mdLinkUrl",
        "mdCode",
        "mdCodeBlock",
        "mdCodeBlockBorder",
        "mdQuote",
        "mdQuoteBorder",
        "mdHr",
        "mdListBullet",
        "toolDiffAdded",
        "toolDiffRemoved",
        "toolDiffContext",
        "syntaxComment",
        "syntaxKeyword",
        "syntaxFunction",
        "syntaxVariable",
        "syntaxString",
        "syntaxNumber",
        "syntaxType",
        "syntaxOperator",
        "syntaxPunctuation",
        "thinkingOff",
        "thinkingMinimal",
        "thinkingLow",
        "thinkingMedium",
        "thinkingHigh",
        "thinkingXhigh",
        "bashMode",
    }
)

#: JSON Schema pattern of an accepted colour (opl-modes.md § Mode appearance:
#: a theme token, `#rrggbb` or the `#rgb` shorthand).
COLOR_PATTERN = r"^(#[0-9a-fA-F]{6}|#[0-9a-fA-F]{3}|" + "|".join(sorted(THEME_TOKENS)) + r")$"

#: A custom mode name (opl-modes.md § Configuration), without anchors.
MODE_NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}"

#: The tools Pi itself registers: the registry an operation input assumes
#: when it names none.
PI_BUILTIN_TOOLS = ("read", "bash", "edit", "write", "grep", "find", "ls")
#: The built-ins Pi activates when no `defaultTools` setting says otherwise.
PI_DEFAULT_TOOLS = ("read", "bash", "edit", "write")

#: pi-plan-mode-settings.md § Auto model switch: `provider` and `modelId`
#: are at most this many characters.
MODEL_FIELD_MAX = 512

#: pi-plan-mode-settings.md § Plan export: the longest accepted
#: `defaultPlanExportPath`.
EXPORT_PATH_MAX = 4096

#: pi-plan-mode-settings.md § Toggle shortcut, "a Pi key identifier"
#: (reference choice for its grammar, the form of Pi's own `shift+tab` and
#: `ctrl+alt+m`): distinct modifiers and one key joined by `+`, compared
#: case-insensitively. A key is a named key or one typed character.
KEY_MODIFIERS = ("ctrl", "shift", "alt")
KEY_NAMES = (
    *("escape", "esc", "enter", "return", "tab", "space", "backspace", "delete", "insert", "clear"),
    *("home", "end", "pageup", "pagedown", "up", "down", "left", "right"),
    *(f"f{n}" for n in range(1, 13)),
)
#: Letters, digits and the punctuation of a US keyboard.
KEY_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789`-=[]\\;',./"
