"""Per-case isolation when the host runs under a loader that caches modules.

Pi evaluates an extension's module afresh on every load. Node does so for
the host when the import URL's query changes; a TypeScript loader such as
tsx ignores the query and serves the module it evaluated before. The stand-in
here is a tiny Node loader hook that drops the query of `file:` URLs, which
caches the same way without needing tsx: the host must notice and the client
must give every later run a fresh process."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from pytest_planmode.hosts.pi.client import PiHost, Sandbox

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js (.ci/run installs it)")

EXTENSION = """
// Module-level state: a fresh evaluation starts it at 0 again.
let loads = 0;
export default function (pi) {
  loads += 1;
  pi.registerCommand("count", { handler: async (_args, ctx) => ctx.ui.notify(`loads=${loads}`) });
}
"""

# Drops the query from file: URLs, so one URL is one module instance (as tsx).
CACHING_LOADER = """
import { register } from "node:module";
const hooks = `export async function resolve(specifier, context, next) {
  const found = await next(specifier, context);
  if (!found.url.startsWith("file:")) return found;
  const url = new URL(found.url);
  url.search = "";
  return { ...found, url: url.href };
}`;
register("data:text/javascript," + encodeURIComponent(hooks));
"""


def _files(tmp_path: Path) -> tuple[Path, Path]:
    extension = tmp_path / "ext.mjs"
    extension.write_text(textwrap.dedent(EXTENSION), encoding="utf-8")
    loader = tmp_path / "caching-loader.mjs"
    loader.write_text(textwrap.dedent(CACHING_LOADER), encoding="utf-8")
    return extension, loader


def _counts(host: PiHost, extension: Path, tmp_path: Path, script: list[dict[str, object]]) -> list[str]:
    answer = host.run(extension, Sandbox.create(tmp_path), [{"do": "start"}, *script])
    return [entry["args"][0] for entry in answer["trace"] if entry.get("call") == "ui.notify"]


def test_plain_node_evaluates_the_module_afresh_in_one_process(tmp_path: Path) -> None:
    extension, _ = _files(tmp_path)
    host = PiHost("node")
    try:
        runs = [_counts(host, extension, tmp_path, [{"do": "command", "name": "count"}]) for _ in range(3)]
        assert runs == [["loads=1"]] * 3
        assert host.process_per_run is False
    finally:
        host.close()


def test_a_caching_loader_gets_a_fresh_process_per_run(tmp_path: Path) -> None:
    extension, loader = _files(tmp_path)
    host = PiHost(f"node --import {loader}")
    try:
        runs = [_counts(host, extension, tmp_path, [{"do": "command", "name": "count"}]) for _ in range(3)]
        # Without the fresh process the second run would see loads=2.
        assert runs == [["loads=1"]] * 3
        assert host.process_per_run is True
    finally:
        host.close()


def test_a_reload_under_a_caching_loader_says_state_carried_over(tmp_path: Path) -> None:
    extension, loader = _files(tmp_path)
    host = PiHost(f"node --import {loader}")
    try:
        answer = host.run(extension, Sandbox.create(tmp_path), [{"do": "start"}, {"do": "reload"}])
        messages = [error["message"] for error in answer["errors"]]
        assert any("module-level state carried over into the reload runtime" in m for m in messages), messages
    finally:
        host.close()
