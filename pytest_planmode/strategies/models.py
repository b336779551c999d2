"""Strategies for model switching: pi-plan-mode fallback chains with per-model
behaviour on a virtual clock, and opl-modes mode/model event scripts.

Every strategy yields a plain JSON-ready input dict for the operation it
names, so a port can reuse them against its own adapter.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

#: The authentication budget every candidate gets (ms).
BUDGET_MS = 2000

CURRENT = "cur/model"
POOL = ("p0/a", "p1/b", "p2/c", "p3/d", "p4/e")

#: Latencies around the budget plus arbitrary ones. The exact 2,000 ms
#: boundary is a reference choice, so `unambiguous_latencies` leaves it out.
unambiguous_latencies = st.one_of(
    st.sampled_from([0, 1, 1999, 2001, 2500]),
    # 0..6000 without the budget itself, built so (not filtered).
    st.integers(min_value=0, max_value=5999).map(lambda n: n + 1 if n >= BUDGET_MS else n),
)


#: Each Plan boundary as the host action that is it (the `trigger` of
#: `planmode.models.switch`; `implement` is the ready menu's Implement here).
TRIGGERS: dict[str, dict[str, Any]] = {
    "plan.start": {"type": "command", "name": "plan", "args": "start"},
    "plan.exit": {"type": "command", "name": "plan", "args": "exit"},
    "plan.save": {"type": "ui.answer", "label": "Save for later"},
    "implement": {"type": "ui.answer", "label": "Implement here"},
    "implement.fresh": {"type": "ui.answer", "label": "Start"},
    "implement.saved": {"type": "command", "name": "plan", "args": "implement"},
}

#: The model's `plan_mode_complete` call in a Plan-mode run: the plan is
#: ready, and the ready menu opens when the run settles.
PROPOSE: tuple[dict[str, Any], ...] = (
    {"type": "agent.start"},
    {"type": "tool.call", "tool": "plan_mode_complete", "input": {"plan": "Plan."}},
    {"type": "agent.settle"},
)


def is_transition(event: dict[str, Any]) -> bool:
    """Whether a session script's event is a Plan boundary (the ready menu's
    Start fresh and implement only opens the fresh screen)."""
    return any({**event, "at": 0} == {**t, "at": 0} for t in TRIGGERS.values())


def as_trigger(event: dict[str, Any]) -> dict[str, Any]:
    """A session script's boundary event as a `planmode.models.switch` trigger."""
    return {k: v for k, v in event.items() if k != "at"}


def _ref(key: str) -> dict[str, str]:
    provider, _, model_id = key.partition("/")
    return {"provider": provider, "modelId": model_id}


# The strategies the composite strategies below draw from, built once: a
# strategy built inside a draw is built (and validated) again for every
# example, which costs more than the draw itself.
_MOSTLY_TRUE = st.sampled_from([True, True, True, False])
_AUTH = st.sampled_from(["ok", "ok", "fail", "throw", "hang"])
_CHANGES = {
    False: st.sampled_from(["accept", "accept", "refuse", "throw"]),
    True: st.sampled_from(["accept", "accept", "refuse", "throw", "hang"]),
}
_CHANGE_LATENCIES = st.integers(min_value=0, max_value=500)


@st.composite
def behaviour(draw: st.DrawFn, *, hang_changes: bool = False) -> dict[str, Any]:
    """One model's behaviour: resolution, authentication, credentials, model change."""
    return {
        "resolves": draw(_MOSTLY_TRUE),
        "auth": draw(_AUTH),
        "authLatencyMs": draw(unambiguous_latencies),
        "credentials": draw(_MOSTLY_TRUE),
        "change": draw(_CHANGES[hang_changes]),
        "changeLatencyMs": draw(_CHANGE_LATENCIES),
    }


_BEHAVIOURS = {False: behaviour(), True: behaviour(hang_changes=True)}
_CHAINS = st.lists(st.sampled_from(POOL), min_size=1, max_size=5)
_ONE_IN_SIX = st.integers(min_value=0, max_value=5)
_POOL_SUBSETS = st.lists(st.sampled_from(POOL), unique=True)
_SCOPES: st.SearchStrategy[list[str]] = st.one_of(st.just([]), _POOL_SUBSETS)
_BOUNDARIES = st.sampled_from(["plan.start", "plan.exit", "plan.save", "implement"])
_IMPLEMENTS = st.sampled_from(["implement", "implement.fresh"])
_THINKING = st.sampled_from(["off", "low", "medium", "high"])


@st.composite
def switch_inputs(
    draw: st.DrawFn,
    *,
    trigger: str | None = None,
    hang_changes: bool = False,
    all_hang: bool = False,
) -> dict[str, Any]:
    """An input of `planmode.models.switch` with auto switching enabled and a
    chain of 1-6 candidates (duplicates possible; the current model, which is
    always in the catalogue, possibly leading)."""
    pool = (*POOL, CURRENT)
    chain = draw(_CHAINS)
    if draw(_ONE_IN_SIX) == 0:
        # The active model only ever leads the chain here: what happens when a
        # later candidate is the active one is a reference choice.
        chain.insert(0, CURRENT)
    models = {key: draw(_BEHAVIOURS[hang_changes]) for key in pool}
    if all_hang:
        for key in POOL:
            models[key]["auth"] = "hang"
    models[CURRENT]["resolves"] = True
    available = [*draw(_POOL_SUBSETS), CURRENT]
    scoped = draw(_SCOPES)
    if scoped:
        scoped.append(CURRENT)
    chosen = trigger or draw(_BOUNDARIES)
    if chosen == "implement":
        chosen = draw(_IMPLEMENTS)
    field = "planModel" if chosen == "plan.start" else "normalModel"
    settings: dict[str, Any] = {"autoSwitchModel": True, field: [_ref(k) for k in chain]}
    data: dict[str, Any] = {
        "trigger": TRIGGERS[chosen],
        "settings": settings,
        "currentModel": CURRENT,
        "thinkingLevel": draw(_THINKING),
        "availableModels": available,
        "scopedModels": scoped,
        "models": models,
    }
    return data


def chain_of(data: dict[str, Any]) -> list[str]:
    """The configured chain of a `switch_inputs` example, as model keys."""
    field = "planModel" if data["trigger"] == TRIGGERS["plan.start"] else "normalModel"
    return [f"{m['provider']}/{m['modelId']}" for m in data["settings"][field]]


_SESSION_BASES = switch_inputs(trigger="plan.start")
_NORMAL_CHAINS = st.lists(st.sampled_from(POOL), min_size=1, max_size=4)
_INSTANTS = st.lists(st.integers(min_value=0, max_value=12000), min_size=1, max_size=5)
_PLANNING_ENDS = st.sampled_from(["plan.exit", "plan.save", "implement", "implement.fresh"])


@st.composite
def session_inputs(draw: st.DrawFn) -> dict[str, Any]:
    """An input of `planmode.models.session`: both directions configured and
    1-5 Plan boundaries at random instants, each one the user can make from
    where the previous left the extension (no world changes)."""
    base = draw(_SESSION_BASES)
    normal = draw(_NORMAL_CHAINS)
    base["settings"]["normalModel"] = [_ref(k) for k in normal]
    instants = sorted(draw(_INSTANTS))
    events: list[dict[str, Any]] = []
    state = "normal"
    for at in instants:
        if state == "normal":
            events.append({"at": at, **TRIGGERS["plan.start"]})
            state = "planning"
        elif state == "saved":
            events.append({"at": at, **TRIGGERS["implement.saved"]})
            state = "normal"
        else:
            choice = draw(_PLANNING_ENDS)
            if choice != "plan.exit":
                events.extend({"at": at, **e} for e in PROPOSE)
            if choice == "implement.fresh":
                events.append({"at": at, "type": "ui.answer", "label": "Start fresh and implement"})
            events.append({"at": at, **TRIGGERS[choice]})
            state = "saved" if choice == "plan.save" else "normal"
    base.pop("trigger")
    base["events"] = events
    return base


_FRESH_BASES = switch_inputs(trigger="implement")
_FRESH_ACTIONS = st.sampled_from(["screen", "saved-direct"])
_ALL_MODELS = st.sampled_from((*POOL, CURRENT))
_ALL_MODEL_SUBSETS = st.lists(_ALL_MODELS, unique=True)


@st.composite
def fresh_inputs(draw: st.DrawFn) -> dict[str, Any]:
    """An input of `planmode.models.fresh` (the ready-plan screen)."""
    base = draw(_FRESH_BASES)
    data = {
        "action": draw(_FRESH_ACTIONS),
        "settings": base["settings"],
        "currentModel": CURRENT,
        "thinkingLevel": base["thinkingLevel"],
        "availableModels": base["availableModels"],
        "scopedModels": base["scopedModels"],
        "models": base["models"],
        "startAvailableModels": draw(_ALL_MODEL_SUBSETS),
    }
    if draw(_BOOLEANS):
        data["pick"] = draw(_ALL_MODELS)
    return data


OPL_MODES = ("alpha", "beta", "gamma", "plain")
OPL_MODELS = ("base/model", "alpha/model", "beta/model", "gamma/model")
#: `/mode normal`: leave the mode (opl-modes.md § Commands, flags, and shortcuts).
OPL_EXIT: dict[str, Any] = {"type": "command", "name": "mode", "args": "normal"}


_BOOLEANS = st.booleans()
_OPL_TIMES = st.lists(st.integers(min_value=0, max_value=3000), min_size=1, max_size=12)
_ONE_IN_FIVE = st.integers(min_value=0, max_value=4)
_OPL_MODE_NAMES = st.sampled_from(OPL_MODES)
_OPL_LATENCIES = st.integers(min_value=0, max_value=800)


@st.composite
def opl_scripts(draw: st.DrawFn, *, end_in_off: bool = True) -> dict[str, Any]:
    """An input of `oplmodes.models.script`: modes alpha, beta, gamma override
    their model, `plain` has none; random latencies; enter/exit events at
    random instants; every model has credentials and OFF is not pinned."""
    times = draw(_OPL_TIMES)
    events: list[dict[str, Any]] = []
    for at in sorted(times):
        if draw(_ONE_IN_FIVE) == 0:
            events.append({"at": at, **OPL_EXIT})
        else:
            events.append({"at": at, "type": "command", "name": "mode", "args": draw(_OPL_MODE_NAMES)})
    if end_in_off:
        events.append({"at": (events[-1]["at"] if events else 0) + 1, **OPL_EXIT})
    return {
        "initialModel": "base/model",
        "registry": [{"model": m, "changeLatencyMs": draw(_OPL_LATENCIES)} for m in OPL_MODELS],
        "modes": {
            "alpha": {"model": {"provider": "alpha", "id": "model"}},
            "beta": {"model": {"provider": "beta", "id": "model"}},
            "gamma": {"model": {"provider": "gamma", "id": "model"}},
            "plain": {},
        },
        "events": events,
    }


__all__ = [
    "BUDGET_MS",
    "CURRENT",
    "OPL_EXIT",
    "POOL",
    "PROPOSE",
    "TRIGGERS",
    "as_trigger",
    "behaviour",
    "chain_of",
    "fresh_inputs",
    "is_transition",
    "opl_scripts",
    "session_inputs",
    "switch_inputs",
    "unambiguous_latencies",
]
