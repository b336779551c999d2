"""The reviewed per-program rules of limited Bash, as data.

pi-plan-mode-settings.md § Safe shell subcommands: segments that match no
configured prefix "use the built-in fail-closed reviewed policy ... with
command-specific argument checks". Which programs and arguments that policy
reviews is left to implementations; reference-choices.md § pi-plan-mode:
limited Bash fixes the reference's list. Each program has one row in
:data:`PROGRAMS`; each row says where it comes from (`source`). Git has
its own module (`git_policy`) because its rules span global options,
subcommands and per-subcommand shapes.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

RC = "reference-choices.md § pi-plan-mode: limited Bash"


@dataclass(frozen=True)
class OptionRule:
    """Forbidden options of one program (or subcommand).

    `long`: GNU-style long options; any prefix of at least one letter is
    forbidden too (GNU getopt accepts unambiguous abbreviations, and an
    ambiguous one only fails, so blocking every prefix is fail-closed),
    with or without `=value`, and a dotted sub-key (`--outputFile.json`).
    `known_long`: real options of the program that happen to be prefixes of
    a forbidden one (`git diff --text` vs `--textconv`); getopt takes an
    exact match over an abbreviation, so they stay allowed.
    `exact`: words forbidden exactly, with or without `=value` (find's
    single-dash predicates).
    `flags`: Go-style flag names, written with one or two dashes, with or
    without `=value`, and also as `-test.<name>` (go test hands those to the
    test binary).
    `short`: letters forbidden anywhere in a bundle of short options.
    `value_short`: letters that take the rest of their bundle as a value,
    so scanning the bundle stops there.
    `fold_case`: option names are case-insensitive (tsc).
    `single_dash_long`: the program also reads its long options with one
    dash (tsc: `-incremental` is `--incremental`), so a one-dash word of
    more than one letter is looked up as a long name too.
    `kebab_case`: the program reads `--a-b` as `--aB` (jest's and
    vitest's parsers expand camel case), so a dashed name is looked up in
    its camel-case spelling too.
    `next_word`: the program reads a bundle letter by letter, and a letter
    that takes a value takes the next unused word (tree: `-LR 1` is `-L 1
    -R`), so scanning goes on past it.
    `values`: enumerated option values that are forbidden, per option
    spelling (`--directories`, `-d`): the program matches values by any
    unambiguous prefix (argmatch), so every prefix of a forbidden value is
    that value (fail-closed, as for long names).
    """

    long: tuple[str, ...] = ()
    known_long: tuple[str, ...] = ()
    exact: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    short: str = ""
    value_short: str = ""
    fold_case: bool = False
    single_dash_long: bool = False
    kebab_case: bool = False
    next_word: bool = False
    values: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: Every prefix (`--o`, `--ou`, …) of a forbidden long option, mapped to
    #: that option: one dictionary lookup per argument instead of a scan.
    prefixes: dict[str, str] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        prefixes: dict[str, str] = {}
        for option in self.long:
            for end in range(3, len(option) + 1):
                prefixes.setdefault(option[:end], option)
        for option in self.long:
            # A full name is that option, even when it is also a prefix of
            # another one (`--coverage`, `--coverageDirectory`).
            prefixes[option] = option
        for known in self.known_long:
            prefixes.pop(known, None)
        object.__setattr__(self, "prefixes", prefixes)


NO_OPTIONS = OptionRule()
_KEBAB = re.compile(r"-([a-z0-9])")

#: Arguments forbidden for every program (reference-choices.md: "Arguments
#: forbidden for every program"). `-i` is deliberately absent.
GLOBAL_FORBIDDEN = OptionRule(long=("--in-place", "--fix", "--write", "--delete"), exact=("-delete",))


def forbidden_option(word: str, rule: OptionRule) -> str | None:
    """The forbidden option `word` spells under `rule`, or None
    (reference-choices.md § pi-plan-mode: limited Bash, "Long options are
    matched the way GNU tools read them")."""
    if len(word) < 2 or word[0] != "-":
        return None
    if rule.single_dash_long and len(word) > 2 and word[1] != "-":
        # `-name` read as `--name` first; a word that names no long option
        # is still read as short letters below.
        hit = forbidden_option("-" + word, replace(rule, single_dash_long=False))
        if hit is not None:
            return hit
    if rule.kebab_case and word.startswith("--") and "-" in word[2:].split("=", 1)[0]:
        name, eq, value = word[2:].partition("=")
        camel = "--" + _KEBAB.sub(lambda m: m.group(1).upper(), name) + eq + value
        hit = forbidden_option(camel, replace(rule, kebab_case=False))
        if hit is not None:
            return hit
    text = word.lower() if rule.fold_case else word
    name = text.split("=", 1)[0]
    if rule.exact and name in rule.exact:
        return name
    if rule.flags:
        bare = name.lstrip("-")
        if name.startswith("-") and len(name) - len(bare) <= 2:
            if bare.startswith("test."):
                bare = bare[5:]
            if bare in rule.flags:
                return "-" + bare
    if text.startswith("--"):
        hit = rule.prefixes.get(name)
        if hit is None and "." in name:
            hit = rule.prefixes.get(name.split(".", 1)[0])
            if hit is not None and not name.startswith(hit + "."):
                hit = None
        return hit
    for letter in text[1:]:
        if letter in rule.short:
            return "-" + letter
        if letter in rule.value_short and not rule.next_word:
            break
    return None


def option_values(words: Sequence[str], rule: OptionRule) -> Iterator[tuple[str, str]]:
    """(option, value) for each option of `rule.values` that `words` give a
    value to, read as GNU getopt_long does: `--name=V`, `--name V` (any
    unambiguous prefix of the name), `-xV`, `-x V`, and `x` inside a bundle
    (`-rxV`, `-rx V`); the value is the next word whatever it looks like."""
    if not rule.values:
        return
    for index, word in enumerate(words):
        if word[:1] != "-" or len(word) < 2:
            continue
        following = words[index + 1] if index + 1 < len(words) else None
        for option, _ in rule.values:
            if option.startswith("--"):
                name, eq, value = word.partition("=")
                if len(name) >= 3 and option.startswith(name):
                    if eq:
                        yield option, value
                    elif following is not None:
                        yield option, following
            elif not word.startswith("--"):
                letters = word[1:]
                for at, letter in enumerate(letters):
                    if letter == option[1]:
                        rest = letters[at + 1 :]
                        if rest:
                            yield option, rest
                        elif following is not None:
                            yield option, following
                        break
                    if letter in rule.value_short:
                        break


def forbidden_value(words: Sequence[str], rule: OptionRule) -> str | None:
    """`option=value` for the first forbidden enumerated value `words` give,
    matched by unambiguous prefix (`-d rec` is `-d recurse`), or None."""
    table = dict(rule.values)
    for option, value in option_values(words, rule):
        if value and any(bad.startswith(value) for bad in table[option]):
            return f"{option} {value}"
    return None


_OPTION_WORD = re.compile(r"\0(-[^\0]+)")


def first_forbidden(words: Sequence[str], rule: OptionRule) -> str | None:
    """The first forbidden option among `words` under `rule`, or None."""
    if len(words) > 32:
        # Long argument lists: let one C-level search pick the words that
        # start with `-` (words never contain NUL: the grammar rejects it).
        words = _OPTION_WORD.findall("\0" + "\0".join(words))
    for word in words:
        hit = forbidden_option(word, rule)
        if hit is not None:
            return hit
    return None


#: Option words remembered per rule; past this a rule's table starts again.
ANSWERS_MAX = 16384
_UNSEEN = object()

OptionCheck = Callable[[Sequence[str]], "str | None"]


def compile_options(rule: OptionRule) -> OptionCheck:
    """:func:`first_forbidden` for one rule, compiled as a table: the
    answer of :func:`forbidden_option` for each option word seen is
    remembered, so a word like `-n` or `--oneline` is examined once per
    rule, not once per decision. Only a word starting with `-` can be a
    forbidden option (`forbidden_option` answers None to any other)."""
    answers: dict[str, str | None] = {}
    get = answers.get

    def first(words: Sequence[str]) -> str | None:
        if len(words) > 32:
            words = _OPTION_WORD.findall("\0" + "\0".join(words))
        for word in words:
            if word[:1] != "-":
                continue
            hit = get(word, _UNSEEN)
            if hit is _UNSEEN:
                if len(answers) >= ANSWERS_MAX:
                    answers.clear()
                hit = answers[word] = forbidden_option(word, rule)
            if hit is not None:
                return hit  # type: ignore[return-value]
        return None

    return first


# The compiled table of each rule met, keyed on the rule's id; the rule is
# kept alive beside it, so its id stays its own.
_COMPILED: dict[int, tuple[OptionRule, OptionCheck]] = {}


def options_of(rule: OptionRule) -> OptionCheck:
    """The compiled table of `rule` (:func:`compile_options`), built once."""
    found = _COMPILED.get(id(rule))
    if found is None:
        found = _COMPILED[id(rule)] = (rule, compile_options(rule))
    return found[1]


def remembered_first_forbidden(words: Sequence[str], rule: OptionRule) -> str | None:
    """:func:`first_forbidden`, answered from the rule's compiled table."""
    return options_of(rule)(words)


def forbids_nothing(rule: OptionRule) -> bool:
    """No option word and no value is forbidden under `rule`."""
    return not (rule.long or rule.exact or rule.flags or rule.short or rule.values)


#: A shape check takes the arguments (the words after the program) and
#: answers None when they are acceptable, otherwise why not.
ShapeCheck = Callable[[Sequence[str]], "str | None"]


@dataclass(frozen=True)
class SubcommandRule:
    """An admitted leading word sequence (`run test`) with its own options."""

    words: tuple[str, ...]
    options: OptionRule = NO_OPTIONS
    forbidden_words: tuple[str, ...] = ()
    source: str = RC


@dataclass(frozen=True)
class ProgramRule:
    """How the reviewed policy treats one program.

    Exactly one of: `subcommands` (the arguments must start with one of
    them; options before the subcommand block), `exact_args` (the arguments
    must be exactly one of these lists), or neither (any arguments, subject
    to `options`). `shape` adds a program-specific check.
    """

    program: str
    source: str
    options: OptionRule = NO_OPTIONS
    subcommands: tuple[SubcommandRule, ...] = ()
    exact_args: tuple[tuple[str, ...], ...] | None = None
    shape: ShapeCheck | None = None
    why: str = field(default="", compare=False)


# --- shape checks -----------------------------------------------------------

_SED_SCRIPT = re.compile(r"[0-9]+(?:,[0-9]+)?p")


def sed_shape(args: Sequence[str]) -> str | None:
    """`sed` only as `sed -n <N>p` or `sed -n <N>,<M>p` followed by file
    operands; any other option, in any position or bundle, blocks
    (reference-choices.md: closes the `sed -n 1p -e 'w FILE'` hole)."""
    if len(args) < 2 or args[0] != "-n" or not _SED_SCRIPT.fullmatch(args[1]):
        return "sed is reviewed only as `sed -n <N>p` or `sed -n <N>,<M>p`"
    for arg in args[2:]:
        if arg.startswith("-") and arg != "-":
            return f"sed accepts no option after its script ({arg!r})"
    return None


_UNIQ_VALUE_SHORT = "fsw"
_UNIQ_VALUE_LONG = ("--skip-fields", "--skip-chars", "--check-chars")


def uniq_shape(args: Sequence[str]) -> str | None:
    """`uniq` with at most one operand: a second operand is an output file
    it would write (reference-choices.md § pi-plan-mode: limited Bash)."""
    operands = 0
    skip = False
    only_operands = False
    for arg in args:
        if skip:
            skip = False
            continue
        if only_operands or arg == "-" or not arg.startswith("-"):
            operands += 1
            continue
        if arg == "--":
            only_operands = True
        elif arg.startswith("--"):
            # A value-taking long option given without `=` takes the next
            # word; abbreviations count too (GNU getopt).
            name = arg.split("=", 1)[0]
            if "=" not in arg and any(opt.startswith(name) for opt in _UNIQ_VALUE_LONG):
                skip = True
        else:
            for index, letter in enumerate(arg[1:], start=1):
                if letter in _UNIQ_VALUE_SHORT:
                    skip = index == len(arg) - 1
                    break
    if operands > 1:
        return f"uniq with {operands} operands writes its output to the second one"
    return None


_TASKLIST_FORMATS = ("table", "list", "csv")


def tasklist_shape(args: Sequence[str]) -> str | None:
    """`tasklist` only with `/v`, `/fo <table|list|csv>`, `/nh`, `/fi
    <filter>`, `/m [module]`, `/svc`; never `/s` (a remote system). Windows
    reads switches case-insensitively, so the reference does too."""
    index = 0
    while index < len(args):
        switch = args[index].lower()
        index += 1
        if switch in ("/v", "/nh", "/svc"):
            continue
        if switch == "/fo":
            if index >= len(args) or args[index].lower() not in _TASKLIST_FORMATS:
                return "tasklist /fo takes table, list or csv"
            index += 1
            continue
        if switch == "/fi":
            if index >= len(args):
                return "tasklist /fi needs a filter"
            index += 1
            continue
        if switch == "/m":
            if index < len(args) and not args[index].startswith("/"):
                index += 1
            continue
        return f"tasklist switch {args[index - 1]!r} is not reviewed"
    return None


_JQ_MODULE = re.compile(r"(?<![A-Za-z0-9_$])(?:import|include)(?![A-Za-z0-9_])")
_JQ_ENV = re.compile(r"(?<![A-Za-z0-9_$])env(?![A-Za-z0-9_])|\$ENV")


def jq_shape(args: Sequence[str]) -> str | None:
    """`jq` with `env` or `$ENV` in its program prints the environment, like
    `printenv` (reference-choices.md). Every argument is checked, since
    telling the program from option values needs jq's own option table;
    `-f`/`--from-file`, `-L`/`--library-path` and `import`/`include` read
    code the policy cannot see and block (reference choice, closes a hole)."""
    for arg in args:
        if _JQ_ENV.search(arg):
            return "jq with `env` or `$ENV` prints the environment"
        if arg in ("-f", "--from-file") or arg.startswith(("--from-file=", "-L", "--library-path")):
            return "jq reads a program or modules from files the policy cannot review"
        if _JQ_MODULE.search(arg):
            return "jq `import`/`include` loads modules the policy cannot review"
    return None


# tsc: `--noEmit` is required, and tsc reads option names case-insensitively.
_TSC_OPTIONS = OptionRule(
    long=(),
    exact=(
        "--incremental",
        "--tsbuildinfofile",
        "--generatetrace",
        # Not in reference-choices.md's list, same reason (they write a file
        # or switch emit back on): reference choice, closes a hole.
        "--generatecpuprofile",
        "--build",
        "-b",
        "--init",
        # Watch mode never ends (as jest --watch): only forms that report to
        # the terminal and end (reference-choices.md § Both shell gates).
        "--watch",
        "-w",
    ),
    fold_case=True,
    # tsc reads `-incremental` as `--incremental` (its parser strips one or
    # two dashes): reference-choices.md § Both shell gates, "a program that
    # accepts single-dash spellings of its long options is read with them".
    single_dash_long=True,
)


def tsc_shape(args: Sequence[str]) -> str | None:
    """`tsc --version`, or `tsc --noEmit` without `--incremental`,
    `--tsBuildInfoFile`, `--generateTrace` (reference-choices.md)."""
    if list(args) == ["--version"]:
        return None
    lowered = [arg.lower() for arg in args]
    if "--noemit" not in lowered:
        return "tsc is reviewed only with --noEmit"
    # tsc reads `-noEmit` as `--noEmit` (single-dash long options).
    lowered = [
        "-" + arg if arg[:1] == "-" and arg[1:2] not in ("-", "") and len(arg) > 2 else arg for arg in lowered
    ]
    for index, arg in enumerate(lowered):
        # `--noEmit false` turns emitting back on (tsc reads an explicit
        # boolean after a flag): reference choice, closes a hole.
        if arg == "--noemit" and index + 1 < len(lowered) and lowered[index + 1] == "false":
            return "tsc --noEmit false emits files"
        if arg.startswith("--noemit=") or arg.startswith("--noemit:"):
            return "tsc --noEmit with a value is not reviewed"
    hit = first_forbidden(args, _TSC_OPTIONS)
    if hit is not None:
        return f"tsc option {hit} writes files"
    return None


def printf_shape(args: Sequence[str]) -> str | None:
    """`printf` without `-v`: Bash evaluates an array subscript in the
    variable name arithmetically, which runs a `$(...)` written inside it
    even in single quotes (`printf -v 'a[$(touch x)]' y`). Reference choice,
    closes a hole; any word starting with `-v` blocks (fail-closed)."""
    for arg in args:
        if arg.startswith("-v"):
            return "printf -v assigns a variable whose subscript Bash evaluates (it can run commands)"
    return None


#: A BSD-style `ps` option word (no dash): letters, maybe with digits
#: (`ps ae1` is `ps a e 1`: a process number among the modifiers).
_PS_BSD = re.compile(r"[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*")


def ps_shape(args: Sequence[str]) -> str | None:
    """`ps` without the BSD `e` modifier (`ps e`, `ps auxe`, `ps axeww`):
    it prints every process's environment, secrets included, like `env`.
    Reference choice, closes a hole."""
    for arg in args:
        if not arg.startswith("-") and _PS_BSD.fullmatch(arg) and "e" in arg:
            return f"ps {arg} prints the environment of every process (the BSD e modifier)"
    return None


#: grep options that make it descend into directories: `-r`/`-R` in a
#: bundle (before a letter that takes a value), and any spelling of
#: `--recursive`, `--dereference-recursive` or `--directories=recurse`.
_GREP_VALUE_SHORT = "efmABCdD"
_RECURSIVE_LONG = ("--recursive", "--dereference-recursive")


#: `-d`/`--directories` take `read`, `skip` or `recurse`, matched by prefix.
_GREP_DIRECTORIES = OptionRule(
    values=(("--directories", ("recurse",)), ("-d", ("recurse",))), value_short=_GREP_VALUE_SHORT
)


#: Some word is an option with `d` in it (a cheap test before reading them).
_MAYBE_DIRECTORIES = re.compile(r"\0-(?:-d|[^-\0]*d)")


def _grep_recursive(args: Sequence[str]) -> bool:
    # `-d rec`, `-drecurse`, `--dir=rec`: the value as grep reads it.
    if _MAYBE_DIRECTORIES.search("\0" + "\0".join(args)) and forbidden_value(args, _GREP_DIRECTORIES):
        return True
    for arg in args:
        if "recurse" in arg:
            return True
        if arg.startswith("--"):
            name = arg.split("=", 1)[0]
            if len(name) > 2 and any(option.startswith(name) for option in _RECURSIVE_LONG):
                return True
            continue
        if arg.startswith("-") and arg != "-":
            for letter in arg[1:]:
                if letter in "rR":
                    return True
                if letter in _GREP_VALUE_SHORT:
                    break
    return False


def _descends_into_pseudo_files(args: Sequence[str]) -> str | None:
    """An operand of a recursive search that reaches /proc (or /dev, /sys):
    the root itself, a path under those, or any `..` step (it may climb to
    the root; fail-closed)."""
    if not _MAYBE_OUTSIDE.search("\0" + "\0".join(args) + "\0"):
        return None
    for arg in args:
        if arg.startswith("-") and arg != "-":
            continue
        if ".." in arg.split("/"):
            return arg
        if not arg.startswith("/"):
            continue  # relative and without `..`: inside the working directory
        path = normal_path(arg)
        if path == "/" or path.split("/")[:2] in (["", "proc"], ["", "dev"], ["", "sys"]):
            return arg
    return None


#: Some word is absolute or has a `..` component (a cheap test first).
_MAYBE_OUTSIDE = re.compile(r"\0/|(?:\0|/)\.\.(?:/|\0)")


def normal_path(path: str) -> str:
    """`path` as the kernel resolves its spelling (symlinks aside): repeated
    slashes (a leading `//` included) and `.` components folded, `..`
    applied, so that every spelling of a place is that place
    (reference-choices.md § Both shell gates)."""
    if not path:
        return path
    folded = posixpath.normpath(path)
    if folded.startswith("//"):
        folded = "/" + folded.lstrip("/")
    return folded


def recursive_search_shape(recursive: Callable[[Sequence[str]], bool]) -> ShapeCheck:
    """A recursive search may not descend into /proc: `grep -r . /proc/self`
    prints `/proc/self/environ`, every secret of the process. Reference
    choice, closes a hole."""

    def check(args: Sequence[str]) -> str | None:
        if not recursive(args):
            return None
        hit = _descends_into_pseudo_files(args)
        if hit is not None:
            return f"a recursive search of {hit!r} can reach /proc (process environments)"
        return None

    return check


def _diff_recursive(args: Sequence[str]) -> bool:
    return any(
        arg == "-r"
        or (arg.startswith("--r") and "--recursive".startswith(arg.split("=")[0]))
        or (arg.startswith("-") and not arg.startswith("--") and "r" in arg[1:])
        for arg in args
    )


def names_environment_file(args: Sequence[str]) -> str | None:
    """An argument naming a process environment file (`/proc/<pid>/environ`,
    spelled any way: `/dev/fd/../environ`, `/proc/thread-self/environ`):
    reading it prints every variable of that process, as `env` would.
    Checked for every program (reference choice, closes a hole)."""
    for arg in args:
        if "environ" in arg and (
            _ENVIRON_PATH.search(arg) or _ENVIRON_PATH.search(normal_path(arg.rpartition("=")[2]))
        ):
            return f"{arg!r} names a process environment file (it holds every secret of the process)"
    return None


#: A path whose last component is `environ` (also as an option's attached
#: value: `-f/proc/self/environ`, `--rawfile=x/proc/1/environ`).
_ENVIRON_PATH = re.compile(r"(?:^|[/=])environ/*$")


def no_args_shape(args: Sequence[str]) -> str | None:
    """`hostname` with no arguments (with one it sets the host name)."""
    if args:
        return "hostname is reviewed only without arguments (an argument sets the host name)"
    return None


# --- the table ----------------------------------------------------------------

_READ_ONLY = [
    "cat",
    "head",
    "tail",
    "grep",
    "find",
    "ls",
    "pwd",
    "echo",
    "printf",
    "wc",
    "sort",
    "uniq",
    "diff",
    "file",
    "stat",
    "du",
    "df",
    "tree",
    "which",
    "whereis",
    "type",
    "uname",
    "whoami",
    "id",
    "date",
    "uptime",
    "ps",
    "jq",
    "rg",
    "fd",
    "bat",
    "eza",
]

_PER_PROGRAM_OPTIONS: dict[str, OptionRule] = {
    "find": OptionRule(
        exact=(
            "-exec",
            "-execdir",
            "-ok",
            "-okdir",
            "-delete",
            "-fprint",
            "-fprint0",
            "-fprintf",
            "-fls",
        )
    ),
    # `--files0-from` reads the names of the files to sort (and print) from
    # a file the policy cannot see: reference choice, closes a hole.
    "sort": OptionRule(
        long=("--output", "--temporary-directory", "--compress-program", "--files0-from"),
        short="oT",
        value_short="ktS",
    ),
    # `tree -R` re-runs tree in every directory with `-o 00Tree.html`:
    # reference choice beyond reference-choices.md (closes a hole).
    # tree reads a bundle letter by letter, each value letter taking the next
    # word (`tree -LR 1` is `-L 1 -R`): reference choice, closes a hole.
    "tree": OptionRule(long=("--output",), short="oR", value_short="LPIHT", next_word=True),
    "diff": OptionRule(long=("--output",)),
    "fd": OptionRule(long=("--exec", "--exec-batch"), short="xX"),
    # `rg -z`/`--search-zip` runs a decompressor (gzip, xz, ...) on
    # compressed files: reference choice, closes a hole (found by the
    # sandbox oracle).
    "rg": OptionRule(
        long=("--pre", "--hostname-bin", "--search-zip"),
        known_long=("--pre-glob",),
        short="z",
        value_short="ABCEefgjMmrTt",
    ),
    # `--paging always` starts the pager (less) even when the output is no
    # terminal: an explicit pager request (§ Safe shell subcommands).
    "bat": OptionRule(long=("--pager",), values=(("--paging", ("always",)),)),
    "date": OptionRule(long=("--set",), short="s", value_short="dfIr"),
    # `file -C` compiles a magic file and writes it next to the source:
    # reference choice beyond reference-choices.md (closes a hole).
    "file": OptionRule(long=("--compile",), short="C", value_short="mfFeP"),
}

_SHAPES: dict[str, ShapeCheck] = {
    "uniq": uniq_shape,
    "jq": jq_shape,
    "printf": printf_shape,
    "ps": ps_shape,
    "grep": recursive_search_shape(_grep_recursive),
    "rg": recursive_search_shape(lambda args: True),
    "diff": recursive_search_shape(_diff_recursive),
}

_READ_ONLY_RULES = tuple(
    ProgramRule(
        program=name,
        source=RC,
        options=_PER_PROGRAM_OPTIONS.get(name, NO_OPTIONS),
        shape=_SHAPES.get(name),
        why="read-only program",
    )
    for name in _READ_ONLY
)

_VERSION_PROBES = tuple(
    ProgramRule(program=name, source=RC, exact_args=(("--version",),), why="version probe")
    for name in ("node", "python", "python3", "biome", "ruff")
)

_GO_TEST = OptionRule(
    flags=(
        "exec",
        "o",
        "coverprofile",
        "cpuprofile",
        "memprofile",
        "blockprofile",
        "mutexprofile",
        "trace",
        "outputdir",
        # Beyond reference-choices.md's list, same reason (they run another
        # program): reference choice, closes a hole.
        "toolexec",
        "vettool",
        # Only forms that report to the terminal (reference-choices.md § Both
        # shell gates): -c writes the test binary, -work keeps its work
        # directory, -fuzz writes failing inputs, -mod/-modfile may rewrite
        # go.mod.
        "c",
        "work",
        "fuzz",
        "mod",
        "modfile",
        # They build with cgo, running the C compiler and linker: programs
        # the line does not name (found by the sandbox runner sweep).
        "race",
        "msan",
        "asan",
    )
)

_JS_TEST = OptionRule(
    long=(
        "--updateSnapshot",
        "--update",
        "--outputFile",
        # Beyond reference-choices.md, same reason (they write where they are
        # told): reference choice, closes a hole.
        "--coverageDirectory",
        "--cacheDirectory",
        "--coverage.reportsDirectory",
        # Test runners run only in forms that report to the terminal
        # (reference-choices.md § Both shell gates): coverage and HTML
        # reports are written, --ui/--open/--api/--browser start a server or
        # a browser, --watch never ends, --init writes a configuration,
        # --clearCache deletes.
        "--coverage",
        "--reporter",
        "--reporters",
        "--ui",
        "--open",
        "--api",
        "--browser",
        "--watch",
        "--watchAll",
        "--init",
        "--clearCache",
        # They run git (or hg) to find changed files: a program the line
        # does not name (found by the sandbox).
        "--onlyChanged",
        "--lastCommit",
        "--changedSince",
        "--changedFilesWithAncestor",
        "--changed",
    ),
    short="uo",
    # `--output-file` is `--outputFile` to both parsers (camel-case
    # expansion): every spelling the program accepts is read.
    kebab_case=True,
)

#: vitest's `-w` is `--watch` (jest's `-w` is `--maxWorkers N`, harmless);
#: its `--root`/`-r` moves its cache under the directory it names (found by
#: the sandbox runner sweep: `vitest run --root ..` wrote `../node_modules/.vite`).
_VITEST_TEST = replace(_JS_TEST, long=(*_JS_TEST.long, "--root"), short=_JS_TEST.short + "wr")

#: Leading words that make vitest do something other than run the tests
#: once (`vitest init` writes a configuration; `watch`/`dev`/`serve` never end).
_VITEST_COMMANDS = ("init", "watch", "dev", "serve")


def vitest_shape(args: Sequence[str]) -> str | None:
    """`vitest` only running the tests (reference choice, closes a hole)."""
    if args and args[0] in _VITEST_COMMANDS:
        return f"vitest {args[0]} does not only run the tests and report to the terminal"
    return None


# npm reads any `--<config>=value`; these run another program or point npm
# at another configuration (reference choice, closes a hole: `npm test
# --script-shell=./evil`).
_NPM = OptionRule(
    long=(
        "--script-shell",
        "--node-options",
        "--userconfig",
        "--globalconfig",
        "--prefix",
        "--shell",
        # npm writes its cache and debug log where these point (seen in the
        # sandbox: `npm ls --cache=/tmp/c` made /tmp/c/_logs).
        "--cache",
        "--logs-dir",
        # It sends the request to another host, chosen on the line (seen in
        # the sandbox: `npm view --registry http://198.51.100.7/`).
        "--registry",
    )
)

# `cargo --config 'target.<triple>.runner="…"'` runs a program of its choice
# (reference choice, closes a hole).
# `--target-dir`, `--artifact-dir`/`--out-dir` write elsewhere and
# `--timings` writes an HTML report (reference-choices.md § Both shell gates:
# only forms that report to the terminal); `--target` is a real option that
# is a prefix of `--target-dir`.
_CARGO = OptionRule(
    long=("--config", "--target-dir", "--timings", "--artifact-dir", "--out-dir"),
    known_long=("--target",),
    short="Z",
)

_OTHER_RULES = (
    ProgramRule(program="sed", source=RC, shape=sed_shape, why="print lines only"),
    ProgramRule(program="tsc", source=RC, shape=tsc_shape, why="type check without emitting"),
    ProgramRule(program="hostname", source=RC, shape=no_args_shape, why="print the host name"),
    ProgramRule(program="tasklist", source=RC, shape=tasklist_shape, why="list processes"),
    ProgramRule(
        program="npm",
        source=RC,
        subcommands=(
            *tuple(
                SubcommandRule((name,), options=_NPM)
                for name in ("list", "ls", "view", "info", "search", "outdated")
            ),
            # Words after `--` go to the program the package script runs,
            # which the policy cannot see (`npm test -- --coverage` writes a
            # report): reference-choices.md § Both shell gates, programs
            # are judged by what they start.
            SubcommandRule(("test",), options=_NPM, forbidden_words=("--",)),
            SubcommandRule(("audit",), options=_NPM, forbidden_words=("fix",)),
            *tuple(
                SubcommandRule(("run", name), options=_NPM, forbidden_words=("--",))
                for name in ("test", "check", "typecheck", "lint")
            ),
        ),
        why="package inspection and project checks",
    ),
    ProgramRule(
        program="cargo",
        source=RC,
        subcommands=(
            SubcommandRule(("test",), options=_CARGO),
            SubcommandRule(("check",), options=_CARGO),
        ),
        why="project checks",
    ),
    ProgramRule(
        program="go",
        source=RC,
        subcommands=(
            SubcommandRule(("test",), options=_GO_TEST),
            SubcommandRule(("vet",), options=_GO_TEST),
        ),
        why="project checks",
    ),
    ProgramRule(
        program="pytest",
        source=RC,
        options=OptionRule(
            long=(
                "--junitxml",
                "--junit-xml",
                "--resultlog",
                "--basetemp",
                # Beyond reference-choices.md, same reason (they write a file
                # they name, or set ini values that do): reference choice.
                "--debug",
                "--log-file",
                "--override-ini",
                # The cache goes under the root directory: one the line
                # names, or the directory of the configuration file it names.
                "--rootdir",
                "--config-file",
                # Only forms that report to the terminal (reference-choices.md
                # § Both shell gates): report files, the network, deleting.
                "--pastebin",
                "--cov",
                "--cov-report",
                "--html",
                "--report-log",
                "--json-report",
                "--json-report-file",
                "--alluredir",
                "--benchmark-save",
                "--benchmark-autosave",
                "--benchmark-json",
                "--cache-clear",
            ),
            # `--co` is pytest's own spelling of --collect-only.
            known_long=("--co",),
            short="poc",
            value_short="kmcWrn",
        ),
        why="project tests",
    ),
    ProgramRule(program="vitest", source=RC, options=_VITEST_TEST, shape=vitest_shape, why="project tests"),
    ProgramRule(program="jest", source=RC, options=_JS_TEST, why="project tests"),
)

#: Every program the reviewed Bash policy knows, except `git` (see
#: `git_policy`). A program absent from this table is blocked; `env`,
#: `printenv` and `gh` are absent on purpose.
PROGRAMS: dict[str, ProgramRule] = {
    rule.program: rule for rule in _READ_ONLY_RULES + _VERSION_PROBES + _OTHER_RULES
}
