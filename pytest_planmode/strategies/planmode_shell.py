"""Strategies for pi-plan-mode's limited shells (pi-plan-mode-settings.md
§ Safe shell subcommands). Every value is within the supported grammar unless
its name says otherwise, so properties can compare a chain with its parts.
"""

from __future__ import annotations

from hypothesis import strategies as st

#: Plain argument words: no quoting, no character the grammar treats specially.
PLAIN_WORDS = st.sampled_from(
    [
        "-la",
        "-n",
        "5",
        "src",
        "README.md",
        "--stat",
        "HEAD",
        "-v",
        "x.txt",
        "main",
        "--oneline",
        "a-b",
        "./lib",
    ]
)

#: Argument words that use quotes or escapes (still in the Bash grammar).
QUOTED_WORDS = st.sampled_from(["'a b'", '"c d"', "e\\ f", "'x|y'", '"p;q"', "'&&'", "g\\;h"])

BASH_WORDS = st.one_of(PLAIN_WORDS, QUOTED_WORDS)

#: Programs, reviewed or not, so generated segments are sometimes allowed
#: and sometimes blocked.
BASH_PROGRAMS = st.sampled_from(
    [
        "ls",
        "cat",
        "grep",
        "wc",
        "echo",
        "head",
        "git status",
        "git log",
        "git diff",
        "rm",
        "curl",
        "kubectl apply",
        "npm install",
        "git push",
        "touch",
        "sort",
        "pwd",
        "mv",
    ]
)

#: One simple Bash command (a chain segment), already trimmed.
bash_segments = st.builds(
    lambda program, args: " ".join([program, *args]),
    BASH_PROGRAMS,
    st.lists(BASH_WORDS, max_size=3),
)

BASH_OPERATORS = st.sampled_from(["&&", "||", ";", "|"])
POWERSHELL_OPERATORS = st.sampled_from([";", "|"])

#: Blanks the grammar allows around operators (spaces and tabs, possibly none).
BLANKS = st.sampled_from(["", " ", "  ", "\t", " \t "])

#: Segments that are safe in any reasonable reading of the default policy.
allowed_bash_segments = st.sampled_from(
    [
        "ls",
        "ls -la",
        "pwd",
        "git status",
        "git log --oneline",
        "git diff --stat",
        "cat README.md",
        "grep -rn TODO src",
        "wc -l x.txt",
        "head -n 5 README.md",
        "echo hello",
        "git branch -a",
    ]
)

#: Segments the default policy never allows.
unsafe_bash_segments = st.sampled_from(
    [
        "rm -rf build",
        "curl -X POST https://example.com",
        "git push --force",
        "npm publish",
        "touch x",
        "mv a b",
        "git commit -m wip",
        "kubectl delete ns prod",
        "chmod -R 777 .",
    ]
)

#: Additions that take an allowed command out of the grammar or the policy.
bash_spoilers = st.sampled_from(
    [" > out.txt", " >> out.txt", " < in.txt", " $(touch x)", " `touch x`", " &", " 2>&1"]
)

powershell_segments = st.builds(
    lambda program, args: " ".join([program, *args]),
    st.sampled_from(
        [
            "Get-ChildItem",
            "Get-Content",
            "Remove-Item",
            "Set-Content",
            "git status",
            "git push",
            "Write-Output",
            "Get-Location",
            "Stop-Process",
            "Sort-Object",
        ]
    ),
    st.lists(st.sampled_from(["-Recurse", "x.txt", "'a b'", '"c d"', "-Name", "src", "Length"]), max_size=3),
)

allowed_powershell_segments = st.sampled_from(
    [
        "Get-ChildItem",
        "Get-Location",
        "Get-Content README.md",
        "git status",
        "Sort-Object Name",
        "Write-Output hi",
    ]
)

powershell_spoilers = st.sampled_from([" > out.txt", " 2> err.txt", " $(x)", " `n", " &", " && Get-Location"])


def join_chain(segments: list[str], operators: list[str], blanks: list[str]) -> str:
    """Join segments with operators, surrounding each operator with the blank at
    the same index (`blanks` has two entries per operator)."""
    text = segments[0]
    for index, segment in enumerate(segments[1:]):
        text += blanks[2 * index] + operators[index] + blanks[2 * index + 1] + segment
    return text


def chains(
    segment_strategy: st.SearchStrategy[str], operator_strategy: st.SearchStrategy[str], max_segments: int = 5
) -> st.SearchStrategy[tuple[list[str], list[str]]]:
    """Lists of segments with the operators between them."""
    return st.lists(segment_strategy, min_size=1, max_size=max_segments).flatmap(
        lambda segs: st.tuples(
            st.just(segs), st.lists(operator_strategy, min_size=len(segs) - 1, max_size=len(segs) - 1)
        )
    )


#: Arbitrary text, mostly shell-like, for "never crashes, always decides".
shell_text = st.lists(
    st.sampled_from([*"ab -'\"\\$`|&;<>(){}[]*?~#=\t\n\r\x00", "\u2018", "\u201c", "\u00a0", "ls", "git "]),
    max_size=40,
).map("".join)
