"""The Pi host: real Pi releases installed per version, the host script that
runs an extension inside one (`real_host.mjs`), and its Python client."""

from pytest_planmode.hosts.pi.client import REAL_HOST_SCRIPT, HostError, PiHost, Sandbox

__all__ = ["REAL_HOST_SCRIPT", "HostError", "PiHost", "Sandbox"]
