"""Every script operation dispatches one way: the adapter turns each contract
event class into one reference event dataclass, and the reference keeps one
table from event class to handler. A contract event without a converter or a
reference event without a handler fails here, not in the middle of a run.

One host event is one reference class: a host event (`contract.host_events`)
becomes the class of the same name in `reference.host_events`, the same one
in every operation that replays it; what it means there is the handling
core's business. A second class for a host event (a translation that makes
`session.resume` a `SessionResumed` for one core) fails here."""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Mapping
from typing import Any

import pydantic
import pytest

from pytest_planmode.contract import (
    host_events,
    oplmodes_models,
    oplmodes_modes,
    planmode_lifecycle,
    planmode_models,
    planmode_tools,
)
from pytest_planmode.reference import host_events as reference_host
from pytest_planmode.reference.oplmodes import events as opl_events
from pytest_planmode.reference.oplmodes import lifecycle as opl_lifecycle
from pytest_planmode.reference.oplmodes import models_override
from pytest_planmode.reference.planmode import (
    lifecycle,
    models_switch,
    tools_authorize,
    tools_events,
)
from pytest_planmode.targets.reference.host import HOST_EVENTS, host_event
from pytest_planmode.targets.reference.ops import oplmodes_models as opl_models_ops
from pytest_planmode.targets.reference.ops import oplmodes_modes as opl_modes_ops
from pytest_planmode.targets.reference.ops import planmode_lifecycle as lifecycle_ops
from pytest_planmode.targets.reference.ops import planmode_models as models_ops
from pytest_planmode.targets.reference.ops import planmode_tools as tools_ops


def _members(union: Any) -> set[type[Any]]:
    """The classes of a (possibly `Annotated`) union."""
    if typing.get_origin(union) is typing.Annotated:
        union = typing.get_args(union)[0]
    return set(typing.get_args(union))


#: Each script operation: its contract union, the adapter's converter table,
#: the reference event union and the reference handler table.
TABLES = {
    "planmode.lifecycle.run": (
        planmode_lifecycle.LifecycleEvent,
        lifecycle_ops._EVENTS,
        lifecycle.LifecycleEvent,
        lifecycle._EVENTS,
    ),
    "planmode.tools.authorize": (
        planmode_tools.ToolScriptEvent,
        tools_ops._EVENTS,
        tools_events.ToolEvent,
        tools_authorize._HANDLERS,
    ),
    "planmode.models.session": (
        planmode_models.SessionEvent,
        models_ops._SESSION_EVENTS,
        models_switch.SessionEvent,
        models_switch._SESSION_EVENTS,
    ),
    "oplmodes.models.script": (
        oplmodes_models.ModelEvent,
        opl_models_ops._EVENTS,
        models_override.Event,
        models_override._EVENTS,
    ),
    "oplmodes.modes.script": (
        oplmodes_modes.ModesEvent,
        opl_modes_ops._EVENTS,
        opl_events.SessionEvent,
        opl_lifecycle._EVENTS,
    ),
}

#: One valid event of each host event type (the fields a type requires).
SAMPLES: dict[str, dict[str, Any]] = {
    "session.start": {
        "flags": ["--plan"],
        "entries": [{"customType": "mode-switcher", "data": {"mode": "x"}}],
    },
    "agent.start": {"prompt": "go"},
    "agent.settle": {"outcome": "aborted"},
    "context": {},
    "tool.call": {"tool": "bash", "input": {"command": "ls"}, "via": "codemode"},
    "command": {"name": "plan", "args": "start"},
    "ui.answer": {"role": "execute", "plan": "auth"},
    "ui.show": {},
    "clock.advance": {"ms": 5},
    "session.reload": {},
    "session.resume": {"entries": [{"customType": "other", "data": 1}]},
    "session.new": {},
    "session.label": {"label": "here"},
    "session.tree": {"to": "here"},
    "key.press": {"key": "shift+tab"},
    "settings.write": {"settings": {"thinkingLevel": "high", "toggleShortcut": None}},
    "settings.screen": {"settings": {"defaultPlanExportPath": ""}},
    "extension.hold": {"handler": "h"},
    "extension.settle": {"handler": "h"},
    "agent.queue": {"prompt": "more"},
    "thinking.select": {"level": "low"},
    "session.compact": {},
    "session.restart": {},
    "cwd.change": {"cwd": "$CWD/sub"},
    "api.fail": {"call": "newSession"},
    "models.catalogue": {"scopedModels": ["a/1"]},
    "provider.change": {"model": "a/1", "auth": "hang", "changeLatencyMs": 40},
    "model.select": {"model": "a/1", "source": "cycle"},
    "settings.unreadable": {},
}

_HOST = pydantic.TypeAdapter(host_events.HostEvent)


def host_samples() -> dict[type[Any], Any]:
    """One validated instance of every contract host event class."""
    samples = {}
    for kind, fields in SAMPLES.items():
        event = _HOST.validate_python({"type": kind, "at": 7, **fields})
        samples[type(event)] = event
    return samples


def one_class_problems(tables: Mapping[str, tuple[Any, Mapping[type[Any], Any], Any, Any]]) -> list[str]:
    """Where a host event is not one reference class: a converter that
    makes it anything but the one value of `reference.host_events` of its
    name (another class, several values, none), or a reference union that
    holds a class for it besides that one."""
    problems = []
    samples = host_samples()
    for operation, (contract, converters, events, _) in tables.items():
        own = _members(contract) - set(samples)
        for cls in sorted(_members(contract) & set(samples), key=lambda c: c.__name__):
            made = converters[cls](samples[cls])
            wanted = getattr(reference_host, cls.__name__)
            if type(made) is not wanted:
                problems.append(
                    f"{operation}: {cls.__name__} becomes {type(made).__name__} "
                    f"({type(made).__module__}), not reference.host_events.{cls.__name__}"
                )
        # Every reference event is the host's own or stands for one event of
        # the operation's own: no class is a second one for a host event.
        extra = {e for e in _members(events) if e.__module__ != reference_host.__name__}
        if len(extra) != len(own):
            names = ", ".join(sorted(e.__name__ for e in extra))
            problems.append(
                f"{operation}: {len(extra)} reference events of its own ({names}) "
                f"for {len(own)} contract events of its own"
            )
    return problems


@pytest.mark.parametrize(("contract", "converters", "events", "handlers"), TABLES.values(), ids=list(TABLES))
def test_every_event_is_converted_and_handled(
    contract: Any, converters: Mapping[type[Any], Any], events: Any, handlers: Mapping[type[Any], Any]
) -> None:
    assert set(converters) == _members(contract)
    assert set(handlers) == _members(events)
    for cls in _members(events):
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_the_samples_cover_every_host_event() -> None:
    assert set(host_samples()) == _members(host_events.HostEvent)


def test_every_host_event_has_one_reference_class_of_its_name() -> None:
    assert set(HOST_EVENTS) == _members(host_events.HostEvent)
    assert {cls.__name__ for cls in _members(reference_host.HostEvent)} == {
        cls.__name__ for cls in HOST_EVENTS
    }
    for contract, reference in HOST_EVENTS.items():
        assert reference is getattr(reference_host, contract.__name__)
        assert dataclasses.is_dataclass(reference) and reference.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_a_host_event_is_one_reference_class_in_every_operation() -> None:
    assert one_class_problems(TABLES) == []


def test_a_second_class_for_a_host_event_is_found() -> None:
    """A planted translation of `session.resume` into a class of one core's own."""

    @dataclasses.dataclass(frozen=True)
    class SessionResumed:
        at: int = 0

    contract, converters, events, handlers = TABLES["oplmodes.modes.script"]
    planted = {**converters, host_events.SessionResume: lambda e: SessionResumed(e.at)}
    found = one_class_problems({**TABLES, "oplmodes.modes.script": (contract, planted, events, handlers)})
    assert found == [
        f"oplmodes.modes.script: SessionResume becomes SessionResumed ({SessionResumed.__module__}), "
        "not reference.host_events.SessionResume"
    ]
    # The same class declared in the core's union beside the host's.
    widened = events | SessionResumed
    found = one_class_problems({**TABLES, "oplmodes.modes.script": (contract, converters, widened, handlers)})
    assert len(found) == 1 and "4 reference events of its own" in found[0] and "SessionResumed" in found[0]


def test_a_host_event_made_into_several_values_is_found() -> None:
    contract, converters, events, handlers = TABLES["planmode.lifecycle.run"]
    planted = {**converters, host_events.AgentSettle: lambda e: [host_event(e), host_event(e)]}
    found = one_class_problems({**TABLES, "planmode.lifecycle.run": (contract, planted, events, handlers)})
    assert found == [
        "planmode.lifecycle.run: AgentSettle becomes list (builtins), not reference.host_events.AgentSettle"
    ]


@pytest.mark.parametrize("contract", sorted(HOST_EVENTS, key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_the_translation_keeps_every_field(contract: type[Any]) -> None:
    """Only the shape changes: each field carries the contract's value
    (lists as tuples, session entries as Pi's JSON objects)."""
    event = host_samples()[contract]
    made = host_event(event)
    for field in dataclasses.fields(made):
        given = getattr(event, field.name)
        if isinstance(given, list):
            given = tuple(
                g.model_dump(mode="json", by_alias=True) if isinstance(g, pydantic.BaseModel) else g
                for g in given
            )
        assert getattr(made, field.name) == given, field.name
    dropped = set(type(event).model_fields) - {f.name for f in dataclasses.fields(made)} - {"type"}
    assert not dropped, f"{contract.__name__} loses {dropped} on its way to the core"


def _readers() -> dict[str, set[str]]:
    """Each host event type -> the operations whose core handles it."""
    kinds = {cls: event.type for cls, event in host_samples().items()}
    readers: dict[str, set[str]] = {kind: set() for kind in kinds.values()}
    for operation, (contract, _, _, _) in TABLES.items():
        for cls in _members(contract) & set(kinds):
            readers[kinds[cls]].add(operation)
    return readers


#: The docstring's table of who reads each event now: its abbreviations.
READERS = {
    "L": "planmode.lifecycle.run",
    "T": "planmode.tools.authorize",
    "S": "planmode.models.session",
    "O": "oplmodes.modes.script",
    "M": "oplmodes.models.script",
}


def test_the_vocabulary_says_which_cores_read_each_event() -> None:
    """`reference/host_events.py` lists, per host event, the cores that read it."""
    doc = reference_host.__doc__ or ""
    section = doc.split("Who reads each event now", 1)[1]
    rows = dict(re.findall(r"^`([a-z.]+)`\s+([LTSOM ]+)$", section, flags=re.MULTILINE))
    listed = {kind: {READERS[letter] for letter in letters.split()} for kind, letters in rows.items()}
    assert listed == _readers()
