"""The host events as the reference core's values: one contract class, one
reference class (:mod:`pytest_planmode.reference.host_events`), the same in
every operation that replays them. A translation here only changes the
shape (lists become tuples, session entries Pi's stored JSON objects); what
an event means is the handling core's business."""

from __future__ import annotations

import typing
from dataclasses import fields
from typing import Any

from pydantic import BaseModel

from pytest_planmode.contract import host_events as contract
from pytest_planmode.reference import host_events as reference


def members(union: Any) -> tuple[type[Any], ...]:
    """The classes of a (possibly `Annotated`) union."""
    if typing.get_origin(union) is typing.Annotated:
        union = typing.get_args(union)[0]
    return typing.get_args(union)


#: Each contract host event class and its one reference class (same name).
HOST_EVENTS: dict[type[Any], type[Any]] = {
    cls: getattr(reference, cls.__name__) for cls in members(contract.HostEvent)
}


def _plain(value: Any) -> Any:
    """A field's value as the core reads it: lists as tuples, models (session
    entries) as their JSON objects, camelCase keys."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, list):
        return tuple(_plain(item) for item in value)
    if isinstance(value, dict):
        return dict(value)
    return value


def host_event(event: Any) -> Any:
    """The reference value (a :data:`reference.HostEvent`) of one contract
    host event; typed loosely so that each operation's table reads it as the
    member of its own union."""
    cls = HOST_EVENTS[type(event)]
    return cls(**{f.name: _plain(getattr(event, f.name)) for f in fields(cls)})
