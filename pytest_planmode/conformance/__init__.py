"""Property checks of the conformance suite, run against any target.

Collected only when a target is given; each check is marked
``@pytest.mark.planmode(operation=..., level=...)`` and gets the target from
the ``planmode_target`` fixture. A check that reads explanation fields of an
output names them (``explains=("status",)``): a target that observes effects
only skips it with the reason ``explanation: <field>``. Strategies live in
:mod:`pytest_planmode.strategies` so ports can reuse them.
"""
