"""`planmode.bash.check` through the host: Plan mode, then a `bash` tool call."""

from pytest_planmode.targets.pi._planmode_shell import translation

OPERATION = "planmode.bash.check"
TRANSLATION = translation("bash", extra_tool=False)
