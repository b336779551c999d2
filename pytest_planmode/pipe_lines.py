"""Lines from a child process's stdout, read by a thread: the one reader
behind the `exec:` target and the Pi host's client.

It reads straight from the descriptor (no buffered reader whose lock a close
could wait on), splits the bytes into lines, feeds a bounded queue and stops
at the first line longer than the bound, so a chatty or broken child cannot
make the harness hold more than a few lines in memory.
"""

from __future__ import annotations

import os
import queue
import threading
from collections import deque

#: The reader's end of input (the child closed its stdout).
EOF = object()
CHUNK = 1 << 16
#: Reads the reader may hold ahead of the harness (each one read's complete
#: lines): with the line bound this bounds the memory a chatty child can
#: make the harness use.
QUEUED_LINES = 4


class Flood:
    """The target wrote more than the line bound without a newline."""

    def __init__(self, size: int) -> None:
        self.size = size


class LineReader:
    """Reads the target's stdout straight from the descriptor (no buffered
    reader whose lock a close could wait on), splits it into lines and
    stops at the first line longer than `max_line`."""

    def __init__(self, fd: int, max_line: int) -> None:
        self.fd = fd
        self.max_line = max_line
        self.lines: queue.Queue[object] = queue.Queue(maxsize=QUEUED_LINES)
        self.stopping = threading.Event()
        #: The rest of the read whose first line `get` returned.
        self._held: deque[bytes] = deque()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _put(self, item: object) -> bool:
        while not self.stopping.is_set():
            try:
                self.lines.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _run(self) -> None:
        buffer = bytearray()
        try:
            while not self.stopping.is_set():
                chunk = os.read(self.fd, CHUNK)
                if not chunk:
                    break
                scanned = len(buffer)
                buffer += chunk
                # The lines of one read travel together: a line written with
                # the answer (a second answer) is seen with it.
                lines: list[bytes] = []
                while True:
                    newline = buffer.find(b"\n", scanned)
                    if newline < 0:
                        break
                    line = bytes(buffer[: newline + 1])
                    del buffer[: newline + 1]
                    scanned = 0
                    if len(line) > self.max_line + 1:
                        if lines:
                            self._put(lines)
                        self._put(Flood(len(line) - 1))
                        return
                    lines.append(line)
                if lines and not self._put(lines):
                    return
                if len(buffer) > self.max_line:
                    self._put(Flood(len(buffer)))
                    return
        except OSError:
            pass
        if buffer:
            self._put([bytes(buffer)])
        self._put(EOF)

    def get(self, timeout: float) -> object:
        """The next line (bytes), a Flood or EOF; None when nothing came
        within `timeout`. Only the consumer calls it."""
        if self._held:
            return self._held.popleft()
        try:
            item = self.lines.get(timeout=timeout)
        except queue.Empty:
            return None
        if isinstance(item, list):
            self._held.extend(item)
            return self._held.popleft()
        return item

    def held(self) -> bytes | None:
        """A line that came in the same read as the last one `get` returned,
        without taking it."""
        return self._held[0] if self._held else None
