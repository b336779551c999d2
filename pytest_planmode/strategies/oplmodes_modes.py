"""Strategies for opl-modes configuration documents, session entries and
event scripts (opl-modes.md § Configuration, § Commands, flags, and
shortcuts, § Tool inheritance warning, § Lazy tool loading)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

#: Tools a Pi session may have registered.
TOOL_NAMES = [
    "read",
    "bash",
    "edit",
    "write",
    "grep",
    "find",
    "ls",
    "powershell",
    "subagent",
    "subagent_wait",
    "browser",
    "web_search",
    "fetch_content",
    "plan_complete",
    "load_tools",
    "typo_tool",
]
BUILTIN_MODES = ["off", "chat", "plan", "execute"]
CUSTOM_NAMES = ["review", "research", "verify", "secret", "audit"]
ENTRY_TYPES = ["mode-switcher", "chat-mode", "plan-mode"]

#: Any JSON value (what a loader may find in opl-modes.json).
json_values: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)

tool_lists = st.lists(st.sampled_from(TOOL_NAMES), max_size=6)


def _maybe(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A field value: usually well-typed, sometimes any JSON."""
    return st.one_of(value, value, value, json_values)


colours = st.sampled_from(["#abc", "#157cd6", "accent", "muted", "red", "#12345", "", "Accent"])

mode_configs = st.fixed_dictionaries(
    {},
    optional={
        "enabled": _maybe(st.booleans()),
        "visible": _maybe(st.booleans()),
        "allowPlanComplete": _maybe(st.booleans()),
        "allowExecute": _maybe(st.booleans()),
        "prompt": _maybe(st.text(max_size=10)),
        "tools": _maybe(tool_lists),
        "unrestrictedBash": _maybe(st.booleans()),
        "labels": _maybe(st.dictionaries(st.sampled_from(["widgetColor", "widget"]), colours, max_size=2)),
        "appearance": _maybe(
            st.fixed_dictionaries(
                {},
                optional={
                    "prefix": st.text(max_size=3),
                    "prefixColor": colours,
                    "borderColor": colours,
                    "modeColor": colours,
                },
            )
        ),
        "model": _maybe(
            st.fixed_dictionaries({}, optional={"provider": st.text(max_size=5), "id": st.text(max_size=5)})
        ),
    },
)

#: Documents shaped like opl-modes.json, with wrong values mixed in.
documents = st.fixed_dictionaries(
    {},
    optional={
        "ui": _maybe(
            st.fixed_dictionaries({}, optional={"hideNotify": st.booleans(), "hideWidget": st.booleans()})
        ),
        "shortcuts": _maybe(
            st.fixed_dictionaries(
                {}, optional={"cycleMode": st.sampled_from(["f2", "shift+tab", "", "ctrl+alt+m"])}
            )
        ),
        "cleanup": _maybe(st.fixed_dictionaries({}, optional={"cleanupOnComplete": st.booleans()})),
        "defaultNotifyTemplate": _maybe(st.text(max_size=12)),
        "modes": _maybe(
            st.dictionaries(
                st.sampled_from(BUILTIN_MODES + CUSTOM_NAMES + ["normal", "bad name"]),
                mode_configs,
                max_size=5,
            )
        ),
        "chatAllowedTools": _maybe(tool_lists),
        "planAllowedTools": _maybe(tool_lists),
        "lazyTools": _maybe(tool_lists),
    },
)

#: Well-formed documents (valid types everywhere): modes with flags and tool lists.
well_formed_documents = st.fixed_dictionaries(
    {
        "modes": st.dictionaries(
            st.sampled_from(["chat", "plan", *CUSTOM_NAMES]),
            st.fixed_dictionaries(
                {},
                optional={
                    "enabled": st.booleans(),
                    "visible": st.booleans(),
                    "tools": tool_lists,
                    "allowPlanComplete": st.booleans(),
                },
            ),
            max_size=5,
        ),
        "lazyTools": st.lists(
            st.sampled_from(["subagent", "subagent_wait", "browser", "web_search", "write", "read"]),
            max_size=4,
        ),
        "shortcuts": st.just({"cycleMode": "f2"}),
    }
)

#: A Pi registry: usually everything, sometimes a random subset.
registries = st.one_of(st.just(list(TOOL_NAMES)), tool_lists)

plan_filenames = st.one_of(
    st.sampled_from(
        ["plan-auth.md", "plan-x.md", "../plan-auth.md", "a/b.md", "..", "/etc/passwd", "plan-a..md", ""]
    ),
    st.text(max_size=12),
    json_values,
)

#: Session entries that are not a valid opl-modes state: other extensions'
#: entries, unknown or mistyped mode names, unsafe plan filenames.
foreign_or_stale_entries = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.just("custom"),
            "customType": st.sampled_from(["other-ext", "modes", "Mode-Switcher", "plan_mode", ""]),
            "data": json_values,
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("custom"),
            "customType": st.just("mode-switcher"),
            "data": st.fixed_dictionaries(
                {"mode": st.one_of(st.sampled_from(["yolo", "", "EXECUTE", "Chat", "root"]), json_values)},
                optional={"planFile": plan_filenames},
            ),
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("custom"),
            "customType": st.just("mode-switcher"),
            "data": st.fixed_dictionaries(
                {"mode": st.just("execute")},
                optional={
                    "planFile": st.sampled_from(["../plan-auth.md", "a/b.md", "plan-gone.md", "..\\x.md"])
                },
            ),
        }
    ),
    st.fixed_dictionaries({"type": st.sampled_from(["message", "model_change"]), "data": json_values}),
)

#: A valid restricted-mode entry (chat or plan), possibly with a plan file.
restricted_entries = st.fixed_dictionaries(
    {
        "type": st.just("custom"),
        "customType": st.just("mode-switcher"),
        "data": st.fixed_dictionaries(
            {"mode": st.sampled_from(["chat", "plan"])}, optional={"planFile": plan_filenames}
        ),
    }
)

commands = st.sampled_from(
    [
        "/mode",
        "/mode chat",
        "/mode plan",
        "/mode normal",
        "/mode review",
        "/mode secret",
        "/mode execute",
        "/chat",
        "/chat off",
        "/plan",
        "/plan off",
        "/plan auth",
        "/execute",
        "/execute auth",
        "/plan .",
    ]
)


def command_event(text: str) -> dict[str, Any]:
    """`/name args` as a host `command` event."""
    name, _, args = text.removeprefix("/").partition(" ")
    return {"type": "command", "name": name, **({"args": args} if args else {})}


def _in_run(*events: dict[str, Any], outcome: str = "completed") -> list[dict[str, Any]]:
    return [{"type": "agent.start"}, *events, {"type": "agent.settle", "outcome": outcome}]


#: One host step each: a command, a key press, a menu answer, or an agent
#: run (with a tool call, settling with some outcome).
script_events = st.one_of(
    commands.map(lambda text: [command_event(text)]),
    st.sampled_from(["f2", "shift+tab", "ctrl+x"]).map(lambda key: [{"type": "key.press", "key": key}]),
    st.sampled_from(
        [
            "normal",
            "chat",
            "plan",
            "review",
            "secret",
            "Execute: auth",
            "Execute",
            "Refine",
            "Save & Exit",
            "Discard & Exit",
        ]
    ).map(lambda label: [{"type": "ui.answer", "label": label}]),
    st.just(_in_run()),
    st.sampled_from(["plan_complete", "write", "read"]).map(
        lambda tool: _in_run({"type": "tool.call", "tool": tool}, outcome="aborted")
    ),
    st.sampled_from(["ls -la", "rm -rf build", "cat f && node -e 1"]).map(
        lambda command: _in_run(
            {"type": "tool.call", "tool": "bash", "input": {"command": command}}, outcome="aborted"
        )
    ),
    st.lists(st.sampled_from(TOOL_NAMES), max_size=3).map(
        lambda tools: _in_run(
            {"type": "tool.call", "tool": "load_tools", "input": {"tools": tools}}, outcome="aborted"
        )
    ),
    st.sampled_from(["completed", "aborted", "error"]).map(lambda o: _in_run(outcome=o)),
)

#: Event scripts (no session-start event), instants all 0.
event_lists = st.lists(script_events, max_size=8).map(lambda steps: [e for step in steps for e in step])

LAZY_CANDIDATES = ["subagent", "subagent_wait", "browser", "web_search", "fetch_content"]

# What `lazy_scenarios` draws from, built once (a strategy built inside a
# draw is built and validated again for every example).
_LAZY_SETS = st.lists(st.sampled_from(LAZY_CANDIDATES), min_size=1, max_size=4, unique=True)
_TOOL_NAME = st.sampled_from(TOOL_NAMES)
_TOOL_LISTS = {size: st.lists(_TOOL_NAME, max_size=size) for size in (4, 5, 6)}
_BOOLEANS = st.booleans()
_LAZY_MODES = st.sampled_from(["research", "verify", "off", "execute", "chat", "plan"])
_LOAD_REQUESTS = st.none() | st.lists(st.sampled_from([*TOOL_NAMES, "nonexistent"]), max_size=5)


@st.composite
def lazy_scenarios(draw: st.DrawFn) -> tuple[dict[str, Any], str, list[str] | None]:
    """(document, mode, load_tools request) where at least one lazy tool is
    usually withheld, so `load_tools` is really exercised; the request asks
    for anything, permitted or not."""
    lazy = draw(_LAZY_SETS)
    own = draw(_TOOL_LISTS[5])
    own = [*own, draw(st.sampled_from(lazy))]
    document: dict[str, Any] = {
        "lazyTools": lazy,
        "modes": {
            "research": {"tools": own},
            "verify": {
                "tools": draw(_TOOL_LISTS[4]),
                "allowPlanComplete": True,
            },
        },
    }
    if draw(_BOOLEANS):
        document["modes"]["off"] = {"tools": draw(_TOOL_LISTS[6])}
    mode = draw(_LAZY_MODES)
    request = draw(_LOAD_REQUESTS)
    return document, mode, request
