"""The reference implementation seen as a target.

:mod:`pytest_planmode.reference` decides; this package is the adapter a port
would write for it: :mod:`.adapter` answers the protocol, and :mod:`.ops`
holds one converter module per area, turning a validated contract input
into the reference's own values and the reference's result into the
contract output.
"""
