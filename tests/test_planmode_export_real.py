"""The reference export on a real directory agrees with the in-memory model
that `planmode.export.run` uses (pi-plan-mode-settings.md § Export destination)."""

from __future__ import annotations

import os
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_planmode.contract.planmode_lifecycle import ExportRunInput
from pytest_planmode.contract.virtual_paths import ROOTS
from pytest_planmode.reference.planmode.export_fs import RealFileSystem
from pytest_planmode.suite import decode_nulls
from pytest_planmode.targets.reference.adapter import under_roots
from pytest_planmode.targets.reference.ops.planmode_lifecycle import export_once, model_fs

FIXTURE = Path(__file__).resolve().parents[1] / "pytest_planmode" / "fixtures" / "planmode" / "export.toml"


def _export_cases() -> list[tuple[str, dict[str, Any]]]:
    data = tomllib.loads(FIXTURE.read_text(encoding="utf-8"))
    cases = []
    for group in data["group"]:
        if group["operation"] != "planmode.export.run":
            continue
        for case in group["case"]:
            cases.append((case["id"], decode_nulls({**group.get("defaults", {}), **case["input"]})))
    return cases


def _roots(root: Path) -> dict[str, str]:
    return {token: str(root / token.removeprefix("$").lower()) for token in ROOTS}


def _rebase(root: Path, raw: dict[str, Any]) -> ExportRunInput:
    """The input as a target sees it: its rooted paths moved under `root`."""
    moved: ExportRunInput = under_roots(ExportRunInput.model_validate(raw), _roots(root))
    return moved


def _materialize(root: Path, inp: ExportRunInput) -> None:
    for directory in _roots(root).values():
        os.makedirs(directory, exist_ok=True)
    os.makedirs(inp.cwd, exist_ok=True)
    os.makedirs(inp.home, exist_ok=True)
    for entry in sorted(inp.paths, key=lambda e: e.kind != "directory"):
        os.makedirs(os.path.dirname(entry.path), exist_ok=True)
        if entry.kind == "directory":
            os.makedirs(entry.path, exist_ok=True)
        elif entry.kind == "file":
            Path(entry.path).write_bytes(entry.content.encode("utf-8"))
        else:
            os.symlink(entry.target or "", entry.path)


def _tree(root: Path) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for directory, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(directory, name)
            rel = os.path.relpath(path, root)
            if os.path.islink(path):
                found[rel] = ("symlink", os.readlink(path))
            elif os.path.isdir(path):
                found[rel] = ("directory",)
            else:
                found[rel] = ("file", Path(path).read_bytes())
    return found


def _both(
    root: Path, raw: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    inp = _rebase(root, raw)
    _materialize(root, inp)
    before = _tree(root)
    fs = model_fs(inp.paths, inp.cwd, inp.home, _roots(root).values())
    model = export_once(inp, fs).model_dump(mode="json", by_alias=True)
    real = export_once(inp, RealFileSystem()).model_dump(mode="json", by_alias=True)
    return model, real, before, _tree(root)


@pytest.mark.parametrize(("case_id", "raw"), _export_cases(), ids=[c[0] for c in _export_cases()])
def test_real_directory_agrees_with_model(tmp_path: Path, case_id: str, raw: dict[str, Any]) -> None:
    model, real, before, after = _both(tmp_path, raw)
    assert real == model, f"{case_id}: the real directory and the model disagree"
    if real["outcome"] == "written":
        written = Path(real["destination"]).read_bytes()
        assert written == (raw["state"]["plan"] + "\n").encode("utf-8")
        assert written == real["content"].encode("utf-8")
        added = set(after) - set(before)
        expected = {os.path.relpath(d, tmp_path) for d in real["createdDirectories"]}
        expected.add(os.path.relpath(real["destination"], tmp_path))
        if os.path.realpath(real["destination"]) == real["destination"]:
            assert added == expected, f"{case_id}: unexpected paths appeared"
        for rel, node in before.items():
            assert after[rel] == node, f"{case_id}: {rel} changed"
    else:
        assert after == before, f"{case_id}: a {real['outcome']} export changed the directory"


def test_written_file_keeps_bytes_exactly(tmp_path: Path) -> None:
    plan = "# Plän\r\n\n- [ ] step\t \n\n"
    model, real, _before, _after = _both(
        tmp_path, {"state": {"source": "saved", "plan": plan}, "request": {"path": "@out/deep/p.md"}}
    )
    assert real == model
    assert (tmp_path / "cwd/out/deep/p.md").read_bytes() == plan.encode("utf-8") + b"\n"
    assert real["createdDirectories"] == [str(tmp_path / "cwd/out"), str(tmp_path / "cwd/out/deep")]


def test_real_refuses_existing_targets_and_leaves_them(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "project/PLAN.md").write_text("keep me", encoding="utf-8")
    inp = ExportRunInput.model_validate({"state": {"source": "ready", "plan": "new"}}).model_copy(
        update={"cwd": str(tmp_path / "project")}
    )
    out = export_once(inp, RealFileSystem())
    assert (out.outcome, out.code) == ("refused", "exists-file")
    assert (tmp_path / "project/PLAN.md").read_text(encoding="utf-8") == "keep me"
    assert out.state_after.plan_mode is True


def test_real_never_writes_through_a_dangling_link(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    os.symlink(tmp_path / "outside.md", tmp_path / "project/PLAN.md")
    inp = ExportRunInput.model_validate({"state": {"source": "ready", "plan": "x"}}).model_copy(
        update={"cwd": str(tmp_path / "project")}
    )
    out = export_once(inp, RealFileSystem())
    assert out.code == "exists-symlink"
    assert not (tmp_path / "outside.md").exists()


def test_real_failed_write_removes_created_directories(tmp_path: Path) -> None:
    class Failing(RealFileSystem):
        def create(self, path: str, data: bytes) -> None:
            raise OSError(28, "No space left on device")

    (tmp_path / "project").mkdir()
    inp = ExportRunInput.model_validate(
        {"request": {"path": "a/b/p.md"}, "state": {"source": "ready", "plan": "x"}}
    ).model_copy(update={"cwd": str(tmp_path / "project")})
    out = export_once(inp, Failing())
    assert (out.outcome, out.code) == ("failed", "write-failed")
    assert out.state_after.plan_mode is True and out.state_after.source_kept is True
    assert list((tmp_path / "project").iterdir()) == []


_name = st.sampled_from(["a", "b", "PLAN.md", "p.md"])
_entries = st.lists(
    st.tuples(
        st.lists(_name, min_size=1, max_size=3).map("/".join),
        st.sampled_from(["file", "directory", "symlink"]),
        st.sampled_from(["a", "$CWD/b", "missing", "$CWD/a/PLAN.md"]),
    ),
    max_size=5,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    entries=_entries,
    request_path=st.one_of(st.none(), st.lists(_name, min_size=1, max_size=3).map("/".join)),
    cancel=st.booleans(),
)
def test_random_trees_agree(
    entries: list[tuple[str, str, str]], request_path: str | None, cancel: bool
) -> None:
    paths: dict[str, dict[str, Any]] = {}
    for rel, kind, target in entries:
        full = "$CWD/" + rel
        # Skip entries nested under an earlier non-directory (an impossible tree).
        if any(full.startswith(p + "/") and e["kind"] != "directory" for p, e in paths.items()):
            continue
        if any(p.startswith(full + "/") for p in paths) and kind != "directory":
            continue
        entry: dict[str, Any] = {"path": full, "kind": kind}
        if kind == "symlink":
            entry["target"] = target
        paths.setdefault(full, entry)
    raw = {
        "paths": list(paths.values()),
        "request": {"path": request_path, "cancel": cancel},
        "state": {"source": "saved", "plan": "# P"},
    }
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        model, real, before, after = _both(root, raw)
        assert real == model
        if real["outcome"] != "written":
            assert after == before
