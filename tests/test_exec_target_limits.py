"""A target cannot stall the harness, make it hold unbounded memory or
leave processes behind: each broken request ends within the timeout and a
margin far below the hour the broken target would stall, in a process whose
peak memory stays far below what the target wrote; what a target started
is stopped with it."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import BROKEN

TIMEOUT = 10.0
#: What a broken request may take beyond the timeout: stopping and
#: restarting a target on a loaded machine, never the hour it would stall.
MARGIN = 60.0
#: Peak RSS allowed for a harness process facing the target; the flooding
#: target writes 100 MB, which buffered whole would need well above this.
MAX_RSS_MB = 120

PROBE = textwrap.dedent(
    """
    import json, resource, sys, time
    from pytest_planmode.targets.exec_target import ExecTarget

    mode, timeout = sys.argv[1], float(sys.argv[2])
    target = ExecTarget(f"{sys.executable} {sys.argv[3]} {mode} 3", timeout=timeout)
    target.handshake()
    durations, messages = [], []
    for _ in range(4):
        start = time.monotonic()
        outcome = target.request("oplmodes.plans.resolve", {"source": "command", "value": "a"})
        durations.append(time.monotonic() - start)
        messages.append(outcome.message or outcome.kind)
    start = time.monotonic()
    status = target.close()
    close = time.monotonic() - start
    # VmHWM: this process image's own peak (ru_maxrss can carry the peak of
    # the process that forked it).
    try:
        proc_status = open("/proc/self/status").read()
        peak = int(proc_status.split("VmHWM:")[1].split()[0]) / 1024
    except (OSError, IndexError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"durations": durations, "messages": messages, "close": close,
                      "status": status, "peak_rss_mb": peak}))
    """
)


def probe(mode: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, mode, str(TIMEOUT), str(BROKEN)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    result: dict[str, object] = json.loads(out.stdout)
    print(mode, result)  # the figures, with -s
    return result


@pytest.mark.parametrize(
    ("mode", "needle"),
    [
        ("fork", "exited with status 3"),
        ("fork-hang", f"no answer within {TIMEOUT:g} s"),
        ("flood", "the target flooded its output with 16842752 bytes without a newline"),
        ("deep", "the answer cannot be decoded (RecursionError"),
        ("crash", "exited with status 3"),
    ],
)
def test_a_broken_request_ends_in_time_with_bounded_memory(mode: str, needle: str) -> None:
    result = probe(mode)
    durations = result["durations"]
    messages = result["messages"]
    assert isinstance(durations, list) and isinstance(messages, list)
    assert needle in messages[2], messages[2]
    assert messages[3] == "output"  # the restarted target answers the next request
    assert max(durations) < TIMEOUT + MARGIN, durations
    assert isinstance(result["close"], float) and result["close"] < TIMEOUT + MARGIN
    assert isinstance(result["peak_rss_mb"], float) and result["peak_rss_mb"] < MAX_RSS_MB, result


def _alive(pid: int) -> bool:
    """A process that still runs (a zombie waiting for its reaper does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_what_a_target_started_is_stopped_with_it(tmp_path: Path) -> None:
    """On a timeout and at end of input the target's whole process group
    goes, including grandchildren that ignore SIGTERM and outlive it."""
    from pytest_planmode.targets.exec_target import ExecTarget

    pids = tmp_path / "pids"
    target = ExecTarget(shlex.join([sys.executable, str(BROKEN), "runaway", "2", str(pids)]), timeout=3)
    try:
        target.handshake()
        assert target.request("oplmodes.plans.resolve", {"source": "command", "value": "a"}).kind == "output"
        hung = target.request("oplmodes.plans.resolve", {"source": "command", "value": "b"})
        assert "no answer within 3 s" in (hung.message or "")
        # The restarted target starts one more.
        assert target.request("oplmodes.plans.resolve", {"source": "command", "value": "c"}).kind == "output"
    finally:
        assert target.close() == 0
    started = [int(line) for line in pids.read_text().split()]
    assert len(started) == 3  # one per start, one on the hung request
    deadline = time.monotonic() + MARGIN
    while any(_alive(pid) for pid in started) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid in started if _alive(pid)] == []
