"""Start the Pi host (`real_host.mjs`, inside an installed real Pi) and run
host scripts through it.

The host speaks JSON Lines on stdio (its header comment documents the
requests). One process serves many runs; each run is a fresh start of Pi
inside a sandbox the client creates here, so a run can write only below its
own sandbox root.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from pytest_planmode.hosts.pi import steps
from pytest_planmode.pipe_lines import EOF, Flood, LineReader

#: The host that runs extensions inside an installed real Pi (install.py).
REAL_HOST_SCRIPT = Path(__file__).with_name("real_host.mjs")
#: Seconds a host gets to exit after its input closes before its process
#: group is killed.
GRACE = 2.0
STDERR_TAIL = 2000
#: The longest answer line the client takes from the host (a run's trace).
MAX_ANSWER = 256 << 20


class HostError(Exception):
    """The host could not be started, or did not answer a request legally."""


@dataclass(frozen=True)
class Sandbox:
    """The directories one extension run sees: its cwd, HOME, agent directory
    (`PI_CODING_AGENT_DIR`, which is `~/.pi/agent` under that HOME), session
    files and TMPDIR, all below `root`."""

    root: Path

    @classmethod
    def create(cls, parent: Path) -> Sandbox:
        """A new empty root under `parent`; the host creates the directories
        below it before the run."""
        return cls(Path(tempfile.mkdtemp(prefix="run-", dir=parent)))

    @property
    def cwd(self) -> Path:
        return self.root / "project"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def agent_dir(self) -> Path:
        return self.home / ".pi" / "agent"

    def paths(self) -> dict[str, str]:
        return {
            "root": str(self.root),
            "cwd": str(self.cwd),
            "home": str(self.home),
            "agentDir": str(self.agent_dir),
            "sessionDir": str(self.agent_dir / "sessions"),
            "tmp": str(self.root / "tmp"),
        }

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


class PiHost:
    """One host process: `NODE real_host.mjs PI_ROOT` (`script_args`), on the
    Node an installation chose (install.py) or the user's."""

    def __init__(
        self,
        node: str = "node",
        *,
        timeout: float = 30.0,
        script: Path = REAL_HOST_SCRIPT,
        script_args: tuple[str, ...] = (),
        recycle_every: int = 0,
    ) -> None:
        self.node = node
        self.timeout = timeout
        self.script = script
        self.script_args = script_args
        #: Start a new process after this many runs (0: never), bounding the
        #: memory a long-lived Pi runtime accumulates.
        self.recycle_every = recycle_every
        self._proc: subprocess.Popen[bytes] | None = None
        self._reader: LineReader | None = None
        self._stderr: IO[bytes] | None = None
        self._next_id = 0
        self.hello: dict[str, Any] = {}
        self._runs = 0
        #: Seconds spent starting host processes (for the benchmark).
        self.start_seconds = 0.0
        #: The highest peak resident memory (kB) of the processes closed so
        #: far (Linux; for the benchmark): a recycled process's peak counts.
        self.closed_peak_kb = 0
        #: Processes started so far.
        self.processes = 0

    @property
    def argv(self) -> list[str]:
        try:
            words = shlex.split(self.node)
        except ValueError as exc:
            raise HostError(f"the Pi host's node command {self.node!r} cannot be parsed: {exc}") from None
        if not words:
            raise HostError("the Pi host's node command is empty (expected e.g. 'node')")
        return [*words, str(self.script), *self.script_args]

    def start(self) -> dict[str, Any]:
        """Start the process (if needed) and return its handshake."""
        if self._proc is not None and self._proc.poll() is None:
            return self.hello
        argv = self.argv
        # Stays open for the life of the process; close() closes it.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115
        try:
            self._proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                start_new_session=True,
            )
        except OSError as exc:
            raise HostError(
                f"cannot start the Pi host with {shlex.join(argv)}: {exc} "
                "(install Node.js, or pass --planmode-pi-node=CMD)"
            ) from None
        assert self._proc.stdout is not None
        self.processes += 1
        began = time.perf_counter()
        self._reader = LineReader(self._proc.stdout.fileno(), MAX_ANSWER)
        self._runs = 0
        answer = self._request({"op": "hello"})
        self.start_seconds += time.perf_counter() - began
        if not isinstance(answer, dict) or not isinstance(answer.get("pi"), str):
            raise HostError(f"the Pi host answered the hello with {answer!r:.300}")
        self.hello = answer
        return answer

    def run(
        self,
        extension: Path,
        sandbox: Sandbox,
        script: Sequence[steps.Step | Mapping[str, Any]],
        options: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Run one host script in a fresh runtime; the host's answer (results,
        trace, errors, state, files written under the sandbox). Every step is
        checked against its model first (`steps.StepError` when one is not a
        host step): the host never sees a step it does not know."""
        wire = steps.wire_script(script)
        if self.recycle_every and self._runs >= self.recycle_every:
            self.close()
        self.start()
        message = {
            "op": "run",
            "extension": str(extension),
            "sandbox": sandbox.paths(),
            "script": wire,
            "options": options or {},
        }
        answer = self._request(message)
        self._runs += 1
        if not isinstance(answer, dict):
            raise HostError(f"the Pi host answered a run with {answer!r:.300}")
        return answer

    def _request(self, message: dict[str, Any]) -> Any:
        assert self._proc is not None and self._proc.stdin is not None
        self._next_id += 1
        rid = self._next_id
        data = json.dumps({**message, "id": rid}, ensure_ascii=True, separators=(",", ":")) + "\n"
        try:
            self._proc.stdin.write(data.encode("ascii"))
            self._proc.stdin.flush()
        except OSError as exc:
            self._fail(f"the Pi host stopped reading its input ({exc})")
        assert self._reader is not None
        line = self._reader.get(self.timeout)
        if line is None:
            self._fail(f"the Pi host did not answer within {self.timeout:g} s")
        if line is EOF:
            self._fail("the Pi host exited")
        if isinstance(line, Flood):
            self._fail(f"the Pi host printed a line of {line.size} bytes, over the bound of {MAX_ANSWER}")
        assert isinstance(line, bytes)
        try:
            answer = json.loads(line)
        except ValueError:
            self._fail(f"the Pi host printed a line that is not JSON: {line[:300]!r}")
        if not isinstance(answer, dict) or answer.get("id") != rid:
            self._fail(f"the Pi host answered out of turn: {line[:300]!r}")
        if "error" in answer:
            raise HostError(f"the Pi host refused the request: {answer['error']}")
        return answer.get("ok")

    def _fail(self, what: str) -> Any:
        tail = self._stderr_tail()
        self.close()
        raise HostError(what + (f"; its stderr ends with:\n{tail}" if tail else ""))

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(max(0, os.fstat(self._stderr.fileno()).st_size - STDERR_TAIL))
            return self._stderr.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""

    def peak_rss_kb(self) -> int:
        """The highest peak resident memory (kB) of this host's processes,
        the running one included (0 where /proc does not tell)."""
        return max(self.closed_peak_kb, _peak_kb(self._proc))

    def close(self) -> int | None:
        self.closed_peak_kb = self.peak_rss_kb()
        proc, self._proc = self._proc, None
        reader, self._reader = self._reader, None
        status: int | None = None
        if proc is not None:
            try:
                if proc.stdin is not None:
                    proc.stdin.close()
                status = proc.wait(timeout=GRACE)
            except (OSError, subprocess.TimeoutExpired):
                # A run stuck in microtasks ignores SIGTERM: the whole group
                # (the host and whatever it started) is killed.
                _kill_group(proc.pid, signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=0.5)
                _kill_group(proc.pid, signal.SIGKILL)
                proc.wait()
            # Children the host left behind share its process group.
            _kill_group(proc.pid, signal.SIGKILL)
            if reader is not None:
                reader.stopping.set()
                reader.thread.join(1.0)
            if proc.stdout is not None and (reader is None or not reader.thread.is_alive()):
                proc.stdout.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        return status


def _peak_kb(proc: subprocess.Popen[bytes] | None) -> int:
    """A running process's peak resident memory in kB (VmHWM), else 0."""
    if proc is None or proc.poll() is not None:
        return 0
    try:
        with open(f"/proc/{proc.pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return 0


def _kill_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
