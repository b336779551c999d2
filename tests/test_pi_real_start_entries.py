"""What an extension does at session start, the entries it finds and appends,
as the real-Pi host reports them: a `pi.setModel` call in a `session_start`
handler is traced with Pi's answer (as any later call is), Pi started on a
stored session has its entries at `session_start`, and the state holds the
session's branch, so a translation reads the entries an extension appended
(opl-modes pins its OFF model at session start, restores its mode from its
`mode-switcher` entry and persists its restore point there).

These tests need Pi 0.84.2 installed (`planmode pi install 0.84.2`)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.pi_real_hosts import SharedHosts

#: At session start the extension switches to `acme/pin` and appends an entry.
PINNING = """
export default (pi) => {
  pi.on("session_start", async (_event, ctx) => {
    const pin = ctx.modelRegistry.find("acme", "pin");
    if (pin) await pi.setModel(pin);
    pi.appendEntry("pinned", { model: "acme/pin" });
  });
};
"""


def test_a_model_change_at_session_start_is_traced_and_entries_are_on_the_branch(
    real_pi: SharedHosts, tmp_path: Path
) -> None:
    entry = tmp_path / "pinning.mjs"
    entry.write_text(textwrap.dedent(PINNING), encoding="utf-8")
    script = [
        {
            "do": "models",
            "catalogue": [{"provider": "acme", "id": "base"}, {"provider": "acme", "id": "pin"}],
            "current": "acme/base",
        },
        {"do": "start"},
    ]
    answer = real_pi("0.84.2").run(entry, script)
    assert [r.get("refused") or r.get("error") or r.get("threw") for r in answer["results"]] == [None, None]
    assert answer["state"]["model"] == "acme/pin"
    calls = [e for e in answer["trace"] if e.get("call") == "pi.setModel"]
    assert [c["args"][0] for c in calls] == [{"provider": "acme", "id": "pin"}]
    settled = [e for e in answer["trace"] if e.get("answer") == "pi.setModel"]
    assert [(e["model"], e["value"]) for e in settled] == [("acme/pin", True)]
    mine = [e for e in answer["state"]["branch"] if e.get("customType") == "pinned"]
    assert [(e["type"], e["data"]) for e in mine] == [("custom", {"model": "acme/pin"})]


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
    entry = tmp_path / "reading.mjs"
    entry.write_text(textwrap.dedent(READING), encoding="utf-8")
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
    entry = tmp_path / "listing.mjs"
    entry.write_text(textwrap.dedent(LISTING), encoding="utf-8")
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
