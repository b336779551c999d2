"""Start the sandbox's resident process and run commands through it.

The resident process (`_zygote.py`) asks for its user namespace to be
mapped; this side writes the map. Run as root, the namespace's root is
mapped to an otherwise unused unprivileged user id, so even a command that
escaped every other layer would hold no permission on the machine's files,
and the process-count limit applies to that id alone. Run as an ordinary
user, the namespace maps that user (the kernel allows nothing else)."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_planmode.sandbox import install

PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])
REQUIRED_PROGRAMS = ("strace", "unshare", "setpriv", "git", "bash")
#: Processes a sandboxed command may run at once (a fork loop stops here).
MAX_PROCESSES = 200


class SandboxUnavailable(Exception):
    """The sandbox cannot start on this machine; the message says why."""


@dataclass(frozen=True)
class RawRun:
    exit: int | None
    timed_out: bool
    output_capped: bool
    trace_cut: bool
    stdout: bytes
    stderr: bytes
    trace: str
    seconds: float
    #: The directory the tracer sees as the command's `/`.
    root: str = ""


def _unused_uid() -> int:
    # Distinct per process so concurrent sandboxes (pytest-xdist workers)
    # count their processes separately.
    return 3_000_000_000 + os.getpid() % 1_000_000


class Zygote:
    def __init__(self, *, startup_timeout: float = 60.0) -> None:
        if not sys.platform.startswith("linux"):
            raise SandboxUnavailable(f"the sandbox needs Linux namespaces; this is {sys.platform}")
        missing = [name for name in REQUIRED_PROGRAMS if shutil.which(name) is None]
        if missing:
            raise SandboxUnavailable(f"the sandbox needs {', '.join(missing)} (not found on PATH)")
        self.base = tempfile.mkdtemp(prefix="planmode-sandbox-")
        os.chmod(self.base, 0o755)
        env = {**os.environ, "PYTHONPATH": PACKAGE_PARENT, "PYTHONDONTWRITEBYTECODE": "1"}
        tools = install.tools_dir()
        env["PLANMODE_SANDBOX_TOOLS_MOUNT"] = str(tools) if tools.is_dir() else ""
        nproc = MAX_PROCESSES
        if os.geteuid() != 0:
            nproc += _processes_of(os.getuid())
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pytest_planmode.sandbox._zygote", self.base, str(nproc)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            bufsize=1,
        )
        try:
            self._handshake()
        except SandboxUnavailable:
            self.close()
            raise

    def _line(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(timeout=10)
            assert self.proc.stderr is not None
            detail = self.proc.stderr.read().strip().splitlines()
            raise SandboxUnavailable(
                "the sandbox process exited while starting"
                + (f": {detail[-1]}" if detail else f" (status {self.proc.returncode})")
            )
        return line.rstrip("\n")

    def _handshake(self) -> None:
        first = self._line()
        if not first.startswith("userns "):
            raise SandboxUnavailable(f"unexpected first line from the sandbox process: {first!r}")
        pid = int(first.split()[1])
        try:
            if os.geteuid() == 0:
                uid = gid = _unused_uid()
            else:
                uid, gid = os.getuid(), os.getgid()
                Path(f"/proc/{pid}/setgroups").write_text("deny")
            Path(f"/proc/{pid}/uid_map").write_text(f"0 {uid} 1\n")
            Path(f"/proc/{pid}/gid_map").write_text(f"0 {gid} 1\n")
        except OSError as exc:
            raise SandboxUnavailable(f"cannot map the sandbox's user namespace: {exc}") from None
        assert self.proc.stdin is not None
        self.proc.stdin.write("mapped\n")
        self.proc.stdin.flush()
        answer = self._line()
        if answer.startswith("error "):
            raise SandboxUnavailable(f"cannot set the sandbox up: {json.loads(answer[6:])}")
        if answer != "ready":
            raise SandboxUnavailable(f"unexpected answer from the sandbox process: {answer!r}")

    def run(self, argv: list[str], *, timeout: float, cap: int) -> RawRun:
        assert self.proc.stdin is not None
        request: dict[str, Any] = {"argv": argv, "timeout": timeout, "cap": cap}
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            answer = json.loads(self._line())
        except (OSError, ValueError) as exc:
            raise SandboxUnavailable(f"the sandbox process failed: {exc}") from None
        if "error" in answer:
            raise SandboxUnavailable(f"the sandbox could not run a command: {answer['error']}")
        return RawRun(
            exit=answer["exit"],
            timed_out=bool(answer["timedOut"]),
            output_capped=bool(answer["outputCapped"]),
            trace_cut=bool(answer.get("traceCut")),
            stdout=base64.b64decode(answer["stdout"]),
            stderr=base64.b64decode(answer["stderr"]),
            trace=base64.b64decode(answer["trace"]).decode("utf-8", "replace"),
            seconds=float(answer["seconds"]),
            root=os.path.join(self.base, "root"),
        )

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
        shutil.rmtree(self.base, ignore_errors=True)


def _processes_of(uid: int) -> int:
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += 1
            except OSError:
                pass
    return count
