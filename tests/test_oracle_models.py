"""The oracle's models, checked against bash itself: the words the
generator writes build the values it means, the option spellings are those
the programs accept, and the opl-modes gate's reading of words
(`bash_words.built`) is bash's own."""

from __future__ import annotations

import posixpath
import shutil
import subprocess

import pytest

from pytest_planmode.reference.oplmodes.bash_words import built, unknowable
from pytest_planmode.reference.planmode.program_rules import normal_path
from pytest_planmode.strategies import sandbox_commands as gen
from pytest_planmode.strategies.sandbox_table import POOLS, PROGRAMS

BASH = shutil.which("bash")
needs_bash = pytest.mark.skipif(BASH is None, reason="bash is not installed")
BY_NAME = {" ".join((p.name, *p.prefix)): p for p in PROGRAMS}


def bash_words(line: str) -> list[str]:
    """The words bash builds from `line` (after the prefix it may carry)."""
    script = line + "; printf '%s\\0' \"${planmode_words[@]}\""
    out = subprocess.run(
        [str(BASH), "-c", script], capture_output=True, check=True, cwd="/", env={"PATH": "/usr/bin:/bin"}
    ).stdout
    return [w.decode() for w in out.split(b"\0")[:-1]]


class TestWordForms:
    @needs_bash
    @pytest.mark.parametrize("value", ["README.md", "/proc/self/environ", "../secret", "src/app.py", "-o"])
    def test_every_form_builds_the_value(self, value: str) -> None:
        forms = list(gen.word_forms(value))
        names = {form for form, _, _ in forms}
        assert {"ansi-c", "brace", "default", "indirect"} <= names
        for form, prefix, word in forms:
            if form in ("glob", "cd"):
                continue  # they need the file, checked below
            got = bash_words(f"{prefix}planmode_words=({word})")
            expected = [value, value] if form == "brace" else [value]
            assert got == expected, (form, word, got)

    @needs_bash
    def test_glob_and_cd_forms_reach_the_same_file(self) -> None:
        forms = {form: (prefix, word) for form, prefix, word in gen.word_forms("/etc/hostname")}
        prefix, word = forms["glob"]
        assert bash_words(f"planmode_words=({word})") == ["/etc/hostname"]
        prefix, word = forms["cd"]
        assert bash_words(f"{prefix}planmode_words=($(realpath {word}))") == ["/etc/hostname"]

    @pytest.mark.parametrize("value", ["/proc/self/environ", "../secret", "README.md", "src/app.py"])
    def test_path_spellings_name_the_same_place(self, value: str) -> None:
        cwd = "/home/dev/project"
        spellings = gen.path_spellings(value)
        assert len(spellings) >= 2
        place = normal_path(posixpath.join(cwd, value))
        for spelling in spellings:
            assert spelling != value
            assert normal_path(posixpath.join(cwd, spelling)) == place, spelling


class TestOptionSpellings:
    def test_getopt_bundles_and_attached_values(self) -> None:
        got = gen.option_spellings(BY_NAME["sort"], "-o", "file", "out")
        assert ["-o", "out"] in got and ["-oout"] in got
        assert any(len(words) == 2 and words[0].endswith("o") and len(words[0]) == 3 for words in got)

    def test_long_names_abbreviated_and_with_values(self) -> None:
        got = gen.option_spellings(BY_NAME["sort"], "--output", "file", "out")
        assert ["--output=out"] in got and ["--output", "out"] in got
        abbreviated = {words[0].split("=")[0] for words in got} - {"--output"}
        assert abbreviated and all("--output".startswith(name) for name in abbreviated)
        # Never ambiguous among the program's long options.
        longs = [s for s in BY_NAME["sort"].options if s.startswith("--")]
        for name in abbreviated:
            assert [s for s in longs if s.startswith(name)] == ["--output"]

    def test_enumerated_values_abbreviated(self) -> None:
        got = gen.option_spellings(BY_NAME["grep"], "-d", "dirmode", "recurse")
        assert ["-d", "rec"] in got and ["-drec"] in got
        assert all(not words[-1].endswith("re") for words in got)  # `re` is ambiguous (read)

    def test_next_word_bundles_and_bsd_digits(self) -> None:
        assert ["-LR", "1"] in gen.option_spellings(BY_NAME["tree"], "-R", None, "")
        ps = BY_NAME["ps"]
        bsd = next(s for s in ps.options if not s.startswith("-") and "e" in s)
        assert [bsd + "1"] in gen.option_spellings(ps, bsd, None, "")

    def test_programs_reading_long_names_in_full_get_no_abbreviation(self) -> None:
        assert gen.abbreviations(BY_NAME["rg"], "--pre") == []

    def test_the_sweep_covers_every_option_of_every_program(self) -> None:
        lines = set(gen.sweep())
        text = "\n".join(lines)
        for program in PROGRAMS:
            for spelling in program.options:
                assert spelling.split("~")[0] in text, (program.name, spelling)
        assert len(lines) == len(list(gen.sweep()))  # each line once

    def test_every_pool_value_renders(self) -> None:
        for pool, values in POOLS.items():
            for value in values:
                assert isinstance(gen.render(value, "plain"), str), pool


SAMPLES = [
    "cat $'/proc/self/envir\\x6fn'",
    "sort $'-\\x6f' out $'a\\tb' $'\\101\\u0042'",
    "cat /proc/self/env{i,}ron",
    "echo a{b,c{d,e}}f 'x{y,z}' \"q{r,s}\"",
    "echo {a,b}{1,2}",
]


class TestBuiltWords:
    @needs_bash
    @pytest.mark.parametrize("line", SAMPLES)
    def test_built_is_what_bash_builds(self, line: str) -> None:
        words = line.split(" ", 1)[1]
        assert built(line).split(" ", 1)[1] == " ".join(bash_words(f"planmode_words=({words})"))

    @pytest.mark.parametrize(
        "segment",
        ['cat "${X:-/proc/self/environ}"', "cat ${!r}", "echo $OPENAI_API_KEY", 'echo "${HOME}"',
         "cat /proc/self/envir?n", "cat ../secre*", "cat ${a@P}"],
    )  # fmt: skip
    def test_unknowable_words_block(self, segment: str) -> None:
        assert unknowable(segment) is not None

    @pytest.mark.parametrize(
        "segment", ["ls src/*.py", "echo '$HOME'", "echo {a,b}", "find . -name '*.sh'", "echo $'a\\tb'"]
    )
    def test_words_known_without_running_stay(self, segment: str) -> None:
        assert unknowable(segment) is None

    def test_a_relative_glob_after_cd_blocks(self) -> None:
        assert unknowable("cat envir*", moved=True) is not None
