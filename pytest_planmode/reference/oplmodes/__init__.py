"""Reference implementation of the opl-modes extension's decision logic."""
