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


#: Events that happen while an implementation runs and never end it.
middle_events = st.one_of(
    _event("context"),
    _event("context", planInHistory=st.booleans()),
    _event("run.settled", fully=st.booleans()),
    _event("compaction"),
    _event("tree.navigate", planInHistory=st.booleans()),
    _event("resume"),
    _event("thinking.manual", level=st.sampled_from(PI_THINKING)),
    _event("reload"),
    _event("settings.save", settings=_settings_changes(with_retention=False)),
    _event("export", cancel=st.just(True)),
)


def any_events(with_retention_saves: bool = True) -> st.SearchStrategy[dict[str, Any]]:
    """Any event of the vocabulary, in any state (some will not apply)."""
    return st.one_of(
        middle_events,
        _event("plan.start"),
        _event("plan.run"),
        _event("plan.ready", plan=plans),
        _event("plan.save"),
        _event("implement", how=st.sampled_from(["here", "fresh", "saved"])),
        _event("implement", how=st.just("fresh"), thinking=st.sampled_from(PI_THINKING)),
        _event("plan.exit"),
        _event("supersede"),
        _event("handoff.failed"),
        _event("export"),
        _event("export", path=st.sampled_from(["a.md", "@b/c.md", "~/d.md"])),
        _event("cwd.change", cwd=st.sampled_from(["$CWD", "$CWD/sub", "$TMP/other"])),
        _event("settings.save", settings=_settings_changes(with_retention_saves)),
    )


def _timed(events: list[dict[str, Any]], gaps: list[int]) -> list[dict[str, Any]]:
    at = 0
    timed = []
    for event, gap in zip(events, gaps, strict=False):
        at += gap
        timed.append({**event, "at": at})
    return timed


@st.composite
def scripts(draw: st.DrawFn, policy: str | None = None, retention_saves: bool = True) -> dict[str, Any]:
    """A whole `planmode.lifecycle.run` input with arbitrary events."""
    events = draw(st.lists(any_events(retention_saves), max_size=25))
    gaps = draw(st.lists(st.integers(0, 5000), min_size=len(events), max_size=len(events)))
    settings: dict[str, Any] = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "thinkingLevel": st.sampled_from(THINKING_SETTINGS),
                "toggleShortcut": st.sampled_from(["ctrl+alt+p", "alt+p"]),
            },
        )
    )
    if policy is not None:
        settings["implementationPlanRetention"] = policy
    return {
        "settings": settings,
        "thinking": draw(st.sampled_from(PI_THINKING)),
        "savedPlan": draw(st.one_of(st.none(), plans)),
        "events": _timed(events, gaps),
    }


@st.composite
def guaranteed_implementations(draw: st.DrawFn, policy: str = "keep") -> dict[str, Any]:
    """A script that implements one plan under `policy`, runs arbitrary
    middle events, ends with `/plan exit` or supersession, then assembles
    more contexts. Returns `{"input": ..., "plan": ..., "end": index}` where
    `end` is the index of the ending event."""
    plan = draw(plans)
    how = draw(st.sampled_from(["here", "fresh", "saved"]))
    if how == "saved":
        start: list[dict[str, Any]] = [{"type": "implement", "how": "saved"}]
        saved: str | None = plan
    else:
        start = [
            {"type": "plan.start"},
            {"type": "plan.run"},
            {"type": "plan.ready", "plan": plan},
            {"type": "implement", "how": how},
        ]
        saved = None
    middle = draw(st.lists(middle_events, max_size=15))
    end = [{"type": draw(st.sampled_from(["plan.exit", "supersede"]))}]
    after = draw(
        st.lists(st.one_of(_event("context"), _event("compaction"), _event("run.settled")), max_size=5)
    )
    events = start + middle + end + after
    return {
        "input": {
            "settings": {"implementationPlanRetention": policy},
            "savedPlan": saved,
            "events": events,
        },
        "plan": plan,
        "end": len(start) + len(middle),
    }


_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.", min_size=1, max_size=12).filter(
    lambda name: name not in {".", ".."}
)

#: Relative export paths of one to three components.
relative_paths = st.lists(_names, min_size=1, max_size=3).map("/".join)


@st.composite
def exports(draw: st.DrawFn) -> dict[str, Any]:
    """A `planmode.export.run` input with no pre-existing paths."""
    return {
        "cwd": "$CWD",
        "request": {"path": draw(st.one_of(st.none(), relative_paths, relative_paths.map("@".__add__)))},
        "settings": draw(st.fixed_dictionaries({}, optional={"defaultPlanExportPath": relative_paths})),
        "state": {"source": draw(st.sampled_from(["ready", "saved", "active"])), "plan": draw(plans)},
    }


@st.composite
def plan_thinking_round_trips(draw: st.DrawFn) -> dict[str, Any]:
    """Start Plan mode under a fixed or inherited level, do things that never
    touch Pi's thinking by hand, then leave Plan mode one way or another."""
    middle = draw(
        st.lists(
            st.one_of(
                _event("plan.run"),
                _event("context"),
                _event("compaction"),
                _event("reload"),
                _event("settings.save", settings=_settings_changes(with_retention=True)),
            ),
            max_size=6,
        )
    )
    leave = draw(
        st.sampled_from(
            [
                [{"type": "plan.exit"}],
                [{"type": "plan.ready", "plan": "# P"}, {"type": "plan.save"}],
                [{"type": "plan.ready", "plan": "# P"}, {"type": "implement", "how": "here"}],
                [{"type": "plan.ready", "plan": "# P"}, {"type": "export"}],
            ]
        )
    )
    return {
        "settings": {"thinkingLevel": draw(st.sampled_from(THINKING_SETTINGS))},
        "thinking": draw(st.sampled_from(PI_THINKING)),
        "events": [{"type": "plan.start"}, *middle, *leave],
    }


@st.composite
def shortcut_scripts(draw: st.DrawFn) -> dict[str, Any]:
    """Shortcut saves mixed with events that are not a new extension runtime."""
    events = draw(
        st.lists(
            st.one_of(
                _event("settings.save", settings=st.fixed_dictionaries({"toggleShortcut": _shortcuts})),
                _event(
                    "settings.save",
                    via=st.just("json"),
                    settings=st.fixed_dictionaries({"toggleShortcut": _shortcuts}),
                ),
                _event("tree.navigate"),
                _event("compaction"),
                _event("resume"),
                _event("plan.start"),
                _event("plan.exit"),
            ),
            max_size=10,
        )
    )
    startup = draw(_shortcuts)
    return {"settings": {} if startup is None else {"toggleShortcut": startup}, "events": events}
