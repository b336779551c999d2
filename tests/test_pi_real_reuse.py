"""The real-Pi host keeps one model runtime per catalogue between runs (as a
Pi process keeps one): a run that changes it (a provider of its own) leaves
nothing behind for the next run, and every answer says where its time went."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_planmode.hosts.pi import install
from pytest_planmode.hosts.pi.client import REAL_HOST_SCRIPT, PiHost, Sandbox

#: The default run starts one real Pi (its start takes seconds); both under whole_suite.
VERSIONS = ("0.84.2", pytest.param("1.6.0", marks=pytest.mark.whole_suite))

#: A `/providers` command that tells whether the provider `leftover` is in
#: Pi's model registry; with `register`, the extension registers it first.
SOURCE = """
export default (pi) => {
  if (%s) {
    pi.registerProvider("leftover", {
      name: "Leftover", baseUrl: "https://example.invalid", apiKey: "KEY", api: "openai-completions",
      models: [{ id: "m", name: "M", reasoning: false, input: ["text"],
                 cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1000, maxTokens: 100 }],
    });
  }
  pi.registerCommand("providers", { handler: async (_a, ctx) => {
    const ids = ctx.modelRegistry.getAll().map((m) => m.provider);
    ctx.ui.notify(ids.includes("leftover") ? "leftover seen" : "clean", "info");
  } });
};
"""
PROBE = [{"do": "start"}, {"do": "command", "name": "providers"}]


@pytest.fixture(scope="module", params=VERSIONS)
def host(request: pytest.FixtureRequest) -> Iterator[PiHost]:
    try:
        found = install.find(request.param)
    except install.InstallError as exc:
        pytest.skip(f"Pi {request.param} is not installed ({exc}); run `planmode pi install {request.param}`")
    pi = PiHost(found.node, timeout=120, script=REAL_HOST_SCRIPT, script_args=(str(found.root),))
    yield pi
    pi.close()


def run(host: PiHost, tmp: Path, source: str, script: list[dict[str, Any]]) -> dict[str, Any]:
    entry = tmp / f"ext-{len(list(tmp.iterdir()))}.mjs"
    entry.write_text(textwrap.dedent(source), encoding="utf-8")
    sandbox = Sandbox.create(tmp)
    try:
        return host.run(entry, sandbox, script)
    finally:
        sandbox.remove()


def notes(answer: dict[str, Any]) -> list[str]:
    return [str(e["args"][0]) for e in answer["trace"] if e.get("call") == "ui.notify"]


def test_a_provider_one_run_registers_is_gone_in_the_next(host: PiHost, tmp_path: Path) -> None:
    first = run(host, tmp_path, SOURCE % "false", PROBE)
    assert notes(first) == ["clean"]
    assert notes(run(host, tmp_path, SOURCE % "true", PROBE)) == ["leftover seen"]
    assert notes(run(host, tmp_path, SOURCE % "false", PROBE)) == ["clean"]
    # Every answer says where its time went.
    timing = first["timing"]
    assert set(timing["steps"]) == {"start", "command"}
    assert timing["totalMs"] >= timing["stepsMs"] >= timing["steps"]["start"] > 0
