"""The harness reads a target's handshake and answers with the protocol's
own models (`contract.report`), the same ones the published schemas come
from: what the schema refuses, the harness refuses, with a message saying
how to fix it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from pytest_planmode.schemas_export import generate
from pytest_planmode.targets.base import TargetError, parse_handshake, parse_response

GOOD = {"protocol": 2, "implementation": {"name": "port", "version": "1.0"}, "operations": ["x.y"]}

HELLO_ANSWERS: list[tuple[dict[str, Any], str | None]] = [
    (GOOD, None),
    ({**GOOD, "protocol": 1}, None),
    ({**GOOD, "observes": "effects"}, None),
    ({**GOOD, "extra": {"any": "thing"}}, None),
    ({**GOOD, "protocol": "2"}, "speaks protocol '2'"),
    ({**GOOD, "protocol": True}, "speaks protocol True"),
    ({**GOOD, "protocol": 3}, "speaks protocol 3"),
    ({k: v for k, v in GOOD.items() if k != "implementation"}, 'lacks "implementation"'),
    ({**GOOD, "implementation": {"version": "1"}}, 'lacks "implementation"'),
    ({**GOOD, "implementation": {"name": "port", "version": 1}}, 'lacks "implementation"'),
    ({**GOOD, "operations": "x.y"}, '"operations" must be a list of strings'),
    ({**GOOD, "operations": [1]}, '"operations" must be a list of strings'),
    ({**GOOD, "observes": "all"}, '"observes" must be one of'),
]


@pytest.mark.parametrize("answer, refused", HELLO_ANSWERS)
def test_a_hello_answer_is_read_as_its_schema_says(answer: dict[str, Any], refused: str | None) -> None:
    schema = generate()["protocol/hello-answer.schema.json"]
    assert Draft202012Validator(schema).is_valid(answer) is (refused is None)
    if refused is None:
        assert parse_handshake(answer, "t").operations == frozenset(answer["operations"])
    else:
        with pytest.raises(TargetError, match=json.dumps(refused)[1:-1].replace("(", r"\(")):
            parse_handshake(answer, "t")


def test_observes_effects_needs_protocol_2() -> None:
    with pytest.raises(TargetError, match='"observes" needs protocol 2'):
        parse_handshake({**GOOD, "protocol": 1, "observes": "effects"}, "t")


ANSWERS: list[tuple[dict[str, Any], str]] = [
    ({"id": 1, "output": {"a": 1}}, "output"),
    ({"id": 1, "error": {"message": "bad input"}}, "error"),
    ({"id": 1, "unsupported": True}, "unsupported"),
    ({"id": 1, "output": [1]}, "failure"),
    ({"id": 1, "error": "bad input"}, "failure"),
    ({"id": 1, "error": {"message": 3}}, "failure"),
    ({"id": 1, "unsupported": 1}, "failure"),
    ({"id": 1, "unsupported": False}, "failure"),
]


@pytest.mark.parametrize("answer, kind", ANSWERS)
def test_an_answer_is_read_as_its_schema_says(answer: dict[str, Any], kind: str) -> None:
    schemas = generate()
    fits = [
        name
        for name in ("answer-output", "answer-error", "answer-unsupported")
        if Draft202012Validator(schemas[f"protocol/{name}.schema.json"]).is_valid(answer)
    ]
    assert bool(fits) is (kind != "failure")
    assert parse_response(answer, "t").kind == kind
