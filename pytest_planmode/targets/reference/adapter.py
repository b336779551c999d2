"""The reference as a target: the same adapter interface a port implements.

A Python adapter has two methods that mirror the JSON Lines protocol:

``hello(suite: str) -> dict``
    answers the handshake: ``{"protocol": 1, "implementation": {...},
    "operations": [...]}``.
``call(op: str, input: dict) -> dict``
    answers one request with exactly one of ``{"output": {...}}``,
    ``{"error": {"message": ...}}`` or ``{"unsupported": True}``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from pytest_planmode import PROTOCOL_VERSION, __version__
from pytest_planmode.targets.reference.ops import handlers


def _format_validation(operation: str, error: ValidationError) -> str:
    parts = []
    for item in error.errors(include_url=False):
        where = ".".join(str(p) for p in item["loc"]) or "(input)"
        parts.append(f"{where}: {item['msg']}")
    return f"invalid input for {operation}: " + "; ".join(parts)


class ReferenceAdapter:
    """Serves the reference implementation through the adapter interface."""

    implementation: ClassVar[dict[str, str]] = {
        "name": "pytest-planmode reference",
        "version": __version__,
        "language": "python",
    }

    def hello(self, suite: str) -> dict[str, Any]:
        return {
            "protocol": PROTOCOL_VERSION,
            "implementation": dict(self.implementation),
            "operations": sorted(handlers()),
        }

    def call(self, op: str, payload: dict[str, Any]) -> dict[str, Any]:
        found = handlers().get(op)
        if found is None:
            return {"unsupported": True}
        spec, func = found
        try:
            # Strict: JSON types as sent, no coercion ("yes" is not a boolean).
            model = spec.input.model_validate(payload, strict=True)
        except ValidationError as exc:
            return {"error": {"message": _format_validation(op, exc)}}
        result = func(model)
        if isinstance(result, BaseModel):
            result = result.model_dump(mode="json", by_alias=True)
        return {"output": result}


#: The object `--planmode-target=reference` resolves to.
REFERENCE = ReferenceAdapter()
