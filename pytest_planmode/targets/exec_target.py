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
import queue
import shlex
import signal
import subprocess
import tempfile
import threading
from collections.abc import Mapping
from typing import IO, Any

from pytest_planmode import PROTOCOL_VERSION, SUITE_VERSION
from pytest_planmode.targets.base import (
    Handshake,
    Outcome,
    TargetError,
    parse_handshake,
    parse_response,
)

_EOF = object()
STDERR_TAIL = 2000


def _pump(stream: IO[bytes], lines: queue.Queue[object]) -> None:
    try:
        for line in iter(stream.readline, b""):
            lines.put(line)
    except (OSError, ValueError):
        pass
    lines.put(_EOF)


class _Process:
    """One running target process, with a reader thread feeding a queue."""

    def __init__(self, argv: list[str], cwd: str | None) -> None:
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
        self.lines: queue.Queue[object] = queue.Queue()
        assert self.proc.stdout is not None
        threading.Thread(target=_pump, args=(self.proc.stdout, self.lines), daemon=True).start()

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        # ASCII on the wire: lone surrogates (valid in JSON, not in UTF-8) and
        # line separators such as U+2028 travel as escapes, never raw.
        data = json.dumps(message, ensure_ascii=True, separators=(",", ":")) + "\n"
        self.proc.stdin.write(data.encode("ascii"))
        self.proc.stdin.flush()

    def receive(self, timeout: float) -> object:
        """The next line (bytes), _EOF, or None on timeout."""
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            return None

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

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        self.stderr.close()

    def finish(self, timeout: float) -> int | None:
        """Close stdin and wait for a clean exit; the exit status, or None if it hung."""
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        except OSError:
            pass
        status = self.exit_status(timeout)
        self.stop()
        return status


class ExecTarget:
    def __init__(self, command: str, *, timeout: float, cwd: str | None = None) -> None:
        self.command = command
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise TargetError(f"exec:{command}: cannot split the command line: {exc}") from exc
        if not self.argv:
            raise TargetError("exec: needs a command line, for example exec:./my-target --serve")
        self.timeout = timeout
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
        proc = _Process(self.argv, self.cwd)
        try:
            proc.send({"op": "hello", "protocol": PROTOCOL_VERSION, "suite": SUITE_VERSION})
        except OSError:
            message = self._describe_death(
                proc, f"{self.description}: the target closed its input before the handshake"
            )
            proc.stop()
            raise TargetError(message) from None
        line = proc.receive(self.timeout)
        if line is None:
            proc.stop()
            raise TargetError(
                f"{self.description}: no handshake answer within {self.timeout:g} s "
                '(the first line must answer {"op": "hello", ...})'
            )
        if line is _EOF:
            message = self._describe_death(
                proc, f"{self.description}: the target closed its output before the handshake"
            )
            proc.stop()
            raise TargetError(message)
        assert isinstance(line, bytes)
        try:
            answer = json.loads(line)
        except ValueError:
            proc.stop()
            raise TargetError(
                f"{self.description}: the handshake answer is not JSON: {line[:200]!r}"
            ) from None
        try:
            handshake = parse_handshake(answer, self.description)
        except TargetError:
            proc.stop()
            raise
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

    def request(self, operation: str, input: Mapping[str, Any]) -> Outcome:
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
            proc.send({"id": rid, "op": operation, "input": dict(input)})
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
        assert isinstance(line, bytes)
        try:
            answer = json.loads(line)
        except ValueError:
            return self._fail(f"{where}: the answer is not one JSON object on one line: {line[:300]!r}")
        if not isinstance(answer, dict) or answer.get("id") != rid:
            got = answer.get("id") if isinstance(answer, dict) else None
            return self._fail(f"{where}: the answer carries id {got!r}, expected {rid}: {line[:300]!r}")
        outcome = parse_response(answer, where)
        if outcome.kind == "failure":
            return self._fail(outcome.message or where)
        return outcome

    def close(self) -> int | None:
        """End of input: the target must exit with status 0."""
        if self._proc is None:
            return 0
        status = self._proc.finish(self.timeout)
        self._proc = None
        return status
