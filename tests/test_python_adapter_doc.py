"""The porting guide's `python:` adapter, run as the guide says, and the
return shapes the guide promises for `hello` and `call`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from pytest_planmode.suite import CONFORMANCE_DIR, load_suite
from pytest_planmode.targets.base import TargetError
from pytest_planmode.targets.python_target import PythonTarget, load_object

GUIDE = ROOT / "docs" / "porting.md"
FIRST_LINE = "# myport_adapter.py"
PLANS_OP = "oplmodes.plans.resolve"


def guide_example() -> str:
    blocks = re.findall(r"^```python\n(.*?)^```", GUIDE.read_text(encoding="utf-8"), re.M | re.S)
    (block,) = [b for b in blocks if b.startswith(FIRST_LINE + "\n")]
    return block


def guide_command() -> list[str]:
    text = GUIDE.read_text(encoding="utf-8")
    (line,) = [
        line
        for line in text.splitlines()
        if line.startswith("python -m pytest --planmode-target=python:myport")
    ]
    return line.split()[1:]


@pytest.fixture
def adapter_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "myport_adapter.py").write_text(guide_example(), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "myport_adapter", raising=False)
    return tmp_path


def test_the_guide_command_passes_every_plan_case(adapter_dir: Path) -> None:
    report = adapter_dir / "report.json"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTHONPATH")}
    done = subprocess.run(
        [sys.executable, *guide_command(), "-p", "no:cacheprovider", f"--planmode-report={report}"],
        cwd=adapter_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    (target,) = json.loads(report.read_text())["targets"]
    assert target["implementation"] == {"name": "myport", "version": "1.4.0", "language": "python"}
    plans = {c.id for c in load_suite() if c.operation == PLANS_OP}
    assert plans < set(target["results"])
    assert set(target["results"].values()) == {"passed"}
    assert target["failures"] == []
    properties = {case_id for case_id in target["results"] if ".property." in case_id}
    assert properties and all(case_id.startswith("oplmodes.plans.") for case_id in properties)
    assert (CONFORMANCE_DIR / "test_oplmodes_plans.py").is_file()


def test_the_guide_adapter_answers_the_three_shapes(adapter_dir: Path) -> None:
    target = PythonTarget(load_object("myport_adapter:ADAPTER"), "python:myport_adapter:ADAPTER")
    hello = target.handshake()
    assert hello.operations == {PLANS_OP} and hello.protocol == 2
    out = target.request(PLANS_OP, {"source": "command", "value": "Auth Refactor"})
    assert (out.kind, out.output) == (
        "output",
        {"accepted": True, "path": ".pi/plans/plan-auth-refactor.md", "reason": None},
    )
    error = target.request(PLANS_OP, {"source": "elsewhere", "value": "x"})
    assert error.kind == "error" and "source" in str(error.message)
    assert target.request("planmode.bash.check", {"command": "ls"}).kind == "unsupported"


class Answers:
    """An adapter answering whatever the test puts in `answer`."""

    answer: Any = None

    def hello(self, suite: str) -> dict[str, Any]:
        return {"protocol": 2, "implementation": {"name": "shapes"}, "operations": [PLANS_OP]}

    def call(self, op: str, payload: dict[str, Any]) -> Any:
        return self.answer


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        ({"output": {"accepted": True}}, "output"),
        ({"output": ({"a": (1, 2)})}, "output"),
        ({"error": {"message": "no"}}, "error"),
        ({"unsupported": True}, "unsupported"),
        ({"unsupported": 1}, "failure"),
        ({"error": "no"}, "failure"),
        ({"output": {}, "error": {"message": "no"}}, "failure"),
        ({"output": ["a"]}, "failure"),
        ({"output": {"tags": {"a"}}}, "failure"),
        (None, "failure"),
        ([{"output": {}}], "failure"),
    ],
)
def test_call_return_shapes_as_the_guide_states(answer: Any, kind: str) -> None:
    adapter = Answers()
    adapter.answer = answer
    outcome = PythonTarget(adapter, "python:shapes").request(PLANS_OP, {"source": "command", "value": "a"})
    assert outcome.kind == kind, outcome
    if kind == "failure":
        assert outcome.message and "python:shapes" in outcome.message


@pytest.mark.parametrize(
    ("hello", "needle"),
    [
        ({"protocol": "2", "implementation": {"name": "x"}, "operations": []}, "protocol"),
        ({"protocol": True, "implementation": {"name": "x"}, "operations": []}, "protocol"),
        ({"protocol": 2, "implementation": {}, "operations": []}, "implementation"),
        ({"protocol": 2, "implementation": {"name": "x"}, "operations": "a"}, "operations"),
    ],
)
def test_hello_types_are_checked_strictly(hello: dict[str, Any], needle: str) -> None:
    adapter = Answers()
    adapter.hello = lambda suite: hello  # type: ignore[method-assign]
    with pytest.raises(TargetError, match=needle):
        PythonTarget(adapter, "python:shapes").handshake()


def test_an_unimportable_module_names_the_target() -> None:
    with pytest.raises(TargetError, match=r"python:no_such_port_module:ADAPTER: cannot import"):
        load_object("no_such_port_module:ADAPTER")
