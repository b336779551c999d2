"""The conformance run, registered by the plugin only when a target is
given, so none of its hooks touch an unrelated pytest session. Its rooms:
`options` (read and checked once), `lifecycle` (the targets), `items`
(collection), `property_checks`, `verdict`, `results` (the report model and
the files written), `summary` (the terminal summary) and `run`, which
puts them together."""

from pytest_planmode.harness.property_checks import TargetClient
from pytest_planmode.harness.run import PlanmodeRun
from pytest_planmode.harness.verdict import CaseFailure, judge_output

__all__ = ["CaseFailure", "PlanmodeRun", "TargetClient", "judge_output"]
