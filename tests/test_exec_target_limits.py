"""A target cannot stall the harness or make it hold unbounded memory: each
broken request ends within twice the timeout, in a process whose peak
memory stays far below what the target wrote."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from conftest import BROKEN

TIMEOUT = 10.0
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
        timeout=60,
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
    assert max(durations) < 2 * TIMEOUT, durations
    assert isinstance(result["close"], float) and result["close"] < 2 * TIMEOUT
    assert isinstance(result["peak_rss_mb"], float) and result["peak_rss_mb"] < MAX_RSS_MB, result
