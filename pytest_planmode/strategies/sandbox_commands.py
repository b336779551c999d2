"""Commands for the sandbox oracle: a grammar-aware generator and a
deterministic sweep, both drawn from `pytest_planmode.strategies.sandbox_table`.

Two models drive them, so that a policy that reads a word differently from
the program or the shell shows up:

- How each program reads its options (`sandbox_table.READERS`):
  `option_spellings` gives every spelling a program accepts for one of its
  options (abbreviated long names, `=value` and separate values, bundles
  where a value letter takes the rest of the bundle or the next word,
  single-dash long names, enumerated values abbreviated, BSD words with
  digits), and `path_spellings` every way of writing the same place.
- How bash builds a word: `render` quotes a value plainly, in single or
  double quotes or with backslashes; `word_forms` builds it through ANSI-C
  quoting, brace expansion, parameter defaults and indirection, a glob, or
  a `cd` followed by a relative name.

A segment is a program, maybe a subcommand, some of its options and
operands from its pools. Chains join segments with the operators both
grammars know; for opl-modes a segment is sometimes wrapped in a
double-quoted substitution, which the spec says is split out and checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from hypothesis import strategies as st

from pytest_planmode.sandbox import world
from pytest_planmode.strategies.sandbox_table import (
    ENUMS,
    MULTIWORD,
    POOLS,
    POWERSHELL,
    PROGRAMS,
    Program,
)

STYLES = ("plain", "single", "double", "escape")
#: Ways bash builds a word from other text (see `word_forms`).
FORMS = ("ansi-c", "brace", "default", "indirect", "glob", "cd")
_PLAIN = re.compile(r"[A-Za-z0-9_./:=@%+,-]+")
#: Operand values the sweep also writes through every form and every path
#: spelling: places a read-only command must not print.
SENSITIVE = ("/proc/self/environ", world.OUTSIDE_FILE, "../secret", "/proc/self")


def render(value: str, style: str) -> str:
    """`value` as one shell word that the shell turns back into `value`."""
    if style == "plain" and _PLAIN.fullmatch(value):
        return value
    if style == "double" and value:
        return '"' + re.sub(r'([\\$`"])', r"\\\1", value) + '"'
    if style == "escape" and value:
        return re.sub(r"([^A-Za-z0-9_./=-])", r"\\\1", value)
    return "'" + value.replace("'", "'\\''") + "'"


def render_ps(value: str, style: str) -> str:
    if style == "plain" and _PLAIN.fullmatch(value):
        return value
    return "'" + value.replace("'", "''") + "'"


# --- how bash builds words ------------------------------------------------------

_SIMPLE = re.compile(r"[A-Za-z0-9_./:=@%+,-]+")


def word_forms(value: str) -> Iterator[tuple[str, str, str]]:
    """(form, prefix, word): `word` is text bash turns into `value` (brace
    expansion: `value` twice) once the line starts with `prefix`. Only the
    forms that can spell `value` are given."""
    if not value or not _SIMPLE.fullmatch(value):
        return
    letters = [i for i, c in enumerate(value) if c.isalpha()]
    if letters:
        i = letters[-1]
        yield "ansi-c", "", f"$'{value[:i]}\\x{ord(value[i]):02x}{value[i + 1 :]}'"
        cut = max(1, i)
        yield "brace", "", f"{value[:cut]}{{{value[cut:]},{value[cut:]}}}"
        if "/" in value or value.startswith("."):
            # A glob that matches the name only (one letter replaced by `?`).
            yield "glob", "", value[:i] + "?" + value[i + 1 :]
    yield "default", "", '"${PLANMODE_UNSET:-' + value + '}"'
    yield "indirect", "planmode_v=" + value + "; planmode_r=planmode_v; ", '"${!planmode_r}"'
    head, _, tail = value.rpartition("/")
    if head and tail and not value.startswith("-"):
        yield "cd", f"cd {head} && ", tail


def path_spellings(value: str) -> list[str]:
    """Other spellings of the path `value` that name the same place:
    `./x`, `a/../x`, doubled and `.` components, a leading `//`."""
    if not value or value.startswith("-") or not _SIMPLE.fullmatch(value) or value in (".", ".."):
        return []
    spellings = []
    head, _, tail = value.rpartition("/")
    spellings.append("/" + value if value.startswith("/") else "./" + value)
    if tail:
        base = head + "/" if head else ""
        spellings.append(f"{base}./{tail}")
        last = head.rpartition("/")[2]
        if last and last not in (".", ".."):
            spellings.append(f"{head}/../{last}/{tail}")
        elif not head:
            spellings.append(f"src/../{tail}")
        if head:
            spellings.append(f"{head}//{tail}")
    return [s for s in dict.fromkeys(spellings) if s != value]


# --- how programs read their options ---------------------------------------------


def _long_names(program: Program) -> list[str]:
    return [s.split("=")[0] for s in program.options if s.startswith("--")]


def abbreviations(program: Program, spelling: str) -> list[str]:
    """Unambiguous prefixes of the long option `spelling` among the
    program's long options: the shortest (at least three letters) and the
    one a letter short of the full name."""
    if program.reads != "getopt" or not spelling.startswith("--"):
        return []
    others = [name for name in _long_names(program) if name != spelling]
    name = spelling[2:]
    found = []
    for end in range(min(3, len(name)), len(name)):
        prefix = "--" + name[:end]
        if not any(other.startswith(prefix) for other in others):
            found.append(prefix)
            break
    if len(name) > 3:
        short = "--" + name[:-1]
        if not any(other.startswith(short) for other in others):
            found.append(short)
    return list(dict.fromkeys(found))


def value_spellings(program: Program, pool: str | None, value: str) -> list[str]:
    """`value`, and for an enumerated value read with argmatch its
    unambiguous prefixes (`rec` for `recurse`)."""
    if pool not in ENUMS or program.reads != "getopt":
        return [value]
    others = [v for v in POOLS[pool] if v != value]
    for end in range(1, len(value)):
        if not any(other.startswith(value[:end]) for other in others):
            return [value, value[:end]]
    return [value]


def _shorts(program: Program, valued: bool) -> list[str]:
    return [
        s[1]
        for s, pool in program.options.items()
        if len(s) == 2 and s[0] == "-" and s[1] != "-" and (pool is not None) == valued
    ]


def _word(value: str) -> str:
    return render(value, "plain")


def option_spellings(program: Program, spelling: str, pool: str | None, value: str) -> list[list[str]]:
    """Every spelling `program` accepts for option `spelling` (with `value`
    when it takes one), as lists of words, the plain spelling first."""
    values = value_spellings(program, pool, value) if pool else [""]
    if pool in MULTIWORD:
        return [[spelling, *(_word(part) for part in value.split())]]
    out: list[list[str]] = []
    if program.reads == "go" and spelling.startswith("-") and "~" not in spelling:
        # Go's flag package: one dash or two, `=value` or the next word;
        # `go test` hands `-test.<name>` to the test binary.
        name = spelling.lstrip("-")
        names = ["-" + name, "--" + name] + (["-test." + name] if "test" in program.prefix else [])
        for spelled in names:
            out += [[spelled]] if pool is None else [[spelled, _word(values[0])], [f"{spelled}={values[0]}"]]
        return out
    if spelling.startswith("--") and "~" not in spelling:
        names = [spelling, *abbreviations(program, spelling)]
        if program.single_dash_long:
            names.append(spelling[1:])
        if program.reads == "tsc":
            # Any letter case, with one dash or two.
            names += [spelling.lower(), "-" + spelling[2:].upper()]
        if program.reads == "camel":
            kebab = "--" + re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "-" + m.group(1).lower(), spelling[2:])
            names.append(kebab)
        for name in dict.fromkeys(names):
            for v in values:
                if pool is None:
                    out.append([name])
                elif program.reads == "tsc":
                    # tsc takes a value as the next word only.
                    out.append([name, _word(v)])
                else:
                    out += [
                        [name, _word(v)],
                        [f"{name}={v}" if _PLAIN.fullmatch(v) else _word(f"{name}={v}")],
                    ]
        return out
    if len(spelling) == 2 and spelling[0] == "-":
        letter = spelling[1]
        partners = [p for p in _shorts(program, False) if p != letter][:1]
        takers = [t for t in _shorts(program, True) if t != letter][:1]
        if pool is None:
            out.append([spelling])
            for p in partners:
                out += [[f"-{p}{letter}"], [f"-{letter}{p}"]]
            for t in takers:
                # getopt: `t` takes the rest; a next-word reader: `t` takes
                # the next word and `letter` is an option of its own.
                tpool = program.options["-" + t]
                out.append([f"-{t}{letter}", _word(POOLS[tpool or "text"][0])])
            return out
        for v in values:
            out += [[spelling, _word(v)], [spelling + _word(v)] if v else [spelling]]
            for p in partners:
                out += [[f"-{p}{letter}", _word(v)], [f"-{p}{letter}" + _word(v)]]
        return out
    # A word of its own (`-maxdepth~2`, find's predicates, BSD words).
    out.append([*spelling.split("~"), *([_word(v) for v in values[:1]] if pool else [])])
    if program.reads == "bsd" and not spelling.startswith("-") and spelling.isalpha():
        out += [[spelling + "1"], ["1" + spelling]]
    return out


# --- the generator ---------------------------------------------------------------


def _values(pool: str, value: str, style: str, quote: bool) -> list[str]:
    if pool in MULTIWORD:
        return [render(part, style) if quote else part for part in value.split()]
    return [render(value, style) if quote else value]


def _option_words(spelling: str, pool: str | None, value: str, style: str, attached: bool) -> list[str]:
    if pool is None:
        return spelling.split("~")
    if attached and pool not in MULTIWORD:
        joiner = "=" if spelling.startswith("--") else ""
        if style == "plain" and _PLAIN.fullmatch(value):
            return [spelling + joiner + value]
        return [spelling + joiner + render(value, "single" if style == "plain" else style)]
    return [spelling, *_values(pool, value, style, True)]


@st.composite
def _word_of(draw: st.DrawFn, pool: str, value: str, prefixes: list[str]) -> list[str]:
    """`value` as bash words: quoted in one of STYLES, or (one time in
    three) built through one of FORMS or written as another path spelling."""
    if pool not in MULTIWORD and draw(st.integers(0, 2)) == 0:
        choices: list[tuple[str, str]] = [(pre, word) for _, pre, word in word_forms(value)]
        choices += [("", _word(path)) for path in path_spellings(value)]
        if choices:
            prefix, word = draw(st.sampled_from(choices))
            if prefix:
                prefixes.append(prefix)
            return [word]
    return _values(pool, value, draw(st.sampled_from(STYLES)), True)


@st.composite
def _segment(draw: st.DrawFn, programs: list[Program], powershell: bool = False) -> str:
    program = draw(st.sampled_from(programs))
    words = [program.name]
    prefixes: list[str] = []
    if program.name == "git" and draw(st.integers(0, 5)) == 0:
        words += draw(st.sampled_from([["-C", "."], ["--no-pager"], ["-P"], ["-C", ".."]]))
    words += list(program.prefix)
    option_words: list[str] = []
    options = list(program.options.items())
    for spelling, pool in draw(st.lists(st.sampled_from(options), max_size=3)) if options else []:
        value = draw(st.sampled_from(POOLS[pool])) if pool else ""
        style = draw(st.sampled_from(STYLES))
        if powershell:
            option_words += [spelling] + ([render_ps(value, style)] if pool else [])
        elif draw(st.booleans()):
            option_words += draw(st.sampled_from(option_spellings(program, spelling, pool, value)))
        else:
            option_words += _option_words(spelling, pool, value, style, draw(st.booleans()))
    operand_words: list[str] = []
    for pool in program.operands:
        if draw(st.integers(0, 3)) == 0:
            continue
        value = draw(st.sampled_from(POOLS[pool]))
        if powershell:
            operand_words.append(render_ps(value, draw(st.sampled_from(STYLES))))
        else:
            operand_words += draw(_word_of(pool, value, prefixes))
    if not powershell and operand_words and draw(st.integers(0, 5)) == 0:
        operand_words.insert(0, "--")
    if program.operands_first:
        words += operand_words + option_words
    else:
        words += option_words + operand_words
    return "".join(prefixes) + " ".join(word for word in words if word)


BASH_OPERATORS = (" && ", " | ", "; ", " || ")


@st.composite
def bash_commands(draw: st.DrawFn, substitutions: bool = False, programs: list[Program] | None = None) -> str:
    """Bash lines for `planmode.bash.check` (`substitutions=False`) and
    `oplmodes.bash.check` (`True`: segments may hide in `"$(...)"`), made of
    `programs` (default: every reviewed program)."""
    segments = draw(st.lists(_segment(programs or PROGRAMS), min_size=1, max_size=3))
    if substitutions:
        segments = [
            f'echo "$({segment})"' if draw(st.integers(0, 4)) == 0 else segment for segment in segments
        ]
    text = segments[0]
    for segment in segments[1:]:
        text += draw(st.sampled_from(BASH_OPERATORS)) + segment
    return text


@st.composite
def powershell_commands(draw: st.DrawFn, programs: list[Program] | None = None) -> str:
    segments = draw(st.lists(_segment(programs or POWERSHELL, powershell=True), min_size=1, max_size=2))
    return draw(st.sampled_from(["; ", " | "])).join(segments)


# --- the sweep -----------------------------------------------------------------


def _operand_default(program: Program) -> list[list[str]]:
    return [_values(pool, POOLS[pool][0], "plain", True) for pool in program.operands]


def _line(program: Program, options: list[str], operands: list[list[str]], prefix: str = "") -> str:
    flat = [word for words in operands for word in words]
    body = flat + options if program.operands_first else options + flat
    return prefix + " ".join(word for word in [program.name, *program.prefix, *body] if word)


def _sweep_bash(program: Program) -> Iterator[str]:
    default = _operand_default(program)
    flags: list[list[str]] = []
    # Every option, in every spelling the program accepts, with every value
    # of its pool, followed by the default operands.
    for spelling, pool in program.options.items():
        for index, value in enumerate(POOLS[pool] if pool else [""]):
            spellings = option_spellings(program, spelling, pool, value)
            # Every spelling with the first value and every enumerated
            # value; the plain spelling with every other value.
            for words in spellings if index == 0 or pool in ENUMS else spellings[:1]:
                yield _line(program, words, default)
            if pool == "file" and value == SENSITIVE[0] and program.operands:
                # Without operands too: an option that names the files to
                # read (`--files0-from`) refuses operands beside it.
                yield _line(program, spellings[0], [])
        if pool is None:
            flags.append(spelling.split("~"))
    # Every operand position takes every value of its pool (the others
    # their first value), after `--` too.
    for position, operand_pool in enumerate(program.operands):
        for value in POOLS[operand_pool]:
            operands = list(default)
            operands[position] = _values(operand_pool, value, "plain", True)
            yield _line(program, [], operands)
            if value in SENSITIVE[:2] or value == "/proc/self":
                # Every flag with a place a read must not reach (a rule
                # about files must hold for directories too).
                for flag in flags:
                    yield _line(program, flag, operands)
            if value == "/proc/self" and program.narrow:
                # Options that make the program descend, with the words
                # that keep the descent short: every flag, and every
                # spelling of every enumerated value (`-d rec`).
                for flag in flags:
                    yield _line(program, [*flag, *program.narrow], operands)
                for spelling, valued in program.options.items():
                    if valued in ENUMS:
                        for choice in POOLS[valued]:
                            for words in option_spellings(program, spelling, valued, choice):
                                yield _line(program, [*words, *program.narrow], operands)
            if value in SENSITIVE[::2]:
                if not program.operands_first:
                    yield _line(program, ["--"], operands)
                # Every way bash builds that word, every spelling of the path.
                for _, prefix, word in word_forms(value):
                    operands[position] = [word]
                    yield _line(program, [], operands, prefix)
                for path in path_spellings(value):
                    operands[position] = [_word(path)]
                    yield _line(program, [], operands)


def _sweep_powershell(program: Program) -> Iterator[str]:
    head = [program.name, *program.prefix]
    default = [render_ps(POOLS[pool][0], "plain") for pool in program.operands]
    for spelling, valued in program.options.items():
        for value in POOLS[valued] if valued else [""]:
            option = [spelling, render_ps(value, "plain")] if valued else [spelling]
            yield " ".join(word for word in head + option + default if word)
    for position, pool in enumerate(program.operands):
        for value in POOLS[pool]:
            words = list(default)
            words[position] = render_ps(value, "plain")
            yield " ".join(word for word in head + words if word)


def sweep(programs: list[Program] | None = None, *, powershell: bool = False) -> Iterator[str]:
    """A deterministic pass over the table: every option of every program
    in every spelling it accepts with every value of its pool (followed by
    the first value of each operand pool, so that the program gets as far
    as using the option), every operand value, and for the sensitive
    operand values every flag of the program, every form bash builds the
    word with and every spelling of the path. Each line once."""
    chosen = programs if programs is not None else (POWERSHELL if powershell else PROGRAMS)
    seen: set[str] = set()
    for program in chosen:
        for line in _sweep_powershell(program) if powershell else _sweep_bash(program):
            if line not in seen:
                seen.add(line)
                yield line
