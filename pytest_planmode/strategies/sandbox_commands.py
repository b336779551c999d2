"""Commands for the sandbox oracle: a grammar-aware generator and a
deterministic sweep, both drawn from `pytest_planmode.strategies.sandbox_table`.

A segment is a program, maybe a subcommand, some of its real options
(separate or attached values, long options with `=`), and operands from
the program's pools; every word is rendered plain, single-quoted,
double-quoted or backslash-escaped, so a policy that reads words
differently from the shell shows up. Chains join segments with the
operators both grammars know; for opl-modes a segment is sometimes wrapped
in a double-quoted substitution, which the spec says is split out and
checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from hypothesis import strategies as st

from pytest_planmode.strategies.sandbox_table import MULTIWORD, POOLS, POWERSHELL, PROGRAMS, Program

STYLES = ("plain", "single", "double", "escape")
_PLAIN = re.compile(r"[A-Za-z0-9_./:=@%+,-]+")


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
def _segment(draw: st.DrawFn, programs: list[Program], powershell: bool = False) -> str:
    program = draw(st.sampled_from(programs))
    words = [program.name]
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
        else:
            option_words += _option_words(spelling, pool, value, style, draw(st.booleans()))
    operand_words: list[str] = []
    for pool in program.operands:
        if draw(st.integers(0, 3)) == 0:
            continue
        value = draw(st.sampled_from(POOLS[pool]))
        style = draw(st.sampled_from(STYLES))
        operand_words += [render_ps(value, style)] if powershell else _values(pool, value, style, True)
    if program.operands_first:
        words += operand_words + option_words
    else:
        words += option_words + operand_words
    return " ".join(word for word in words if word)


BASH_OPERATORS = (" && ", " | ", "; ", " || ")


@st.composite
def bash_commands(draw: st.DrawFn, substitutions: bool = False) -> str:
    """Bash lines for `planmode.bash.check` (`substitutions=False`) and
    `oplmodes.bash.check` (`True`: segments may hide in `"$(...)"`)."""
    segments = draw(st.lists(_segment(PROGRAMS), min_size=1, max_size=3))
    if substitutions:
        segments = [
            f'echo "$({segment})"' if draw(st.integers(0, 4)) == 0 else segment for segment in segments
        ]
    text = segments[0]
    for segment in segments[1:]:
        text += draw(st.sampled_from(BASH_OPERATORS)) + segment
    return text


@st.composite
def powershell_commands(draw: st.DrawFn) -> str:
    segments = draw(st.lists(_segment(POWERSHELL, powershell=True), min_size=1, max_size=2))
    return draw(st.sampled_from(["; ", " | "])).join(segments)


def sweep(programs: list[Program] | None = None, *, powershell: bool = False) -> Iterator[str]:
    """Every option of every program once with every value of its pool
    (followed by the first value of each operand pool, so that the program
    gets as far as using the option), and every operand value once: a
    deterministic pass over the table."""
    quote = render_ps if powershell else render
    for program in programs if programs is not None else (POWERSHELL if powershell else PROGRAMS):
        head = [program.name, *program.prefix]
        default: list[str] = []
        for pool in program.operands:
            default += (
                [quote(POOLS[pool][0], "plain")]
                if powershell
                else _values(pool, POOLS[pool][0], "plain", True)
            )

        for spelling, valued in program.options.items():
            variants: list[list[str]] = []
            if valued is None:
                variants.append(spelling.split("~"))
            for value in POOLS[valued] if valued else []:
                if powershell:
                    variants.append([spelling, quote(value, "plain")])
                    continue
                variants.append(_option_words(spelling, valued, value, "plain", False))
                if valued not in MULTIWORD and not spelling.startswith("--") and len(spelling) == 2:
                    variants.append(_option_words(spelling, valued, value, "plain", True))
            for option in variants:
                parts = head + (default + option if program.operands_first else option + default)
                yield " ".join(word for word in parts if word)
        # Each operand position in turn takes every value of its pool, the
        # others their first value (`git diff ../secret README.md`).
        for position, pool in enumerate(program.operands):
            for value in POOLS[pool]:
                words: list[str] = []
                for other, other_pool in enumerate(program.operands):
                    chosen = value if other == position else POOLS[other_pool][0]
                    words += (
                        [quote(chosen, "plain")] if powershell else _values(other_pool, chosen, "plain", True)
                    )
                yield " ".join(word for word in head + words if word)
