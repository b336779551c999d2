"""Strategies for pi-plan-mode Plan lifecycle scripts and exports.

Everything here produces JSON-ready dictionaries in the wire shape of
`planmode.lifecycle.run` and `planmode.export.run`, so a port's own tests
can reuse them.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

PI_THINKING = ["off", "minimal", "low", "medium", "high", "xhigh", "max"]
THINKING_SETTINGS = ["inherit", *PI_THINKING]
POLICIES = ["clear-on-start", "clear-after-first-run", "keep"]

#: Plan Markdown: any text, including newlines, trailing spaces and non-ASCII.
plans = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\x00"),
    min_size=1,
    max_size=60,
)

_shortcuts = st.one_of(st.none(), st.sampled_from(["ctrl+alt+p", "alt+p", "ctrl+shift+p"]))


def _settings_changes(with_retention: bool) -> st.SearchStrategy[dict[str, Any]]:
    fields: dict[str, st.SearchStrategy[Any]] = {
        "thinkingLevel": st.sampled_from(THINKING_SETTINGS),
        "defaultPlanExportPath": st.one_of(st.none(), st.sampled_from(["PLAN.md", "docs/p.md", "@x.md"])),
        "toggleShortcut": _shortcuts,
    }
    if with_retention:
        fields["implementationPlanRetention"] = st.sampled_from(POLICIES)
    return st.fixed_dictionaries({}, optional=fields)


def _event(kind: str, **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"type": st.just(kind), **fields})


def _plan_command(args: str) -> dict[str, Any]:
    return {"type": "command", "name": "plan", "args": args}


def _one(event: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[list[dict[str, Any]]]:
    return event.map(lambda e: [e])


def _answer(label: str | None) -> dict[str, Any]:
    return {"type": "ui.answer", "label": label}


#: One agent run: a prompt, one context, the settle.
RUN = [{"type": "agent.start"}, {"type": "context"}, {"type": "agent.settle"}]
#: A run that settles partly (a follow-up queued) before it settles.
PARTLY_SETTLED_RUN = [
    {"type": "agent.start"},
    {"type": "context"},
    {"type": "agent.queue", "prompt": "and then?"},
    {"type": "agent.settle"},
    {"type": "context"},
    {"type": "agent.settle"},
]


def _completing_run(plan: str) -> list[dict[str, Any]]:
    """A run in which the model hands in `plan`; its settle opens the ready menu."""
    return [
        {"type": "agent.start"},
        {"type": "tool.call", "tool": "plan_mode_complete", "input": {"plan": plan}},
        {"type": "agent.settle"},
    ]


#: Chunks of events that happen while an implementation runs and never end it.
middle_chunks: st.SearchStrategy[list[dict[str, Any]]] = st.one_of(
    st.just(RUN),
    st.just(PARTLY_SETTLED_RUN),
    st.just([{"type": "session.compact"}]),
    st.just([{"type": "session.tree", "entries": []}]),
    st.just([{"type": "session.resume"}]),
    _one(_event("thinking.select", level=st.sampled_from(PI_THINKING))),
    st.just([{"type": "session.reload"}]),
    _one(_event("settings.screen", settings=_settings_changes(with_retention=False))),
    st.just([_plan_command(""), _answer("Export plan…"), _answer(None)]),
)


def _ready_menu_answers() -> st.SearchStrategy[list[dict[str, Any]]]:
    return _READY_MENU_ANSWERS


_READY_MENU_ANSWERS: st.SearchStrategy[list[dict[str, Any]]] = st.one_of(
    st.sampled_from(["Implement here", "Save for later", "Stay in Plan mode", "Discard plan and exit"]).map(
        lambda label: [_answer(label)]
    ),
    st.lists(st.sampled_from(PI_THINKING), max_size=2).map(
        lambda levels: [
            _answer("Start fresh and implement"),
            *(_answer(level) for level in levels),
            _answer("Start"),
        ]
    ),
    st.just([_answer("Export plan…"), _answer(None)]),
)

# What `_any_chunk` draws from, built once (a strategy built inside a draw
# is built and validated again for every example).
_CHUNK_KINDS = st.integers(0, 7)
_MENU_LABELS = st.sampled_from(
    ["Start Plan mode", "Implement here", "Start fresh and implement", "Exit Plan mode"]
)
_PLAN_ARGS = st.sampled_from(["start", "exit", "save", "implement", "export"])
_EXPORT_PATHS = st.sampled_from(["a.md", "@b/c.md", "~/d.md"])
_FAILING_CALLS = st.sampled_from(["sendUserMessage", "newSession"])
_CWDS = st.sampled_from(["$CWD", "$CWD/sub", "$TMP/other"])
_SETTINGS_WAYS = st.sampled_from(["settings.screen", "settings.write"])
_SETTINGS_CHANGES = {True: _settings_changes(True), False: _settings_changes(False)}


@st.composite
def _any_chunk(draw: st.DrawFn, with_retention_saves: bool) -> list[dict[str, Any]]:
    kind = draw(_CHUNK_KINDS)
    if kind == 0:
        return draw(middle_chunks)
    if kind == 1:
        return [*_completing_run(draw(plans)), *draw(_ready_menu_answers())]
    if kind == 2:
        label = draw(_MENU_LABELS)
        return [_plan_command(""), _answer(label)]
    if kind == 3:
        return [_plan_command(draw(_PLAN_ARGS))]
    if kind == 4:
        path = draw(_EXPORT_PATHS)
        return [_plan_command(f"export {path}")]
    if kind == 5:
        return [{"type": "api.fail", "call": draw(_FAILING_CALLS)}]
    if kind == 6:
        return [{"type": "cwd.change", "cwd": draw(_CWDS)}]
    via = draw(_SETTINGS_WAYS)
    return [{"type": via, "settings": draw(_SETTINGS_CHANGES[with_retention_saves])}]


def _flat(chunks: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [event for chunk in chunks for event in chunk]


def _timed(events: list[dict[str, Any]], gaps: list[int]) -> list[dict[str, Any]]:
    at = 0
    timed = []
    for event, gap in zip(events, gaps, strict=False):
        at += gap
        timed.append({**event, "at": at})
    return timed


_CHUNK_LISTS = {saves: st.lists(_any_chunk(saves), max_size=12) for saves in (True, False)}
_SCRIPT_SETTINGS = st.fixed_dictionaries(
    {},
    optional={
        "thinkingLevel": st.sampled_from(THINKING_SETTINGS),
        "toggleShortcut": st.sampled_from(["ctrl+alt+p", "alt+p"]),
    },
)
_PI_THINKING = st.sampled_from(PI_THINKING)
_SAVED_PLANS = st.one_of(st.none(), plans)


@st.composite
def scripts(draw: st.DrawFn, policy: str | None = None, retention_saves: bool = True) -> dict[str, Any]:
    """A whole `planmode.lifecycle.run` input of arbitrary host events (some will not apply)."""
    events = _flat(draw(_CHUNK_LISTS[retention_saves]))
    gaps = draw(st.lists(st.integers(0, 5000), min_size=len(events), max_size=len(events)))
    settings: dict[str, Any] = draw(_SCRIPT_SETTINGS)
    if policy is not None:
        settings["implementationPlanRetention"] = policy
    return {
        "settings": settings,
        "thinking": draw(_PI_THINKING),
        "savedPlan": draw(_SAVED_PLANS),
        "events": _timed(events, gaps),
    }


_HOW = st.sampled_from(["here", "fresh", "saved"])
_MIDDLES = st.lists(middle_chunks, max_size=8)
_ENDS = st.sampled_from(["exit", "start"])
_AFTERS = st.lists(st.sampled_from([RUN, [{"type": "session.compact"}]]), max_size=4)


@st.composite
def guaranteed_implementations(draw: st.DrawFn, policy: str = "keep") -> dict[str, Any]:
    """A script that implements one plan under `policy`, runs arbitrary
    middle events, ends with `/plan exit` or supersession by a new Plan
    workflow, then assembles more contexts. Returns `{"input": ...,
    "plan": ..., "implemented": index, "end": index}`: the indices of the
    implementing event and of the ending event."""
    plan = draw(plans)
    how = draw(_HOW)
    if how == "saved":
        start: list[dict[str, Any]] = [_plan_command("implement")]
        saved: str | None = plan
    else:
        answers = [_answer("Implement here")]
        if how == "fresh":
            answers = [_answer("Start fresh and implement"), _answer("Start")]
        start = [_plan_command("start"), *RUN, *_completing_run(plan), *answers]
        saved = None
    # The kickoff opens a run: its first context, then its settle.
    start += [{"type": "context"}, {"type": "agent.settle"}]
    middle = _flat(draw(_MIDDLES))
    end = [_plan_command(draw(_ENDS))]
    after = _flat(draw(_AFTERS))
    events = start + middle + end + after
    return {
        "input": {
            "settings": {"implementationPlanRetention": policy},
            "savedPlan": saved,
            "events": events,
        },
        "plan": plan,
        "implemented": len(start) - 3,
        "end": len(start) + len(middle),
    }


#: A path component: never `.` or `..` (built so, not filtered: a name of
#: dots only gets a letter).
_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.", min_size=1, max_size=12).map(
    lambda name: name + "a" if name in {".", ".."} else name
)

#: Relative export paths of one to three components.
relative_paths = st.lists(_names, min_size=1, max_size=3).map("/".join)


_EXPORT_REQUESTS = st.one_of(st.none(), relative_paths, relative_paths.map("@".__add__))
_EXPORT_SETTINGS = st.fixed_dictionaries({}, optional={"defaultPlanExportPath": relative_paths})
_SOURCES = st.sampled_from(["ready", "saved", "active"])


@st.composite
def exports(draw: st.DrawFn) -> dict[str, Any]:
    """A `planmode.export.run` input with no pre-existing paths."""
    return {
        "cwd": "$CWD",
        "request": {"path": draw(_EXPORT_REQUESTS)},
        "settings": draw(_EXPORT_SETTINGS),
        "state": {"source": draw(_SOURCES), "plan": draw(plans)},
    }


def _round_trip_parts(spec_only: bool) -> tuple[st.SearchStrategy[Any], st.SearchStrategy[Any]]:
    """The middle events and the ways out of `plan_thinking_round_trips`."""
    middle_options = [
        st.just(RUN),
        st.just([{"type": "session.compact"}]),
        _one(_event("settings.screen", settings=_settings_changes(with_retention=True))),
    ]
    leaves = [
        [_plan_command("exit")],
        [*_completing_run("# P"), _answer("Save for later")],
        [*_completing_run("# P"), _answer("Implement here")],
        [*_completing_run("# P"), _answer("Discard plan and exit")],
    ]
    if not spec_only:
        middle_options.append(st.just([{"type": "session.reload"}]))
        leaves.append([*_completing_run("# P"), _answer("Stay in Plan mode"), _plan_command("export")])
    return st.lists(st.one_of(*middle_options), max_size=6), st.sampled_from(leaves)


_ROUND_TRIP_PARTS = {spec_only: _round_trip_parts(spec_only) for spec_only in (True, False)}
_THINKING_SETTINGS = st.sampled_from(THINKING_SETTINGS)


@st.composite
def plan_thinking_round_trips(draw: st.DrawFn, spec_only: bool = False) -> dict[str, Any]:
    """Start Plan mode under a fixed or inherited level, do things that never
    touch Pi's thinking by hand, then leave Plan mode one way or another.
    `spec_only`: only what the spec describes (no `/reload` inside Plan
    mode, no written export as a way out)."""
    middles, leaves = _ROUND_TRIP_PARTS[spec_only]
    middle = _flat(draw(middles))
    return {
        "settings": {"thinkingLevel": draw(_THINKING_SETTINGS)},
        "thinking": draw(_PI_THINKING),
        "events": [_plan_command("start"), *middle, *draw(leaves)],
    }


_SHORTCUT_EVENTS = st.lists(
    st.one_of(
        _event("settings.screen", settings=st.fixed_dictionaries({"toggleShortcut": _shortcuts})),
        _event("settings.write", settings=st.fixed_dictionaries({"toggleShortcut": _shortcuts})),
        st.just({"type": "session.tree", "entries": []}),
        st.just({"type": "session.compact"}),
        st.just(_plan_command("start")),
        st.just(_plan_command("exit")),
    ),
    max_size=10,
)


@st.composite
def shortcut_scripts(draw: st.DrawFn) -> dict[str, Any]:
    """Shortcut saves and JSON edits mixed with the events the spec says
    leave the binding alone: tree navigation, compaction and Plan commands
    (a resume is left out: whether it is a new extension runtime is open, and
    under Pi it is one)."""
    events = draw(_SHORTCUT_EVENTS)
    startup = draw(_shortcuts)
    return {"settings": {} if startup is None else {"toggleShortcut": startup}, "events": events}
