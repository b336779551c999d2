"""`planmode.powershell.check` through the host: Plan mode, then a `powershell` tool call."""

from pytest_planmode.targets.pi._planmode_shell import translation

OPERATION = "planmode.powershell.check"
TRANSLATION = translation("powershell", extra_tool=True)
