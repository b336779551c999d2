"""The `pi:` translations of the remaining opl-modes operations
(`oplmodes.models.script`, `oplmodes.tools.active`, `oplmodes.tools.load`,
`oplmodes.plans.resolve`) seen passing and failing against the opl-modes
example, failing must cases on planted bugs, and answering `unsupported`
per case where the host cannot express an input."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_planmode.hosts.pi.install import VERSIONS
from pytest_planmode.targets.pi import UNSUPPORTED
from pytest_planmode.targets.pi_target import PiTarget
from tests.pi_examples import case, planted, problems, running

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "pi-extension-opl" / "index.mjs"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js (.ci/run installs it)")


@pytest.fixture(scope="module")
def example() -> Iterator[PiTarget]:
    yield from running(EXAMPLE)


PASSING = [
    # models: capture and restore, serialized changes, persisted point, stale point, pin
    "oplmodes.models.host.override.exit-restores",
    "oplmodes.models.host.serial.exit-during-mode-change",
    "oplmodes.models.host.persist.reload-then-exit-restores-model",
    "oplmodes.models.host.stale.gone-dropped",
    "oplmodes.models.host.pin.session-start",
    # tools: snapshot, pinned off (Pi's built-ins registered), lazy, warned names
    "oplmodes.tools.off.snapshot-restored",
    "oplmodes.tools.inherit.custom-inherits-pinned.full-registry",
    "oplmodes.tools.off.pinned.full-registry",
    "oplmodes.tools.plan-complete.execute",
    "oplmodes.lazy.off-withheld",
    "oplmodes.tools.unknown.already-warned",
    # load_tools
    "oplmodes.lazy.bound.mixed",
    "oplmodes.lazy.load.no-argument-all",
    "oplmodes.lazy.bound.chat-not-available",
    # plans
    "oplmodes.plans.name.simple",
    "oplmodes.plans.name.dot-rejected",
    "oplmodes.plans.name.double-dash-rejected",
    # modes reached as a user reaches them, the shared state read as the spec names it
    "oplmodes.bash.example.cat-and-node",
    "oplmodes.host.appearance.shared-chat",
    "oplmodes.modes.host.state.shared-plan",
    "oplmodes.modes.host.resume.resume-plan-file-mode",
]


@pytest.mark.parametrize("case_id", PASSING)
def test_passes_on_the_example(example: PiTarget, case_id: str) -> None:
    assert problems(example, case_id) == []


@pytest.mark.parametrize(
    ("case_id", "field"),
    [
        # What the example leaves out (each listed in its expectations file).
        ("oplmodes.models.host.blank.whitespace", "warnings"),
        ("oplmodes.tools.mode.unknown", "activeTools"),
        ("oplmodes.lazy.bound.unknown-mode", "activeTools"),
        ("oplmodes.plans.slug.unicode-letters-kept", "path"),
    ],
)
def test_fails_what_the_example_leaves_out(example: PiTarget, case_id: str, field: str) -> None:
    found = problems(example, case_id)
    assert any(f"output.{field}" in line for line in found), found


#: Planted bugs: (name, text in the example, its replacement, must cases it fails).
MUTANTS = [
    (
        "unserialized-model-changes",
        "const enqueue = (job) => { queue = queue.then(job).catch(() => {}); return queue; };",
        "const enqueue = (job) => job().catch(() => {});",
        ["oplmodes.models.host.serial.exit-during-mode-change", "oplmodes.models.host.serial.slow-restore"],
    ),
    (
        "restore-point-not-persisted",
        "restoreModel: restore?.model ?? null });",
        "restoreModel: null });",
        [
            "oplmodes.models.host.persist.reload-then-exit-restores-model",
            "oplmodes.models.host.override.persisted-with-mode",
        ],
    ),
    (
        "load-tools-unbounded",
        'else if (!permitted.includes(t)) ignored.push({ tool: t, reason: "not-permitted" });',
        "",
        ["oplmodes.lazy.bound.not-permitted", "oplmodes.lazy.bound.pinned-off-excludes"],
    ),
    (
        "pin-not-inherited",
        "const resting = () => PINNED_OFF ?? snapshot ?? restingNow();",
        "const resting = () => snapshot ?? restingNow();",
        [
            "oplmodes.tools.inherit.custom-inherits-pinned.full-registry",
            "oplmodes.tools.inherit.execute-inherits-pinned",
        ],
    ),
    (
        "untitled-plans-accepted",
        "const name = planName(arg);\n      if (!name)",
        'const name = planName(arg) ?? "";\n      if (name === null)',
        ["oplmodes.plans.name.dot-rejected", "oplmodes.plans.name.double-dash-rejected"],
    ),
]


@pytest.fixture(scope="module", params=MUTANTS, ids=[m[0] for m in MUTANTS])
def mutant(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[PiTarget, list[str]]]:
    _name, old, new, failing = request.param
    source = EXAMPLE.read_text(encoding="utf-8")
    assert source.count(old) == 1, old
    path = tmp_path_factory.mktemp("mutant") / "index.mjs"
    path.write_text(source.replace(old, new), encoding="utf-8")
    for target in running(path):
        yield target, failing


def test_a_planted_bug_fails_must_cases(mutant: tuple[PiTarget, list[str]], example: PiTarget) -> None:
    target, failing = mutant
    for case_id in failing:
        assert case(case_id).level == "must", case_id
        assert problems(example, case_id) == [], case_id
        assert problems(target, case_id), case_id


def test_a_mode_not_reached_is_never_judged(tmp_path: Path) -> None:
    # The --plan flag ignored: a plan-mode Bash case must not be judged in normal mode.
    path = planted(tmp_path, 'if (pi.getFlag("plan") === true)', "if (false)", example=EXAMPLE)
    c = case("oplmodes.bash.example.cat-and-node")
    assert c.input["mode"] == "plan"
    for target in running(path):
        outcome = target.request(c.operation, c.input)
        assert outcome.kind == "unsupported", outcome
        assert "did not reach plan mode" in (outcome.message or "") and "'off'" in (outcome.message or "")


def test_a_custom_dialog_makes_a_script_unsupported(tmp_path: Path) -> None:
    # /chat asks something in a custom dialog first, as opl-modes asks a plan name.
    old = 'pi.registerCommand("chat", {\n    description: "Toggle chat mode (/chat off exits)",\n    handler: async (args, ctx) => {'
    path = planted(tmp_path, old, old + "\n      await ctx.ui.custom(() => ({}));", example=EXAMPLE)
    c = case("oplmodes.modes.host.cmd.chat-on")
    for target in running(path):
        outcome = target.request(c.operation, c.input)
        assert outcome.kind == "unsupported", outcome
        assert "custom dialog" in (outcome.message or "") and "event 1" in (outcome.message or "")


@pytest.mark.parametrize(
    ("operation", "payload", "reason"),
    [
        (
            "oplmodes.tools.active",
            {
                "mode": "review",
                "config": {"modes": {"review": {"tools": ["a1", "read", "a2"]}}},
                "warnedTools": ["a2"],
            },
            "only some of the mode's unknown names",
        ),
        (
            "oplmodes.tools.active",
            {"mode": "chat", "warnedTools": ["ghost"]},
            "built-in chat list",
        ),
        (
            "oplmodes.tools.load",
            {
                "mode": "off",
                "config": {
                    "modes": {
                        "off": {"tools": ["read", "ghost"]},
                        "chat": {"tools": ["ghost"]},
                        "plan": {"tools": ["read", "ghost"]},
                    }
                },
            },
            "a name is warned about once per session",
        ),
        ("oplmodes.plans.resolve", {"source": "command", "value": "off"}, "/plan off"),
        (
            "oplmodes.plans.resolve",
            {"source": "resume", "value": "plan-auth.md"},
            "whose fields the spec does not name",
        ),
        (
            "oplmodes.tools.active",
            {"mode": "execute", "config": {"modes": {"off": {"allowExecute": False}}}},
            "modes.off.allowExecute is false",
        ),
        (
            "oplmodes.models.script",
            {"initialModel": "x/y", "registry": [{"model": "a/b"}], "events": []},
            "not in Pi's registry",
        ),
        ("oplmodes.config.load", {"document": {}}, "effective mode registry"),
    ],
)
def test_answers_unsupported_per_case(example: PiTarget, operation: str, payload: dict, reason: str) -> None:
    outcome = example.request(operation, payload)
    assert outcome.kind == "unsupported" and reason in (outcome.message or ""), outcome


def test_suite_cases_answered_unsupported_say_why(example: PiTarget) -> None:
    outcome = example.request(
        case("oplmodes.tools.unknown.each-name-once").operation,
        case("oplmodes.tools.unknown.each-name-once").input,
    )
    assert outcome.kind == "unsupported" and "warned" in (outcome.message or "")
    assert "oplmodes.config.load" in UNSUPPORTED and "oplmodes.models.script" not in UNSUPPORTED


def test_changes_carry_the_instants_the_host_recorded(example: PiTarget) -> None:
    c = case("oplmodes.models.host.serial.exit-during-mode-change")
    outcome = example.request(c.operation, c.input)
    assert outcome.output is not None
    assert outcome.output["changes"] == [
        {"at": 0, "end": 500, "model": "rev/model", "ok": True},
        {"at": 500, "end": 500, "model": "acme/base", "ok": True},
    ]
    assert outcome.output["persisted"] == {"mode": "off", "restoreModel": None, "restoreFailures": 0}


def test_load_tools_effects_come_from_the_active_set(example: PiTarget) -> None:
    c = case("oplmodes.lazy.bound.mixed")
    outcome = example.request(c.operation, c.input)
    assert outcome.output is not None
    out = outcome.output
    assert out["enabled"] == ["subagent"] and out["ignored"] == [{"tool": "browser"}]
    assert "reason" not in out["ignored"][0] and "withheldLazyTools" not in out


#: The plan menu of opl-modes, reduced: a custom dialog shown again whenever
#: it is dismissed (it answered nothing), until an entry is picked.
LOOPING_MENU = (
    "\n      for (;;) {"
    "\n        const picked = await ctx.ui.custom(() => ({ render: () => [], invalidate() {} }));"
    "\n        if (picked) break;"
    "\n      }"
)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@pytest.mark.parametrize("pi", VERSIONS)
def test_a_menu_reopened_on_a_dismissed_dialog_ends_the_case(tmp_path: Path, pi: str) -> None:
    # The dialog stays open (no key is pressed), so the loop never turns: the
    # case answers unsupported within the request limit, the same host process
    # answers the next case, and closing the target leaves no process behind.
    old = 'pi.registerCommand("chat", {\n    description: "Toggle chat mode (/chat off exits)",\n    handler: async (args, ctx) => {'
    path = planted(tmp_path, old, old + LOOPING_MENU, example=EXAMPLE)
    target = PiTarget(str(path), pi=pi, timeout=20.0)
    target.handshake()
    try:
        proc = target.host._proc
        assert proc is not None
        looping = case("oplmodes.modes.host.cmd.chat-on")
        outcome = target.request(looping.operation, looping.input)
        assert outcome.kind == "unsupported", outcome
        assert "custom dialog" in (outcome.message or ""), outcome
        after = case("oplmodes.plans.name.simple")
        assert target.request(after.operation, after.input).kind == "output"
        assert target.host._proc is proc, "the host was restarted: the looping case ended in a timeout"
    finally:
        target.close()
    assert proc.poll() is not None
    assert not _group_alive(proc.pid), "a process of the host's group outlived the target"
