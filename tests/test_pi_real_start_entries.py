"""What an extension does at session start, the entries it finds and appends,
as the real-Pi host reports them: Pi started on a stored session has its
entries at `session_start`, and another extension's tools are registered
before it (opl-modes restores its mode from its `mode-switcher` entry and
withholds its lazy tools there). A model change at `session_start` and the
branch in the state are tested in `test_pi_real_oplmodels.py`.

These tests need Pi 0.84.2 installed (`planmode pi install 0.84.2`)."""

from __future__ import annotations

from pathlib import Path

from tests.pi_examples import extension
from tests.pi_real_hosts import SharedHosts

#: At session start the extension shows the entries of its kind it finds.
READING = """
export default (pi) => {
  pi.on("session_start", (event, ctx) => {
    const mine = ctx.sessionManager.getBranch().filter((e) => e.type === "custom" && e.customType === "stored");
    ctx.ui.notify(`${event.reason}: ${JSON.stringify(mine.map((e) => e.data))}`, "info");
  });
};
"""


def test_pi_started_on_stored_entries_has_them_at_session_start(real_pi: SharedHosts, tmp_path: Path) -> None:
    entry = extension(tmp_path, READING, "reading.mjs")
    stored = [{"type": "custom", "customType": "stored", "data": {"mode": "chat"}}]
    answer = real_pi("0.84.2").run(entry, [{"do": "start", "entries": stored}])
    assert [r.get("refused") or r.get("error") or r.get("threw") for r in answer["results"]] == [None]
    shown = [e["args"][0] for e in answer["trace"] if e.get("call") == "ui.notify"]
    assert shown == ['startup: [{"mode":"chat"}]']


#: At session start the extension shows every tool Pi has registered.
LISTING = """
export default (pi) => {
  pi.on("session_start", (_event, ctx) => {
    ctx.ui.notify(pi.getAllTools().map((t) => t.name).sort().join(","), "info");
  });
};
"""


def test_another_extensions_tools_are_registered_before_session_start(
    real_pi: SharedHosts, tmp_path: Path
) -> None:
    # In Pi another extension registers its tools at load, so an extension's
    # session_start handler sees them (opl-modes withholds its lazy tools there).
    entry = extension(tmp_path, LISTING, "listing.mjs")
    registry = [
        {"name": name, "source": "builtin", "active": True, "properties": {}} for name in ("read", "bash")
    ] + [
        {"name": "subagent", "source": "user-extension", "active": True, "properties": {}},
        {"name": "browser", "source": "project-extension", "active": False, "properties": {}},
    ]
    answer = real_pi("0.84.2").run(
        entry, [{"do": "registry", "tools": registry}, {"do": "start"}, {"do": "state"}]
    )
    shown = [e["args"][0] for e in answer["trace"] if e.get("call") == "ui.notify"]
    assert len(shown) == 1 and {"subagent", "browser"} <= set(shown[0].split(",")), shown
    # A tool the registry lists inactive stays so.
    assert answer["results"][-1]["state"]["activeTools"] == ["read", "bash", "subagent"]
