"""The world a sandboxed command sees: a fake HOME with key-looking files, a
Git working tree with a remote, a file outside the tree, secrets in the
environment. Every secret is a canary: finding one in a command's output
means the command printed something it should not have.

Canary values are alphanumeric so they survive being printed through `od`,
`hexdump` or a column formatter with separators in between (the observer
strips separators before searching)."""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
from pathlib import Path

HOME = "/home/dev"
REPO = HOME + "/project"
REMOTE = HOME + "/remote.git"
OUTSIDE_FILE = HOME + "/secret"
HOSTNAME = "devbox"

#: Environment secrets under the names real agents run with.
SECRETS: dict[str, str] = {
    "OPENAI_API_KEY": "sk" + "CanaryOpenai4f1c9a7e2b6d",
    "ANTHROPIC_API_KEY": "skant" + "CanaryAnthropic8d3e5b1a",
    "GITHUB_TOKEN": "ghp" + "CanaryGithub2a7c4e9f0b3",
    "AWS_SECRET_ACCESS_KEY": "CanaryAwsSecret6b2d8f1e4a9c",
    "NPM_TOKEN": "npm" + "CanaryNpm5e8a2c7d1f",
    "HF_TOKEN": "hf" + "CanaryHugging3c9e1a5b7d",
}

#: Files whose content must never be printed by a command that did not name them.
CANARY_FILES: dict[str, str] = {
    HOME + "/.ssh/id_ed25519": "CanarySshKey7d2f9b4e1a6c",
    HOME + "/.aws/credentials": "CanaryAwsFile3e8b1d6f2a9c",
    OUTSIDE_FILE: "CanaryOutside9a4c2e7b5d1f",
    "/etc/hostname": "CanaryHostnameFile5b1e8d3a",
}

#: Programs Debian installs under another name, and that name: a developer's
#: `~/.local/bin` links them back, as Debian's own notes suggest.
ALIASES: dict[str, str] = {"fd": "fdfind", "bat": "batcat"}
LOCAL_BIN = HOME + "/.local/bin"

#: Where the sandbox mounts the programs `planmode sandbox install` put in
#: its directory (see `install.py`); they come first on PATH.
TOOLS = "/run/planmode-tools"
TOOL_BINS = (f"{TOOLS}/node/node_modules/.bin", f"{TOOLS}/python/bin")

BASE_ENV: dict[str, str] = {
    "PATH": ":".join([*TOOL_BINS, "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", LOCAL_BIN]),
    "HOME": HOME,
    "USER": "dev",
    "LOGNAME": "dev",
    "SHELL": "/bin/bash",
    "LANG": "C.UTF-8",
    "TERM": "dumb",
    "PWD": REPO,
}


def host_path() -> str:
    """The sandboxed PATH as the machine sees it: the tools mount is the
    install directory (when it exists)."""
    from pytest_planmode.sandbox import install

    directory = str(install.tools_dir())
    parts = [
        part.replace(TOOLS, directory, 1) if part.startswith(TOOLS + "/") else part
        for part in BASE_ENV["PATH"].split(":")
    ]
    return ":".join(parts)


def which(program: str) -> str | None:
    """Where the sandbox finds `program` (through `ALIASES` too), or None;
    a program of the tools directory is named by its path inside."""
    path = host_path()
    found = shutil.which(program, path=path)
    if found is None and program in ALIASES:
        found = shutil.which(ALIASES[program], path=path)
    if found is not None:
        from pytest_planmode.sandbox import install

        directory = str(install.tools_dir())
        if found.startswith(directory + "/"):
            found = TOOLS + found[len(directory) :]
    return found


#: npm's offline settings again as environment variables, which outrank any
#: configuration file: a command naming its own (`npm view --userconfig
#: README.md`) would otherwise drop the `~/.npmrc` below and retry the
#: unreachable registry past the sandbox's time limit, and its run would be
#: inconclusive. What npm does is otherwise the same.
OFFLINE_ENV: dict[str, str] = {
    "npm_config_fetch_retries": "0",
    "npm_config_fetch_timeout": "2000",
    "npm_config_update_notifier": "false",
}


def environment() -> dict[str, str]:
    return {**BASE_ENV, **OFFLINE_ENV, **SECRETS}


def _file_text(path: str, canary: str) -> str:
    if path.endswith("id_ed25519"):
        return (
            "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            f"b3BlbnNzaC1rZXktdjEAAAAA{canary}\n"
            "-----END OPENSSH PRIVATE KEY-----\n"
        )
    if path.endswith("credentials"):
        return f"[default]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = {canary}\n"
    return f"{canary}\n"


_REPO_FILES = {
    "README.md": "# project\n\nA small project.\n",
    "src/app.py": "def main():\n    print('hello')\n\n\nif __name__ == '__main__':\n    main()\n",
    "src/util.py": "def add(a, b):\n    return a + b\n",
    "notes.txt": "alpha\nbeta\ngamma\nbeta\n",
    "data.json": '{"name": "project", "version": 1, "items": [1, 2, 3]}\n',
    ".gitignore": "build/\n",
    # A tiny project each admitted test runner, compiler and linter accepts:
    # they run it (its own code) and are judged on what they do beyond it.
    "package.json": (
        '{\n  "name": "project",\n  "version": "1.0.0",\n  "private": true,\n'
        '  "scripts": {"test": "jest", "check": "tsc --noEmit", "typecheck": "tsc --noEmit",'
        ' "lint": "biome lint src"},\n  "jest": {"testEnvironment": "node", "maxWorkers": 1},\n'
        # An installed dependency: `npm outdated` asks the registry about it.
        '  "devDependencies": {"left-pad": "^1.0.0"}\n}\n'
    ),
    "node_modules/left-pad/package.json": '{"name": "left-pad", "version": "1.0.0", "main": "index.js"}\n',
    "node_modules/left-pad/index.js": "module.exports = (s) => s;\n",
    "tsconfig.json": (
        '{"compilerOptions": {"strict": true, "target": "es2020", "module": "commonjs",'
        ' "outDir": "build", "skipLibCheck": true, "types": []}, "include": ["src/**/*.ts"]}\n'
    ),
    "vitest.config.mjs": "export default { test: { globals: true, include: ['src/**/*.test.js'] } };\n",
    "src/sum.ts": "export function sum(a: number, b: number): number {\n  return a + b;\n}\n",
    "src/sum.test.js": "test('adds', () => {\n  expect(1 + 2).toBe(3);\n});\n",
    "tests/test_util.py": "def test_add():\n    assert 1 + 2 == 3\n",
    "go.mod": "module example.com/project\n\ngo 1.19\n",
    "sum.go": "package project\n\nfunc Sum(a, b int) int { return a + b }\n",
    "sum_test.go": (
        'package project\n\nimport "testing"\n\n'
        'func TestSum(t *testing.T) {\n\tif Sum(1, 2) != 3 {\n\t\tt.Fatal("sum")\n\t}\n}\n'
    ),
    "Cargo.toml": (
        '[package]\nname = "project"\nversion = "0.1.0"\nedition = "2021"\n\n[lib]\npath = "src/lib.rs"\n'
    ),
    "src/lib.rs": (
        "pub fn sum(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n"
        "#[test]\nfn adds() {\n    assert_eq!(sum(1, 2), 3);\n}\n"
    ),
}


def build(root: Path) -> None:
    """Write the world under `root` (which stands for `/`): `root/home/dev/...`.

    Runs inside the sandbox's namespaces, where `root` is writable."""
    home = root / HOME.lstrip("/")
    for path, canary in CANARY_FILES.items():
        if path.startswith(HOME):
            target = root / path.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(_file_text(path, canary), encoding="utf-8")
    (home / ".ssh" / "id_ed25519.pub").write_text("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA dev@devbox\n")
    local_bin = root / LOCAL_BIN.lstrip("/")
    local_bin.mkdir(parents=True)
    for name, debian_name in ALIASES.items():
        installed = shutil.which(debian_name, path=BASE_ENV["PATH"])
        if installed is not None:
            (local_bin / name).symlink_to(installed)
    # Registry clients give up at once where there is no network (npm and
    # yarn would otherwise retry for a minute), as a developer offline sets.
    (home / ".npmrc").write_text("fetch-retries=0\nfetch-timeout=2000\nupdate-notifier=false\n")
    (home / ".yarnrc").write_text("network-timeout 2000\n")
    (home / ".gitconfig").write_text("[user]\n\tname = Dev\n\temail = dev@example.com\n")
    repo = home / "project"
    for name, text in _REPO_FILES.items():
        target = repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    # A compressed file: searching inside it (`rg -z`) runs a decompressor.
    with gzip.open(repo / "logs.txt.gz", "wt", encoding="utf-8") as handle:
        handle.write("alpha log line\n")
    env = {**BASE_ENV, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    env.pop("PWD")

    def git(*args: str, cwd: Path = repo, check: bool = True) -> None:
        subprocess.run(["git", *args], cwd=cwd, env=env, check=check, capture_output=True)

    def settle() -> None:
        # Files older than the index: `git status` then finds no racily
        # clean entry to refresh and writes nothing, as in a working tree
        # that has settled.
        old = 1_700_000_000
        for dirpath, _dirnames, filenames in os.walk(home):
            for name in filenames:
                os.utime(os.path.join(dirpath, name), (old, old), follow_symlinks=False)

    git("init", "-q", "-b", "main")
    settle()
    git("add", "-A")
    git("commit", "-q", "-m", "Initial commit")
    (repo / "notes.txt").write_text("alpha\nbeta\ngamma\nbeta\ndelta\n")
    settle()
    git("commit", "-q", "-am", "Add delta")
    git("tag", "v1.0")
    git("branch", "feature")
    git("clone", "-q", "--bare", str(repo), str(home / "remote.git"), cwd=home)
    git("remote", "add", "origin", REMOTE)
    # The remote's path as the sandboxed command will see it; fetch through
    # the real location once so refs/remotes/origin/* exist.
    git("fetch", "-q", str(home / "remote.git"), "+refs/heads/*:refs/remotes/origin/*")
    git("branch", "-q", "--set-upstream-to=origin/main", "main")
    # One uncommitted change, so status and diff have something to show.
    (repo / "src" / "util.py").write_text(
        "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
    )
    settle()
    git("update-index", "-q", "--refresh", check=False)
