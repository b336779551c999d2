"""The mock Pi host (`host.mjs`) and its Python client."""

from pytest_planmode.hosts.pi.client import HOST_SCRIPT, HostError, PiHost, Sandbox

__all__ = ["HOST_SCRIPT", "HostError", "PiHost", "Sandbox"]
