"""Which programs a shell line names, read as Bash reads it.

The sandbox needs this to tell a program the line itself runs (not an
effect) from one run behind its back (an `exec` effect), and to report a
line naming a program the machine lacks as inconclusive. Over-naming would
hide an `exec` effect, so a word counts only where Bash would run it: the
first word of a simple command after assignments, redirections, reserved
words and the options of a command wrapper (`env`, `xargs`, `timeout`...).
Quoting of every kind, `${...}`, `$(...)`, backquotes, `$((...))`,
process substitution, brace expansion, here-documents, `for`/`case`/
`select`, `[[ ... ]]`, `(( ... ))` and function definitions are read as
Bash reads them. A command word whose text depends on an expansion
(`$cmd`, `"$(which ls)"`, a glob) names nothing: whatever it runs is not
named by the line.

Nothing here runs or trusts a policy; it only reads text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["CommandLine", "parse", "programs_in"]

#: Reserved words after which the next word is again in command position.
_LEADING = frozenset(["!", "{", "then", "else", "elif", "do", "if", "while", "until", "time", "coproc"])
#: Reserved words that end a compound command (redirections may follow).
_CLOSING = frozenset(["}", "fi", "done", "esac"])


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Programs that run the program named by a later word, and the options of
#: each that take the next word as their value.
WRAPPERS: dict[str, frozenset[str]] = {
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset(["-a"]),
    "nohup": frozenset(),
    "nice": frozenset(["-n", "--adjustment"]),
    "timeout": frozenset(["-s", "--signal", "-k", "--kill-after"]),
    "env": frozenset(["-u", "--unset", "-C", "--chdir", "-S", "--split-string"]),
    "sudo": frozenset(["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "--user", "--group"]),
    "xargs": _words(
        "-a -d -E -I -L -n -P -s --arg-file --delimiter --max-args --max-lines --max-procs --max-chars "
        "--replace --eof --process-slot-var"
    ),
    "stdbuf": frozenset(["-i", "-o", "-e", "--input", "--output", "--error"]),
    "setsid": frozenset(),
    "ionice": frozenset(["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"]),
    "time": frozenset(),
}
#: Wrappers whose first operand is not the program (`timeout 5 ls`).
_WRAPPER_OPERANDS = {"timeout": 1}
_KEYWORDS = _LEADING | _CLOSING | {"for", "select", "case", "function", "[["}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_METACHARS = " \t\n;&|()<>"


@dataclass
class CommandLine:
    """What a line names: `programs` in order of appearance; `unknown` the
    command words whose text only running the shell can tell."""

    programs: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    functions: set[str] = field(default_factory=set)


@dataclass
class _Word:
    raw: str
    #: The word's characters after quote removal, each with whether it was
    #: quoted (quoted characters take no part in brace expansion or globs).
    chars: list[tuple[str, bool]]
    #: Whether the text depends on an expansion the shell makes at run time.
    expands: bool

    def text(self) -> str:
        return "".join(c for c, _ in self.chars)


def parse(command: str) -> CommandLine:
    line = CommandLine()
    try:
        _Scanner(command, line).commands(0, "")
    except RecursionError:
        # Substitutions nested hundreds deep: what was read so far stands,
        # and the rest is a command whose text only the shell can tell.
        line.unknown.append(command)
    line.programs = [p for p in line.programs if p not in line.functions]
    return line


def programs_in(command: str) -> list[str]:
    """The programs a Bash line names in command position."""
    return parse(command).programs


class _Scanner:
    def __init__(self, text: str, line: CommandLine) -> None:
        self.text = text
        self.line = line
        self.heredocs: list[tuple[str, bool]] = []

    # -- words -------------------------------------------------------------------

    def word(self, i: int) -> tuple[int, _Word]:
        text = self.text
        start = i
        chars: list[tuple[str, bool]] = []
        expands = False
        while i < len(text):
            char = text[i]
            if char in _METACHARS:
                # `name=(a b)`: an array assignment is one word.
                if char == "(" and _ASSIGNMENT.match(text[start:i]) and text[i - 1] == "=":
                    i = self.balanced(i + 1, "(", ")")
                    expands = True
                    continue
                # `<(...)` and `>(...)` inside a word.
                if char in "<>" and text.startswith("(", i + 1) and chars:
                    i = self.commands(i + 2, ")")
                    expands = True
                    continue
                break
            if char == "\\":
                if text.startswith("\n", i + 1):
                    i += 2
                    continue
                chars.append((text[i + 1 : i + 2], True))
                i += 2
            elif char == "'":
                end = text.find("'", i + 1)
                end = len(text) if end < 0 else end
                chars += [(c, True) for c in text[i + 1 : end]]
                i = end + 1
            elif text.startswith("$'", i):
                i, decoded = self.ansi_c(i + 2)
                chars += [(c, True) for c in decoded]
            elif char == '"' or text.startswith('$"', i):
                i += 1 if char == '"' else 2
                while i < len(text) and text[i] != '"':
                    if text[i] == "\\" and i + 1 < len(text):
                        nxt = text[i + 1]
                        if nxt in '$`"\\\n':
                            if nxt != "\n":
                                chars.append((nxt, True))
                        else:
                            chars.append(("\\", True))
                            chars.append((nxt, True))
                        i += 2
                    elif text[i] in "$`":
                        j = self.expansion(i)
                        if j == i:
                            chars.append((text[i], True))
                            i += 1
                        else:
                            expands = True
                            i = j
                    else:
                        chars.append((text[i], True))
                        i += 1
                i += 1
            elif char in "$`":
                j = self.expansion(i)
                if j == i:
                    chars.append((char, False))
                    i += 1
                else:
                    expands = True
                    i = j
            else:
                if char in "*?" or (char == "[" and "]" in text[i + 1 : self.word_end(i)]):
                    expands = True
                chars.append((char, False))
                i += 1
        return i, _Word(text[start:i], chars, expands)

    def word_end(self, i: int) -> int:
        """Where an unquoted run of plain characters from `i` ends (a
        bracket closes a glob only inside the same word)."""
        while i < len(self.text) and self.text[i] not in _METACHARS:
            i += 1
        return i

    def ansi_c(self, i: int) -> tuple[int, str]:
        """`$'...'` from after its quote: the text Bash makes of it."""
        text = self.text
        out: list[str] = []
        simple = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b",
                  "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}  # fmt: skip
        while i < len(text) and text[i] != "'":
            if text[i] != "\\" or i + 1 >= len(text):
                out.append(text[i])
                i += 1
                continue
            kind = text[i + 1]
            if kind in simple:
                out.append(simple[kind])
                i += 2
            elif kind in "01234567":
                digits = re.match(r"[0-7]{1,3}", text[i + 1 :])
                assert digits is not None
                out.append(chr(int(digits.group(), 8) & 0xFF))
                i += 1 + len(digits.group())
            elif kind in "xuU":
                width = {"x": 2, "u": 4, "U": 8}[kind]
                digits = re.match(f"[0-9A-Fa-f]{{1,{width}}}", text[i + 2 :])
                if digits is None:
                    out.append("\\" + kind)
                    i += 2
                else:
                    out.append(chr(min(int(digits.group(), 16), 0x10FFFF)))
                    i += 2 + len(digits.group())
            elif kind == "c" and i + 2 < len(text):
                out.append(chr(ord(text[i + 2]) & 0x1F))
                i += 3
            else:
                out.append("\\" + kind)
                i += 2
        return i + 1, "".join(out)

    def expansion(self, i: int) -> int:
        """Past the expansion starting at `i` (`$...` or a backquote); `i`
        itself when the `$` starts none. Substitutions inside are read."""
        text = self.text
        if text[i] == "`":
            return self.backquote(i + 1)
        if text.startswith("$((", i):
            return self.balanced(i + 3, "(", ")", depth=2)
        if text.startswith("$(", i):
            return self.commands(i + 2, ")")
        if text.startswith("${", i):
            return self.balanced(i + 2, "{", "}")
        if text.startswith("$[", i):
            return self.balanced(i + 2, "[", "]")
        match = re.match(r"\$([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])", text[i:])
        return i + len(match.group()) if match else i

    def backquote(self, i: int) -> int:
        text = self.text
        body: list[str] = []
        while i < len(text) and text[i] != "`":
            if text[i] == "\\" and i + 1 < len(text):
                body.append(text[i + 1] if text[i + 1] in "$`\\" else text[i : i + 2])
                i += 2
            else:
                body.append(text[i])
                i += 1
        _Scanner("".join(body), self.line).commands(0, "")
        return i + 1

    def balanced(self, i: int, opener: str, closer: str, depth: int = 1) -> int:
        """Past the `closer` that balances `depth` open `opener`s, reading
        the quotes and substitutions in between."""
        text = self.text
        while i < len(text):
            char = text[i]
            if char == "\\":
                i += 2
            elif char == "'" and opener == "{":
                end = text.find("'", i + 1)
                i = len(text) if end < 0 else end + 1
            elif char == '"':
                i, _ = self.word(i)
            elif char in "$`":
                j = self.expansion(i)
                i = j if j != i else i + 1
            elif char == opener:
                depth += 1
                i += 1
            elif char == closer:
                depth -= 1
                i += 1
                if depth == 0:
                    return i
            else:
                i += 1
        return i

    # -- commands ----------------------------------------------------------------

    def commands(self, i: int, closer: str) -> int:
        """Read commands from `i` up to the unbalanced `closer` (`)` of a
        substitution or subshell; "" for the end of the text)."""
        text = self.text
        at_command = True
        state = ""  # "", "for-name", "for-words", "case-word", "case-pattern", "wrapper", "function-name"
        wrapper = ""
        wrapper_value = False
        wrapper_operands = 0
        last_program = -1
        while i < len(text):
            char = text[i]
            if char in " \t":
                i += 1
                continue
            if char == "\n":
                i = self.here_documents(i + 1)
                if state not in ("case-pattern",):
                    at_command, state = True, ("" if state != "case-word" else state)
                continue
            if char == "#" and (i == 0 or text[i - 1] in " \t\n;&|()"):
                end = text.find("\n", i)
                i = len(text) if end < 0 else end
                continue
            if closer and char == closer:
                return i + 1
            if char == ")" and state == "case-pattern":
                state, at_command = "", True
                i += 1
                continue
            if char in ";&|":
                op = re.match(r";;&|;;|;&|&&|\|\||\|&|&>>|&>|[;&|]", text[i:])
                assert op is not None
                if op.group() in ("&>", "&>>"):
                    i = self.redirect_target(i + len(op.group()))
                    continue
                if op.group() in (";;", ";&", ";;&"):
                    state = "case-pattern"
                    at_command = False
                elif state == "case-pattern":
                    pass  # `a|b)`: alternatives of a pattern
                else:
                    at_command, state = True, ""
                i += len(op.group())
                continue
            if char in "<>" or (char.isdigit() and re.match(r"\d+[<>]", text[i:])):
                op = re.match(r"\d*(<<<|<<-|<<|<>|<&|>&|>>|>\||<\(|>\(|<|>)", text[i:])
                assert op is not None
                if op.group(1) in ("<(", ">("):
                    i = self.commands(i + len(op.group()), ")")
                    continue
                if op.group(1) in ("<<", "<<-"):
                    i, word = self.word(self.skip_blanks(i + len(op.group())))
                    quoted = any(q for _, q in word.chars)
                    self.heredocs.append((word.text(), not quoted))
                    continue
                i = self.redirect_target(i + len(op.group()))
                continue
            if char == "(":
                if text.startswith("((", i) and at_command:
                    i = self.balanced(i + 2, "(", ")", depth=2)
                    at_command = False
                    continue
                if state == "case-pattern":
                    i += 1
                    continue
                if not at_command and last_program >= 0 and re.match(r"\(\s*\)", text[i:]):
                    # `name () { ...; }`: a function definition, not a program.
                    self.line.functions.add(self.line.programs[last_program])
                    i += len(re.match(r"\(\s*\)", text[i:]).group())  # type: ignore[union-attr]
                    at_command = True
                    continue
                i = self.commands(i + 1, ")")
                at_command = False
                continue
            if char == ")":
                # A stray closer outside any opener: Bash rejects the line.
                i += 1
                continue
            i, word = self.word(i)
            value = word.text()
            if state == "case-word":
                if value == "in" and not word.expands:
                    state = "case-pattern"
                continue
            if state == "case-pattern":
                if value == "esac" and not word.expands:
                    state, at_command = "", False
                continue
            if state == "for-name":
                state = "for-in"
                continue
            if state == "for-in":
                state = "for-words" if value == "in" else ""
                at_command = value == "do"
                continue
            if state == "for-words":
                continue
            if state == "function-name":
                self.line.functions.add(value)
                state = ""
                at_command = True
                continue
            if state in ("wrapper", "wrapper-end"):
                if state == "wrapper":
                    if wrapper_value:
                        wrapper_value = False
                        continue
                    if value == "--":
                        state = "wrapper-end"
                        continue
                    if value.startswith("-") and len(value) > 1:
                        name = value.split("=", 1)[0]
                        if wrapper == "env" and (name == "--split-string" or value.startswith("-S")):
                            # `env -S 'prog args'`: the program is inside a string.
                            self.line.unknown.append(value)
                        if "=" not in value and name in WRAPPERS[wrapper]:
                            wrapper_value = True
                        continue
                if wrapper == "env" and _ASSIGNMENT.match(word.raw):
                    continue
                if wrapper_operands > 0:
                    wrapper_operands -= 1
                    continue
                state = ""
                at_command = True
            if not at_command:
                continue
            if _ASSIGNMENT.match(word.raw):
                continue
            if word.raw in _KEYWORDS:
                value = word.raw
            elif word.expands:
                # `$cmd`, `"$(which ls)"`, `l?`: only running the shell tells.
                self.line.unknown.append(word.raw)
                at_command = False
                continue
            else:
                value = "".join(c for c, _ in _first_expansion(word.chars))
            if value in _LEADING:
                continue
            if value in _CLOSING:
                at_command = False
                continue
            if value in ("for", "select"):
                state, at_command = "for-name", False
                if text[i:].lstrip(" \t").startswith("(("):
                    i = self.balanced(text.index("((", i) + 2, "(", ")", depth=2)
                    state, at_command = "", True
                continue
            if value == "case":
                state, at_command = "case-word", False
                continue
            if value == "function":
                state, at_command = "function-name", False
                continue
            if value == "[[":
                i = self.conditional(i)
                at_command = False
                continue
            self.line.programs.append(value)
            last_program = len(self.line.programs) - 1
            at_command = False
            if value in WRAPPERS:
                state, wrapper, wrapper_value = "wrapper", value, False
                wrapper_operands = _WRAPPER_OPERANDS.get(value, 0)
                if value in ("command", "builtin", "exec", "time"):
                    # builtins of Bash: not programs of the machine
                    self.line.programs.pop()
                    last_program = -1
        return i

    def skip_blanks(self, i: int) -> int:
        while i < len(self.text) and self.text[i] in " \t":
            i += 1
        return i

    def redirect_target(self, i: int) -> int:
        i = self.skip_blanks(i)
        i, _ = self.word(i)
        return i

    def conditional(self, i: int) -> int:
        """Past the `]]` of a `[[ ... ]]` opened before `i`."""
        text = self.text
        while i < len(text):
            if text[i] in " \t\n":
                i += 1
                continue
            if text.startswith("]]", i) and (i + 2 == len(text) or text[i + 2] in " \t\n;&|)"):
                return i + 2
            if text[i] in _METACHARS:
                i += 1
                continue
            i, _ = self.word(i)
        return i

    def here_documents(self, i: int) -> int:
        """Past the bodies of the here-documents opened on the line that
        ended before `i`; an unquoted delimiter's body has its substitutions
        read."""
        text = self.text
        pending, self.heredocs = self.heredocs, []
        for delimiter, expands in pending:
            while i < len(text):
                end = text.find("\n", i)
                end = len(text) if end < 0 else end
                body = text[i:end]
                i = end + 1
                if body.lstrip("\t") == delimiter:
                    break
                if expands and ("$" in body or "`" in body):
                    scanner = _Scanner(body, self.line)
                    j = 0
                    while j < len(body):
                        if body[j] == "\\":
                            j += 2
                        elif body[j] in "$`":
                            k = scanner.expansion(j)
                            j = k if k != j else j + 1
                        else:
                            j += 1
        return min(i, len(text))


def _first_expansion(chars: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """The first word Bash's brace expansion makes of a word (`{ls,-la}`
    gives `ls` first, `{1..3}` gives `1`), unquoted braces only. Only the
    first word can be a program, so the others are never made."""
    depth = 0
    start = -1
    commas: list[int] = []
    for index, (char, quoted) in enumerate(chars):
        if quoted:
            continue
        if char == "{":
            if depth == 0:
                start, commas = index, []
            depth += 1
        elif char == "," and depth == 1:
            commas.append(index)
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                inner = chars[start + 1 : index]
                if commas:
                    first = chars[start + 1 : commas[0]]
                else:
                    sequence = _sequence("".join(c for c, _ in inner))
                    if sequence is None:
                        continue
                    first = sequence[0]
                # The first alternative may hold braces of its own.
                return chars[:start] + _first_expansion(first) + _first_expansion(chars[index + 1 :])
    return chars


def _sequence(text: str) -> list[list[tuple[str, bool]]] | None:
    match = re.fullmatch(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?|([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?", text)
    if match is None:
        return None
    if match.group(1) is not None:
        a, b = int(match.group(1)), int(match.group(2))
        step = abs(int(match.group(3) or 1)) or 1
        values = [str(v) for v in range(a, b + (1 if b >= a else -1), step if b >= a else -step)]
    else:
        a, b = ord(match.group(4)), ord(match.group(5))
        step = abs(int(match.group(6) or 1)) or 1
        values = [chr(v) for v in range(a, b + (1 if b >= a else -1), step if b >= a else -step)]
    return [[(c, False) for c in value] for value in values]
