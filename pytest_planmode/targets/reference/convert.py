"""The one way the reference's results become contract outputs.

Every output model reads its fields from the attributes of the reference's
frozen dataclasses (pydantic `from_attributes`), nested values included, so
a converter names only what the reference does not already call by the
contract's name. Inputs go the other way by the same rule (:func:`value`).
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)
D = TypeVar("D")


class _Overlay:
    """`source`'s attributes, with `overrides` taking precedence."""

    __slots__ = ("_overrides", "_source")

    def __init__(self, source: object, overrides: dict[str, Any]) -> None:
        self._source = source
        self._overrides = overrides

    def __getattr__(self, name: str) -> Any:
        overrides = object.__getattribute__(self, "_overrides")
        if name in overrides:
            return overrides[name]
        return getattr(object.__getattribute__(self, "_source"), name)


def output(model: type[M], source: object = None, /, **overrides: Any) -> M:
    """`model` read from the attributes of `source` (fields `source` lacks
    take their defaults), each keyword overriding one field."""
    if source is None:
        return model.model_validate(_Overlay(object(), overrides))
    return model.model_validate(_Overlay(source, overrides) if overrides else source)


def value(cls: type[D], source: object, /, **overrides: Any) -> D:
    """The reference dataclass `cls` read the same way from the attributes
    of a contract input: each field from the attribute of its name (a field
    `source` lacks keeps its default), each keyword overriding one."""
    given: dict[str, Any] = {}
    for f in fields(cls):  # type: ignore[arg-type]
        if f.name in overrides:
            given[f.name] = overrides[f.name]
        elif hasattr(source, f.name):
            given[f.name] = getattr(source, f.name)
        elif f.default is MISSING and f.default_factory is MISSING:
            raise TypeError(f"{type(source).__name__} has no {f.name!r} for {cls.__name__}")
    return cls(**given)
