"""Reference implementation of the pi-plan-mode extension's decision logic."""
