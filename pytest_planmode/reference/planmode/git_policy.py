"""The reviewed Git policy of the limited shells.

pi-plan-mode-settings.md § Safe shell subcommands: "That default policy
includes Git `status`, `log`, `diff`, `show`, `branch`, `remote`,
`ls-files`, and `grep`, with command-specific argument checks", and "A
built-in-policy `git -C <path>` inspection is accepted only when the path
keeps Git in Pi's current working directory". The details are fixed by
reference-choices.md § pi-plan-mode: limited Bash (the `git` bullet).
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from pytest_planmode.reference.planmode.program_rules import OptionRule, options_of
from pytest_planmode.reference.planmode.shell_verdict import SegmentBlock, block

SPEC = "pi-plan-mode-settings.md § Safe shell subcommands"
RC = "reference-choices.md § pi-plan-mode: limited Bash"

SUBCOMMANDS = ("status", "log", "diff", "show", "branch", "remote", "ls-files", "grep")

#: Forbidden anywhere after the subcommand: help and pagers, files Git would
#: write, external diff, textconv and filter helpers (`--filters` asks Git to
#: run the configured clean/smudge and textconv programs; pi-plan-mode-settings.md
#: § Safe shell subcommands rejects "explicit ... filter ... helpers"),
#: signature verification, and reading outside the repository.
AFTER_SUBCOMMAND = OptionRule(
    long=(
        "--help",
        "--paginate",
        "--output",
        "--ext-diff",
        "--textconv",
        "--filters",
        "--show-signature",
        "--no-index",
    ),
    # `git diff --text` is a real option that is also a prefix of
    # `--textconv`; an exact match wins over an abbreviation.
    known_long=("--text",),
)

GREP_OPTIONS = OptionRule(
    long=("--open-files-in-pager",),
    short="O",
    # Short options of `git grep` that take the rest of their bundle as a value.
    value_short="efABCm",
)

#: `git grep --ext-grep` asked older Git to run an external grep program
#: (reference choice: blocked, as upstream does, although current Git ignores it).
GREP_EXTERNAL = OptionRule(long=("--ext-grep",))

BRANCH_OPTIONS = OptionRule(
    long=(
        "--delete",
        "--move",
        "--copy",
        "--edit-description",
        "--unset-upstream",
        "--set-upstream-to",
        "--create-reflog",
    ),
    short="dDmMcCu",
)

# `git branch` options that take the next word as their value when given
# without `=`; that word is not a branch name.
_BRANCH_VALUE_LONG = frozenset(
    ("--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format")
)


# The option tables, compiled once (`program_rules.compile_options`).
_after_subcommand = options_of(AFTER_SUBCOMMAND)
_grep_options = options_of(GREP_OPTIONS)
_grep_external = options_of(GREP_EXTERNAL)
_branch_options = options_of(BRANCH_OPTIONS)

_block = block


def keeps_cwd(path: str, cwd: str) -> bool:
    """True when `git -C <path>` leaves Git in `cwd`: the path is `.` or the
    working directory itself after normalisation, with no `..` component
    (reference-choices.md, `git` bullet)."""
    if not path or ".." in path.split("/"):
        return False
    if path.startswith("/"):
        # posixpath.normpath keeps a leading `//`, which POSIX leaves
        # implementation-defined; such a path never equals the cwd.
        resolved = posixpath.normpath(path)
    else:
        resolved = posixpath.normpath(posixpath.join(cwd, path))
    return resolved == posixpath.normpath(cwd)


def _branch(args: Sequence[str]) -> SegmentBlock | None:
    """`git branch` only lists: no branch name, no mutating option."""
    hit = _branch_options(args)
    if hit is not None:
        return _block("git.branch.mutating", f"git branch {hit} changes branches")
    names: list[str] = []
    skip = False
    after_dashdash = False
    for arg in args:
        if skip:
            skip = False
            continue
        if after_dashdash or not arg.startswith("-"):
            names.append(arg)
        elif arg == "--":
            after_dashdash = True
        elif arg in _BRANCH_VALUE_LONG:
            skip = True
    if names:
        return _block(
            "git.branch.positional",
            f"git branch with a positional argument ({names[0]!r}) is not reviewed "
            "(it creates a branch, or filters with --list); only listing is reviewed",
        )
    return None


def _remote(args: Sequence[str]) -> SegmentBlock | None:
    """`git remote` only bare, `-v`, `get-url …`, `show` without a name, or
    `show -n [<name>…]` (without `-n` it contacts the remote; the spec's
    "use `git remote show -n`" names the form without a name too)."""
    if not args or list(args) == ["-v"] or list(args) == ["show"]:
        return None
    if args[0] == "get-url":
        return None
    if args[0] == "show" and list(args[1:2]) == ["-n"] and not any(a.startswith("-") for a in args[2:]):
        return None
    return _block(
        "git.remote.shape",
        "git remote is reviewed only bare, as -v, get-url, show without a name, or show -n [<name>]",
    )


_PER_SUBCOMMAND = {"branch": _branch, "remote": _remote}


def _outside(path: str, cwd: str) -> bool:
    base = posixpath.normpath(cwd)
    resolved = posixpath.normpath(path if path.startswith("/") else posixpath.join(base, path))
    return resolved != base and not resolved.startswith(base.rstrip("/") + "/")


def diff_outside(args: Sequence[str], cwd: str) -> SegmentBlock | None:
    """`git diff` with a path outside the working directory: Git then
    switches to no-index mode by itself and prints that file, as the
    blocked `--no-index` would (`git diff /etc/hostname /dev/null`,
    `git diff -- ../secret /dev/null`). Every non-option word is taken as a
    path (a revision never resolves outside). Reference choice, closes a
    hole."""
    for arg in args:
        if not arg.startswith("-") and _outside(arg, cwd):
            return _block(
                "git.diff.outside",
                f"git diff {arg!r} names a path outside the working directory "
                "(Git would compare it without the repository, like --no-index)",
            )
    return None


def check_git(args: Sequence[str], cwd: str) -> SegmentBlock | None:
    """Review the arguments of a `git` segment (everything after `git`)
    against the default policy (pi-plan-mode-settings.md § Safe shell
    subcommands; reference-choices.md, `git` bullet): None when allowed,
    otherwise the block."""
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("--no-pager", "-P"):
            index += 1
            continue
        if arg == "-C":
            if index + 1 >= len(args):
                return _block("git.global.C", "git -C needs a path")
            if not keeps_cwd(args[index + 1], cwd):
                return _block(
                    "git.global.C",
                    f"git -C {args[index + 1]!r} leaves the current working directory",
                )
            index += 2
            continue
        if arg.startswith("-"):
            return _block("git.global.option", f"git global option {arg!r} is not reviewed")
        break
    if index >= len(args):
        return _block("git.subcommand.missing", "git without a subcommand is not reviewed")
    subcommand = args[index]
    if subcommand not in SUBCOMMANDS:
        return _block("git.subcommand.unreviewed", f"git {subcommand!r} is not a reviewed subcommand")
    rest = args[index + 1 :]
    hit = _after_subcommand(rest)
    if hit is not None:
        return _block("git.option.forbidden", f"git {subcommand} {hit} is not reviewed")
    for arg in rest:
        if "%G" in arg:
            return _block("git.format.signature", "a %G format placeholder verifies signatures")
    if subcommand == "grep":
        hit = _grep_options(rest)
        if hit is not None:
            return _block("git.grep.pager", f"git grep {hit} opens files in a pager")
        hit = _grep_external(rest)
        if hit is not None:
            return _block("git.grep.external", f"git grep {hit} asks for an external grep program")
    if subcommand == "diff":
        outside = diff_outside(rest, cwd)
        if outside is not None:
            return outside
    special = _PER_SUBCOMMAND.get(subcommand)
    if special is not None:
        return special(rest)
    return None
