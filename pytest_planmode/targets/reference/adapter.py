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

from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from pytest_planmode import PROTOCOL_VERSION, __version__
from pytest_planmode.contract.virtual_paths import map_rooted, unmap
from pytest_planmode.targets.reference.ops import MODEL_ROOTS, fast_paths, handlers


def _format_validation(operation: str, error: ValidationError) -> str:
    parts = []
    for item in error.errors(include_url=False):
        where = ".".join(str(p) for p in item["loc"]) or "(input)"
        parts.append(f"{where}: {item['msg']}")
    return f"invalid input for {operation}: " + "; ".join(parts)


def under_roots(value: Any, roots: dict[str, str]) -> Any:
    """A validated input with its rooted paths moved under `roots`."""
    if isinstance(value, BaseModel):
        fields = type(value).model_fields
        return value.model_copy(update={name: under_roots(getattr(value, name), roots) for name in fields})
    if isinstance(value, (list, tuple)):
        return type(value)(under_roots(item, roots) for item in value)
    return map_rooted(value, roots)


#: The hot paths by operation name, filled on the first request (one
#: dictionary lookup per request, not a call).
_HOT: dict[str, Callable[[Any], Any]] = {}


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
        """No `roots` parameter: the reference writes nothing to disk (it maps
        the roots into its model file system), so the harness creates no
        sandbox for it.

        An operation with a hot path answers a payload of its common shape
        there, in wire form, without building models (the same answer)."""
        fast = _HOT.get(op)
        if fast is None and not _HOT:
            # The first request: the operations are not loaded yet.
            _HOT.update(fast_paths())
            fast = _HOT.get(op)
        if fast is not None:
            answer = fast(payload)
            if answer is not None:
                return {"output": answer}
        found = handlers().get(op)
        if found is None:
            return {"unsupported": True}
        spec, func = found
        try:
            # Strict: JSON types as sent, no coercion ("yes" is not a boolean).
            model = spec.input.model_validate(payload, strict=True)
        except ValidationError as exc:
            return {"error": {"message": _format_validation(op, exc)}}
        if spec.sandbox:
            model = under_roots(model, MODEL_ROOTS)
        result = func(model)
        if isinstance(result, BaseModel):
            result = result.model_dump(mode="json", by_alias=True)
        if spec.sandbox:
            result = unmap(result, MODEL_ROOTS)
        return {"output": result}


#: The object `--planmode-target=reference` resolves to.
REFERENCE = ReferenceAdapter()
