"""Validate JSON documents against the shipped JSON Schemas (draft 2020-12).

The schemas' regular expressions are ECMAScript: `$` matches only at the very
end, where Python's `re` also matches before a final newline; the `pattern`
keyword is checked with that meaning (`patternProperties` keys in these
schemas do not use `$`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator, ValidationError, validators

from pytest_planmode.schemas_export import SCHEMAS_DIR


@cache
def _ecma(pattern: str) -> re.Pattern[str]:
    return re.compile(re.sub(r"(?<!\\)\$", r"\\Z", pattern))


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if isinstance(instance, str) and not _ecma(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


EcmaValidator = validators.extend(Draft202012Validator, {"pattern": _pattern})


@cache
def shipped(relative: str) -> Any:
    """A validator for a schema shipped under pytest_planmode/schemas/."""
    schema = json.loads((SCHEMAS_DIR / relative).read_text(encoding="utf-8"))
    EcmaValidator.check_schema(schema)
    return EcmaValidator(schema)


def errors(relative: str, document: Any) -> list[str]:
    """Every violation, as `$.path.to.field: message`."""
    found = []
    for error in shipped(relative).iter_errors(document):
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        found.append(f"${path}: {error.message}")
    return sorted(found)
