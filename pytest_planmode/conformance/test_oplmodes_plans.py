"""Properties of opl-modes plan files (opl-modes.md § Commands, flags, and
shortcuts; § Tool inheritance warning) that hold for any target."""

from __future__ import annotations

import pytest
from hypothesis import given

from pytest_planmode.harness import TargetClient
from pytest_planmode.strategies import oplmodes_plans as s

#: The section a failure of these checks cites (a marker's `spec=` overrides it).
SPEC = "opl-modes.md § Commands, flags, and shortcuts"

OP = "oplmodes.plans.resolve"


@pytest.mark.planmode(operation=OP, level="must", id="oplmodes.plans.property.no-alnum-rejected")
@given(name=s.names_without_alnum)
def test_names_without_letter_or_digit_are_rejected(planmode_target: TargetClient, name: str) -> None:
    out = planmode_target.call(OP, {"source": "command", "value": name})
    assert out["accepted"] is False, f"plan name {name!r} has no letter or digit but was accepted"


@pytest.mark.planmode(operation=OP, level="must", id="oplmodes.plans.property.path-stays-in-plans")
@given(name=s.names_with_alnum)
def test_accepted_names_stay_under_plans_dir(planmode_target: TargetClient, name: str) -> None:
    out = planmode_target.call(OP, {"source": "command", "value": name})
    if set(name) <= set(s.ALNUM + "-"):
        # An ordinary name (letters, digits, hyphens) is accepted. Whether a
        # name with other punctuation is refused or cleaned up is open: see
        # oplmodes.plans.property.alnum-accepted (reference).
        assert out["accepted"] is True, f"plan name {name!r} has a letter or digit but was rejected"
    if not out["accepted"]:
        return
    path = out["path"]
    assert path.startswith(".pi/plans/plan-") and path.endswith(".md"), path
    filename = path[len(".pi/plans/") :]
    assert "/" not in filename and "\\" not in filename and ".." not in filename, path


@pytest.mark.planmode(operation=OP, level="reference", id="oplmodes.plans.property.alnum-accepted")
@given(name=s.names_with_alnum)
def test_every_name_with_letter_or_digit_is_accepted(planmode_target: TargetClient, name: str) -> None:
    # The spec makes a letter or digit necessary; the reference also makes it
    # sufficient (punctuation and separators are folded into the filename).
    out = planmode_target.call(OP, {"source": "command", "value": name})
    assert out["accepted"] is True, f"plan name {name!r} has a letter or digit but was rejected"


@pytest.mark.planmode(operation=OP, level="must", id="oplmodes.plans.property.unsafe-resume-dropped")
@given(filename=s.unsafe_filenames)
def test_resumed_filenames_with_separators_or_dotdot_are_dropped(
    planmode_target: TargetClient, filename: str
) -> None:
    out = planmode_target.call(OP, {"source": "resume", "value": filename})
    assert out["accepted"] is False, f"resumed plan filename {filename!r} was kept"
