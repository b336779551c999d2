"""Targets: the implementations the suite runs against, and how to reach them."""

from pytest_planmode.targets.base import Handshake, Outcome, Target, TargetError
from pytest_planmode.targets.loader import resolve_target

__all__ = ["Handshake", "Outcome", "Target", "TargetError", "resolve_target"]
