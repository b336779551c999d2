"""The built-in Bash lists of opl-modes: the safe list and the destructive
base (opl-modes.md § Mode behavior; reference-choices.md § opl-modes:
built-in safe list).

Both are tables of named regular expressions. The gate compiles each table
into one alternation so a decision costs one search per text, and looks up
which entry matched only when something is blocked.

Every pattern here is written to run in linear time on any input: command
position rules are anchored at the start of a segment (one attempt), option
loops are atomic or possessive (they parse left to right like the programs
do and never backtrack into another split), and no entry nests an unbounded
repetition inside another that can match the same text.
"""

from __future__ import annotations

import re
import re._constants as _c  # type: ignore[import-not-found]
import re._parser as _parser  # type: ignore[import-not-found]
import zlib
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

# -- building blocks ---------------------------------------------------------

#: One shell word for argument scanning: stops at blanks and at the operators
#: that end a segment or start a redirect.
W = r"[^\s;&|()<>`]"
#: End of a program name or option: a blank, an operator or the end.
END = r"(?=[\s;&|()<>`]|$)"
#: End of an operand word: like END, but a redirect right after it (`2>x`)
#: means the "word" was a descriptor number, not an operand.
OPERAND_END = r"(?=[\s;&|()`]|$)"
#: Leading environment assignments (`FOO=1 rm x`, `X="a b" rm x`), each value
#: made of quoted runs or single characters so the loop cannot backtrack
#: exponentially.
ASSIGN = r"""(?:[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|'[^']*'|[^\s"'])*[ \t]+)*"""
#: A directory in front of a program name (`/bin/rm`, `./node_modules/.bin/x`).
PATH = r"(?:[^\s;&|()<>`'\"]*/)?"
#: "Some later argument of this segment": a blank, then optionally any run of
#: segment text ending in a blank. One greedy single-character repetition,
#: so the engine backtracks through it without saving state per word.
LATER = r"[ \t](?:[^\n;&|()<>`]*[ \t])?"

#: git's global options before the subcommand, parsed the way git does (one
#: pass, left to right): `-C <path>`, `-c <name=value>`, `--git-dir <path>`...
_GIT_OPT_ARG = r"--(?:git-dir|work-tree|namespace|super-prefix|exec-path|attr-source|list-cmds)"
GIT_GLOBAL = (
    r"(?:[ \t]+(?>-[Cc][ \t]+" + W + r"+|" + _GIT_OPT_ARG + r"(?:=\S*|[ \t]+" + W + r"+)?"
    r"|--config-env(?:=\S*|[ \t]+" + W + r"+)|-" + W + r"*))*+"
)
#: The same without `-c`/`--config-env`, to find a configuration override.
GIT_GLOBAL_NO_CONFIG = (
    r"(?:[ \t]+(?>-C[ \t]+" + W + r"+|" + _GIT_OPT_ARG + r"(?:=\S*|[ \t]+" + W + r"+)?"
    r"|-(?!c" + END + r"|-config-env)" + W + r"*))*+"
)

#: How many words after a wrapper (`xargs -0 -I {} rm`) may hold the program.
WRAPPER_REACH = 12

#: Words that run the command that follows them: after one of these, any
#: later word of the segment may be a program in command position.
WRAPPERS = frozenset(
    (
        "command",
        "builtin",
        "nohup",
        "time",
        "nice",
        "env",
        "xargs",
        "stdbuf",
        "timeout",
        "watch",
        "ionice",
        "chrt",
        "taskset",
        "setsid",
        "unbuffer",
        "flock",
        "caffeinate",
        "if",
        "then",
        "else",
        "elif",
        "do",
        "while",
        "until",
        "!",
        "{",
        "(",
        "sudo",
        "doas",
        "su",
    )
)


@dataclass(frozen=True)
class Rule:
    """One named entry of a built-in list.

    `anchored` entries are matched at command position of a segment (after
    leading assignments and a directory prefix); the others anywhere in the
    text, at a word start.
    """

    name: str
    pattern: str
    anchored: bool
    summary: str


def _words(names: str) -> str:
    return "(?:" + "|".join(re.escape(n) for n in sorted(names.split(), key=lambda x: (-len(x), x))) + ")"


# -- the safe list (reference-choices.md § opl-modes: built-in safe list) ---

SAFE_PROGRAMS = (
    "cat head tail less more grep find ls pwd cd echo printf wc sort uniq tr cut "
    "diff file stat du df tree which whereis type uname whoami date uptime ps free "
    "rg fd bat jq"
)

#: Program names match case-sensitively and as whole words; `(?=[\s<>]|$)`
#: lets a redirect follow the name directly (`ls>/dev/null`), which the
#: destructive base then judges.
_SAFE_END = r"(?=[\s<>]|$)"

SAFE_RULES: tuple[Rule, ...] = (
    Rule(
        "read-only program",
        r"^[ \t]*" + _words(SAFE_PROGRAMS) + _SAFE_END,
        True,
        "read-only inspection programs and text filters",
    ),
    Rule(
        "git read",
        r"^[ \t]*git[ \t]+(?:status|log|diff|show|branch|remote|rev-parse)" + _SAFE_END,
        True,
        "git status|log|diff|show|branch|remote|rev-parse",
    ),
    Rule(
        "version probe",
        r"^[ \t]*(?:node|python|python3)[ \t]+--version[ \t]*$",
        True,
        "node --version, python --version, python3 --version, exactly",
    ),
    Rule("tsc --noEmit", r"^[ \t]*tsc[ \t](?:.*[ \t])?--noEmit(?=[ \t]|$)", True, "tsc with --noEmit"),
    Rule(
        "npm read",
        r"^[ \t]*npm[ \t]+(?:list|ls|view|info|outdated|audit)" + _SAFE_END,
        True,
        "npm list|ls|view|info|outdated|audit",
    ),
    Rule(
        "yarn read", r"^[ \t]*yarn[ \t]+(?:list|info|why|audit)" + _SAFE_END, True, "yarn list|info|why|audit"
    ),
)

# -- the destructive base (opl-modes.md § Mode behavior) ---------------------

_NPM_OPT = (
    r"(?:[ \t]+(?>--(?:prefix|registry|cache|userconfig|globalconfig|workspace|loglevel|tag|otp"
    r"|scope|before|omit|include|location)[ \t]+" + W + r"+|-[wC][ \t]+" + W + r"+|-" + W + r"*))*+"
)
_NPM_WRITE = _words(
    "install i in ins inst insta instal isnt isnta isntal isntall add ci clean-install "
    "install-clean ic install-test it install-ci-test cit update up upgrade udpate "
    "uninstall unlink remove rm r un link ln dedupe ddp prune rebuild rb publish "
    "unpublish exec x"
)
_YARN_WRITE = _words(
    "add install upgrade upgrade-interactive up remove global dlx link unlink import autoclean"
)
_PIP = r"(?:pip[0-9.]*|(?:python[0-9.]*|py)[ \t]+-m[ \t]+pip|uv[ \t]+pip|pipx)"
_PIP_WRITE = _words("install uninstall download wheel upgrade reinstall inject")

_GIT_WRITE = _words(
    "add am apply bisect checkout cherry-pick clean clone commit config fetch filter-branch "
    "gc init merge mv notes prune pull push rebase repack replace reset restore revert rm "
    "submodule switch tag update-index update-ref format-patch bundle difftool mergetool "
    "credential credential-store credential-cache maintenance sparse-checkout commit-tree "
    "write-tree read-tree symbolic-ref fast-import instaweb daemon send-email lfs"
)
# `git branch` arguments that do not write: options (with the separate
# argument of the filtering options) ...
_BRANCH_READ_WORD = (
    r"(?>--(?:no-)?(?:contains|merged)[ \t]+(?!-)"
    + W
    + r"+|--(?:points-at|sort|format)[ \t]+"
    + W
    + r"+|--(?!de|mo|cop|ed|un|set-u|cr|tr|forc)"
    + W
    + r"*|-(?!-)[^\s;&|()<>`dDmMcCu]*"
    + END
    + r")"
)
# ... and the options that change a branch (`-d -D -m -M -c -C -u` in any
# bundle; any prefix git would expand to a writing long option).
_BRANCH_WRITE_OPT = r"(?:-[A-Za-z]*[dDmMcCu]|--(?:de|mo|cop|ed|un|set-u|cr|tr|forc))"
_BRANCH_LISTING = r"(?=[^\n;&|]*[ \t](?:--list|-[A-Za-z]*l[A-Za-z]*)" + END + ")"

#: BSD-style ps option letters (a word without a dash).
#: A letter of a BSD ps option word, or a digit (`ps ae1`: a process number
#: among the modifiers still prints environments).
_BSD_PS = r"[acefhjlmnrsuvwxLSTUXZH0-9]"

_UNIQ_OPT = (
    r"(?>-[fsw][ \t]+" + W + r"+|--(?:skip-fields|skip-chars|check-chars)[ \t]+" + W + r"+"
    r"|-(?!-" + END + r")" + W + r"+)"
)
_UNIQ_OPERAND = r"(?:-" + OPERAND_END + r"|(?!-)" + W + r"+" + OPERAND_END + r")"

#: Redirect targets that are not writes: descriptor duplication and exactly
#: `/dev/null`; `(` after `<`/`>` is a process substitution, checked as its
#: own segment.
_NOT_A_FILE = r"(?!&(?:[0-9]+-?|-)" + END + r"|\(|/dev/null" + END + r")"

DESTRUCTIVE_RULES: tuple[Rule, ...] = (
    Rule(
        "file mutation",
        _words("rm rmdir mv cp mkdir touch chmod chown tee dd shred truncate") + END,
        True,
        "rm rmdir mv cp mkdir touch chmod chown tee dd shred truncate",
    ),
    Rule("privilege", _words("sudo su doas") + END, True, "sudo, su (and doas)"),
    Rule("kill", _words("kill pkill killall") + END, True, "kill, pkill (and killall)"),
    Rule(
        "shell spawn",
        r"(?:" + _words("sh bash zsh dash ksh mksh fish csh tcsh eval source exec") + END + r"|\.(?=[ \t]))",
        True,
        "shells, eval, source, exec, `.`",
    ),
    Rule(
        "editor",
        _words("vi vim nvim view vimdiff nano pico emacs emacsclient ed ex micro joe kak hx code subl gedit")
        + END,
        True,
        "editors",
    ),
    Rule(
        "git state change",
        r"git"
        + GIT_GLOBAL
        + r"[ \t]+(?:"
        + _GIT_WRITE
        + END
        + r"|reflog[ \t]+(?:expire|delete)"
        + END
        + r"|stash(?![ \t]+(?:list|show)"
        + END
        + r")"
        + END
        + r"|worktree(?![ \t]+list"
        + END
        + r")"
        + END
        + r")",
        True,
        "state-changing git subcommands",
    ),
    Rule(
        "git config override",
        r"git" + GIT_GLOBAL_NO_CONFIG + r"[ \t]+(?:-c|--config-env)(?=[\s=]|$)",
        True,
        "git -c / --config-env (a configuration value can run a program)",
    ),
    Rule(
        "git branch write",
        r"git" + GIT_GLOBAL + r"[ \t]+branch" + END + LATER + _BRANCH_WRITE_OPT,
        True,
        "git branch -d/-D/-m/-M/-c/-C/-u, --delete, --unset-upstream, --set-upstream-to ...",
    ),
    Rule(
        "git branch create",
        r"git"
        + GIT_GLOBAL
        + r"[ \t]+branch"
        + END
        + r"(?!"
        + _BRANCH_LISTING
        + r")(?:[ \t]+"
        + _BRANCH_READ_WORD
        + r")*+[ \t]+(?!-)"
        + W,
        True,
        "git branch <name> (outside --list)",
    ),
    Rule(
        "git remote write",
        r"git"
        + GIT_GLOBAL
        + r"[ \t]+remote(?:[ \t]+-"
        + W
        + r"*)*+[ \t]+"
        + _words("add remove rm rename set-url set-head set-branches prune update")
        + END,
        True,
        "git remote add|remove|rm|rename|set-url|set-head|set-branches|prune|update",
    ),
    Rule(
        "npm install",
        r"(?:npm|pnpm)"
        + _NPM_OPT
        + r"[ \t]+(?:"
        + _NPM_WRITE
        + END
        + r"|audit"
        + LATER
        + r"fix"
        + END
        + r")",
        True,
        "npm install/update forms, npm audit fix",
    ),
    Rule(
        "yarn install",
        r"yarn(?:[ \t]+-" + W + r"*)*+(?:[ \t]*(?=[;&|)\n]|$)|[ \t]+" + _YARN_WRITE + END + r")",
        True,
        "yarn (bare), yarn add/install/upgrade/remove ...",
    ),
    Rule(
        "pip install",
        _PIP + r"(?:[ \t]+-" + W + r"*)*+[ \t]+" + _PIP_WRITE + END,
        True,
        "pip install/uninstall/download/wheel",
    ),
    Rule(
        "sort output",
        r"sort" + END + LATER + r"(?:-[A-Za-z0-9]*o|--co[a-z-]*(?=[\s=]|$))",
        True,
        "sort -o in any position or bundle, sort --compress-program",
    ),
    Rule(
        "tree output",
        r"tree" + END + LATER + r"-[A-Za-z0-9]*[oR]",
        True,
        "tree -o (and -R, which writes 00Tree.html files)",
    ),
    Rule(
        "fd exec",
        r"fd" + END + LATER + r"(?:-[A-Za-z0-9]*[xX]|--exec(?:-batch)?(?=[\s=]|$))",
        True,
        "fd -x/-X (also in bundles like -Hx), --exec, --exec-batch",
    ),
    Rule(
        "rg program",
        r"rg" + END + LATER + r"--(?:pre|hostname-bin)(?=[\s=]|$)",
        True,
        "rg --pre (and --hostname-bin)",
    ),
    Rule(
        "rg decompress",
        r"rg" + END + LATER + r"(?:-[A-Za-z0-9]*z|--search-z(?:i(?:p)?)?(?=[\s=;&|)`]|$))",
        True,
        "rg -z/--search-zip (runs a decompressor on compressed files; found by the sandbox oracle)",
    ),
    Rule(
        "uniq output operand",
        r"uniq"
        + END
        + r"(?:[ \t]+"
        + _UNIQ_OPT
        + r")*+[ \t]+(?:--[ \t]+)?"
        + _UNIQ_OPERAND
        + r"(?:[ \t]+"
        + _UNIQ_OPT
        + r")*+[ \t]+(?:--[ \t]+)?"
        + _UNIQ_OPERAND
        + r"|uniq"
        + END
        + r"(?:[ \t]+"
        + _UNIQ_OPT
        + r")*+[ \t]+--[ \t]+"
        + W
        + r"+[ \t]+"
        + W,
        True,
        "uniq with a second operand (its output file)",
    ),
    Rule(
        "less log file",
        r"less" + END + LATER + r"(?:-[A-Za-z0-9]*[oO]|--(?:log-file|LOG-FILE)|\+)",
        True,
        "less -o/-O/--log-file, less +command",
    ),
    Rule(
        "date set", r"date" + END + LATER + r"(?:-[uR]*s|--s(?:e(?:t)?)?(?=[\s=]|$))", True, "date -s/--set"
    ),
    Rule(
        "file compile",
        r"file" + END + LATER + r"(?:-[A-Za-z0-9]*C|--compile" + END + r")",
        True,
        "file -C/--compile (writes a .mgc file)",
    ),
    Rule(
        "bat pager",
        r"bat"
        + END
        + LATER
        + r"(?:--pager(?=[\s=]|$)|--paging(?:=|[ \t]+)a(?:l(?:w(?:a(?:ys?)?)?)?)?"
        + END
        + r")",
        True,
        "bat --pager, --paging always (runs a pager)",
    ),
    Rule(
        "ps environment",
        r"ps" + END + LATER + r"(?!-)" + _BSD_PS + r"*e" + _BSD_PS + r"*" + END,
        True,
        "ps with the BSD e modifier (ps e, ps auxe): prints every process's environment",
    ),
    # Found by the sandbox oracle (reference choices, each closes a hole):
    Rule(
        "printf variable",
        r"printf" + END + LATER + r"-v",
        True,
        "printf -v (Bash evaluates the variable's subscript: `printf -v 'a[$(id)]' x` runs id)",
    ),
    Rule(
        "git remote contact",
        r"git"
        + GIT_GLOBAL
        + r"[ \t]+remote(?:[ \t]+-"
        + W
        + r"*)*+[ \t]+show"
        + END
        + r"(?![^\n;&|]*[ \t]-n"
        + END
        + r")"
        + LATER
        + r"(?!-)"
        + W,
        True,
        "git remote [-v] show <name> without -n (it runs a transport helper to contact the remote)",
    ),
    Rule(
        "git help",
        r"git" + END + LATER + r"--h(?:e(?:lp?)?)?" + END,
        True,
        "git --help (it runs man and a pager)",
    ),
    Rule(
        "recursive search of /proc",
        r"(?:rg"
        + END
        + r"|grep"
        + END
        + r"(?=[^\n;&|]*[ \t](?:-[A-Za-z]*[rR]|--(?:rec|dere)|(?:--d[a-z]*[= \t]|-[A-Za-z]*d[ \t]*)"
        + r"['\"]?rec(?:u(?:r(?:se?)?)?)?['\"]?(?=[\s;&|)`]|$)))"
        + r"|diff"
        + END
        + r"(?=[^\n;&|]*[ \t](?:-[A-Za-z]*r|--rec)))"
        + LATER
        + r"(?:/(?:proc|dev|sys)?(?=[/\s;&|)`]|$)|(?:"
        + W
        + r"*/)?\.\.(?=[/\s;&|)`]|$))",
        True,
        "a recursive grep/rg/diff of /, /proc, /dev, /sys or a path with `..` (reaches /proc/*/environ)",
    ),
    Rule(
        "tsc writes",
        r"tsc"
        + END
        + LATER
        # tsc reads its long options with one dash too (`-incremental`).
        # `--noEmit false` turns emitting back on (tsc reads an explicit
        # boolean after a flag).
        + r"(?i:--?(?:generateTrace|generateCpuProfile|tsBuildInfoFile|incremental|build|watch)|-[bw]"
        + r"|--?noEmit(?:[ \t]+|[=:])['\"]?false['\"]?)"
        + r"(?=[\s=;&|()<>`]|$)",
        True,
        "tsc --generateTrace, --generateCpuProfile, --tsBuildInfoFile, --incremental, --build (with one "
        "dash or two), --noEmit false, --watch/-w (never ends)",
    ),
    Rule(
        "package manager writes elsewhere",
        r"(?:npm|pnpm|yarn)"
        + END
        + LATER
        + r"--(?:cache|logs-dir|cache-folder|cache-dir|modules-folder|global-folder|store-dir|prefix"
        + r"|userconfig|globalconfig|registry)"
        + r"(?=[\s=;&|()<>`]|$)",
        True,
        "npm/pnpm/yarn --cache, --logs-dir, --cache-folder, --cache-dir, --modules-folder, --global-folder, "
        "--store-dir, --prefix (the package manager writes its cache or log there), --userconfig, "
        "--globalconfig (another configuration: npm ls --userconfig FILE asked the registry), --registry "
        "(another host)",
    ),
    # -- anywhere in the text, at a word start ------------------------------
    Rule(
        "find write or exec",
        r"-(?<![^\s;&|()`]-)"
        r"(?:(?:delete|exec|execdir|ok|okdir|fprint0?|fprintf|fls)" + END + r"|-exec-batch(?=[\s=;&|)`]|$))",
        False,
        "find -delete/-exec/-execdir/-ok/-okdir/-fprint/-fprint0/-fprintf/-fls, --exec-batch",
    ),
    Rule(
        "output file",
        r"-(?<![^\s;&|()`]-)-o(?:u(?:t(?:p(?:u(?:t)?)?)?)?)?(?=[\s=;&|)`]|$)",
        False,
        "--output (and its abbreviations) in any command",
    ),
    Rule(
        "redirect to a file",
        r">(?>>?\|?)(?>[ \t]*)" + _NOT_A_FILE + r"(?=[^\s;|)`])",
        False,
        "every redirect that names a file except exactly /dev/null; not 2>&1, >&2, >&-",
    ),
    Rule(
        "process environment",
        r"e(?<![^\s/;&|()`]e)nviron" + END,
        False,
        "an `environ` path word (/proc/self/environ): every variable of a process",
    ),
    Rule(
        "input redirect",
        r"<(?>[ \t]*)" + _NOT_A_FILE + r"(?=[^\s;|)`])",
        False,
        "every redirect that names a file except exactly /dev/null; not 2>&1, >&2, >&-",
    ),
)

#: jq's environment access is matched in two steps (the first `jq` word,
#: then `env`/`$ENV` anywhere after it) so that the program text may span
#: quoted pipes (`jq '.a | env'`) without a quadratic scan.
JQ_WORD = re.compile(r"(?<![^\s;&|()`])jq(?=[ \t])")
JQ_ENV = re.compile(r"(?<![\w.$])env(?!\w)|\$ENV(?!\w)")
JQ_RULE = Rule(
    "jq environment",
    r"(?<![^\s;&|()`])jq(?=[ \t]).*?(?:(?<![\w.$])env(?!\w)|\$ENV(?!\w))",
    False,
    "jq's environment access (env, $ENV)",
)

#: The command-position prefix shared by every anchored destructive entry.
COMMAND_POSITION = r"^[ \t]*" + ASSIGN + PATH
#: The same for `Pattern.match(text, pos)`, which anchors at `pos` itself.
_AT_POSITION = r"[ \t]*" + ASSIGN + PATH


@cache
def builtin_safe_patterns() -> tuple[str, ...]:
    """The built-in safe list as pattern strings (reference-choices.md
    § opl-modes: built-in safe list)."""
    return tuple(r.pattern for r in SAFE_RULES)


@cache
def builtin_destructive_patterns() -> tuple[str, ...]:
    """The destructive base as stand-alone pattern strings
    (opl-modes.md § Mode behavior), for people and for other tools: tested
    with `re.search` against the command and each blocklist segment, raw and
    stripped, they decide like the gate. Anchored entries carry the
    command-position prefix, including the wrapper reach; the gate itself
    evaluates the same entries faster through :func:`compiled_builtins`."""
    wrapper = (
        r"(?:"
        + _words(" ".join(WRAPPERS))
        + END
        + r"(?:[ \t]+\S+){0,"
        + str(WRAPPER_REACH - 1)
        + r"}?[ \t]+"
        + ASSIGN
        + PATH
        + r")?"
    )
    out = [
        (COMMAND_POSITION + wrapper + "(?:" + r.pattern + ")") if r.anchored else r.pattern
        for r in DESTRUCTIVE_RULES
    ]
    out.append(JQ_RULE.pattern)
    return tuple(out)


# -- literal prefixes ----------------------------------------------------------
#
# The anchored alternation is long, and the engine tries its branches one by
# one at command position. Which branches can match there depends on the
# text the program name starts with, so the gate keeps, for the first
# characters found there, just the branches that can start with them.

#: How many characters of command position choose the branches.
PREFIX_WIDTH = 3
#: Beyond this many literal prefixes a branch counts as "any text".
_MAX_PREFIXES = 512
#: A branch that can start with a blank may start before command position.
_BLANKS = ("\t", " ")
_ANY = frozenset(("",))


def _prefixes(items: list[Any], width: int) -> frozenset[str]:
    """Strings such that every match of the parsed sequence `items` starts
    with one of them, each at most `width` long ("" when nothing is known)."""
    if width == 0 or not items:
        return _ANY
    op, arg = items[0]
    rest = items[1:]
    heads: frozenset[str] | None = None
    if op is _c.LITERAL:
        heads = frozenset((chr(arg),))
    elif op is _c.IN:
        chars: set[str] = set()
        for kind, value in arg:
            if kind is _c.LITERAL:
                chars.add(chr(value))
            elif kind is _c.RANGE and value[1] - value[0] < 128:
                chars.update(map(chr, range(value[0], value[1] + 1)))
            else:
                return _ANY
        heads = frozenset(chars)
    if heads is not None:
        tails = _prefixes(rest, width - 1)
        found = frozenset(h + t for h in heads for t in tails)
    elif op is _c.BRANCH:
        found = frozenset().union(*(_prefixes([*alt, *rest], width) for alt in arg[1]))
    elif op is _c.SUBPATTERN:
        _group, add_flags, _del_flags, inner = arg
        if add_flags & re.IGNORECASE:
            return _ANY
        found = _prefixes([*inner, *rest], width)
    elif op is _c.ATOMIC_GROUP:
        found = _prefixes([*arg, *rest], width)
    elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT) and arg[0] >= 1:
        # What follows the first repetition is not known: the prefixes of
        # one repetition, cut where it ends.
        found = _prefixes(list(arg[2]), width)
    else:
        return _ANY
    return _ANY if len(found) > _MAX_PREFIXES or "" in found else found


def literal_prefixes(pattern: str, width: int = PREFIX_WIDTH) -> frozenset[str]:
    """Strings of at most `width` characters such that every match of
    `pattern` (compiled without flags) starts with one of them; {""} when
    nothing is known. Sound, not complete: read from the parse tree, and a
    construct it does not follow makes the answer "anything"."""
    try:
        return _prefixes(list(_parser.parse(pattern).data), width)
    except Exception:  # a parser of another Python version: nothing known
        return _ANY


#: The part of a text before command position when the first word holds
#: neither `=` nor `/`: then no assignment and no directory prefix can be
#: read, so the program name starts right after the blanks (group 1). Both
#: runs are possessive: the blanks are all taken, and the word runs to a
#: whitespace character or the end (never fewer blanks, a shorter word).
_PLAIN_HEAD = re.compile(r"[ \t]*+([^\s=/]*+)(?=\s|$)")
#: Distinct keys kept before the table is emptied (each is small).
_KEYS_MAX = 4096


@dataclass(frozen=True)
class CompiledLists:
    safe: re.Pattern[str]
    anywhere: re.Pattern[str]
    anchored_rules: tuple[Rule, ...]
    anywhere_rules: tuple[Rule, ...]
    anywhere_singles: tuple[re.Pattern[str], ...]
    #: The branches of `anchored` (named groups, in order), each with its
    #: literal prefixes.
    anchored_branches: tuple[tuple[str, frozenset[str]], ...] = ()
    #: `anchored` cut down to the branches that can start with a key (the
    #: first characters at command position), built when first needed
    #: (None: no branch can).
    by_key: dict[str, tuple[re.Pattern[str], ...] | re.Pattern[str]] = field(default_factory=dict)
    #: Each branch on its own, compiled when first needed.
    branch_patterns: dict[int, re.Pattern[str]] = field(default_factory=dict)

    @cached_property
    def anchored(self) -> re.Pattern[str]:
        """The whole alternation (every branch), compiled when first needed:
        use with `.match(text, pos)`, it is anchored where the match starts."""
        return re.compile(_AT_POSITION + "(?:" + "|".join(body for body, _ in self.anchored_branches) + ")")

    def match_anchored(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """`self.anchored.match(text, pos)`, the same match, sooner.

        When the first word at `pos` holds neither `=` nor `/`, no
        assignment and no directory prefix can be read, so a branch can
        start only at command position `q` (right after the blanks) or, if
        it can start with a blank, on the blanks. A branch none of whose
        literal prefixes the text at `q` starts with, and that cannot start
        with a blank, then cannot match: only the others are tried, in the
        same order. When none of those can start with a blank, each starts
        only at `q`, so trying them one by one, each compiled on its own,
        finds the first match of the alternation; otherwise they are tried
        as one alternation with the same prefix. A first word with `=` or
        `/` takes the whole alternation."""
        head = _PLAIN_HEAD.match(text, pos)
        if head is None:
            return self.anchored.match(text, pos)
        start = head.start(1)
        key = text[start : start + PREFIX_WIDTH]
        try:
            route = self.by_key[key]
        except KeyError:
            if len(self.by_key) >= _KEYS_MAX:
                self.by_key.clear()
            route = self.by_key[key] = self._route(key)
        if not isinstance(route, tuple):
            return route.match(text, pos)
        for pattern in route:
            found = pattern.match(text, pos)
            if found is not None:
                return found
        return None

    def _route(self, key: str) -> tuple[re.Pattern[str], ...] | re.Pattern[str]:
        kept = tuple(
            index
            for index, (_body, prefixes) in enumerate(self.anchored_branches)
            if any(key.startswith(p) or p.startswith(_BLANKS) for p in prefixes)
        )
        if any(p.startswith(_BLANKS) for i in kept for p in self.anchored_branches[i][1]):
            bodies = "|".join(self.anchored_branches[i][0] for i in kept)
            return re.compile(_AT_POSITION + "(?:" + bodies + ")")
        return tuple(self._branch(index) for index in kept)

    def _branch(self, index: int) -> re.Pattern[str]:
        pattern = self.branch_patterns.get(index)
        if pattern is None:
            body = self.anchored_branches[index][0]
            pattern = self.branch_patterns[index] = re.compile(r"[ \t]*+(?:" + body + ")")
        return pattern


#: The literal prefixes of the anchored branches, by (length, CRC-32) of the
#: branch text, as :func:`literal_prefixes` reads them (a test keeps this
#: table equal to what it reads). Reading them costs about as much as
#: compiling the whole alternation; a branch whose text is not here is read.
_KNOWN_PREFIXES: dict[tuple[int, int], tuple[str, ...]] = {
    (90, 0x111E5152): ("chm", "cho", "cp", "dd", "mkd", "mv", "rm", "rmd", "shr", "tee", "tou", "tru"),
    (42, 0x6D45E4A2): ("doa", "su", "sud"),
    (48, 0x27564C3B): ("kil", "pki"),
    (102, 0x8ADD3D31): (
        ".",
        "bas",
        "csh",
        "das",
        "eva",
        "exe",
        "fis",
        "ksh",
        "mks",
        "sh",
        "sou",
        "tcs",
        "zsh",
    ),
    (121, 0x12891634): (
        "cod",
        "ed",
        "ema",
        "ex",
        "ged",
        "hx",
        "joe",
        "kak",
        "mic",
        "nan",
        "nvi",
        "pic",
        "sub",
        "vi",
        "vie",
        "vim",
    ),
    (854, 0x481714E3): ("git",),
    (245, 0xF88052EA): ("git",),
    (340, 0x4D9C2FEB): ("git",),
    (561, 0xDCE0B82A): ("git",),
    (352, 0xA9721C86): ("git",),
    (557, 0xFE7FB84A): ("npm", "pnp"),
    (183, 0x78D30802): ("yar",),
    (190, 0xC8AE8D1B): ("pip", "py\t", "py ", "pyt", "uv\t", "uv "),
    (101, 0x549534E2): ("sor",),
    (77, 0x53192C02): ("tre",),
    (108, 0x77A34ED5): ("fd",),
    (91, 0xDA6DC4D1): ("rg",),
    (115, 0xD32509EF): ("rg",),
    (679, 0x9DBEDECB): ("uni",),
    (108, 0xF35F0C69): ("les",),
    (98, 0xDDA5EF55): ("dat",),
    (106, 0x2F2485C4): ("fil",),
    (147, 0x182A4A7A): ("bat",),
    (138, 0x7C05A5C7): ("ps",),
    (64, 0x70B46960): ("pri",),
    (372, 0x52934F8C): ("git",),
    (94, 0xBDE0B8E0): ("git",),
    (365, 0xA7BFB58B): ("dif", "gre", "rg"),
    (210, 0x69233F50): ("tsc",),
    (214, 0x1F9A7044): ("npm", "pnp", "yar"),
    (201, 0xB815B422): (
        "!",
        "(",
        "bui",
        "caf",
        "chr",
        "com",
        "do",
        "doa",
        "eli",
        "els",
        "env",
        "flo",
        "if",
        "ion",
        "nic",
        "noh",
        "set",
        "std",
        "su",
        "sud",
        "tas",
        "the",
        "tim",
        "unb",
        "unt",
        "wat",
        "whi",
        "xar",
        "{",
    ),
}


def _prefixes_of(branch: str) -> frozenset[str]:
    known = _KNOWN_PREFIXES.get((len(branch), zlib.crc32(branch.encode())))
    return literal_prefixes(branch) if known is None else frozenset(known)


@cache
def compiled_builtins() -> CompiledLists:
    """Both built-in lists, each compiled once into alternations with one
    named group per entry, so a decision costs one search per text."""
    safe = re.compile(
        r"^[ \t]*(?:" + "|".join("(?:" + r.pattern.removeprefix(r"^[ \t]*") + ")" for r in SAFE_RULES) + ")"
    )
    anchored_rules = tuple(r for r in DESTRUCTIVE_RULES if r.anchored)
    anywhere_rules = tuple(r for r in DESTRUCTIVE_RULES if not r.anchored)
    branches = [f"(?P<a{i}>{r.pattern})" for i, r in enumerate(anchored_rules)]
    branches.append("(?P<wrap>" + _words(" ".join(WRAPPERS)) + END + ")")
    # No groups here: an alternation whose every branch starts with a literal
    # lets the engine skip straight to the candidate characters (`-`, `<`, `>`).
    anywhere = re.compile("|".join(r.pattern for r in anywhere_rules))
    singles = tuple(re.compile(r.pattern) for r in anywhere_rules)
    return CompiledLists(
        safe,
        anywhere,
        anchored_rules,
        anywhere_rules,
        singles,
        tuple((b, _prefixes_of(b)) for b in branches),
    )
