"""Hypothesis profiles of the kit, registered in one place.

`planmode-dev` for people at a terminal, `planmode-ci` for CI (chosen when the
`CI` environment variable is set): derandomized, so a serial run and an xdist
run, or two CI runs, draw the same examples and agree. Neither has a deadline:
a property check's examples go through the target, and an exec: target's
latency is not the property under test (the harness has its own per-request
timeout).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

DEV = "planmode-dev"
CI = "planmode-ci"


def register() -> None:
    common = {
        "deadline": None,
        # A check whose precondition the target never meets fails as a case
        # (Unsatisfiable), not as a health check about the draws.
        # The explain phase replaces parts of a counterexample with `<...>`;
        # a failure must show the concrete, replayable input.
        "phases": [phase for phase in Phase if phase is not Phase.explain],
        "suppress_health_check": [
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
    }
    settings.register_profile(DEV, max_examples=100, **common)  # type: ignore[arg-type]
    settings.register_profile(
        CI,
        max_examples=100,
        derandomize=True,
        database=None,
        print_blob=True,
        **common,  # type: ignore[arg-type]
    )


def default_profile() -> str:
    return CI if os.environ.get("CI") else DEV


def load(name: str | None = None) -> str:
    """Register the profiles and load `name` (default: by the CI variable)."""
    register()
    chosen = name or default_profile()
    settings.load_profile(chosen)
    return chosen
