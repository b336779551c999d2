"""The reference implementation: pure decision logic, no pytest import.

The conformance suite reaches it only through the adapter interface
(:mod:`pytest_planmode.targets.reference.adapter`), like any other target.
"""
