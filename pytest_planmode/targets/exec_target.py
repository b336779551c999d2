"""`exec:<command line>`: a target process speaking JSON Lines on stdio.

One process serves the whole session. A request that the process does not
answer legally (it crashes, hangs past the timeout, prints something that is
not one JSON object, answers with another id) fails that request with a
message saying what the process did; the process is then stopped and the
next request starts a fresh one.
"""

from __future__ import annotations

import json
import os
import select
import shlex
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping
from typing import IO, Any

from pytest_planmode import PROTOCOL_VERSION, SUITE_VERSION
from pytest_planmode.limits import DEFAULT_MAX_LINE, DEFAULT_STARTUP_TIMEOUT, STOP_GRACE
from pytest_planmode.pipe_lines import EOF as _EOF
from pytest_planmode.pipe_lines import Flood, LineReader
from pytest_planmode.targets.base import (
    Handshake,
    Outcome,
    TargetError,
    parse_handshake,
    parse_response,
)

STDERR_TAIL = 2000
#: How long a process that has exited may take to flush its last line.
EXIT_GRACE = 0.2
#: Pumps still blocked on a pipe held open by an escaped grandchild; their
#: file objects must outlive them so the descriptor is never reused.
_STUCK: list[object] = []


class _Process:
    """One running target process in its own process group, with a reader
    thread feeding a bounded queue."""

    def __init__(self, argv: list[str], cwd: str | None, max_line: int) -> None:
        # Stays open for the life of the process; stop() closes it.
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                cwd=cwd,
                start_new_session=True,
            )
        except OSError as exc:
            self.stderr.close()
            raise TargetError(f"cannot start {shlex.join(argv)}: {exc}") from exc
        assert self.proc.stdout is not None and self.proc.stdin is not None
        os.set_blocking(self.proc.stdin.fileno(), False)
        self.pump = LineReader(self.proc.stdout.fileno(), max_line)

    def send(self, message: dict[str, Any], timeout: float) -> None:
        """Write one line; OSError if the target stopped reading (closed its
        input, or did not take the line within `timeout`)."""
        assert self.proc.stdin is not None
        # ASCII on the wire: lone surrogates (valid in JSON, not in UTF-8) and
        # line separators such as U+2028 travel as escapes, never raw.
        data = memoryview((json.dumps(message, ensure_ascii=True, separators=(",", ":")) + "\n").encode())
        fd = self.proc.stdin.fileno()
        deadline = time.monotonic() + timeout
        while data:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise OSError("the target did not read its input in time")
            _, writable, _ = select.select([], [fd], [], remaining)
            if not writable:
                continue
            try:
                written = os.write(fd, data[: 1 << 16])
            except BlockingIOError:
                continue
            data = data[written:]

    def receive(self, timeout: float) -> object:
        """The next line (bytes), a Flood, _EOF, or None on timeout. A process
        that has exited yields _EOF even while a child of it holds the pipe."""
        deadline = time.monotonic() + timeout
        exited_at: float | None = None
        while True:
            now = time.monotonic()
            if now >= deadline:
                return None
            item = self.pump.get(min(0.05, deadline - now))
            if item is not None:
                return item
            if self.proc.poll() is not None:
                exited_at = exited_at or time.monotonic()
                if time.monotonic() - exited_at >= EXIT_GRACE:
                    return _EOF

    def stderr_tail(self) -> str:
        try:
            self.stderr.seek(0, os.SEEK_END)
            size = self.stderr.tell()
            self.stderr.seek(max(0, size - STDERR_TAIL))
            text = self.stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""
        return text

    def exit_status(self, wait: float) -> int | None:
        try:
            return self.proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return None

    def stop(self, wait: float = 1.0) -> None:
        """Stop the whole process group (whatever the leader's state: a child
        it forked may hold the pipes): SIGTERM, then SIGKILL for what is
        left after a short grace; then release the pipes within `wait`."""
        self._signal_group(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        while self._group_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        if self._group_alive():
            self._signal_group(signal.SIGKILL)
        self.exit_status(wait)
        self.pump.stopping.set()
        self.pump.thread.join(wait)
        if self.pump.thread.is_alive():
            _STUCK.append(self.proc)
        else:
            _close(self.proc.stdout)
        _close(self.proc.stdin)
        self.stderr.close()

    def _signal_group(self, signum: int) -> None:
        try:
            os.killpg(self.proc.pid, signum)
        except (ProcessLookupError, PermissionError):
            if self.proc.poll() is None:
                self.proc.send_signal(signum)

    def _group_alive(self) -> bool:
        """Whether any process of the group is left (the leader is reaped
        first: as a zombie it would still count)."""
        self.proc.poll()
        try:
            os.killpg(self.proc.pid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    def finish(self, timeout: float) -> int | None:
        """Close stdin and wait for a clean exit; the exit status, or None if it hung."""
        _close(self.proc.stdin)
        status = self.exit_status(timeout)
        self.stop(min(timeout, 1.0))
        return status


def _close(stream: IO[bytes] | None) -> None:
    try:
        if stream is not None:
            stream.close()
    except OSError:
        pass


class ExecTarget:
    def __init__(
        self,
        command: str,
        *,
        timeout: float,
        startup_timeout: float | None = None,
        cwd: str | None = None,
        max_line: int | None = None,
    ) -> None:
        self.command = command
        self.max_line = max_line or DEFAULT_MAX_LINE
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise TargetError(f"exec:{command}: cannot split the command line: {exc}") from exc
        if not self.argv:
            raise TargetError("exec: needs a command line, for example exec:./my-target --serve")
        self.timeout = timeout
        self.startup_timeout = startup_timeout or DEFAULT_STARTUP_TIMEOUT
        self.cwd = cwd
        self.description = f"exec:{command}"
        self._proc: _Process | None = None
        self._next_id = 0
        self._handshake: Handshake | None = None
        self.restarts = 0

    # -- process lifecycle -------------------------------------------------

    def _describe_death(self, proc: _Process, what: str) -> str:
        status = proc.exit_status(wait=1.0)
        if status is None:
            state = "is still running"
        elif status < 0:
            state = f"was killed by signal {-status}"
        else:
            state = f"exited with status {status}"
        message = f"{what}; the process {state}"
        tail = proc.stderr_tail()
        if tail:
            message += f"\n--- target stderr (last lines) ---\n{tail}"
        return message

    def _start(self) -> tuple[_Process, Handshake]:
        proc = _Process(self.argv, self.cwd, self.max_line)
        try:
            proc.send(
                {"op": "hello", "protocol": PROTOCOL_VERSION, "suite": SUITE_VERSION}, self.startup_timeout
            )
        except OSError:
            message = self._describe_death(
                proc, f"{self.description}: the target closed its input before the handshake"
            )
            proc.stop()
            raise TargetError(message) from None
        line = proc.receive(self.startup_timeout)
        if line is None:
            proc.stop()
            raise TargetError(
                f"{self.description}: no handshake answer within {self.startup_timeout:g} s "
                '(--planmode-startup-timeout; the first line must answer {"op": "hello", ...})'
            )
        if line is _EOF:
            message = self._describe_death(
                proc, f"{self.description}: the target closed its output before the handshake"
            )
            proc.stop()
            raise TargetError(message)
        if isinstance(line, Flood):
            proc.stop()
            raise TargetError(f"{self.description}: {_flooded(line)} instead of a handshake answer")
        assert isinstance(line, bytes)
        try:
            answer = json.loads(line)
        except (ValueError, RecursionError):
            proc.stop()
            raise TargetError(
                f"{self.description}: the handshake answer is not JSON: {line[:200]!r}"
            ) from None
        try:
            handshake = parse_handshake(answer, self.description)
        except TargetError:
            proc.stop()
            raise
        except RecursionError:
            proc.stop()
            raise TargetError(f"{self.description}: the handshake answer is nested too deeply") from None
        return proc, handshake

    def handshake(self) -> Handshake:
        if self._proc is None:
            self._proc, self._handshake = self._start()
        assert self._handshake is not None
        return self._handshake

    def _fail(self, message: str) -> Outcome:
        if self._proc is not None:
            self._proc.stop()
            self._proc = None
            self.restarts += 1
        return Outcome("failure", message=message)

    # -- requests ------------------------------------------------------------

    def request(
        self, operation: str, payload: Mapping[str, Any], roots: Mapping[str, str] | None = None
    ) -> Outcome:
        if self._proc is None:
            try:
                self._proc, self._handshake = self._start()
            except TargetError as exc:
                return Outcome("failure", message=f"restarting the target failed: {exc}")
        proc = self._proc
        self._next_id += 1
        rid = self._next_id
        where = f"{self.description}: request {rid} ({operation})"
        try:
            message: dict[str, Any] = {"id": rid, "op": operation, "input": dict(payload)}
            if roots is not None:
                message["roots"] = dict(roots)
            proc.send(message, self.timeout)
        except OSError:
            return self._fail(self._describe_death(proc, f"{where}: the target stopped reading"))
        line = proc.receive(self.timeout)
        if line is None:
            return self._fail(
                f"{where}: no answer within {self.timeout:g} s (--planmode-timeout); "
                "the target was stopped and is restarted for the next case"
            )
        if line is _EOF:
            return self._fail(self._describe_death(proc, f"{where}: the target closed its output"))
        if isinstance(line, Flood):
            return self._fail(f"{where}: {_flooded(line)} (--planmode-max-line)")
        assert isinstance(line, bytes)
        try:
            outcome = self._decode(line, rid, where)
        except Exception as exc:
            # Whatever the bytes do to the decoder, the case fails; the run goes on.
            return self._fail(
                f"{where}: the answer cannot be decoded ({type(exc).__name__}: {str(exc)[:200]}); "
                f"the target sent {len(line)} bytes: {line[:300]!r}"
            )
        if outcome.kind == "failure":
            return self._fail(outcome.message or where)
        extra = proc.pump.held()
        if extra is not None:
            return self._fail(
                f"{where}: the target answered this request twice (a second line came with the "
                f"answer: {extra[:300]!r})"
            )
        return outcome

    @staticmethod
    def _decode(line: bytes, rid: int, where: str) -> Outcome:
        try:
            answer = json.loads(line)
        except ValueError:
            return Outcome(
                "failure", message=f"{where}: the answer is not one JSON object on one line: {line[:300]!r}"
            )
        if not isinstance(answer, dict) or answer.get("id") != rid:
            got = answer.get("id") if isinstance(answer, dict) else None
            if isinstance(got, int) and not isinstance(got, bool) and 0 < got < rid:
                return Outcome(
                    "failure",
                    message=f"{where}: the target answered request {got} twice; its second answer "
                    f"came late, while request {rid} waited: {line[:300]!r}",
                )
            return Outcome(
                "failure", message=f"{where}: the answer carries id {got!r}, expected {rid}: {line[:300]!r}"
            )
        return parse_response(answer, where)

    def close(self) -> int | None:
        """End of input: the target must exit with status 0."""
        if self._proc is None:
            return 0
        status = self._proc.finish(self.timeout)
        self._proc = None
        return status


def _flooded(flood: Flood) -> str:
    return f"the target flooded its output with {flood.size} bytes without a newline"
