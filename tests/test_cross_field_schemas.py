"""The cross-field rules of the input models are stated in the published
schemas (`contract.cross_field`): for inputs varying the fields each rule
relates, the published schema accepts exactly what the model accepts."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ValidationError
from schema_check import errors

from pytest_planmode.contract import operations
from pytest_planmode.contract.cross_field import RULES, rules_of
from pytest_planmode.contract.host_events import HostVocabulary
from pytest_planmode.contract.planmode_settings import FileEntry

ABSENT = object()


def variants(pools: dict[str, list[Any]]) -> Iterator[dict[str, Any]]:
    """Every combination of the pools' values, `ABSENT` leaving a field out."""
    names = list(pools)
    for values in itertools.product(*(pools[n] for n in names)):
        yield {n: v for n, v in zip(names, values, strict=True) if v is not ABSENT}


def _content_size(entry: dict[str, Any]) -> int:
    if isinstance(entry.get("text"), str):
        return len(entry["text"].encode())
    return {"": 0, "eA==": 1}.get(entry.get("base64") or "", 0)


def _file_entries() -> Iterator[dict[str, Any]]:
    for entry in variants(
        {
            "kind": ["file", "directory", "symlink", "unreadable"],
            "text": [ABSENT, None, "", "x"],
            "base64": [ABSENT, None, "", "eA==", "e", "eA"],
            "fill": [ABSENT, {}, {"A": {"unit": "a", "count": 0}}],
            "padToBytes": [ABSENT, None, 0, 40],
            "to": [ABSENT, None, "file"],
        }
    ):
        pad = entry.get("padToBytes")
        if entry["kind"] == "file" and isinstance(pad, int) and _content_size(entry) > pad:
            continue  # the one rule of FileEntry stated in words only
        yield entry


#: Per rule-carrying model: the published schema, how a varied part sits in
#: a whole input, the model that validates that input, and the variants.
CASES: dict[
    str,
    tuple[
        str,
        Callable[[dict[str, Any]], dict[str, Any]],
        type[BaseModel],
        Callable[[], Iterator[dict[str, Any]]],
    ],
] = {
    "FileEntry": (
        "operations/planmode.settings.load.input.schema.json",
        lambda entry: {"files": {"pi-plan-mode.json": entry}},
        operations()["planmode.settings.load"].input,
        _file_entries,
    ),
    "SaveEdit": (
        "operations/planmode.settings.save.input.schema.json",
        lambda edit: {"edits": [edit]},
        operations()["planmode.settings.save"].input,
        lambda: variants(
            {
                "field": ["planFolder"],
                "value": [ABSENT, None, "x", 1],
                "reset": [ABSENT, False, True, None, "true"],
            }
        ),
    ),
    "ConfigLoadInput": (
        "operations/oplmodes.config.load.input.schema.json",
        lambda whole: whole,
        operations()["oplmodes.config.load"].input,
        lambda: variants({"document": [ABSENT, None, {}, "x"], "text": [ABSENT, None, "{}", 3]}),
    ),
    "ToolCall": (
        "events/host.schema.json",
        lambda call: {"events": [{"type": "tool.call", **call}]},
        HostVocabulary,
        lambda: variants(
            {
                "tool": ["bash", "powershell", "read", ABSENT],
                "input": [ABSENT, {}, {"command": "ls"}, {"command": 3}, {"path": "x"}, "ls"],
            }
        ),
    ),
    "UiAnswer": (
        "operations/oplmodes.modes.script.input.schema.json",
        lambda answer: {"events": [{"type": "ui.answer", **answer}]},
        operations()["oplmodes.modes.script"].input,
        lambda: variants(
            {
                "label": [ABSENT, None, "Execute"],
                "index": [ABSENT, 0],
                "role": [ABSENT, "refine"],
                "plan": [ABSENT, None, "auth"],
            }
        ),
    ),
    "SessionTree": (
        "events/host.schema.json",
        lambda tree: {"events": [{"type": "session.tree", **tree}]},
        HostVocabulary,
        lambda: variants(
            {
                "to": [ABSENT, None, "here", ""],
                "entries": [ABSENT, None, [], [{"type": "custom"}], "x"],
            }
        ),
    ),
}


def model_accepts(model: type[BaseModel], document: dict[str, Any]) -> bool:
    try:
        model.model_validate(document, strict=True)
    except ValidationError:
        return False
    return True


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_published_schema_accepts_exactly_what_the_model_accepts(name: str) -> None:
    schema, place, model, generated = CASES[name]
    disagree: list[str] = []
    verdicts = []
    for part in generated():
        document = place(part)
        by_schema = not errors(schema, document)
        by_model = model_accepts(model, document)
        verdicts.append(by_model)
        if by_schema != by_model:
            disagree.append(f"{part}: schema {'accepts' if by_schema else 'rejects'}, model the opposite")
    assert True in verdicts and False in verdicts, f"{name}: the variants do not exercise the rule"
    assert not disagree, f"{name}: {len(disagree)} of {len(verdicts)} disagree:\n" + "\n".join(disagree[:20])


def test_every_rule_stated_as_schema_is_exercised_and_each_is_in_the_descriptions() -> None:
    stated = {model.__name__ for model, rules in RULES.items() if any(r.schema is not None for r in rules)}
    assert stated == set(CASES)
    from pytest_planmode.schemas_export import generate

    schemas = generate()
    entry = schemas["operations/planmode.settings.load.input.schema.json"]["$defs"]["FileEntry"]
    for rule in rules_of(FileEntry):
        assert rule.text in entry["description"]
    authorize = schemas["operations/planmode.tools.authorize.input.schema.json"]["description"]
    assert "non-decreasing virtual time" in authorize and "inside an agent run" in authorize


def test_without_the_stated_rules_the_schema_accepts_what_the_model_rejects() -> None:
    """The check above can fail: the schema of a model whose rule is not
    stated accepts an edit with both `value` and `reset = true`."""
    schema, place, model, _ = CASES["SaveEdit"]
    both = place({"field": "planFolder", "value": 1, "reset": True})
    assert errors(schema, both) and not model_accepts(model, both)
    bare = operations()["planmode.settings.save"].input.model_json_schema(by_alias=True)
    assert Draft202012Validator(bare).is_valid(both)


def _validated_models() -> set[type[BaseModel]]:
    """Every contract input model that defines a model validator of its own
    (the settings documents' models are data a reader judges, not inputs)."""
    import importlib
    import inspect
    import pkgutil

    import pytest_planmode.contract as contract_package
    from pytest_planmode.contract.base import ContractInput
    from pytest_planmode.contract.events import EventScript, ScriptEvent

    found: set[type[BaseModel]] = set()
    for info in pkgutil.iter_modules(contract_package.__path__):
        module = importlib.import_module(f"{contract_package.__name__}.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            inputs = (ContractInput, EventScript, ScriptEvent)
            if not issubclass(cls, inputs) or "[" in cls.__qualname__:
                continue
            validators = cls.__pydantic_decorators__.model_validators.values()
            if any(v.func.__qualname__.rsplit(".", 1)[0] == cls.__qualname__ for v in validators):
                found.add(cls)
    return found


def test_every_model_validator_has_its_rules_stated() -> None:
    """A validator whose rule is in no schema makes inputs the published
    schema accepts fail: each model with one has rules here."""
    missing = sorted(
        f"{cls.__module__}.{cls.__qualname__}" for cls in _validated_models() if not rules_of(cls)
    )
    assert not missing, f"model validators with no rule in contract.cross_field.RULES: {missing}"
