"""Host steps as models (`hosts/pi/steps.py`), the shared event table
(`targets/pi/events.py`), and a translation's own failure reported as the
kit's, never as the extension's."""

from __future__ import annotations

import json
import re
import shutil
import typing
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_planmode.contract import host_events as host
from pytest_planmode.hosts.pi import steps
from pytest_planmode.hosts.pi.client import REAL_HOST_SCRIPT, PiHost, Sandbox
from pytest_planmode.suite import FIXTURES_DIR as FIXTURES
from pytest_planmode.suite import load_file, load_suite
from pytest_planmode.targets.base import KitError
from pytest_planmode.targets.pi import TRANSLATIONS
from pytest_planmode.targets.pi.events import SHARED, EventTable, Place
from pytest_planmode.targets.pi.translation import HostRun, Translation, Unsupported
from pytest_planmode.targets.pi_target import PiTarget

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "pi-extension" / "index.mjs"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js (.ci/run installs it)")


def real_host_steps() -> set[str]:
    source = REAL_HOST_SCRIPT.read_text(encoding="utf-8")
    names: set[str] = set()
    # Every table of step handlers (the Pi 1.x ones are a table of their own).
    for part in source.split("Object.assign(STEPS, {")[1:]:
        table = part[: part.index("\n});")]
        names |= set(re.findall(r"^  ([a-z_]+)[:,]", table, re.MULTILINE))
    return names


def test_one_model_per_step_of_the_host() -> None:
    assert set(steps.STEP_NAMES) == real_host_steps()
    assert len(steps.STEP_NAMES) == len(set(steps.STEP_NAMES))


def test_a_step_on_the_wire_is_its_given_fields_in_the_hosts_spelling() -> None:
    call = steps.ToolCall(tool="bash", input={"command": "ls"}, execute=True, validate_=False)
    assert call.wire() == {
        "do": "tool_call",
        "tool": "bash",
        "input": {"command": "ls"},
        "execute": True,
        "validate": False,
    }
    assert steps.Start(thinking_level="high").wire() == {"do": "start", "thinkingLevel": "high"}
    assert steps.Command(name="plan").wire() == {"do": "command", "name": "plan"}


@pytest.mark.parametrize(
    ("step", "named"),
    [
        ({"do": "command", "nam": "plan"}, "nam"),
        ({"do": "reload", "wait": False}, "wait"),
        ({"do": "advance", "ms": -1}, "ms"),
        ({"do": "write_file", "root": "disk", "path": "a", "content": ""}, "root"),
        ({"do": "ui", "answers": [{"choose": "A"}]}, "answers.0.choose"),
        ({"do": "teleport"}, "teleport"),
    ],
)
def test_the_client_refuses_a_step_the_hosts_do_not_read(
    tmp_path: Path, step: dict[str, Any], named: str
) -> None:
    # No process starts: the script is checked before anything is sent.
    host = PiHost("no-such-node-command")
    with pytest.raises(steps.StepError, match=re.escape(named)) as caught:
        host.run(tmp_path / "x.mjs", Sandbox(tmp_path), [steps.Start(), step])
    assert "step 1" in str(caught.value)
    assert host._proc is None


def translated_payloads() -> Iterator[tuple[str, Mapping[str, Any]]]:
    for case in load_suite():
        if case.operation in TRANSLATIONS:
            yield case.operation, case.input


def test_every_translation_builds_its_script_from_step_models(tmp_path: Path) -> None:
    built: set[str] = set()
    # Up to four scripts per operation, from its first cases the host can take.
    counts: dict[str, int] = {}
    for operation, payload in translated_payloads():
        if counts.get(operation, 0) >= 4:
            continue
        sandbox = Sandbox.create(tmp_path)
        try:
            script = TRANSLATIONS[operation].script(payload, sandbox)
        except Unsupported:
            continue
        assert script and all(isinstance(step, steps.Step) for step in script), operation
        assert steps.wire_script(script)
        built.add(operation)
        counts[operation] = counts.get(operation, 0) + 1
    # These two answer every case unsupported (the Settings screen and the
    # settings files are the extension's own; see their reasons).
    assert set(TRANSLATIONS) - built == {"planmode.settings.load", "planmode.settings.save"}


def test_the_shared_table_covers_every_host_event() -> None:
    members = typing.get_args(typing.get_args(host.HostEvent)[0])
    assert members and set(members) <= set(SHARED)


def test_an_override_replaces_one_event_for_one_operation() -> None:
    command = host.Command(type="command", at=0, name="plan", args="start")
    answer = host.UiAnswer(type="ui.answer", at=1, label="Yes")
    plain = EventTable()
    assert [s.wire() for s in plain.host_steps(command, Place([answer]))] == [
        {"do": "command", "name": "plan", "args": "start", "wait": False}
    ]
    own = plain.with_overrides(overrides={host.Command: lambda table, event, place: [steps.Reload()]})
    assert [s.wire() for s in own.host_steps(command)] == [{"do": "reload"}]
    assert [s.wire() for s in own.host_steps(answer)] == [{"do": "ui", "answers": [{"select": "Yes"}]}]
    with pytest.raises(Unsupported, match="settings file"):
        plain.host_steps(host.SettingsWrite(type="settings.write", at=0, settings={}))


# -- a broken translation is the kit's failure ---------------------------------

OPERATION = "planmode.bash.check"


def _broken_script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[steps.Step]:
    return [steps.Start(), typing.cast(steps.Step, {"do": "command", "nam": "plan"})]


def _raising_script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[steps.Step]:
    return [steps.Start(), steps.Command(name="plan", args=payload["no such field"])]


def _raising_effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
    return {"allowed": run.results[99]["allowed"]}


@pytest.fixture(scope="module")
def example() -> Iterator[PiTarget]:
    target = PiTarget(str(EXAMPLE))
    target.handshake()
    yield target
    target.close()


def _planted(script: Any = None, effects: Any = None) -> Translation:
    real = TRANSLATIONS[OPERATION]
    return Translation(
        script or real.script,
        effects or real.effects,
        command=real.command,
        spec=real.spec,
        unless=real.unless,
    )


@needs_node
@pytest.mark.parametrize(
    ("planted", "said"),
    [
        (
            _planted(script=_broken_script),
            "built no host script: StepError: step 1 ('command') is not a host step",
        ),
        (_planted(script=_raising_script), "built no host script: KeyError"),
        (_planted(effects=_raising_effects), "could not read the host's answer: IndexError"),
    ],
)
def test_a_broken_translation_is_a_kit_error_naming_it(
    example: PiTarget, monkeypatch: pytest.MonkeyPatch, planted: Translation, said: str
) -> None:
    monkeypatch.setitem(TRANSLATIONS, OPERATION, planted)
    with pytest.raises(KitError) as caught:
        example.request(OPERATION, {"command": "ls", "cwd": "/"})
    message = str(caught.value)
    assert said in message
    assert OPERATION in message and "not of the extension" in message
    # The module that failed is named.
    assert planted.script.__module__ in message


@needs_node
def test_the_report_says_the_kit_failed(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(TRANSLATIONS, OPERATION, _planted(script=_broken_script))
    report = pytester.path / "report.json"
    fixture = FIXTURES / "planmode" / "bash.toml"
    case = next(c for c in load_file(fixture, root=FIXTURES) if c.operation == OPERATION)
    result = pytester.runpytest_inprocess(
        f"--planmode-target=pi:{EXAMPLE}",
        f"--planmode-report={report}",
        "-p",
        "no:cacheprovider",
        "-k",
        case.id,
        str(fixture),
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*{case.id}: kit error (the kit failed on this case*"])
    assert "Traceback" not in result.stdout.str()
    data = json.loads(report.read_text(encoding="utf-8"))
    entries = [e for t in data["targets"] for e in t["failures"] if e["id"] == case.id]
    assert [e["summary"].split(":")[0] for e in entries] == ["kit error"]
