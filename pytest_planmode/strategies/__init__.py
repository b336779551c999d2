"""Hypothesis strategies of the conformance suite, one module per area.

They are public so a port can reuse them in its own tests.
"""
