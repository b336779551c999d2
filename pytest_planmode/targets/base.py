"""What the harness needs from a target, whatever its kind."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ValidationError

from pytest_planmode import PROTOCOL_VERSION, PROTOCOLS
from pytest_planmode.contract.report import (
    ErrorAnswerBody,
    HelloAnswer,
    OutputBody,
    UnsupportedBody,
)
from pytest_planmode.implementation_text import implementation_text


class TargetError(Exception):
    """The target cannot be used at all (unresolvable, or its handshake failed)."""


class KitError(Exception):
    """The kit itself failed on a case (for instance a `pi:` translation
    raised, or built a host step that is not one): never the target's
    failure. The message names the part of the kit and what went wrong."""


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
        return implementation_text(self.implementation)


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


def _first_problem(model: type[BaseModel], answer: dict[str, Any]) -> tuple[str, str] | None:
    """The first field of `answer` the protocol model `model` refuses, and
    why; None when it fits. Strict: no coercion (`"2"` is not 2)."""
    try:
        model.model_validate(answer, strict=True)
    except ValidationError as exc:
        error = exc.errors()[0]
        return str(error["loc"][0]) if error["loc"] else "", str(error["msg"])
    return None


#: What the hello answer's fields must be, in words, by field
#: (`contract.report.HelloAnswer` decides; these say how to fix it).
_HELLO_FIXES: dict[str, Callable[[dict[str, Any]], str]] = {
    "protocol": lambda answer: (
        f"the target speaks protocol {answer.get('protocol')!r}; this suite speaks "
        f"protocol {PROTOCOL_VERSION} and accepts {', '.join(map(str, PROTOCOLS))} "
        f'(answer the hello with "protocol": {PROTOCOL_VERSION})'
    ),
    "implementation": lambda answer: (
        'the handshake lacks "implementation": {"name": ..., "version": ..., "language": ...} '
        f"(strings; the name is required), got {answer.get('implementation')!r:.100}"
    ),
    "operations": lambda answer: 'the handshake\'s "operations" must be a list of strings',
    "observes": lambda answer: (
        f'the handshake\'s "observes" must be one of {", ".join(map(repr, OBSERVES))} '
        f"(omit it to observe everything), got {answer.get('observes')!r:.100}"
    ),
}


def parse_handshake(answer: Any, where: str) -> Handshake:
    """Check a handshake answer against the protocol's hello answer
    (`contract.report.HelloAnswer`); raise TargetError naming what is wrong."""
    if not isinstance(answer, dict):
        raise TargetError(f"{where}: the handshake answer is not a JSON object: {answer!r:.200}")
    problem = _first_problem(HelloAnswer, answer)
    if problem is None and isinstance(answer.get("protocol"), bool):
        # A Literal of 1 takes Python's True (True == 1); JSON's true is no number.
        problem = ("protocol", "a boolean")
    if problem is not None:
        field_name, why = problem
        fix = _HELLO_FIXES.get(field_name)
        raise TargetError(
            f"{where}: {fix(answer)}" if fix else f"{where}: the handshake's {field_name!r}: {why}"
        )
    hello = HelloAnswer.model_validate(answer, strict=True)
    if hello.observes != "everything" and hello.protocol < 2:
        raise TargetError(
            f'{where}: "observes" needs protocol 2; the handshake answer says protocol {hello.protocol}'
        )
    return Handshake(hello.protocol, answer["implementation"], frozenset(hello.operations), hello.observes)


#: The answer bodies of the protocol, by the key that names each, with the
#: message for a body that does not fit its model.
_BODIES: dict[str, tuple[type[BaseModel], str]] = {
    "output": (OutputBody, '"output" must be a JSON object'),
    "error": (ErrorAnswerBody, '"error" must be an object with a "message" string'),
    "unsupported": (UnsupportedBody, '"unsupported" must be true'),
}


def parse_response(answer: Any, where: str) -> Outcome:
    """Turn an adapter's or a target process's answer into an Outcome,
    checked against the protocol's answer models (`contract.report`)."""
    if not isinstance(answer, dict):
        return Outcome("failure", message=f"{where}: the answer is not a JSON object: {answer!r:.300}")
    keys = [k for k in _BODIES if k in answer]
    if len(keys) != 1:
        return Outcome(
            "failure",
            message=(
                f'{where}: the answer must hold exactly one of "output", "error", '
                f'"unsupported"; it holds {keys or "none"}: {answer!r:.300}'
            ),
        )
    key = keys[0]
    model, fix = _BODIES[key]
    # `is not True`: a Literal of True takes Python's 1 (1 == True); JSON's 1 is no boolean.
    if _first_problem(model, answer) is not None or (key == "unsupported" and answer[key] is not True):
        return Outcome("failure", message=f"{where}: {fix}: {answer!r:.300}")
    if key == "output":
        return Outcome("output", output=answer["output"])
    if key == "error":
        return Outcome("error", message=answer["error"]["message"])
    return Outcome("unsupported")
