"""pytest-planmode: a conformance kit for plan-mode policy engines.

The package holds a reference implementation of the pi-plan-mode and opl-modes
decision logic, the conformance suite (fixtures and property checks) and the
pytest plugin that runs that suite against any target.
"""

__version__ = "0.1.0"

#: The suite's version (SemVer): what its case ids and expectations mean.
#: It is sent in the handshake and written in the report; CHANGELOG.md lists
#: the ids each version added, changed and removed, and docs/porting.md
#: states what a minor and a major bump may change.
SUITE_VERSION = "0.11.0"

#: The JSON Lines wire protocol version the harness speaks with targets.
#: Protocol 2 adds `"observes"` to the handshake answer.
PROTOCOL_VERSION = 2

#: The protocol versions a target may answer the handshake with (a protocol
#: 1 target observes everything).
PROTOCOLS = (1, 2)

__all__ = ["PROTOCOLS", "PROTOCOL_VERSION", "SUITE_VERSION", "__version__"]
