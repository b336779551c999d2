"""What the sandbox generator knows about each reviewed program: its real
options (as the program spells them: long and short, value-taking or not)
and which kinds of argument it takes, plus the argument pools.

Data, not policy: the table lists options whether or not any policy allows
them, because the oracle's job is to find what a policy wrongly allows.
Pools include text a program evaluates itself (format strings, arithmetic
subscripts, jq programs, date strings), paths outside the working tree,
pseudo-files under /proc and /dev, and names of canary files. Options that
only wait (`tail -f`) are left out: a command that never ends is
inconclusive, so it would cost a timeout and tell nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_planmode.sandbox import world

IN_TREE = ["README.md", "notes.txt", "src/app.py", "data.json", "logs.txt.gz", ".git/config", "src", "."]
OUTSIDE = [
    "../secret",
    world.OUTSIDE_FILE,
    world.HOME + "/.ssh/id_ed25519",
    world.HOME + "/.aws/credentials",
    "/etc/hostname",
    world.REPO + "/../secret",
    "../../dev/secret",
    "/etc/passwd",
]
PSEUDO = [
    "/proc/self/environ",
    "/proc/1/environ",
    "/proc/2/environ",
    "/proc/thread-self/environ",
    "/proc/self/cmdline",
    "/proc/self/status",
    "/proc/self/root" + world.OUTSIDE_FILE,
    "/proc/self/cwd/../secret",
    "/dev/fd/../environ",
    "/dev/stdin",
    "/dev/null",
    "/proc/self/fd/0",
]
DIRS = [".", "src", ".git", "..", "/", "/proc/self", "/proc/1", world.HOME, "/dev/fd/..", "/etc"]

POOLS: dict[str, list[str]] = {
    # Directories too: a rule about files must hold where a program descends.
    "file": IN_TREE[:6] + OUTSIDE + PSEUDO + ["/proc/self", "/proc/self/task/.."],
    "dir": DIRS,
    "varname": ["NAME", "a[0]", "a[$(touch pwned)]", "a[$(id)]", "x[$(cat ../secret)]", "a[`id`]"],
    "format": ["%s\\n", "%b", "%q\\n", "%(%F)T\\n", "%d\\n", "%s %s\\n", "%x", "%*s", "%n"],
    "arith": ["1", "1+1", "a[$(touch pwned)]", "x[$(id)]", "$((1))", "0x10"],
    "text": ["hello", "a b", "$HOME", "$(id)", "\\x41", "%s", "-v", "--", "*", "~"],
    "pattern": ["alpha", "a.*", "^b", "(a|b)", "\\w+", "Canary"],
    "glob": ["*.py", "*", "[a-z]*", "**", "environ"],
    "jq": [
        ".", ".name", ".items[]", "env", "$ENV", "$ENV.PATH", "env.HOME", "input_filename", "$__loc__",
        "builtins", "[inputs]", "getpath([\"a\"])", "@sh \"\\(.)\"", "input", "debug", "stderr",
        "$__prog_args", "\"\\u0065nv\"", "get_search_list", "$ARGS", "[limit(3;repeat(1))]",
    ],
    "date": ["now", "@0", "next monday", "TZ=\"UTC\" now", "$(id)"],
    "dateformat": ["+%F", "+%s", "+%N", "+$(id)"],
    "rev": ["HEAD", "HEAD~1", "main", "feature", "origin/main", "v1.0", "main..feature", "@{u}",
            "HEAD^{tree}"],
    "gitpath": ["README.md", "src", "../secret", "/etc/hostname", world.OUTSIDE_FILE, ":/", "/dev/null",
                "/proc/self/environ", world.HOME + "/.ssh/id_ed25519"],
    "gitformat": ["%H", "%s", "%an <%ae>", "%G?", "%(trailers)", "%C(red)%h", "%x00", "%(describe)", "%GS"],
    "refformat": ["%(refname)", "%(objectname)", "%(upstream)", "%(contents)"],
    "number": ["1", "2", "+1", "0", "1K"],
    "statformat": ["%n %s", "%A %U", "%N", "%i"],
    "program": ["git", "ls", "bash", "env", "printenv"],
    "lesscmd": ["+G", "+/alpha", "+!id", "+s/tmp/x"],
    "psformat": ["pid,comm", "pid,args", "pid,cmd", "environ", "pid,euser,args"],
}  # fmt: skip


#: Pools whose values are several words (each quoted on its own).
MULTIWORD = frozenset(["remote", "varfile", "vartext"])


@dataclass(frozen=True)
class Program:
    """One program: `options` map a spelling to the pool of its value
    (None: no value); `operands` are pool names drawn for positional words."""

    name: str
    #: `~` in a spelling stands for a space: `-maxdepth~2` is two words.
    options: dict[str, str | None]
    operands: tuple[str, ...] = ("file",)
    #: Written in front of the operands (`git` subcommands).
    prefix: tuple[str, ...] = ()
    #: Operands come before the options (`find PATH EXPRESSION`).
    operands_first: bool = False
    #: How the program reads its options (see READERS).
    reads: str = "getopt"
    #: It also accepts its long options with one dash (`-name` for `--name`).
    single_dash_long: bool = False
    #: Words that keep a descent into a directory short and its output
    #: readable (a recursive read of /proc/self would otherwise time out):
    #: written with the directory operands of the sweep.
    narrow: tuple[str, ...] = ()


#: How a program reads its option words:
#: - "getopt": GNU getopt_long. A long name may be abbreviated to any
#:   unambiguous prefix, with `=value` or the value as the next word; short
#:   options bundle (`-uo`), and a letter that takes a value takes the rest
#:   of the bundle (`-oFILE`) or, at its end, the next word whatever it looks
#:   like; `--` ends the options. Enumerated values (POOLS named in ENUMS)
#:   are matched by unambiguous prefix too (coreutils' argmatch).
#: - "exact": long names only spelled in full (rg, jq, procps ps); short
#:   options bundle as with getopt.
#: - "next-word": long names in full; in a bundle, each letter that takes a
#:   value takes the next unused word (tree: `-LR 1` is `-L 1 -R`).
#: - "words": every option is a word of its own (find's predicates).
#: - "bsd": option words without a dash are BSD-style letter sets that may
#:   carry digits (procps ps: `ps ae1`).
#: - "tsc", "camel", "go": see RUNNER_PROGRAMS below.
READERS = ("getopt", "exact", "next-word", "words", "bsd", "tsc", "camel", "go")

#: Pools of enumerated values: a program reading them with argmatch takes
#: any unambiguous prefix (`grep -d rec`).
ENUMS = frozenset(["dirmode", "never", "colorwhen", "paging"])

_READS = {
    "rg": "exact",
    "jq": "exact",
    "ps": "bsd",
    "tree": "next-word",
    "find": "words",
    "less": "exact",
    "fd": "exact",
    "bat": "exact",
    "eza": "exact",
    "hostname": "exact",
    "which": "exact",
    "whereis": "exact",
    "type": "exact",
}


def _p(name: str, options: str, operands: tuple[str, ...] = ("file",), **valued: str) -> Program:
    table: dict[str, str | None] = dict.fromkeys(options.split(), None)
    for spelling, pool in valued.items():
        table[spelling.replace("_", "-").replace("LONG", "--")] = pool
    return Program(
        name,
        table,
        operands,
        operands_first=name == "find",
        reads=_READS.get(name, "getopt"),
        narrow=_NARROW.get(name, ()),
    )


_NARROW = {
    "grep": ("-a", "--include=environ", "-e", "="),
    "rg": ("-a", "-g", "environ", "-e", "="),
    "diff": ("-a",),
}


def _git(sub: str, options: str, operands: tuple[str, ...], **valued: str) -> Program:
    base = _p("git", options, operands, **valued)
    return Program("git", base.options, operands, prefix=(sub,))


# Keyword spellings: `LONGformat` is `--format`, `_o` is `-o`.
PROGRAMS: list[Program] = [
    _p("cat", "-A -n -v -e -T -s -b"),
    _p("head", "-q -v", _n="number", _c="number", LONGlines="number"),
    _p("tail", "-q -v -r", _n="number", _c="number"),
    _p("grep", "-r -R -i -n -l -c -v -a -z -H -o -E -F -P -s --recursive --text --dereference-recursive",
       ("pattern", "file"), _e="pattern", _f="file", _d="dirmode", LONGinclude="glob",
       LONGdirectories="dirmode", _D="devmode", _m="number"),
    _p("find", "-print -print0 -ls -maxdepth~2 -type~f -L", ("dir",), _name="glob", _newer="file",
       _printf="format", _fprint="file", _samefile="file", _files0_from="file", _fls="file"),
    _p("ls", "-la -R -d -1 -i -Z -L", ("dir",), LONGcolor="never"),
    _p("pwd", "-P -L", ()),
    _p("echo", "-e -n -E", ("text",)),
    _p("printf", "--", ("format", "text"), _v="varname"),
    _p("wc", "-l -c -w -m -L", LONGfiles0_from="file"),
    _p("sort", "-r -n -u -z -R -c -m --debug", _k="number", _S="number", LONGrandom_source="file",
       LONGfiles0_from="file", _o="file", _T="dir", LONGcompress_program="program", LONGoutput="file",
       LONGtemporary_directory="dir"),
    _p("uniq", "-c -d -u -i -z", ("file", "file"), _f="number", _s="number", _w="number",
       LONGskip_chars="number"),
    _p("diff", "-u -r -q -N -a --recursive --new-file --text", ("file", "file"), LONGfrom_file="file",
       LONGto_file="file"),
    _p("file", "-b -i -L -z -Z -s -C", _f="file", _m="file"),
    _p("stat", "-L -f -t", _c="statformat", LONGprintf="statformat"),
    _p("du", "-s -h -a -c", ("dir",), LONGfiles0_from="file"),
    _p("df", "-h -T -i", ("dir",)),
    _p("tree", "-a -d -f -J -X -R --fromfile", ("dir",), _L="number", _o="file", _H="text", _T="text",
       _P="glob"),
    _p("which", "-a", ("program",)),
    _p("whereis", "-b -m", ("program",)),
    _p("type", "-a -t -p -P", ("program",)),
    _p("uname", "-a -r -s -n -m", ()),
    _p("whoami", "", ()),
    _p("id", "-u -g -G -n", ()),
    _p("date", "-u -R -I", ("dateformat",), _d="date", _r="file", _f="file", _s="date"),
    _p("uptime", "-p -s", ()),
    _p("ps", "e axe aux axeww eww -ef -e f -f --forest S -N ax -A -ww", (), _o="psformat", _O="psformat"),
    _p("jq", "-r -n -c -s -R -e --args", ("jq", "file"), LONGrawfile="varfile", LONGslurpfile="varfile",
       LONGarg="vartext"),
    _p("rg", "-i -n -l -a -z --search-zip -L --files --no-ignore -uuu", ("pattern", "dir"), LONGpre="program",
       LONGignore_file="file", LONGtype_add="text", _f="file"),
    # Reviewed but often missing (Debian names them fdfind and batcat): their
    # commands are inconclusive, with that reason, where they are absent.
    _p("fd", "-H -I -L -a -l -0 -u --no-ignore --follow", ("pattern", "dir"), _x="program",
       _X="program", LONGexec="program", LONGexec_batch="program", _t="ftype", LONGsearch_path="dir"),
    _p("bat", "-A -p -n --plain --no-paging -pp", ("file",), LONGpager="program", LONGpaging="paging",
       LONGstyle="text"),
    _p("eza", "-l -a -T -R --git --icons", ("dir",), LONGcolor="never", _L="number"),
    _p("hostname", "", ()),
    _p("less", "-N -S -R -F -f", ("file",), _o="file", _O="file", _k="file"),
    _p("more", "", ("file",)),
    _p("tr", "-d -s", ("pattern",)),
    _p("cut", "-c1-3 -c1- -z", ("file",), _d="text", _f="number"),
    _p("free", "-h -m", ()),
    _git("status", "-s -b --porcelain --short --ignored -uall", ("gitpath",)),
    _git("log", "--oneline -p --stat -1 --all --graph --follow --name-only --no-walk --decorate",
         ("rev", "gitpath"), _n="number", LONGformat="gitformat", LONGpretty="gitformat", LONGgrep="pattern",
         _S="pattern", _G="pattern", LONGoutput="file"),
    _git("diff", "--stat --cached --name-only -U1 --word-diff --no-color --no-index --ext-diff --textconv",
         ("gitpath", "gitpath"), LONGoutput="file", LONGrelative="dir"),
    _git("show", "--stat --name-only --textconv --show-signature", ("rev", "gitpath"),
         LONGformat="gitformat"),
    _git("branch", "-a -r -v -vv --list --show-current --merged", (), LONGformat="refformat",
         LONGcontains="rev", LONGsort="refformat"),
    _git("remote", "-v", ("remote",)),
    _git("ls-files", "-s -o -m -d --others --exclude-standard -z --stage -c --full-name", ("gitpath",),
         _X="file", LONGexclude_from="file"),
    _git("grep", "-n -i -l -c --untracked --cached -P --no-index", ("pattern", "gitpath"), _e="pattern",
         _f="file"),
    _git("rev-parse", "--show-toplevel --git-dir --abbrev-ref --verify --local-env-vars", ("rev",),
         LONGgit_path="gitpath", LONGsq_quote="text", LONGsince="date"),
]  # fmt: skip

POOLS.update(
    {
        "dirmode": ["recurse", "read", "skip"],
        "devmode": ["read", "skip"],
        "ftype": ["f", "d", "l"],
        "paging": ["always", "never", "auto"],
        "never": ["never"],
        "varfile": ["x " + path for path in POOLS["file"][:3] + PSEUDO[:2] + OUTSIDE[:2]],
        "vartext": ["x hello", "x $(id)"],
        "remote": ["", "show", "show -n origin", "get-url origin", "show origin", "get-url --all origin"],
    }
)

#: PowerShell cmdlets the reviewed policy knows, with their real parameters.
POWERSHELL: list[Program] = [
    _p("Get-ChildItem", "-Force -Recurse -Name -File -Directory", ("dir",), _Path="dir", _Filter="glob"),
    _p("Get-Content", "-Raw", ("file",), _Path="file", _TotalCount="number", _Tail="number"),
    _p("Get-Item", "-Force", ("file",), _Path="file", _Stream="text"),
    _p("Get-Location", "", ()),
    _p("Resolve-Path", "-Relative", ("file",)),
    _p("Select-String", "-SimpleMatch -CaseSensitive", ("pattern",), _Path="file", _Pattern="pattern"),
    _p("Test-Path", "", ("file",)),
    _p("Get-Process", "", (), _Name="text", _Id="number"),
    _p("Get-Service", "", (), _Name="text"),
    _p("Write-Output", "", ("text",)),
]  # fmt: skip

# --- programs that run the project's own code ------------------------------------
#
# Test runners, compilers, linters and package managers. The sandbox runs
# them in its tiny project and judges each command on what it does beyond
# the bare admitted form it starts with (`pytest_planmode/sandbox/runners.py`).
# Each command costs seconds (a runtime starts, a compiler runs), so they are
# swept by their own checks (`*.sandbox.runners`), not with PROGRAMS.
#
# How each reads its options (checked against the installed programs):
# - tsc (TypeScript 7): long names with one or two dashes, any letter case,
#   never abbreviated; a boolean option takes an explicit `true`/`false`
#   next word; no bundles ("tsc").
# - jest (yargs) and vitest (cac): long names in full, also in kebab case
#   (`--output-file` is `--outputFile`), `=value` or the next word; short
#   letters bundle ("camel").
# - go: flags with one or two dashes, `=value` or the next word, never
#   bundled; test flags also as `-test.<name>` ("go").
# - cargo, ruff, biome, pytest 7 (argparse without abbreviations), npm,
#   pnpm, yarn: long names in full ("exact"); npm resolves unique prefixes
#   and aliases of its subcommand words (`npm tes`, `npm rum test`), and
#   hands the words after `--` to the script it runs.
POOLS.update(
    {
        "bool": ["true", "false"],
        "reporter": ["default", "json", "html", "junit", "verbose", "dot"],
        "testpattern": ["sum", "adds", "src"],
        "gomod": ["mod", "readonly", "vendor"],
        "pkg": ["typescript", "left-pad"],
        "outfile": ["report.out", "../outside.out", world.HOME + "/planted.out"],
        "outdir": ["build-out", "../outside-dir", "/tmp/planted-dir"],
        "registry": ["http://198.51.100.7/"],
        "word": ["x"],
        "tscproject": ["tsconfig.json", "."],
    }
)
_READS.update({"tsc": "tsc", "jest": "camel", "vitest": "camel", "go": "go"})


def _runner(
    name: str, options: str, prefix: tuple[str, ...] = (), operands: tuple[str, ...] = (), /, **valued: str
) -> Program:
    base = _p(name, options, operands, **valued)
    return Program(
        name,
        base.options,
        operands,
        prefix=prefix,
        reads=_READS.get(name, "exact"),
        single_dash_long=name in ("tsc", "go"),
    )


_JEST = dict(
    LONGoutputFile="outfile",
    LONGcoverageDirectory="outdir",
    LONGcacheDirectory="outdir",
    LONGconfig="file",
    LONGrootDir="dir",
    LONGreporters="reporter",
    LONGtestNamePattern="testpattern",
    _t="testpattern",
    LONGcoverageReporters="reporter",
    LONGmaxWorkers="number",
    LONGchangedSince="rev",
)
_VITEST = dict(
    LONGoutputFile="outfile",
    LONGreporter="reporter",
    LONGroot="dir",
    LONGconfig="file",
    LONGtestNamePattern="testpattern",
    _t="testpattern",
    LONGdir="dir",
    LONGapi="number",
    LONGbrowser="word",
)
_NPM_OPTIONS = "--json --silent --parseable --long --global -g --all --dry-run --offline --ignore-scripts"
_NPM_VALUED = dict(
    LONGregistry="registry",
    LONGprefix="outdir",
    LONGscript_shell="program",
    LONGuserconfig="file",
    LONGcache="outdir",
    LONGworkspace="word",
    _w="word",
)

_TSC_FLAGS = (
    "--pretty --listFiles --listFilesOnly --listEmittedFiles --traceResolution --explainFiles "
    "--extendedDiagnostics --showConfig --incremental --build -b --init --declaration "
    "--emitDeclarationOnly --sourceMap --composite --watch -w --version"
)
_TSC_VALUED = dict(
    LONGnoEmit="bool",
    LONGoutDir="outdir",
    LONGoutFile="outfile",
    LONGdeclarationDir="outdir",
    LONGtsBuildInfoFile="outfile",
    LONGgenerateTrace="outdir",
    LONGgenerateCpuProfile="outfile",
    LONGproject="tscproject",
    _p="tscproject",
    LONGrootDir="dir",
)
_JEST_FLAGS = (
    "--coverage --clearCache --updateSnapshot -u --ci --listTests --showConfig --runInBand -i "
    "--silent --verbose --init --watch --watchAll --onlyChanged -o --lastCommit --debug --logHeapUsage "
    "--passWithNoTests --no-cache --detectOpenHandles --useStderr"
)
_VITEST_FLAGS = (
    "--coverage --update -u --ui --open --watch -w --run --silent --passWithNoTests --globals "
    "--coverage.enabled --clearCache --changed --typecheck --standalone --no-file-parallelism"
)
_NPM_SUBCOMMANDS = [
    "test",
    "t",
    "tes",
    "tst",
    "ls",
    "list",
    "la",
    "ll",
    "view",
    "v",
    "info",
    "show",
    "search",
    "outdated",
    "audit",
    "install",
    "i",
    "ci",
    "init",
    "exec",
    "pack",
    "prune",
    "dedupe",
    "rebuild",
    "link",
    "uninstall",
    "update",
    "version",
    "cache",
    "config",
    "pkg",
    "doctor",
    "explain",
]
_NPM_SCRIPT_ARGS = " --~--coverage --~--json~--outputFile=npm-out.json --~-u"
_YARN_SUBCOMMANDS = [
    "list",
    "info",
    "why",
    "audit",
    "install",
    "add",
    "run",
    "test",
    "check",
    "cache",
    "init",
    "pack",
    "autoclean",
]
_PNPM_SUBCOMMANDS = [
    "ls",
    "list",
    "why",
    "audit",
    "outdated",
    "test",
    "install",
    "add",
    "exec",
    "dlx",
    "store",
    "init",
]
_PYTEST_FLAGS = (
    "-q -x -v -s --co --collect-only --lf --ff --cache-clear --debug --pastebin=all -rfEp "
    "--setup-plan --fixtures --markers"
)
_PYTEST_VALUED = dict(
    LONGjunitxml="outfile",
    LONGjunit_xml="outfile",
    LONGbasetemp="outdir",
    _p="pyplugin",
    LONGlog_file="outfile",
    LONGoverride_ini="word",
    _o="word",
    _k="testpattern",
    LONGrootdir="dir",
    _c="file",
    LONGconfcutdir="dir",
    LONGresultlog="outfile",
    LONGreport_log="outfile",
)
_GO_VALUED = dict(
    _o="outfile",
    _coverprofile="outfile",
    _cpuprofile="outfile",
    _memprofile="outfile",
    _blockprofile="outfile",
    _mutexprofile="outfile",
    _trace="outfile",
    _outputdir="outdir",
    _exec="program",
    _toolexec="program",
    _vettool="program",
    _run="testpattern",
    _count="number",
    _fuzz="testpattern",
    _mod="gomod",
    _modfile="file",
)
_CARGO_FLAGS = (
    "--release --no-run --lib --doc --all-targets --locked --offline --frozen -q -v --timings --verbose"
)
_CARGO_VALUED = dict(
    LONGtarget_dir="outdir",
    LONGconfig="cargoconfig",
    _Z="word",
    LONGartifact_dir="outdir",
    LONGout_dir="outdir",
    LONGmanifest_path="file",
    LONGmessage_format="word",
)
_GO_FLAGS = "-v -json -cover -c -work -x -n -a -race -short -failfast"
_BIOME_SUBCOMMANDS = ["lint", "format", "check", "ci", "init", "migrate", "start", "clean"]


def _with(program: Program, extra: dict[str, str | None]) -> Program:
    return Program(
        program.name,
        {**program.options, **extra},
        program.operands,
        program.prefix,
        reads=program.reads,
        single_dash_long=program.single_dash_long,
    )


RUNNER_PROGRAMS: list[Program] = [
    _runner("tsc", _TSC_FLAGS, ("--noEmit",), **_TSC_VALUED),
    # `--json`: jest writes `--outputFile` only with it.
    _runner("jest", _JEST_FLAGS, ("--json",), **_JEST),
    _with(_runner("vitest", _VITEST_FLAGS, ("run",), **_VITEST), {"--coverage.reportsDirectory": "outdir"}),
    _runner("vitest", "", (), ("vitcmd",)),
    *[_runner("npm", _NPM_OPTIONS, (sub,), **_NPM_VALUED) for sub in _NPM_SUBCOMMANDS],
    *[_runner("npm", _NPM_OPTIONS + _NPM_SCRIPT_ARGS, ("run", script), **_NPM_VALUED)
      for script in ("test", "check", "typecheck", "lint")],
    _runner("npm", "--~--coverage --~--watchAll=false~--coverage", ("test",)),
    _runner("npm", "", ("rum", "test")),
    _runner("npm", "", ("run-script", "test")),
    _runner("npm", "", ("audit", "fix")),
    _runner("npm", "", ("cache", "clean", "--force")),
    *[_runner("yarn", "--json --silent --offline", (sub,), LONGmodules_folder="outdir",
              LONGcache_folder="outdir") for sub in _YARN_SUBCOMMANDS],
    *[_runner("pnpm", "--json --silent --offline", (sub,), LONGstore_dir="outdir", LONGdir="dir")
      for sub in _PNPM_SUBCOMMANDS],
    _runner("npx", "--yes --no", ("tsc",)),
    _runner("npx", "", ("jest",)),
    _runner("pytest", _PYTEST_FLAGS, (), (), **_PYTEST_VALUED),
    _runner("pytest", "", (), ("pytestpath",)),
    *[_runner("go", _GO_FLAGS, (sub,), ("gopkg",), **_GO_VALUED) for sub in ("test", "vet")],
    *[_runner("cargo", _CARGO_FLAGS, (sub,), **_CARGO_VALUED) for sub in ("test", "check")],
    _runner("ruff", "--version --help", ()),
    *[_runner("ruff", "--fix --diff --no-cache --statistics --watch --show-files", (sub,), ("dir",),
              LONGcache_dir="outdir", LONGoutput_file="outfile", LONGconfig="word")
      for sub in ("check", "format", "clean")],
    _runner("biome", "--version --help", ()),
    *[_runner("biome", "--write --fix --unsafe --staged --changed", (sub,), ("dir",), LONGlog_path="outdir",
              LONGreporter="word", LONGconfig_path="dir") for sub in _BIOME_SUBCOMMANDS],
    _runner("pip", "--user --dry-run --no-deps -q", ("install",), ("pkg",), _t="outdir", LONGtarget="outdir",
            LONGprefix="outdir", _r="file"),
    *[_runner("pip", "-q --verbose", (sub,)) for sub in ("list", "freeze", "show", "config", "cache")],
]  # fmt: skip

POOLS.update(
    {
        "vitcmd": ["init", "watch", "dev", "serve", "bench", "list", "related"],
        "pytestpath": ["tests", "tests/test_util.py"],
        "pyplugin": ["no:cacheprovider", "pytester", "tests.test_util"],
        "gopkg": [".", "./..."],
        "cargoconfig": ['target-dir="cfg-out"', 'build.rustc-wrapper="/bin/sh"'],
    }
)

#: Programs the sandbox checks still leave out, and why: none. Every program
#: the specs admit in some form is installed for the sandbox (Debian: npm,
#: golang-go, cargo, python3-pytest, python3-pip; `planmode sandbox
#: install`: typescript, jest, vitest, pnpm, yarn, Biome, ruff) and judged
#: on what it does beyond its admitted bare form.
EXEMPT_PROGRAMS: frozenset[str] = frozenset()
#: Programs whose commands the runner checks judge (they run project code).
RUNNER_NAMES = frozenset(p.name for p in RUNNER_PROGRAMS)
