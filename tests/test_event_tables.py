"""Every script operation dispatches one way: the adapter turns each contract
event class into a reference event dataclass, and the reference keeps one
table from event class to handler. A contract event without a converter or a
reference event without a handler fails here, not in the middle of a run."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from typing import Any

import pytest

from pytest_planmode.contract import (
    oplmodes_models,
    oplmodes_modes,
    planmode_lifecycle,
    planmode_models,
    planmode_tools,
)
from pytest_planmode.reference.oplmodes import events as opl_events
from pytest_planmode.reference.oplmodes import lifecycle as opl_lifecycle
from pytest_planmode.reference.oplmodes import models_override
from pytest_planmode.reference.planmode import (
    lifecycle,
    models_switch,
    tools_authorize,
    tools_events,
)
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


TABLES = [
    # contract union, adapter converter table, reference event union, reference handler table
    (
        planmode_lifecycle.LifecycleEvent,
        lifecycle_ops._EVENTS,
        lifecycle.LifecycleEvent,
        lifecycle._EVENTS,
    ),
    (planmode_tools.ToolScriptEvent, tools_ops._EVENTS, tools_events.ToolEvent, tools_authorize._HANDLERS),
    (
        planmode_models.SessionEvent,
        models_ops._SESSION_EVENTS,
        models_switch.SessionEvent,
        models_switch._SESSION_EVENTS,
    ),
    (oplmodes_models.ModelEvent, opl_models_ops._EVENTS, models_override.Event, models_override._EVENTS),
    (oplmodes_modes.ModesEvent, opl_modes_ops._EVENTS, opl_events.SessionEvent, opl_lifecycle._EVENTS),
]


@pytest.mark.parametrize(("contract", "converters", "events", "handlers"), TABLES)
def test_every_event_is_converted_and_handled(
    contract: Any, converters: Mapping[type[Any], Any], events: Any, handlers: Mapping[type[Any], Any]
) -> None:
    assert set(converters) == _members(contract)
    assert set(handlers) == _members(events)
    for cls in _members(events):
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
