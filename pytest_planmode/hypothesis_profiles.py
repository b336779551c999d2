"""Hypothesis profiles of the kit, registered in one place, and what makes a
property check draw the same examples everywhere.

Property checks are deterministic by default: `planmode-ci` (chosen when the
`CI` environment variable is set) and `planmode-dev` are both derandomized,
and each check's examples come from a seed fixed by its case id
(:func:`fix_examples`), so two runs in different directories, on different
machines or days, serial or under xdist, draw the same examples and agree.
Nothing is written into the user's directory: no example database, and
Hypothesis's own caches go to a directory under the system's temporary
directory (unless `HYPOTHESIS_STORAGE_DIRECTORY` names one). Constants that
Hypothesis would otherwise collect from the source of whatever local modules
happen to be loaded (a port's own code, say) are left out, since they would
make the examples depend on the project the suite runs in.

`planmode-explore` (``--planmode-explore[=N]``) is the one random profile:
new examples on every run, N per check. None has a deadline: a property
check's examples go through the target, and an exec: target's latency is
not the property under test (the harness has its own per-request timeout).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, settings

DEV = "planmode-dev"
CI = "planmode-ci"
EXPLORE = "planmode-explore"

#: Examples per check in the deterministic profiles, unless :data:`EXAMPLES`
#: gives the check another number. Every planted bug of the project's tests
#: and of `benchmarks/property_power.py` that a check killed with 30 it
#: still kills with 12 (a check's examples depend on its number, so each
#: count is measured, not assumed); a run of them all costs a third.
DEFAULT_EXAMPLES = 12
#: Examples per check under ``--planmode-explore`` without a number.
EXPLORE_EXAMPLES = 1000


def register(explore_examples: int | None = None) -> None:
    common: dict[str, Any] = {
        "deadline": None,
        "database": None,
        "print_blob": True,
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
    settings.register_profile(DEV, max_examples=DEFAULT_EXAMPLES, derandomize=True, **common)
    settings.register_profile(CI, max_examples=DEFAULT_EXAMPLES, derandomize=True, **common)
    settings.register_profile(
        EXPLORE, max_examples=explore_examples or EXPLORE_EXAMPLES, derandomize=False, **common
    )


def default_profile() -> str:
    return CI if os.environ.get("CI") else DEV


def load(name: str | None = None, explore: int | None = None) -> str:
    """Register the profiles and load `name` (default: `planmode-explore`
    when `explore` gives a number of examples, else by the CI variable)."""
    register(explore)
    chosen = name or (EXPLORE if explore else default_profile())
    settings.load_profile(chosen)
    keep_out_of_the_working_directory()
    return chosen


def keep_out_of_the_working_directory() -> None:
    """Point Hypothesis's storage (caches it writes even without a database)
    at a directory of the system's temporary directory, unless the user
    named one, and leave out the constants it would collect from local
    modules."""
    if not os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        from hypothesis.configuration import set_hypothesis_home_dir

        user = os.environ.get("USER") or (str(os.getuid()) if hasattr(os, "getuid") else "user")
        set_hypothesis_home_dir(Path(tempfile.gettempdir()) / f"pytest-planmode-hypothesis-{user}")
    try:
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants
    except ImportError:  # pragma: no cover - another Hypothesis layout
        return
    if hasattr(providers, "_get_local_constants"):
        providers._get_local_constants = Constants


def explore_examples(value: object) -> int | None:
    """The number of examples ``--planmode-explore`` (or its ini key) asks
    for, None when it is not given; a clear error for anything but a
    positive whole number."""
    if value is None or value is False or value == "":
        return None
    text = str(value).strip()
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"--planmode-explore: N must be a positive whole number of examples, got {text!r}")
    return int(text)


def seed_of(case_id: str) -> int:
    """The seed of a property check: a function of its case id only."""
    return int.from_bytes(hashlib.sha256(case_id.encode("utf-8")).digest()[:8], "big")


#: The model-switching checks draw timing scripts in which a wrong target
#: shows only under a conjunction of draws (a candidate that resolves, is in
#: the catalogue, authenticates ok and answers after the budget): with its
#: seed, `planmode.models.property.late-result-discarded` misses the late
#: answer that the LateWins target of tests/test_models_suite.py gets wrong
#: with 20 examples or fewer and meets it with 30 and more. They keep 40.
_TIMING_CHECKS = (
    "oplmodes.models.property.no-superseded-model",
    "oplmodes.models.property.override-active-in-mode",
    "oplmodes.models.property.override-model-while-in-mode",
    "planmode.models.property.applied-is-first-usable",
    "planmode.models.property.boundaries-independent",
    "planmode.models.property.budget-is-two-seconds",
    "planmode.models.property.elapsed-bound",
    "planmode.models.property.fresh-menu-one-shot",
    "planmode.models.property.hang-never-stalls",
    "planmode.models.property.late-result-discarded",
    "planmode.models.property.one-warning-per-direction",
    "planmode.models.property.preflight-timeout-aborts",
    "planmode.models.property.spaced-boundaries-independent",
)
#: Checks of small input spaces (some of which Hypothesis exhausts early),
#: where a wrong answer hides in a corner of the space: they keep 20.
_CHEAP_CHECKS = (
    "oplmodes.bash.property.non-string-blocked",
    "oplmodes.bash.property.primitive-however-quoted",
    "oplmodes.bash.property.segments-trimmed",
    "oplmodes.bash.property.unrestricted-allows",
    "oplmodes.config.property.shift-tab-notice",
    "oplmodes.plans.property.alnum-accepted",
    "oplmodes.plans.property.no-alnum-rejected",
    "oplmodes.plans.property.path-stays-in-plans",
    "oplmodes.plans.property.unsafe-resume-dropped",
    "planmode.bash.property.blank-blocked",
    "planmode.bash.property.blank-is-empty-command",
    "planmode.bash.property.spoiler-blocks",
    "planmode.bash.property.spoiler-names-complete-input",
    "planmode.bash.property.trust-stays-local",
    "planmode.bash.property.trust-stays-local-named",
    "planmode.powershell.property.blank-blocked",
    "planmode.powershell.property.blank-is-empty-command",
    "planmode.powershell.property.chain-names-first-blocked",
    "planmode.powershell.property.spoiler-names-complete-input",
    "planmode.settings.property.any-json-usable-or-read-only",
    "planmode.settings.property.special-files-alone-read-only",
)
#: Examples per check where a check needs another number than
#: :data:`DEFAULT_EXAMPLES` under the deterministic profiles, by case id.
EXAMPLES: dict[str, int] = {**dict.fromkeys(_TIMING_CHECKS, 40), **dict.fromkeys(_CHEAP_CHECKS, 20)}


def examples_of(case_id: str) -> int:
    """How many examples the check `case_id` draws in a deterministic run."""
    return EXAMPLES.get(case_id, DEFAULT_EXAMPLES)


def fix_examples(function: Any, case_id: str) -> None:
    """Seed the property check `function` (a Hypothesis test) from its case
    id when the loaded profile is derandomized, and give it its number of
    examples under the kit's deterministic profiles; under a random profile
    (exploration) it draws anew, as many as asked. Set before each run of
    the check, since a parametrized check is one function for several case
    ids."""
    if not hasattr(function, "hypothesis"):
        return
    current = settings.default
    derandomized = current is not None and current.derandomize
    function._hypothesis_internal_use_seed = seed_of(case_id) if derandomized else None
    own = getattr(function, "_planmode_settings", None)
    if own is None:
        # The settings the check was written with (none: the profile's).
        own = function._planmode_settings = function._hypothesis_internal_use_settings
    if derandomized and settings._current_profile in (DEV, CI):
        function._hypothesis_internal_use_settings = settings(own, max_examples=examples_of(case_id))
    else:
        function._hypothesis_internal_use_settings = own
    # Without an example database the key Hypothesis would derive from the
    # check's source text (read and hashed on every run) names nothing.
    if function._hypothesis_internal_use_settings.database is None:
        function._hypothesis_internal_database_key = None
    elif getattr(function, "_hypothesis_internal_database_key", 0) is None:
        del function._hypothesis_internal_database_key
