"""`oplmodes.models.script` through the real-Pi host: what an extension does
with models at session start, and the entries it appends, as the host
reports them on both pinned Pi releases.

opl-modes pins its OFF model at session start (and again on every start
of the extension's session: a new session, a resume, `/reload`) and keeps
its restore point in its `mode-switcher` entry. The host used to wrap
`pi.setModel` only after Pi had emitted `session_start` (after `/reload`
Pi builds a new runtime, wrapped only afterwards), and its state held no
branch: through real Pi every such pin went missing from `changes` and
every persisted restore point read null.

These tests need the pinned Pi releases installed (`planmode pi install
0.84.2 1.6.0`); without them they fail and say so."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_planmode.hosts.pi import install
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi import TRANSLATIONS
from tests.pi_examples import OPL_EXAMPLE, case, extension, planted
from tests.pi_real_hosts import SharedHosts, SharedPi


@pytest.fixture(params=install.VERSIONS)
def real(request: pytest.FixtureRequest, real_pi: SharedHosts) -> SharedPi:
    return real_pi(request.param)


#: At every session_start the extension switches to `acme/pin` (unless it
#: is current) and appends an entry naming why the session started.
PINNING = """
export default (pi) => {
  pi.on("session_start", async (event, ctx) => {
    const pin = ctx.modelRegistry.find("acme", "pin");
    if (pin && ctx.model?.id !== "pin") await pi.setModel(pin);
    pi.appendEntry("pinned", { reason: event.reason });
  });
};
"""


def test_model_calls_at_every_session_start_are_traced_and_entries_are_on_the_branch(
    real: SharedPi, tmp_path: Path
) -> None:
    entry = extension(tmp_path, PINNING, "pinning.mjs")
    script = [
        {
            "do": "models",
            "catalogue": [{"provider": "acme", "id": "base"}, {"provider": "acme", "id": "pin"}],
            "current": "acme/base",
        },
        {"do": "start"},
        {"do": "set_model", "model": "acme/base"},
        {"do": "reload"},
        {"do": "set_model", "model": "acme/base"},
        {"do": "new_session"},
    ]
    answer = real.run(entry, script)
    results = answer["results"]
    assert [r.get("refused") or r.get("error") or r.get("threw") for r in results] == [None] * len(script)
    trace = answer["trace"]
    # The extension's calls, in the steps they were made in: start, /reload, new session.
    pinned_in = [
        results[i]["do"]
        for i in range(len(results))
        for e in trace[results[i]["traceFrom"] : results[i]["traceTo"]]
        if e.get("call") == "pi.setModel"
    ]
    assert pinned_in == ["start", "reload", "new_session"]
    settled = [(e["model"], e["value"]) for e in trace if e.get("answer") == "pi.setModel"]
    # Pi's answers: the extension's pins and the user's two picks.
    assert settled == [("acme/pin", True), ("acme/base", True)] * 2 + [("acme/pin", True)]
    assert answer["state"]["model"] == "acme/pin"
    mine = [(e["type"], e["data"]) for e in answer["state"]["branch"] if e.get("customType") == "pinned"]
    # The new session's branch holds only what was appended in it.
    assert mine == [("custom", {"reason": "new"})]


#: A case the example failed through real Pi before the host fix: the OFF
#: pin at session start and after a new session (the persisted restore point
#: is judged by the resume cases below).


def test_the_example_passes_the_pin_case_through_real_pi(real: SharedPi) -> None:
    assert real.judge(OPL_EXAMPLE, "oplmodes.models.host.pin.new-session") == []


@pytest.mark.parametrize(
    ("line", "planted_line", "case_id"),
    [
        # The OFF pin skipped at session start.
        (
            'if (mode === "off" && override("off")) changeModelFor("off");',
            "",
            "oplmodes.models.host.pin.session-start",
        ),
        # No restore point persisted in the mode entry.
        (
            "restoreModel: restore?.model ?? null });",
            "restoreModel: null });",
            "oplmodes.models.host.override.persisted-with-mode",
        ),
    ],
)
def test_a_planted_model_bug_fails_through_real_pi(
    real_pi: SharedHosts, tmp_path: Path, line: str, planted_line: str, case_id: str
) -> None:
    entry = planted(tmp_path, line, planted_line, example=OPL_EXAMPLE)
    assert real_pi("0.84.2").judge(entry, case_id), f"{case_id}: the planted bug went unnoticed"


#: A `/resume` of the session's own entries: real Pi resumes a session it
#: has written, which it does once the session holds an assistant reply.
RESUME_CASES = [
    "oplmodes.models.host.persist.resume-keeps-mode-and-point",
    "oplmodes.models.host.persist.resume-then-exit-restores-model",
]


def test_a_script_that_resumes_starts_with_one_exchange(tmp_path: Path) -> None:
    # Pi writes a session file only once it holds an assistant reply: the
    # exchange comes right after the start, before the first event, and only
    # in a script that resumes.
    for case_id, resumes in (
        (RESUME_CASES[0], True),
        ("oplmodes.models.host.persist.reload-then-exit-restores-model", False),
    ):
        c = case(case_id)
        script = [s.do for s in TRANSLATIONS[c.operation].script(c.input, Sandbox.create(tmp_path))]
        at = script.index("start") + 1
        assert (script[at : at + 2] == ["agent_start", "agent_end"]) is resumes, (case_id, script)


@pytest.mark.parametrize("case_id", RESUME_CASES)
def test_the_example_passes_a_resume_case_through_real_pi(real: SharedPi, case_id: str) -> None:
    assert real.judge(OPL_EXAMPLE, case_id) == []


def test_a_planted_bug_losing_the_restore_point_on_resume_fails_through_real_pi(
    real_pi: SharedHosts, tmp_path: Path
) -> None:
    entry = planted(
        tmp_path,
        "restore = point ? { model: point, failures: 0 } : null;",
        "restore = null;",
        example=OPL_EXAMPLE,
    )
    problems = real_pi("0.84.2").judge(entry, "oplmodes.models.host.persist.resume-then-exit-restores-model")
    assert problems, "the restore point lost on /resume went unnoticed"
