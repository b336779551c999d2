"""What an implementation seen from outside can answer: the class of every
output field (`contract.base.effect` / `explanation` / `screen`), followed
through nested models, lists, maps and unions.

A `screen` field (what the extension showed the user) counts as an effect
everywhere here: a `must` case may pin it, and it stays in an answer with
the explanations left out. It is optional, so it is not a missing effect.

Four questions are answered here, all by walking an output model beside a
JSON value:

- :func:`explanation_pins`: which explanation fields does a case's
  `expect` pin? (A `must` case may pin none; a target that observes effects
  only skips a case that pins one.)
- :func:`effects_only`: an answer with every explanation field left out.
- :func:`missing_effects`: which effect fields does an answer lack?
- :func:`effect_mismatches`: does an answer that fails a case still fail
  it with every explanation field left out?
- :func:`screen_pins`: which screen fields does a case's `expect` pin?

Paths are written as in mismatch messages: `verdicts[].reason`,
`modes.review.toolsSource`.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from pytest_planmode.contract.base import FieldClass, field_class
from pytest_planmode.matching import HAS, UNORDERED, mismatches


def _alternatives(annotation: Any) -> list[Any]:
    """The members of a union (Optional included), Annotated unwrapped."""
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        return _alternatives(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        found: list[Any] = []
        for arg in get_args(annotation):
            found.extend(_alternatives(arg))
        return found
    return [annotation]


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


@dataclass(frozen=True)
class Shape:
    """The structure an annotation allows for a JSON value: the models an
    object may be, the element shape of a list, the value shape of a map."""

    models: tuple[type[BaseModel], ...] = ()
    items: Shape | None = None
    values: Shape | None = None


def shape_of(annotation: Any) -> Shape:
    models: list[type[BaseModel]] = []
    items: list[Any] = []
    values: list[Any] = []
    for alt in _alternatives(annotation):
        origin = get_origin(alt)
        if _is_model(alt):
            models.append(alt)
        elif origin in (list, tuple, set, frozenset):
            items.extend(a for a in get_args(alt)[:1])
        elif origin is dict:
            args = get_args(alt)
            if len(args) == 2:
                values.append(args[1])
    return Shape(
        models=tuple(models),
        items=shape_of(Union[tuple(items)]) if items else None,  # noqa: UP007
        values=shape_of(Union[tuple(values)]) if values else None,  # noqa: UP007
    )


def _type_literal(model: type[BaseModel]) -> tuple[Any, ...] | None:
    info = model.model_fields.get("type")
    if info is None:
        return None
    args = [a for a in _alternatives(info.annotation) if get_origin(a) is Literal]
    return tuple(v for a in args for v in get_args(a)) if args else None


def _candidates(models: tuple[type[BaseModel], ...], value: dict[str, Any]) -> tuple[type[BaseModel], ...]:
    """The union members a JSON object can be: narrowed by its `type`."""
    kind = value.get("type")
    if kind is None or len(models) < 2:
        return models
    narrowed = tuple(m for m in models if (lits := _type_literal(m)) is None or kind in lits)
    return narrowed or models


def _fields(models: tuple[type[BaseModel], ...], key: str) -> list[tuple[FieldClass | None, Any]]:
    out = []
    for model in models:
        for name, info in model.model_fields.items():
            if (info.alias or name) == key:
                out.append((field_class(info), info.annotation))
    return out


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _walk_pins(shape: Shape, expected: Any, path: str, kind: FieldClass = "explanation") -> Iterator[str]:
    if isinstance(expected, dict) and len(expected) == 1 and isinstance(expected.get(UNORDERED), list):
        expected = expected[UNORDERED]
    if isinstance(expected, dict) and len(expected) == 1 and isinstance(expected.get(HAS), list):
        expected = expected[HAS]
    if isinstance(expected, list) and shape.items is not None:
        for item in expected:
            yield from _walk_pins(shape.items, item, f"{path}[]", kind)
    elif isinstance(expected, dict) and shape.models:
        candidates = _candidates(shape.models, expected)
        for key, value in expected.items():
            fields = _fields(candidates, key)
            if any(cls == kind for cls, _ in fields):
                yield _join(path, key)
                continue
            for _, annotation in fields:
                yield from _walk_pins(shape_of(annotation), value, _join(path, key), kind)
    elif isinstance(expected, dict) and shape.values is not None:
        for key, value in expected.items():
            yield from _walk_pins(shape.values, value, _join(path, key), kind)


def explanation_pins(output: type[BaseModel], expect: dict[str, Any]) -> list[str]:
    """Every explanation field `expect` pins, in order, without repeats."""
    return list(dict.fromkeys(_walk_pins(Shape(models=(output,)), expect, "")))


def screen_pins(output: type[BaseModel], expect: dict[str, Any]) -> list[str]:
    """Every screen field `expect` pins, in order, without repeats."""
    return list(dict.fromkeys(_walk_pins(Shape(models=(output,)), expect, "", "screen")))


def _strip(shape: Shape, value: Any) -> Any:
    if isinstance(value, list) and shape.items is not None:
        return [_strip(shape.items, item) for item in value]
    if isinstance(value, dict) and len(value) == 1 and isinstance(value.get(UNORDERED), list) and shape.items:
        # An expected set (`{"$unordered": [...]}`) is stripped item by item.
        return {UNORDERED: [_strip(shape.items, item) for item in value[UNORDERED]]}
    if isinstance(value, dict) and len(value) == 1 and isinstance(value.get(HAS), list) and shape.items:
        return {HAS: [_strip(shape.items, item) for item in value[HAS]]}
    if isinstance(value, dict) and shape.models:
        candidates = _candidates(shape.models, value)
        out: dict[str, Any] = {}
        for key, item in value.items():
            fields = _fields(candidates, key)
            if any(cls == "explanation" for cls, _ in fields):
                continue
            out[key] = item
            for _, annotation in fields[:1]:
                out[key] = _strip(shape_of(annotation), item)
        return out
    if isinstance(value, dict) and shape.values is not None:
        return {key: _strip(shape.values, item) for key, item in value.items()}
    return value


def effects_only(output: type[BaseModel], answer: dict[str, Any]) -> dict[str, Any]:
    """`answer` with every explanation field (at any depth) left out."""
    stripped = _strip(Shape(models=(output,)), answer)
    assert isinstance(stripped, dict)
    return stripped


def effect_mismatches(output: type[BaseModel], expect: dict[str, Any], answer: dict[str, Any]) -> list[str]:
    """The mismatches of `answer` against a case's `expect` that remain
    when every explanation field is left out of both: what a case limited
    to effects would still see. Empty while `mismatches(expect, answer)` is
    not: the answer differs in explanation fields only."""
    return mismatches(effects_only(output, expect), effects_only(output, answer))


def _walk_missing(shape: Shape, value: Any, path: str) -> Iterator[str]:
    if isinstance(value, list) and shape.items is not None:
        for index, item in enumerate(value):
            yield from _walk_missing(shape.items, item, f"{path}[{index}]")
    elif isinstance(value, dict) and shape.models:
        candidates = _candidates(shape.models, value)
        model = candidates[0] if len(candidates) == 1 else None
        if model is not None:
            for name, info in model.model_fields.items():
                key = info.alias or name
                if field_class(info) == "effect" and key not in value:
                    yield _join(path, key)
        for key, item in value.items():
            for cls, annotation in _fields(candidates, key)[:1]:
                if cls == "effect":
                    yield from _walk_missing(shape_of(annotation), item, _join(path, key))
    elif isinstance(value, dict) and shape.values is not None:
        for key, item in value.items():
            yield from _walk_missing(shape.values, item, _join(path, key))


def missing_effects(output: type[BaseModel], answer: dict[str, Any]) -> list[str]:
    """Every effect field an answer lacks, in any object it holds that is
    reached through effect fields."""
    return list(_walk_missing(Shape(models=(output,)), answer, "output"))


@dataclass(frozen=True)
class FieldRow:
    """One field of an output, for `planmode explain --operation`."""

    path: str
    cls: FieldClass | None
    required: bool
    description: str | None


def field_rows(output: type[BaseModel]) -> list[FieldRow]:
    """Every field of `output` and of the models nested in it, depth first,
    under every path that reaches it (a model never nests itself here; the
    ancestor check only guards against it)."""
    rows: list[FieldRow] = []
    ancestors: list[type[BaseModel]] = []

    def visit(shape: Shape, path: str) -> None:
        if shape.items is not None:
            visit(shape.items, f"{path}[]")
        if shape.values is not None:
            visit(shape.values, f"{path}.*")
        for model in shape.models:
            if model in ancestors:
                continue
            ancestors.append(model)
            prefix = path
            if len(shape.models) > 1 and (lits := _type_literal(model)):
                prefix = f"{path}{{type={'|'.join(str(v) for v in lits)}}}"
            for name, info in model.model_fields.items():
                key = _join(prefix, info.alias or name)
                rows.append(FieldRow(key, field_class(info), info.is_required(), info.description))
                visit(shape_of(info.annotation), key)
            ancestors.pop()

    visit(Shape(models=(output,)), "")
    return rows


def output_models(output: type[BaseModel]) -> list[tuple[type[BaseModel], bool]]:
    """Every model reachable from `output`, each with whether it is reached
    through effect fields only (the models whose effect fields every answer
    must carry)."""
    found: dict[type[BaseModel], bool] = {}

    def visit(shape: Shape, effect_path: bool) -> None:
        if shape.items is not None:
            visit(shape.items, effect_path)
        if shape.values is not None:
            visit(shape.values, effect_path)
        for model in shape.models:
            known = found.get(model)
            if known is not None and (known or not effect_path):
                continue
            found[model] = effect_path or bool(known)
            for info in model.model_fields.values():
                visit(shape_of(info.annotation), effect_path and field_class(info) == "effect")

    visit(Shape(models=(output,)), True)
    return list(found.items())
