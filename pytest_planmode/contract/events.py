"""The event-script vocabulary shared by every stateful operation.

A stateful behaviour (reinjection across runs, thinking restore, serialized
saves, fallback chains, mode resume) is tested as an *event script*: a list
of events on a virtual clock, answered by an *observation trace*. Time is
virtual: no implementation sleeps; an event that says "authentication
answers after 2500 ms" is a statement about the virtual clock.

An event's instant ``at`` (milliseconds) is optional: an event without one
happens at the clock's current instant, which is the previous event's
instant plus any ``clock.advance`` in between. Scripts give instants only
where the spec times something (the 2 s budgets); elsewhere events are
simply ordered.

Each area declares its own event and observation types by subclassing
:class:`ScriptEvent` and :class:`Observation` with a ``type`` literal, and
combines them into a discriminated union for its operation's input. The
envelope (``at``, ``type``, non-decreasing instants) is the same everywhere.
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from pytest_planmode.contract.base import effect


class ScriptEvent(BaseModel):
    """One event of a script: ``at`` is its virtual instant in milliseconds."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)

    at: int = Field(
        default=0,
        ge=0,
        description=(
            "Virtual instant, in milliseconds. Optional: by default the previous event's "
            "instant plus any `clock.advance` since."
        ),
    )
    type: str


def _stamp(events: list[Any]) -> list[Any]:
    """Give each raw event without `at` the clock's current instant: the last
    instant seen, moved on by `clock.advance` events (`ms`)."""
    clock = 0
    stamped: list[Any] = []
    for event in events:
        if isinstance(event, dict):
            given = event.get("at")
            if isinstance(given, int) and not isinstance(given, bool):
                clock = given
            elif given is None:
                if event.get("type") == "clock.advance" and isinstance(event.get("ms"), int):
                    clock += event["ms"]
                event = {**event, "at": clock}
        elif isinstance(event, ScriptEvent):
            clock = event.at
        stamped.append(event)
    return stamped


class Observation(BaseModel):
    """One entry of a trace: what an implementation did, and when. Its
    fields carry their class (see `contract.base`): `at` and `type` are
    effects."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", frozen=True, from_attributes=True
    )

    at: int = effect(ge=0, description="Virtual instant, in milliseconds.")
    type: str = effect()


E = TypeVar("E", bound=ScriptEvent)


class EventScript(BaseModel, Generic[E]):
    """A script: events in non-decreasing virtual time."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)

    events: list[E]

    #: The roles a `ui.answer` may name in this operation's menus (role ->
    #: what the item does); empty: its menus are answered by label or
    #: position only.
    menu_roles: ClassVar[dict[str, str]] = {}
    #: Whether a `ui.answer` may name an item by position here (an
    #: operation whose answers are typed paths or text takes labels only).
    menu_positions: ClassVar[bool] = False

    @model_validator(mode="before")
    @classmethod
    def _instants(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("events"), list):
            return {**data, "events": _stamp(data["events"])}
        return data

    @model_validator(mode="after")
    def _ordered(self) -> EventScript[E]:
        last = 0
        for index, event in enumerate(self.events):
            if event.at < last:
                raise ValueError(
                    f"events[{index}] ({event.type}) is at {event.at} ms, before the "
                    f"previous event at {last} ms: a script's instants never go back"
                )
            last = event.at
        return self

    @model_validator(mode="after")
    def _answers(self) -> EventScript[E]:
        for index, event in enumerate(self.events):
            if event.type != "ui.answer":
                continue
            where = f"events[{index}] (ui.answer)"
            given = event.model_fields_set
            if "index" in given and not self.menu_positions:
                raise ValueError(f"{where}: this operation's menus are answered by label, not by position")
            role = getattr(event, "role", None)
            if role is not None and role not in self.menu_roles:
                if not self.menu_roles:
                    raise ValueError(f"{where}: this operation's menus have no roles; answer by label")
                known = ", ".join(f"{name} ({what})" for name, what in self.menu_roles.items())
                raise ValueError(f"{where}: no role {role!r} here; the roles are {known}")
        return self


__all__ = ["EventScript", "Observation", "ScriptEvent"]
