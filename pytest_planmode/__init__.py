"""pytest-planmode: a conformance kit for plan-mode policy engines.

The package holds a reference implementation of the pi-plan-mode and opl-modes
decision logic, the conformance suite (fixtures and property checks) and the
pytest plugin that runs that suite against any target.
"""

__version__ = "0.1.0"

#: The suite's version. A case keeps its meaning under the same id for the
#: lifetime of a major version; changed behaviour gets a new id.
SUITE_VERSION = __version__

#: The JSON Lines wire protocol version spoken with ``exec:`` targets.
PROTOCOL_VERSION = 1

__all__ = ["PROTOCOL_VERSION", "SUITE_VERSION", "__version__"]
