"""Loading `~/.pi/agent/configs/opl-modes.json` into the effective registry
(opl-modes.md § Configuration, § Mode appearance, § Lazy tool loading,
§ Tool inheritance warning).

The loader never raises: whatever JSON value (or text) it is given, it
answers with an effective configuration; every value it could not use is a
problem naming the mode and field, and the built-in behaviour stays in
effect for that field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from pytest_planmode.reference.json_values import json_kind
from pytest_planmode.reference.oplmodes import appearance as ap
from pytest_planmode.reference.oplmodes.registry import (
    BUILTIN_MODES,
    CHAT,
    EXECUTE,
    EXTENSION_TOOLS,
    LOAD_TOOLS,
    NORMAL_ALIAS,
    OFF,
    PLAN,
    PLAN_COMPLETE,
    Appearance,
    ModeDef,
    builtin_defaults,
)
from pytest_planmode.spec_values import MODE_NAME_PATTERN

DEFAULT_CYCLE_KEY = "shift+tab"
#: Pi's own binding of `app.thinking.cycle`.
THINKING_CYCLE_ACTION = "app.thinking.cycle"
THINKING_CYCLE_DEFAULT_KEY = "shift+tab"

#: Never withheld, silently ignored when listed in `lazyTools`
#: (opl-modes.md § Lazy tool loading).
PROTECTED_TOOLS = frozenset(
    {"read", "edit", "write", "bash", "powershell", "grep", "find", "ls", PLAN_COMPLETE, LOAD_TOOLS}
)

TOP_LEVEL_FIELDS = frozenset(
    {
        "ui",
        "shortcuts",
        "cleanup",
        "defaultNotifyTemplate",
        "bashPatterns",
        "modes",
        "chatAllowedTools",
        "planAllowedTools",
        "lazyTools",
    }
)
MODE_FIELDS = frozenset(
    {
        "enabled",
        "visible",
        "allowPlanComplete",
        "allowExecute",
        "prompt",
        "tools",
        "safePatterns",
        "destructivePatterns",
        "unrestrictedBash",
        "model",
        "labels",
        "appearance",
    }
)
APPEARANCE_FIELDS = ("prefix", "prefixColor", "borderColor", "modeColor")

#: Reference choice: custom mode names are command words.
MODE_NAME = re.compile(MODE_NAME_PATTERN)
_DEPRECATED_ALIASES = {CHAT: "chatAllowedTools", PLAN: "planAllowedTools"}
_BOOL_FLAGS = (
    ("enabled", "enabled"),
    ("visible", "visible"),
    ("allowPlanComplete", "allow_plan_complete"),
    ("allowExecute", "allow_execute"),
)


@dataclass(frozen=True)
class Problem:
    field: str
    mode: str | None
    message: str


@dataclass(frozen=True)
class OplConfig:
    """The effective configuration: the registry and the global settings."""

    modes: Mapping[str, ModeDef]
    lazy_tools: tuple[str, ...]
    ignored_lazy_tools: tuple[str, ...]
    cleanup_on_complete: bool
    cycle_key: str
    hide_notify: bool
    hide_widget: bool
    notify_template: str
    problems: tuple[Problem, ...]
    warnings: tuple[Problem, ...]
    #: The document as read (an object), for the Bash policy resolver.
    document: Mapping[str, Any] | None


class _Collector:
    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []

    def problem(self, field: str, mode: str | None, message: str) -> None:
        self.problems.append(Problem(field, mode, message))

    def warn(self, field: str, mode: str | None, message: str) -> None:
        self.warnings.append(Problem(field, mode, message))


def parse_text(text: str) -> tuple[Any, str | None]:
    """The file's text as JSON; on failure the reason (reference choice:
    an unreadable document leaves every built-in default in effect)."""
    try:
        return json.loads(text, parse_constant=_reject_constant), None
    except (ValueError, RecursionError) as exc:
        return None, f"opl-modes.json is not valid JSON ({exc}); using the built-in defaults"


def load_text(text: str) -> OplConfig:
    """The effective configuration for the file's text (opl-modes.md
    § Configuration): JSON; anything else leaves the built-in registry with a
    problem on `(document)`, never an exception."""
    document, error = parse_text(text)
    if error is None:
        return load(document)
    return unreadable(error)


def unreadable(message: str) -> OplConfig:
    loaded = load(None, present=False)
    return replace(loaded, problems=(Problem("(document)", None, message), *loaded.problems))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def load(document: Any, *, present: bool = True) -> OplConfig:
    """The effective configuration for a parsed document (opl-modes.md
    § Configuration). `present=False` means there is no file: all fields are
    optional, so that is the built-in registry without problems."""
    out = _Collector()
    doc: Mapping[str, Any] | None = None
    if present:
        if isinstance(document, dict):
            doc = document
        else:
            out.problem(
                "(document)",
                None,
                f"opl-modes.json must be a JSON object, got {json_kind(document)}; "
                "using the built-in defaults",
            )
    data: Mapping[str, Any] = doc or {}
    for key in data:
        if key not in TOP_LEVEL_FIELDS:
            out.warn(key, None, f"unknown field {key!r} is ignored")

    ui = _object(data, "ui", out)
    hide_notify = _bool(ui, "hideNotify", "ui.hideNotify", None, False, out)
    hide_widget = _bool(ui, "hideWidget", "ui.hideWidget", None, False, out)
    shortcuts = _object(data, "shortcuts", out)
    cycle_key = DEFAULT_CYCLE_KEY
    if "cycleMode" in shortcuts:
        value = shortcuts["cycleMode"]
        if isinstance(value, str) and value.strip():
            cycle_key = normalize_key(value)
        else:
            out.problem(
                "shortcuts.cycleMode",
                None,
                f'shortcuts.cycleMode must be a non-empty key name such as "ctrl+alt+m", '
                f"got {_show(value)}; keeping {DEFAULT_CYCLE_KEY}",
            )
    cleanup = _object(data, "cleanup", out)
    cleanup_on_complete = _bool(cleanup, "cleanupOnComplete", "cleanup.cleanupOnComplete", None, False, out)
    template = ap.DEFAULT_NOTIFY_TEMPLATE
    if "defaultNotifyTemplate" in data:
        value = data["defaultNotifyTemplate"]
        if isinstance(value, str) and value.strip():
            template = value
        else:
            out.problem(
                "defaultNotifyTemplate",
                None,
                f"defaultNotifyTemplate must be a non-empty string, got {_show(value)}; "
                f"using {ap.DEFAULT_NOTIFY_TEMPLATE!r}",
            )

    lazy, ignored = _lazy_tools(data, out)
    modes = _modes(data, out)
    _write_capable_warnings(modes, out)
    _lazy_prompt_warnings(modes, lazy, out)
    if doc is not None and "bashPatterns" in doc and not isinstance(doc["bashPatterns"], dict):
        out.problem(
            "bashPatterns",
            None,
            f"bashPatterns must be an object, got {json_kind(doc['bashPatterns'])}; "
            "using the built-in patterns",
        )
    return OplConfig(
        modes=modes,
        lazy_tools=lazy,
        ignored_lazy_tools=ignored,
        cleanup_on_complete=cleanup_on_complete,
        cycle_key=cycle_key,
        hide_notify=hide_notify,
        hide_widget=hide_widget,
        notify_template=template,
        problems=tuple(out.problems),
        warnings=tuple(out.warnings),
        document=doc,
    )


def normalize_key(key: str) -> str:
    """Key names compare case-insensitively and without spaces (opl-modes.md
    § Commands, flags, and shortcuts: the cycle shortcut)."""
    return "".join(key.split()).lower()


def shortcut_conflict(cycle_key: str, thinking_key: str = THINKING_CYCLE_DEFAULT_KEY) -> str | None:
    """The `shift+tab` notice (opl-modes.md § Commands, flags, and shortcuts):
    when the cycle shortcut is also Pi's `app.thinking.cycle`, both fire on
    one press."""
    if normalize_key(cycle_key) != normalize_key(thinking_key):
        return None
    return (
        f"{cycle_key} cycles modes and is also Pi's {THINKING_CYCLE_ACTION}, so both fire on "
        "one press; rebind either action in ~/.pi/agent/keybindings.json "
        "(or pick another shortcuts.cycleMode) to keep them separate"
    )


# -- helpers -----------------------------------------------------------------


def _show(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _object(
    data: Mapping[str, Any],
    key: str,
    out: _Collector,
    mode: str | None = None,
    where: str | None = None,
) -> Mapping[str, Any]:
    if key not in data:
        return {}
    value = data[key]
    if isinstance(value, dict):
        return value
    out.problem(
        where or key,
        mode,
        f"{where or key} must be an object, got {json_kind(value)}; ignored",
    )
    return {}


def _bool(
    data: Mapping[str, Any], key: str, where: str, mode: str | None, default: bool, out: _Collector
) -> bool:
    if key not in data:
        return default
    value = data[key]
    if isinstance(value, bool):
        return value
    out.problem(
        where,
        mode,
        f"{where} must be true or false, got {_show(value)}; using {str(default).lower()}",
    )
    return default


def _tool_list(value: Any, where: str, mode: str | None, out: _Collector) -> tuple[str, ...] | None:
    """A tool-name array: `None` when it is not an array at all; otherwise
    its valid names (non-empty strings, duplicates removed first-seen), each
    invalid entry reported."""
    if not isinstance(value, list):
        out.problem(where, mode, f"{where} must be an array of tool names, got {json_kind(value)}")
        return None
    names: list[str] = []
    for index, item in enumerate(value):
        if isinstance(item, str) and item.strip():
            if item not in names:
                names.append(item)
        else:
            out.problem(
                f"{where}[{index}]",
                mode,
                f"{where}[{index}] must be a non-empty tool name, got {_show(item)}; dropped",
            )
    return tuple(names)


def _lazy_tools(data: Mapping[str, Any], out: _Collector) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if "lazyTools" not in data:
        return (), ()
    names = _tool_list(data["lazyTools"], "lazyTools", None, out)
    if names is None:
        return (), ()
    kept = tuple(n for n in names if n not in PROTECTED_TOOLS)
    ignored = tuple(n for n in names if n in PROTECTED_TOOLS)
    return kept, ignored


def _modes(data: Mapping[str, Any], out: _Collector) -> dict[str, ModeDef]:
    modes = builtin_defaults()
    raw_modes = _object(data, "modes", out)
    for name, raw in raw_modes.items():
        where = f"modes.{name}"
        if name == NORMAL_ALIAS:
            out.problem(
                where,
                name,
                f"{where}: 'normal' is the name of the built-in off mode; configure it as modes.off",
            )
            continue
        if name not in BUILTIN_MODES and not MODE_NAME.fullmatch(name):
            out.problem(
                where,
                name,
                f"{where}: mode name {name!r} must start with a letter or digit and use only "
                "letters, digits, '-' and '_' (at most 64); mode ignored",
            )
            continue
        if not isinstance(raw, dict):
            out.problem(
                where,
                name,
                f"{where} must be an object, got {json_kind(raw)}; mode ignored"
                if name not in BUILTIN_MODES
                else f"{where} must be an object, got {json_kind(raw)}; built-in {name} kept",
            )
            continue
        base = modes.get(name) or ModeDef(name, False)
        modes[name] = _merge_mode(base, raw, out)
    # Deprecated aliases apply only where modes.<name>.tools is omitted.
    for mode_name, alias in _DEPRECATED_ALIASES.items():
        if alias not in data:
            continue
        mode_raw = raw_modes.get(mode_name)
        if isinstance(mode_raw, dict) and "tools" in mode_raw:
            out.warn(
                alias,
                mode_name,
                f"{alias} is deprecated and ignored because modes.{mode_name}.tools is set; remove it",
            )
            continue
        modes[mode_name] = _merge_tools(modes[mode_name], data[alias], out, alias, "alias")
        out.warn(alias, mode_name, f"{alias} is deprecated; migrate to modes.{mode_name}.tools")
    return modes


def _lazy_prompt_warnings(
    config_modes: Mapping[str, ModeDef], lazy: tuple[str, ...], out: _Collector
) -> None:
    """A prompt that names a lazy tool must also tell the model to call
    `load_tools` first (opl-modes.md § Lazy tool loading), otherwise it
    names a tool the model cannot see."""
    for mode in config_modes.values():
        if not mode.prompt or LOAD_TOOLS in mode.prompt:
            continue
        named = [t for t in lazy if re.search(rf"(?<![\w-]){re.escape(t)}(?![\w-])", mode.prompt)]
        if named and (mode.tools is None or any(t in mode.tools for t in named)):
            out.warn(
                f"modes.{mode.name}.prompt",
                mode.name,
                f"modes.{mode.name}.prompt names lazy tool(s) {', '.join(named)} but does not tell the "
                "model to call load_tools first; the model cannot see a withheld tool",
            )


def _write_capable_warnings(modes: Mapping[str, ModeDef], out: _Collector) -> None:
    for mode in modes.values():
        if not mode.builtin and mode.tools is None:
            out.warn(
                f"modes.{mode.name}.tools",
                mode.name,
                f"mode {mode.name!r} has no tools list, so it inherits all tools, including write "
                "and edit (write-capable); give it an explicit read-only tools list "
                "if it is meant to be restrictive",
            )


def _merge_mode(base: ModeDef, raw: Mapping[str, Any], out: _Collector) -> ModeDef:
    name = base.name
    where = f"modes.{name}"
    for key in raw:
        if key not in MODE_FIELDS:
            out.warn(f"{where}.{key}", name, f"{where}: unknown field {key!r} is ignored")
    flags = {
        attr: _bool(raw, key, f"{where}.{key}", name, bool(getattr(base, attr)), out)
        for key, attr in _BOOL_FLAGS
    }
    mode = replace(
        base,
        enabled=flags["enabled"],
        visible=flags["visible"],
        allow_plan_complete=flags["allow_plan_complete"],
        allow_execute=flags["allow_execute"],
    )
    if name == OFF and not mode.enabled:
        out.problem(
            f"{where}.enabled",
            name,
            f"{where}.enabled: off (normal) cannot be disabled, it is where every other mode "
            "returns; kept enabled",
        )
        mode = replace(mode, enabled=True)
    if name == EXECUTE and not mode.enabled:
        out.problem(
            f"{where}.enabled",
            name,
            f"{where}.enabled: execute cannot be disabled; set allowExecute: false on the modes "
            "that must not start execution; kept enabled",
        )
        mode = replace(mode, enabled=True)
    if name == EXECUTE and not mode.allow_plan_complete:
        out.problem(
            f"{where}.allowPlanComplete",
            name,
            f"{where}.allowPlanComplete: plan_complete is always available in execute mode; kept true",
        )
        mode = replace(mode, allow_plan_complete=True)
    if "prompt" in raw:
        value = raw["prompt"]
        if isinstance(value, str):
            mode = replace(mode, prompt=value)
        else:
            out.problem(
                f"{where}.prompt",
                name,
                f"{where}.prompt must be a string, got {json_kind(value)}; ignored",
            )
    if "tools" in raw:
        mode = _merge_tools(mode, raw["tools"], out)
    if "labels" in raw:
        mode = replace(mode, labels=_labels(raw["labels"], f"{where}.labels", name, out))
    if "appearance" in raw:
        mode = replace(mode, appearance=_appearance(raw["appearance"], f"{where}.appearance", name, out))
    if "model" in raw:
        mode = replace(mode, model=_model(raw["model"]))
    return mode


def _merge_tools(
    mode: ModeDef, value: Any, out: _Collector, where: str | None = None, source: str | None = None
) -> ModeDef:
    """A mode's tool list (`modes.<name>.tools`, or a deprecated alias):
    opl-modes' own `load_tools` cannot be listed, and `plan_complete` is
    granted only by the one predicate."""
    where = where or f"modes.{mode.name}.tools"
    names = _tool_list(value, where, mode.name, out)
    if names is None:
        if mode.builtin:
            # A built-in keeps its own list (or its snapshot behaviour).
            return mode
        # Fail closed: a custom mode with an unusable list gets no tools
        # rather than inheriting all of them.
        out.problem(where, mode.name, f"{where}: mode {mode.name!r} gets no tools until this is an array")
        return replace(mode, tools=(), tools_source="config")
    kept = tuple(n for n in names if n != LOAD_TOOLS)
    if len(kept) != len(names):
        out.warn(
            where,
            mode.name,
            f"{where}: load_tools is managed by opl-modes and cannot be listed; ignored",
        )
    if PLAN_COMPLETE in kept and mode.name != EXECUTE and not mode.allow_plan_complete:
        out.warn(
            where,
            mode.name,
            f"{where}: plan_complete is listed but {mode.name!r} does not set allowPlanComplete; "
            "it stays unavailable",
        )
        kept = tuple(n for n in kept if n != PLAN_COMPLETE)
    return replace(mode, tools=kept, tools_source=source or ("pinned" if mode.name == OFF else "config"))


def _labels(value: Any, where: str, mode: str, out: _Collector) -> dict[str, str]:
    if not isinstance(value, dict):
        out.problem(where, mode, f"{where} must be an object, got {json_kind(value)}; ignored")
        return {}
    labels: dict[str, str] = {}
    for key, item in value.items():
        field = f"{where}.{key}"
        if key.endswith("Color") or key.endswith("Colour"):
            result = ap.normalize_color(item, field, tokens_only=True)
            if result.error is not None:
                out.problem(field, mode, result.error)
            elif result.color is not None:
                labels[key] = result.color
        elif isinstance(item, str):
            labels[key] = item
        else:
            out.problem(field, mode, f"{field} must be a string, got {json_kind(item)}; ignored")
    return labels


def _appearance(value: Any, where: str, mode: str, out: _Collector) -> Appearance:
    if not isinstance(value, dict):
        out.problem(where, mode, f"{where} must be an object, got {json_kind(value)}; ignored")
        return Appearance()
    found: dict[str, str | None] = {}
    for key, item in value.items():
        field = f"{where}.{key}"
        if key not in APPEARANCE_FIELDS:
            out.warn(
                field,
                mode,
                f"{where}: unknown field {key!r} is ignored (known: {', '.join(APPEARANCE_FIELDS)})",
            )
        elif key == "prefix":
            if isinstance(item, str):
                found["prefix"] = item
            else:
                out.problem(field, mode, f"{field} must be a string, got {json_kind(item)}; ignored")
        else:
            result = ap.normalize_color(item, field)
            if result.error is not None:
                out.problem(field, mode, result.error)
            else:
                found[key] = result.color
    return Appearance(
        prefix=found.get("prefix"),
        prefix_color=found.get("prefixColor"),
        border_color=found.get("borderColor"),
        mode_color=found.get("modeColor"),
    )


def _model(value: Any) -> tuple[str, str] | None:
    """Blank or partial `model` means no override (opl-modes.md § Tool
    inheritance warning); resolving it is the model-override module's job."""
    if not isinstance(value, dict):
        return None
    provider, ident = value.get("provider"), value.get("id")
    if isinstance(provider, str) and isinstance(ident, str) and provider.strip() and ident.strip():
        return provider, ident
    return None


__all__ = [
    "DEFAULT_CYCLE_KEY",
    "EXTENSION_TOOLS",
    "PROTECTED_TOOLS",
    "OplConfig",
    "Problem",
    "load",
    "load_text",
    "normalize_key",
    "parse_text",
    "shortcut_conflict",
    "unreadable",
]
