"""An aborted run ends on the real-Pi host, as it ends in Pi.

Pi aborts an open run when the user presses ESC and when it leaves the
session (a new session, a resume, a compaction). The model's answer in
flight ends with the abort, as a provider's request does. A message queued
during the run does not keep the aborted run alive: Pi's ESC puts queued
messages back into the editor; leaving the session aborts the run the queue
continued in as well. A planted extension queues a follow-up from a command
while the model is answering, then the script aborts.

These tests need the pinned Pi releases installed (`planmode pi install
0.84.2 1.6.0`); without them they fail and say so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.pi_examples import extension
from tests.pi_real_hosts import SharedHosts, SharedPi

#: The default run uses the one Pi 0.84.2 host the real-Pi tests share; 1.6.0 under whole_suite.
VERSIONS = ("0.84.2", pytest.param("1.6.0", marks=pytest.mark.whole_suite))

#: The host's own limit for one step (REAL_LIMIT_MS in real_host.mjs) is 20 s;
#: an abort that ends takes well under a second.
QUICK_MS = 8000

#: `/queue` queues a user message while a run is open; every session start is shown.
QUEUEING = """
export default (pi) => {
  pi.registerCommand("queue", {
    handler: async () => { pi.sendUserMessage("queued while streaming", { deliverAs: "followUp" }); },
  });
  pi.on("session_start", (event, ctx) => { ctx.ui.notify(`session ${event.reason}`, "info"); });
  pi.on("agent_end", (event, ctx) => {
    const last = event.messages.findLast((m) => m.role === "assistant");
    ctx.ui.notify(`run ended ${last?.stopReason ?? "none"}`, "info");
  });
};
"""


@pytest.fixture(params=VERSIONS)
def real(request: pytest.FixtureRequest, real_pi: SharedHosts) -> SharedPi:
    return real_pi(request.param)


def notes(answer: dict[str, Any], result: dict[str, Any]) -> list[str]:
    trace = answer["trace"][result["traceFrom"] : result["traceTo"]]
    return [str(e["args"][0]) for e in trace if e.get("call") == "ui.notify"]


def faults(results: list[dict[str, Any]]) -> list[str]:
    return [
        f"{r['do']}: {r.get('threw') or r.get('error') or r.get('refused')}"
        for r in results
        if r.get("threw") or r.get("error") or r.get("refused")
    ]


def run(real: SharedPi, tmp: Path, script: list[dict[str, Any]]) -> dict[str, Any]:
    entry = extension(tmp, QUEUEING, "queueing.mjs")
    return real.run(entry, script)


def test_leaving_the_session_ends_the_run_a_queued_message_continued(real: SharedPi, tmp_path: Path) -> None:
    script = [
        {"do": "start"},
        {"do": "agent_start", "prompt": "go"},
        {"do": "command", "name": "queue", "args": ""},
        {"do": "new_session"},
    ]
    answer = run(real, tmp_path, script)
    results = answer["results"]
    assert faults(results) == []
    leaving = results[-1]
    # Pi ended the open run (aborted), ran the queued message on the session it
    # leaves, aborted that as well, then started the new session: all in the step.
    assert notes(answer, leaving)[-1] == "session new", notes(answer, leaving)
    assert "run ended aborted" in notes(answer, leaving)
    assert answer["timing"]["steps"]["new_session"] < QUICK_MS, answer["timing"]


def test_esc_puts_the_queue_back_and_no_run_goes_on(real: SharedPi, tmp_path: Path) -> None:
    script = [
        {"do": "start"},
        {"do": "agent_start", "prompt": "go"},
        {"do": "command", "name": "queue", "args": ""},
        {"do": "agent_end", "outcome": "aborted"},
        {"do": "context"},
        {"do": "agent_end", "outcome": "completed"},
    ]
    answer = run(real, tmp_path, script)
    results = answer["results"]
    assert faults(results) == []
    esc, seen, done = results[3:]
    # ESC ends the run once; the queued message went back to the editor, so no
    # run goes on with it: the next model call comes with the user's next prompt.
    assert notes(answer, esc) == ["run ended aborted"]
    assert seen.get("openedRun") is True, "a run went on after ESC"
    assert "queued while streaming" not in str(seen["history"])
    assert notes(answer, done) == ["run ended stop"]
    assert answer["timing"]["steps"]["agent_end"] < QUICK_MS, answer["timing"]
