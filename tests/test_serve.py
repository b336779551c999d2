"""The reference served over JSON Lines: the protocol's own behaviour."""

from __future__ import annotations

import json
import subprocess
import sys

from pytest_planmode import PROTOCOL_VERSION, SUITE_VERSION


def converse(*lines: str, args: tuple[str, ...] = ()) -> tuple[list[dict[str, object]], int, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest_planmode.serve", *args],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=60,
    )
    return [json.loads(x) for x in proc.stdout.splitlines()], proc.returncode, proc.stderr


HELLO = json.dumps({"op": "hello", "protocol": PROTOCOL_VERSION, "suite": SUITE_VERSION})


def test_handshake_then_requests_then_clean_exit() -> None:
    answers, status, _ = converse(
        HELLO,
        json.dumps({"id": 1, "op": "oplmodes.plans.resolve", "input": {"source": "command", "value": "x"}}),
        json.dumps({"id": 2, "op": "no.such.op", "input": {}}),
        json.dumps({"id": 3, "op": "oplmodes.plans.resolve", "input": {"source": 5}}),
    )
    assert status == 0
    hello, first, second, third = answers
    assert hello["protocol"] == PROTOCOL_VERSION
    assert hello["implementation"]["name"] == "pytest-planmode reference"
    assert "oplmodes.plans.resolve" in hello["operations"]
    assert first == {"id": 1, "output": {"accepted": True, "path": ".pi/plans/plan-x.md", "reason": None}}
    assert second == {"id": 2, "unsupported": True}
    assert third["id"] == 3 and "invalid input for oplmodes.plans.resolve" in third["error"]["message"]


def test_garbage_request_gets_an_error_not_a_crash() -> None:
    answers, status, _ = converse(HELLO, "this is not json", json.dumps([1, 2]))
    assert status == 0
    assert answers[1]["id"] is None and "not JSON" in answers[1]["error"]["message"]
    assert answers[2]["error"]["message"] == "a request must be a JSON object"


def test_serves_another_python_adapter() -> None:
    answers, status, _ = converse(HELLO, args=("python:pytest_planmode.targets.reference.adapter:REFERENCE",))
    assert status == 0 and answers[0]["protocol"] == PROTOCOL_VERSION


def test_bad_adapter_path_is_a_usage_error() -> None:
    _, status, err = converse(HELLO, args=("python:nope_module:X",))
    assert status == 2
    assert "cannot import 'nope_module'" in err
