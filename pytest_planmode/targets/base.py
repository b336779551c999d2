"""What the harness needs from a target, whatever its kind."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pytest_planmode import PROTOCOL_VERSION, PROTOCOLS


class TargetError(Exception):
    """The target cannot be used at all (unresolvable, or its handshake failed)."""


#: What a target can answer: every output field, or only the effects (an
#: existing extension seen from outside). See `contract.base`.
Observes = Literal["everything", "effects"]
OBSERVES: tuple[Observes, ...] = ("everything", "effects")


@dataclass(frozen=True)
class Handshake:
    protocol: int
    implementation: dict[str, Any]
    operations: frozenset[str]
    observes: Observes = "everything"

    @property
    def label(self) -> str:
        impl = self.implementation
        text = str(impl.get("name", "?"))
        if impl.get("version"):
            text += f" {impl['version']}"
        if impl.get("language"):
            text += f" ({impl['language']})"
        return text


@dataclass(frozen=True)
class Outcome:
    """The answer to one request.

    ``output``, ``error`` and ``unsupported`` are the target's three legal
    answers; ``failure`` means the target did not answer legally (crash,
    hang, garbage, wrong id) and ``message`` says what it did.
    """

    kind: Literal["output", "error", "unsupported", "failure"]
    output: dict[str, Any] | None = None
    message: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


class Target(Protocol):
    description: str

    def handshake(self) -> Handshake: ...

    def request(
        self, operation: str, payload: Mapping[str, Any], roots: Mapping[str, str] | None = None
    ) -> Outcome:
        """`roots`: the sandbox's directory per root token, for operations
        whose inputs name files (see `contract.virtual_paths`)."""
        ...

    def close(self) -> int | None:
        """Release the target; an exec: target's exit status (None if it hung)."""
        ...


def parse_handshake(answer: Any, where: str) -> Handshake:
    """Check a handshake answer; raise TargetError naming what is wrong."""
    if not isinstance(answer, dict):
        raise TargetError(f"{where}: the handshake answer is not a JSON object: {answer!r:.200}")
    protocol = answer.get("protocol")
    if isinstance(protocol, bool) or protocol not in PROTOCOLS:
        raise TargetError(
            f"{where}: the target speaks protocol {protocol!r}; this suite speaks "
            f"protocol {PROTOCOL_VERSION} and accepts {', '.join(map(str, PROTOCOLS))} "
            f'(answer the hello with "protocol": {PROTOCOL_VERSION})'
        )
    impl = answer.get("implementation")
    if not isinstance(impl, dict) or not isinstance(impl.get("name"), str):
        raise TargetError(
            f'{where}: the handshake lacks "implementation": {{"name": ..., "version": ..., "language": ...}}'
        )
    ops = answer.get("operations")
    if not isinstance(ops, list) or not all(isinstance(o, str) for o in ops):
        raise TargetError(f'{where}: the handshake\'s "operations" must be a list of strings')
    observes = answer.get("observes", "everything")
    if observes not in OBSERVES:
        raise TargetError(
            f'{where}: the handshake\'s "observes" must be one of {", ".join(map(repr, OBSERVES))} '
            f"(omit it to observe everything), got {observes!r:.100}"
        )
    if observes != "everything" and protocol < 2:
        raise TargetError(
            f'{where}: "observes" needs protocol 2; the handshake answer says protocol {protocol}'
        )
    return Handshake(protocol, impl, frozenset(ops), observes)


def parse_response(answer: Any, where: str) -> Outcome:
    """Turn an adapter's or a target process's answer into an Outcome."""
    if not isinstance(answer, dict):
        return Outcome("failure", message=f"{where}: the answer is not a JSON object: {answer!r:.300}")
    keys = [k for k in ("output", "error", "unsupported") if k in answer]
    if len(keys) != 1:
        return Outcome(
            "failure",
            message=(
                f'{where}: the answer must hold exactly one of "output", "error", '
                f'"unsupported"; it holds {keys or "none"}: {answer!r:.300}'
            ),
        )
    key = keys[0]
    if key == "output":
        if not isinstance(answer["output"], dict):
            return Outcome("failure", message=f'{where}: "output" must be a JSON object: {answer!r:.300}')
        return Outcome("output", output=answer["output"])
    if key == "error":
        error = answer["error"]
        message = error.get("message") if isinstance(error, dict) else None
        if not isinstance(message, str):
            return Outcome(
                "failure",
                message=f'{where}: "error" must be an object with a "message" string: {answer!r:.300}',
            )
        return Outcome("error", message=message)
    if answer["unsupported"] is not True:
        return Outcome("failure", message=f'{where}: "unsupported" must be true: {answer!r:.300}')
    return Outcome("unsupported")
