"""Fresh module graphs per load, as Pi's loader gives them.

Pi evaluates an extension's modules afresh on every load (jiti with
`moduleCache: false`): start, `/reload`, a new or resumed session. The host
loads the entry with a tag naming the load and a resolve hook hands the tag
on to every local module it imports, so an extension split over several files
starts from fresh module state too. A TypeScript loader such as tsx drops the
query while resolving; the stand-in here is a tiny Node loader hook that does
the same, registered before the host (as `--import` or a loader CLI does).
Where a loader still serves a cached module (a hook registered after the
host's), the host notices: the client gives every later run a fresh process,
and a reload inside a run says its state carried over."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from pytest_planmode.hosts.pi.client import PiHost, Sandbox

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js (.ci/run installs it)")

#: Module-level state in the entry and in a module it imports: a fresh
#: evaluation starts both at 0 again.
EXTENSION = """
import { bump } from "./counter.mjs";
let loads = 0;
export default function (pi) {
  loads += 1;
  const imported = bump();
  pi.registerCommand("count", { handler: async (_args, ctx) => ctx.ui.notify(`loads=${loads} imported=${imported}`) });
}
"""

COUNTER = """
let loads = 0;
export function bump() { loads += 1; return loads; }
"""

#: Drops the query from file: URLs, so one path is one module instance (as tsx).
DROP_QUERY = """export async function resolve(specifier, context, next) {
  const found = await next(specifier, context);
  if (!found.url.startsWith("file:")) return found;
  const url = new URL(found.url);
  url.search = "";
  return { ...found, url: url.href };
}"""

CACHING_LOADER = f"""
import {{ register }} from "node:module";
register("data:text/javascript," + encodeURIComponent({DROP_QUERY!r}));
"""

#: An extension that registers the query-dropping hook itself, when its
#: module is first evaluated: from then on the hook runs before the host's.
SELF_CACHING = (
    'import { register } from "node:module";\n'
    "if (!globalThis.process.__planmodeDropper) {\n"
    "  globalThis.process.__planmodeDropper = true;\n"
    f'  register("data:text/javascript," + encodeURIComponent({DROP_QUERY!r}));\n'
    "}\n" + EXTENSION
)

FRESH = "loads=1 imported=1"


def _files(tmp_path: Path, source: str = EXTENSION) -> tuple[Path, Path]:
    extension = tmp_path / "ext.mjs"
    extension.write_text(textwrap.dedent(source), encoding="utf-8")
    (tmp_path / "counter.mjs").write_text(textwrap.dedent(COUNTER), encoding="utf-8")
    loader = tmp_path / "caching-loader.mjs"
    loader.write_text(textwrap.dedent(CACHING_LOADER), encoding="utf-8")
    return extension, loader


def _run(host: PiHost, extension: Path, tmp_path: Path, script: list[dict[str, object]]) -> dict[str, object]:
    answer = host.run(extension, Sandbox.create(tmp_path), [{"do": "start"}, *script])
    assert isinstance(answer, dict)
    return answer


def _counts(answer: dict[str, object]) -> list[str]:
    trace = answer["trace"]
    assert isinstance(trace, list)
    return [entry["args"][0] for entry in trace if entry.get("call") == "ui.notify"]


COUNT = {"do": "command", "name": "count"}
COUNT_RELOAD_COUNT = [COUNT, {"do": "reload"}, COUNT]


@pytest.mark.parametrize("loader", [False, True], ids=["plain-node", "query-dropping-loader"])
def test_every_load_evaluates_the_extension_and_its_modules_afresh(tmp_path: Path, loader: bool) -> None:
    extension, caching = _files(tmp_path)
    host = PiHost(f"node --import {caching}" if loader else "node")
    try:
        runs = [_counts(_run(host, extension, tmp_path, COUNT_RELOAD_COUNT)) for _ in range(3)]
        # Without fresh graphs the imported counter would climb across the
        # reload and the runs (loads=1 imported=2, ...).
        assert runs == [[FRESH, FRESH]] * 3
        assert host.process_per_run is False
    finally:
        host.close()


def test_the_handshake_says_whether_loads_are_fresh(tmp_path: Path) -> None:
    host = PiHost("node")
    try:
        assert host.start()["freshLoads"] is True
    finally:
        host.close()


def test_a_loader_that_still_caches_gets_a_fresh_process_per_run(tmp_path: Path) -> None:
    extension, _ = _files(tmp_path, SELF_CACHING)
    host = PiHost("node")
    try:
        runs = [_counts(_run(host, extension, tmp_path, [COUNT])) for _ in range(3)]
        # Without the fresh process the second run would see loads=2.
        assert runs == [[FRESH]] * 3
        assert host.process_per_run is True
    finally:
        host.close()


def test_a_reload_under_a_loader_that_still_caches_says_state_carried_over(tmp_path: Path) -> None:
    extension, _ = _files(tmp_path, SELF_CACHING)
    host = PiHost("node")
    try:
        # The first reload resolves to the untagged path, new to the cache;
        # the second is served the module the first evaluated.
        answer = _run(host, extension, tmp_path, [{"do": "reload"}, {"do": "reload"}])
        errors = answer["errors"]
        assert isinstance(errors, list)
        messages = [error["message"] for error in errors]
        assert any("module-level state carried over into the reload runtime" in m for m in messages), messages
    finally:
        host.close()
