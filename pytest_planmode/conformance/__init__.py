"""Property checks of the conformance suite, run against any target.

Collected only when a target is given; each check is marked
``@pytest.mark.planmode(operation=..., level=...)`` and gets the target from
the ``planmode_target`` fixture. A `must` check states its rule over effect
fields only (what an implementation visibly does: settings in effect and the
warnings shown rather than a status, the active tool set rather than a
policy field, verdicts rather than a trace), so a target that observes
effects only meets it. A check whose rule needs an explanation field is a
`reference` check, names the fields (``explains=("blocked",)``) and says in
its docstring why; a target that observes effects only skips it with the
reason ``explanation: <field>`` (tests/test_property_classes.py holds the
line). Strategies live in :mod:`pytest_planmode.strategies` so ports can
reuse them.
"""
