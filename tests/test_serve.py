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
        timeout=600,  # a hang guard only: a loaded machine may be slow
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


def _raw_converse(lines: list[bytes]) -> tuple[list[dict[str, object]], int]:
    out = subprocess.run(
        [sys.executable, "-m", "pytest_planmode.serve"],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        timeout=600,  # a hang guard only: a loaded machine may be slow
        check=False,
    )
    return [json.loads(line) for line in out.stdout.splitlines()], out.returncode


HELLO_LINE = json.dumps({"op": "hello", "protocol": PROTOCOL_VERSION, "suite": SUITE_VERSION}).encode()
BASH_LS = json.dumps({"id": 99, "op": "planmode.bash.check", "input": {"command": "ls", "cwd": "/"}}).encode()


def test_serve_survives_every_hostile_line() -> None:
    hostile = [
        b'{"id": 1, "op": "planmode.bash.check", "input": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b'{"id": 2, "op": "planmode.bash.check", "input": {"command": "\xff\xfe", "cwd": "/"}}',
        HELLO_LINE,
        b"[1, 2]",
        b'"just a string"',
        b'{"id": 3, "op": "planmode.bash.check", "input": {"command": "ls"' + b", " * 10,
        b'{"id": 4, "op": 5, "input": {}}',
        b'{"id": 5, "op": "no.such.op", "input": {}}',
    ]
    answers, status = _raw_converse([HELLO_LINE, *hostile, BASH_LS])
    assert status == 0
    assert len(answers) == 1 + len(hostile) + 1  # one line per input line, the session lives on
    errors = answers[1:-1]
    assert [a.get("id") for a in errors] == [1, 2, None, None, None, 3, 4, 5]
    assert all("error" in a or a.get("unsupported") is True for a in errors), errors
    assert "nested too deeply" in str(errors[0]) and "already answered" in str(errors[2])
    assert answers[-1]["id"] == 99 and answers[-1]["output"]["allowed"] is True  # type: ignore[index]


def _booleans_in(value: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    if isinstance(value, bool):
        return [path]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    return [found for key, inner in items for found in _booleans_in(inner, (*path, key))]


def test_serve_validates_strictly_without_coercion() -> None:
    """A value the published input schema rejects (here: a string or a number
    where a boolean belongs) is never coerced into an answer."""
    from schema_check import errors

    from pytest_planmode.suite import load_suite

    requests: list[tuple[str, object]] = []
    for case in load_suite():
        for path in _booleans_in(case.input)[:3]:
            for wrong in ("yes", 0, 1, "true"):
                data = json.loads(json.dumps(case.input))
                holder = data
                for key in path[:-1]:
                    holder = holder[key]
                holder[path[-1]] = wrong
                if errors(f"operations/{case.operation}.input.schema.json", data):
                    requests.append((case.operation, data))
        if len(requests) > 400:
            break
    assert len({op for op, _ in requests}) >= 2, {op for op, _ in requests}
    lines = [HELLO_LINE] + [
        json.dumps({"id": i, "op": op, "input": data}).encode() for i, (op, data) in enumerate(requests)
    ]
    answers, status = _raw_converse(lines)
    assert status == 0 and len(answers) == len(lines)
    accepted = [requests[int(a["id"])] for a in answers[1:] if "output" in a]  # type: ignore[call-overload]
    assert accepted == []


def test_menus_answered_by_position_and_role_over_the_wire() -> None:
    """`ui.answer` by `index` or `role` reaches the served reference as it is;
    an operation whose menus take labels only refuses them by name."""
    plan_turn = [
        {"type": "command", "name": "plan", "args": "db"},
        {"type": "agent.start"},
        {"type": "agent.settle"},
    ]
    requests = [
        {
            "plans": ["plan-auth.md", "plan-db.md"],
            "events": [
                {"type": "command", "name": "mode"},
                {"type": "ui.answer", "role": "execute", "plan": "db"},
            ],
        },
        {
            "plans": ["plan-auth.md", "plan-db.md"],
            "events": [{"type": "command", "name": "execute"}, {"type": "ui.answer", "index": 0}],
        },
        {"events": [*plan_turn, {"type": "ui.answer", "role": "refine"}, *plan_turn[1:]]},
    ]
    lines = [HELLO] + [
        json.dumps({"id": i, "op": "oplmodes.modes.script", "input": data}) for i, data in enumerate(requests)
    ]
    lines.append(
        json.dumps(
            {
                "id": 9,
                "op": "planmode.lifecycle.run",
                "input": {"events": [{"type": "command", "name": "plan"}, {"type": "ui.answer", "index": 0}]},
            }
        )
    )
    answers, status, _ = converse(*lines)
    assert status == 0
    by_role, by_position, refined, refused = answers[1:]
    assert by_role["output"]["final"]["planFile"] == ".pi/plans/plan-db.md"
    assert by_position["output"]["final"]["planFile"] == ".pi/plans/plan-auth.md"
    assert refined["output"]["steps"][-1]["menu"]["entries"][1] != "Refine"
    assert "answered by label, not by position" in refused["error"]["message"]
