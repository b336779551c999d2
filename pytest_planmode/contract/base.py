"""Base classes for operation inputs and outputs, and the class of every
output field.

Every operation's wire shape is a pydantic model; the JSON Schemas a port
reads are generated from these models. JSON field names are camelCase.

Every output field is declared with :func:`effect` or :func:`explanation`:

*effect*
    what an implementation visibly does at the Pi extension boundary (hook
    return values, API calls and their arguments, messages, session entries,
    notifications as text, files and their bytes, registrations), or the
    verdict of a pure decision operation. Required: every answer carries it.
*explanation*
    a reason, cause, code, basis or internal state that helps people read a
    trace. Optional: absent is fine; present, it must have the right shape.
*screen*
    what the extension visibly shows the user through Pi's UI (a select's
    entries, an input's title and prefill, a notification, a status or
    widget text, the editor's text), in the order it showed them. An effect
    a host that records the UI reads back, so a `must` case may pin it where
    the spec states what is shown; optional, so an implementation without a
    screen (a decision library) may leave it out, and then a case that pins
    it fails naming the field.

The class is published in the JSON Schemas as ``"x-planmode": "effect"``,
``"x-planmode": "explanation"`` or ``"x-planmode": "screen"``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from pydantic.fields import FieldInfo

FieldClass = Literal["effect", "explanation", "screen"]

#: The JSON Schema keyword that carries a field's class.
CLASS_KEYWORD = "x-planmode"


class ContractInput(BaseModel):
    """An operation's input: unknown fields are an error, so a typo in a
    fixture is caught by `planmode fixtures lint` rather than ignored."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)


class ContractOutput(BaseModel):
    """An operation's output: a target may add fields beyond the contract.
    An output can be read from any object carrying its fields as attributes
    (`from_attributes`), which is how the reference's adapter builds one."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", frozen=True, from_attributes=True
    )


class _Classed:
    """`json_schema_extra` of a classified field: writes the class into the
    field's schema (an explanation's placeholder default is not part of the
    wire, so it is left out)."""

    def __init__(self, kind: FieldClass, extra: dict[str, Any] | None) -> None:
        self.kind = kind
        self.extra = dict(extra or {})

    def __call__(self, schema: dict[str, Any]) -> None:
        schema.update(self.extra)
        schema[CLASS_KEYWORD] = self.kind
        if self.kind != "effect":
            schema.pop("default", None)


def effect(*, description: str | None = None, schema: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    """An effect field: visible at the Pi extension boundary, or a pure
    decision's verdict. It has no default: every answer must carry it."""
    for forbidden in ("default", "default_factory"):
        if forbidden in kwargs:
            raise TypeError(f"an effect field is required: it takes no {forbidden}")
    return Field(description=description, json_schema_extra=_Classed("effect", schema), **kwargs)


def explanation(
    *, description: str | None = None, schema: dict[str, Any] | None = None, **kwargs: Any
) -> Any:
    """An explanation field: why the reference did what it did (a reason,
    cause, code, basis or internal state). Optional: an answer may leave it
    out; the in-memory placeholder of an absent one is None."""
    for forbidden in ("default", "default_factory"):
        if forbidden in kwargs:
            raise TypeError(
                f"an explanation field is optional and absent by default: it takes no {forbidden}"
            )
    return Field(
        default=None, description=description, json_schema_extra=_Classed("explanation", schema), **kwargs
    )


def screen(*, description: str | None = None, schema: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    """A screen field: what the extension showed the user (see the module's
    docstring). Optional like an explanation, pinned like an effect."""
    for forbidden in ("default", "default_factory"):
        if forbidden in kwargs:
            raise TypeError(f"a screen field is optional and absent by default: it takes no {forbidden}")
    return Field(
        default=None, description=description, json_schema_extra=_Classed("screen", schema), **kwargs
    )


def field_class(info: FieldInfo) -> FieldClass | None:
    """The class a field was declared with, or None when it has none."""
    extra = info.json_schema_extra
    return extra.kind if isinstance(extra, _Classed) else None


def field_classes(model: type[BaseModel]) -> dict[str, FieldClass | None]:
    """The class of each of `model`'s own fields, by wire (camelCase) name."""
    return {info.alias or name: field_class(info) for name, info in model.model_fields.items()}
