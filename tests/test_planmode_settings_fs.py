"""The settings loader and save queue on a real directory.

Every fixture scenario of `planmode.settings.load` and
`planmode.settings.save` is replayed on disk (real symlinks, FIFOs,
directories, temporary files, renames) and must give the same answer as the
in-memory operation. Then the things only a real directory shows: the
temporary file's mode and place, threads saving at once, `$PI_CODING_AGENT_DIR`.
"""

from __future__ import annotations

import json
import os
import re
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_planmode.contract.planmode_settings import (
    FileEntry,
    FileEntryOut,
    SettingsLoadInput,
    SettingsSaveInput,
)
from pytest_planmode.reference.planmode.settings import (
    CANONICAL_NAME,
    LEGACY_NAME,
    Edit,
    FileState,
    ReadFailed,
    is_temporary_name,
)
from pytest_planmode.reference.planmode.settings_fs import RealDirectory, agent_directory
from pytest_planmode.reference.planmode.settings_store import (
    Fault,
    InjectedFailure,
    SettingsStore,
    no_fault,
)
from pytest_planmode.suite import FIXTURES_DIR, load_file
from pytest_planmode.targets.reference.ops.planmode_settings import (
    MemoryDriver,
    file_out,
    run_load,
    run_save,
)


class _Directory(RealDirectory):
    """A real directory where entries marked unreadable fail to read even
    for root (which chmod 000 does not stop)."""

    unreadable: set[str]

    def observe(self, name: str) -> FileState:
        if name in self.unreadable and (self.path / name).exists():
            self.fault("read")
            return ReadFailed("PermissionError")
        return super().observe(name)


class DiskDriver:
    """The scenario driver over a real directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.dir = _Directory(root / "agent")
        self.dir.unreadable = set()
        self.dir.path.mkdir()
        self.targets = root / "targets"
        self.targets.mkdir()
        self.links: dict[str, str | None] = {}

    @property
    def directory(self) -> RealDirectory:
        return self.dir

    def put(self, name: str, entry: FileEntry) -> None:
        path = self.dir.path / name
        if entry.kind == "file":
            path.write_bytes(entry.content())
        elif entry.kind == "directory":
            path.mkdir()
        elif entry.kind == "fifo":
            os.mkfifo(path)
        elif entry.kind == "unreadable":
            path.write_bytes(b'{"thinkingLevel": "high"}')
            path.chmod(0)
            self.dir.unreadable.add(name)
        else:
            target = self.targets / f"{name}.target"
            if entry.to == "file":
                target.write_text('{"thinkingLevel": "high"}', encoding="utf-8")
            elif entry.to == "directory":
                target.mkdir()
            elif entry.to == "fifo":
                os.mkfifo(target)
            path.symlink_to(target)
            self.links[name] = entry.to

    def remove(self, name: str) -> None:
        path = self.dir.path / name
        self.dir.unreadable.discard(name)
        self.links.pop(name, None)
        if path.is_dir() and not path.is_symlink():
            path.rmdir()
        elif os.path.lexists(path):
            path.unlink()

    def names(self) -> list[str]:
        return sorted(os.listdir(self.dir.path))

    def listing(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for name in self.names():
            path = self.dir.path / name
            mode = os.lstat(path).st_mode
            if name in self.dir.unreadable:
                kind = "unreadable"
            elif stat.S_ISLNK(mode):
                kind = "symlink"
            elif stat.S_ISDIR(mode):
                kind = "directory"
            elif stat.S_ISFIFO(mode):
                kind = "fifo"
            else:
                out[name] = file_out(path.read_bytes())
                continue
            out[name] = FileEntryOut(
                kind=kind, text=None, base64=None, to=self.links.get(name), document=None, keys=None
            ).model_dump(by_alias=True)
        return out

    def set_fault(self, fault: Fault) -> None:
        self.dir.fault = fault


def _cases(operation: str) -> list[Any]:
    found = []
    for path in sorted((FIXTURES_DIR / "planmode").glob("settings*.toml")):
        found += [c for c in load_file(path) if c.operation == operation]
    return found


_TEMP = re.compile(r"^\.pi-plan-mode\.json\.[^/]+\.tmp$")


def _normalise(answer: dict[str, Any]) -> dict[str, Any]:
    """Temporary names differ (random on disk, counted in memory)."""
    files = answer.get("files")
    if files is not None:
        answer = dict(answer)
        answer["files"] = {
            ("<temporary>" if _TEMP.match(name) else name): value for name, value in files.items()
        }
    return answer


@pytest.mark.parametrize("case", _cases("planmode.settings.load"), ids=lambda c: c.id)
def test_disk_and_memory_agree_on_load(case: Any, tmp_path: Path) -> None:
    inp = SettingsLoadInput.model_validate(case.input)
    assert run_load(DiskDriver(tmp_path), inp) == run_load(MemoryDriver(), inp)


@pytest.mark.parametrize("case", _cases("planmode.settings.save"), ids=lambda c: c.id)
def test_disk_and_memory_agree_on_save(case: Any, tmp_path: Path) -> None:
    inp = SettingsSaveInput.model_validate(case.input)
    on_disk = _normalise(run_save(DiskDriver(tmp_path), inp))
    in_memory = _normalise(run_save(MemoryDriver(), inp))
    assert on_disk == in_memory


def test_the_agreement_check_covers_every_entry_kind() -> None:
    kinds = set()
    for case in _cases("planmode.settings.load") + _cases("planmode.settings.save"):
        for entry in case.input.get("files", {}).values():
            kinds.add((entry["kind"], entry.get("to")))
    assert {("file", None), ("directory", None), ("fifo", None), ("unreadable", None)} <= kinds
    assert {("symlink", "file"), ("symlink", "directory"), ("symlink", "missing")} <= kinds


# ---------------------------------------------------------------- disk only


def test_real_unreadable_file_is_a_read_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """chmod 000 on disk; root ignores that, so for root the open also fails
    the way it would for anyone else."""
    (tmp_path / CANONICAL_NAME).write_text('{"thinkingLevel": "high"}', encoding="utf-8")
    (tmp_path / CANONICAL_NAME).chmod(0)
    if os.geteuid() == 0:
        real_open = os.open

        def refuse(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            if str(path).endswith(CANONICAL_NAME):
                raise PermissionError(13, "Permission denied")
            return real_open(path, flags, *args, **kwargs)

        monkeypatch.setattr(os, "open", refuse)
    outcome = SettingsStore(RealDirectory(tmp_path)).load()
    assert (outcome.status, outcome.reason, outcome.read_only) == ("invalid", "read-failed", True)
    assert outcome.settings.thinking_level == "inherit"


def test_fifo_is_never_opened_for_reading(tmp_path: Path) -> None:
    """A FIFO with no writer would block a plain open; the loader must answer at once."""
    os.mkfifo(tmp_path / CANONICAL_NAME)
    outcome = SettingsStore(RealDirectory(tmp_path)).load()
    assert (outcome.status, outcome.reason) == ("invalid", "not-regular")


def test_temporary_file_is_exclusive_0600_and_beside_the_target(tmp_path: Path) -> None:
    seen: list[tuple[str, int]] = []
    directory = RealDirectory(tmp_path)

    def watch(step: str) -> None:
        if step == "fsync":
            for name in os.listdir(tmp_path):
                if is_temporary_name(name):
                    seen.append((name, stat.S_IMODE(os.lstat(tmp_path / name).st_mode)))

    directory.fault = watch
    old_umask = os.umask(0)  # the mode must not depend on a permissive umask
    try:
        result = SettingsStore(directory).save(Edit("thinkingLevel", "high"))
    finally:
        os.umask(old_umask)
    assert result.ok
    assert len(seen) == 1 and seen[0][1] == 0o600, seen
    assert sorted(os.listdir(tmp_path)) == [CANONICAL_NAME]
    assert (tmp_path / CANONICAL_NAME).read_text(encoding="utf-8") == ('{\n  "thinkingLevel": "high"\n}\n')


@pytest.mark.parametrize("step", ["create-temp", "write", "fsync", "rename"])
def test_injected_failure_on_disk_keeps_old_bytes_and_no_temporary(tmp_path: Path, step: str) -> None:
    old = b'{"thinkingLevel": "low", "mine": 1}'
    (tmp_path / CANONICAL_NAME).write_bytes(old)

    def fail(at: str) -> None:
        if at == step:
            raise InjectedFailure(at)

    directory = RealDirectory(tmp_path, fault=fail)
    store = SettingsStore(directory)
    store.load()
    result = store.save(Edit("thinkingLevel", "high"))
    assert (result.ok, result.reason) == (False, "write-failed")
    assert (tmp_path / CANONICAL_NAME).read_bytes() == old
    assert os.listdir(tmp_path) == [CANONICAL_NAME]
    assert store.settings.thinking_level == "low"


def test_legacy_file_is_never_written(tmp_path: Path) -> None:
    legacy = b'{"thinkingLevel": "high", "toolVisibility": {"a": 1}, "x": [1]}'
    (tmp_path / LEGACY_NAME).write_bytes(legacy)
    before = os.stat(tmp_path / LEGACY_NAME)
    store = SettingsStore(RealDirectory(tmp_path))
    assert store.load().status == "legacy"
    assert store.save(Edit("autoSwitchModel", True)).ok
    assert (tmp_path / LEGACY_NAME).read_bytes() == legacy
    assert os.stat(tmp_path / LEGACY_NAME).st_mtime_ns == before.st_mtime_ns
    saved = json.loads((tmp_path / CANONICAL_NAME).read_text(encoding="utf-8"))
    assert saved == {"thinkingLevel": "high", "toolVisibility": {"a": 1}, "x": [1], "autoSwitchModel": True}


def test_concurrent_saves_lose_nothing_and_the_file_is_always_json(tmp_path: Path) -> None:
    """Threads save different fields many times while a reader parses the
    file continuously: every read is a complete JSON object, and at the end
    each field holds the value of its own last save."""
    (tmp_path / CANONICAL_NAME).write_text('{"unknown": {"keep": true}}', encoding="utf-8")
    store = SettingsStore(RealDirectory(tmp_path))
    store.load()
    fields = {
        "thinkingLevel": ["off", "low", "medium", "high"],
        "implementationPlanRetention": ["keep", "clear-after-first-run", "clear-on-start"],
        "defaultPlanExportPath": [f"plan-{i}.md" for i in range(5)],
        "toggleShortcut": [f"ctrl+{c}" for c in "abcdef"],
        "defaultPlanTools": [["read"], ["read", "grep"], []],
        "planModel": [{"provider": "p", "modelId": f"m{i}"} for i in range(4)],
        "normalModel": [[{"provider": "n", "modelId": f"m{i}"}] for i in range(4)],
        "autoSwitchModel": [True, False, True],
    }
    rounds = 12
    start = threading.Barrier(len(fields) + 1)
    stop = threading.Event()
    failures: list[str] = []
    reads = 0

    def writer(field: str, values: list[Any]) -> None:
        start.wait()
        for i in range(rounds):
            result = store.save(Edit(field, values[i % len(values)]))
            if not result.ok:
                failures.append(f"{field}: {result.message}")

    def reader() -> None:
        nonlocal reads
        start.wait()
        while not stop.is_set():
            text = (tmp_path / CANONICAL_NAME).read_text(encoding="utf-8")
            try:
                document = json.loads(text)
            except ValueError:
                failures.append(f"torn read: {text[:80]!r}")
                return
            if not isinstance(document, dict) or document.get("unknown") != {"keep": True}:
                failures.append(f"unknown field lost: {text[:80]!r}")
                return
            reads += 1

    threads = [threading.Thread(target=writer, args=item) for item in fields.items()]
    watcher = threading.Thread(target=reader)
    for thread in [*threads, watcher]:
        thread.start()
    for thread in threads:
        thread.join()
    stop.set()
    watcher.join()
    assert failures == []
    assert reads > 0
    final = json.loads((tmp_path / CANONICAL_NAME).read_text(encoding="utf-8"))
    for field, values in fields.items():
        assert final[field] == values[(rounds - 1) % len(values)], field
    assert final["unknown"] == {"keep": True}
    assert sorted(os.listdir(tmp_path)) == [CANONICAL_NAME]


def test_saves_run_in_invocation_order(tmp_path: Path) -> None:
    """Tickets are served first come, first served: while one save is held
    inside the queue, later saves wait and then run in the order they were
    called."""
    order: list[str] = []
    gate = threading.Event()
    entered = threading.Event()

    def hold(step: str) -> None:
        if step == "write" and not gate.is_set():
            entered.set()
            gate.wait(timeout=10)

    directory = RealDirectory(tmp_path, fault=hold)
    store = SettingsStore(directory)

    def save(value: str) -> None:
        store.save(Edit("toggleShortcut", value))
        order.append(value)

    first = threading.Thread(target=save, args=("ctrl+1",))
    first.start()
    assert entered.wait(timeout=10)
    later = []
    for name in ("ctrl+2", "ctrl+3", "ctrl+4"):
        thread = threading.Thread(target=save, args=(name,))
        thread.start()
        later.append(thread)
        # Wait until this caller holds its ticket before starting the next.
        for _ in range(10_000):
            if store.pending >= len(later) + 1:
                break
            threading.Event().wait(0.001)
        else:
            gate.set()
            pytest.fail(f"save {name!r} never queued behind the held save")
    gate.set()
    for thread in [first, *later]:
        thread.join()
    assert order == ["ctrl+1", "ctrl+2", "ctrl+3", "ctrl+4"]
    saved = json.loads((tmp_path / CANONICAL_NAME).read_text(encoding="utf-8"))
    assert saved == {"toggleShortcut": "ctrl+4"}


def test_agent_directory_from_environment(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert agent_directory({}, home) == home / ".pi" / "agent"
    assert agent_directory({"PI_CODING_AGENT_DIR": ""}, home) == home / ".pi" / "agent"
    assert agent_directory({"PI_CODING_AGENT_DIR": str(tmp_path / "x")}, home) == tmp_path / "x"


def test_missing_file_is_not_created_by_loading(tmp_path: Path) -> None:
    store = SettingsStore(RealDirectory(tmp_path))
    assert store.load().status == "missing"
    assert store.save(Edit("toggleShortcut", reset=True)).ok
    assert os.listdir(tmp_path) == []


def test_no_fault_is_the_default() -> None:
    assert RealDirectory(Path(".")).fault is no_fault


def test_first_save_creates_a_missing_agent_directory(tmp_path: Path) -> None:
    agent = agent_directory({}, tmp_path / "home")
    store = SettingsStore(RealDirectory(agent))
    assert store.load().status == "missing"
    assert not agent.exists()
    assert store.save(Edit("thinkingLevel", "low")).ok
    assert os.listdir(agent) == [CANONICAL_NAME]
    assert stat.S_IMODE(os.stat(agent).st_mode) & 0o077 == 0
