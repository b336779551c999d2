"""The sandbox's resident process. Started by `Sandbox` (see `runner.py`),
it enters a new user namespace (the caller maps it to an unprivileged user),
then new mount, network, IPC and UTS namespaces, builds a read-only view of
the machine with a writable world on top, and then runs one command per
request line read on stdin, each in a fresh PID and mount namespace, under
`strace -f`, which is that namespace's first process; the command itself
enters the read-only root and drops every capability before its shell
starts (see `launcher`). One JSON line answers each request.

Layout inside `base` (a tmpfs private to these namespaces):
  root/   the machine's `/`, read-only, nosuid, nodev; with its own /dev
          (null, zero, full, random, urandom, tty only), an empty /run and
          /root, /home holding only the fake HOME, /etc/hostname a canary,
          and per command a fresh /proc (hidepid=invisible), /tmp and HOME
          overlay; `base` itself is hidden under an empty tmpfs in it
  world/  the template world (`world.build`)
  cmd/    per command: overlay upper and work dirs, the trace file
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import resource
import selectors
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any

from pytest_planmode.sandbox import _linux as L
from pytest_planmode.sandbox import world

#: System calls left out of the trace: they read, wait, manage memory or
#: signals, or act on descriptors already open, and none of them creates,
#: changes or removes a file, runs a program or reaches the network. Every
#: other call is traced, including those this strace has no name for (a
#: kernel newer than strace, such as `fchmodat2`): a trace listing the
#: calls to see would miss those.
UNTRACED = (
    "read", "readv", "pread64", "preadv", "preadv2", "write", "writev", "pwrite64", "pwritev", "pwritev2",
    "close", "close_range", "lseek", "fstat", "newfstatat", "statx", "stat", "lstat", "statfs", "fstatfs",
    "getdents64", "getdents", "fcntl", "ioctl", "access", "faccessat", "faccessat2", "readlink", "readlinkat",
    "getcwd", "chdir", "fchdir", "getxattr", "lgetxattr", "fgetxattr", "listxattr", "llistxattr",
    "flistxattr",
    "fadvise64", "fsync", "fdatasync", "flock", "dup", "dup2", "dup3", "pipe", "pipe2", "poll", "ppoll",
    "select", "pselect6", "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait", "epoll_pwait2",
    "eventfd2", "signalfd4", "timerfd_create", "timerfd_settime", "inotify_init1", "inotify_add_watch",
    "inotify_rm_watch", "mmap", "munmap", "mprotect", "mremap", "madvise", "mincore", "brk", "mlock",
    "munlock", "membarrier", "futex", "set_robust_list", "get_robust_list", "set_tid_address", "rseq",
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigsuspend", "rt_sigtimedwait", "rt_sigpending",
    "sigaltstack", "kill", "tkill", "tgkill", "alarm", "pause", "setitimer", "getitimer", "nanosleep",
    "clock_nanosleep", "clock_gettime", "clock_getres", "gettimeofday", "time", "times", "getrusage",
    "sysinfo", "uname", "getrandom", "getpid", "getppid", "gettid", "getuid", "geteuid", "getgid", "getegid",
    "getgroups", "getresuid", "getresgid", "getpgrp", "getpgid", "getsid", "setpgid", "setsid", "umask",
    "getpriority", "getrlimit", "prlimit64", "sched_getaffinity", "sched_yield", "sched_getparam",
    "sched_getscheduler", "getcpu", "capget", "arch_prctl", "prctl", "personality", "wait4", "waitid",
    "restart_syscall", "exit", "exit_group", "getsockname", "getpeername", "getsockopt", "setsockopt",
    "recvfrom", "recvmsg", "recvmmsg", "shutdown", "listen", "accept", "accept4", "socketpair",
    "memfd_create", "get_mempolicy",
)  # fmt: skip
# `?`: a name this architecture lacks is no error.
TRACED = "!" + ",".join("?" + name for name in UNTRACED)

#: The first system call number (the same on every architecture from 424
#: on) that the strace of Debian 12 (6.1) cannot name: cachestat.
FIRST_UNNAMED_SYSCALL = 451

#: The install directory of the sandbox's programs, from `runner.py`.
TOOLS_ENV = "PLANMODE_SANDBOX_TOOLS_MOUNT"
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
TRACE_CAP = 64 << 20


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _touch(path: Path) -> None:
    path.touch()


def setup(base: Path) -> None:
    L.unshare(L.CLONE_NEWNS | L.CLONE_NEWNET | L.CLONE_NEWIPC | L.CLONE_NEWUTS)
    L.mount("none", "/", None, L.MS_REC | L.MS_PRIVATE)
    L.loopback_up()
    L.sethostname(world.HOSTNAME)
    L.mount("sandbox", str(base), "tmpfs", L.MS_NOSUID | L.MS_NODEV, "size=256m,mode=0755")
    root = base / "root"
    root.mkdir()
    (base / "cmd").mkdir()
    L.mount("/", str(root), None, L.MS_BIND | L.MS_REC)
    # The sandbox's own directory (world, scratch areas, traces) as the
    # machine's root shows it: an empty place inside the command's view.
    inside = root / str(base).lstrip("/")
    if inside.is_dir():
        L.mount("sandbox-hidden", str(inside), "tmpfs", L.MS_NOSUID | L.MS_NODEV, "size=4k,mode=0755")
    L.make_tree_read_only(str(root))

    dev = root / "dev"
    L.mount("sandbox-dev", str(dev), "tmpfs", L.MS_NOSUID, "size=64k,mode=0755")
    for name in DEVICES:
        if os.path.exists(f"/dev/{name}"):
            _touch(dev / name)
            L.mount(f"/dev/{name}", str(dev / name), None, L.MS_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0")):
        os.symlink(target, dev / name)
    os.symlink("/proc/self/fd/1", dev / "stdout")
    os.symlink("/proc/self/fd/2", dev / "stderr")
    (dev / "shm").mkdir()
    (dev / "pts").mkdir()
    L.mount("none", str(dev), None, L.MS_REMOUNT | L.MS_BIND | L.MS_RDONLY | L.MS_NOSUID)

    for hidden in ("run", "root", "home", "var/run"):
        place = root / hidden
        if place.is_dir() and not place.is_symlink():
            L.mount("sandbox-empty", str(place), "tmpfs", L.MS_NOSUID | L.MS_NODEV, "size=64k,mode=0755")
    (root / "home" / "dev").mkdir()
    tools = os.environ.get(TOOLS_ENV, "")
    if tools and os.path.isdir(tools):
        # The programs `planmode sandbox install` put in its directory.
        inside = root / world.TOOLS.lstrip("/")
        inside.mkdir(parents=True)
        L.mount(tools, str(inside), None, L.MS_BIND | L.MS_REC)
        L.make_tree_read_only(str(inside))
    for hidden in ("run", "root", "home"):
        L.mount(
            "none",
            str(root / hidden),
            None,
            L.MS_REMOUNT | L.MS_BIND | L.MS_RDONLY | L.MS_NOSUID | L.MS_NODEV,
        )

    hostname = world.CANARY_FILES.get("/etc/hostname")
    if hostname and (root / "etc" / "hostname").is_file():
        canary = base / "hostname"
        canary.write_text(hostname + "\n")
        L.mount(str(canary), str(root / "etc" / "hostname"), None, L.MS_BIND)
        L.mount("none", str(root / "etc" / "hostname"), None, L.MS_REMOUNT | L.MS_BIND | L.MS_RDONLY)

    world.build(base / "world")


#: Between the tracer and the command: `unshare` (with no namespace to make)
#: enters the read-only root and the working directory, then `setpriv` drops
#: every capability, for good. Without capabilities nothing inside can
#: chroot, mount or unmount its way back to the tracer's view (a chrooted
#: process may not make a user namespace to regain them either), and no
#: process inside may look at the tracer: /proc shows a process only to
#: those that could trace it (`hidepid=invisible`), and a process holding
#: no capability cannot trace one that holds them. Signals from inside do
#: not stop it: it is the namespace's first process and blocks fatal
#: signals while it writes its trace to a file.
DROP_PRIVILEGES = (
    "setpriv", "--no-new-privs", "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all",
    "--securebits=+noroot,+noroot_locked,+no_setuid_fixup,+no_setuid_fixup_locked,+keep_caps_locked",
)  # fmt: skip


def launcher(root: Path, workdir: str) -> list[str]:
    """The programs between the tracer and the command (everything they do
    before the command's shell starts is the sandbox's, not the command's)."""
    return ["unshare", f"--root={root}", f"--wd={workdir}", "--", *DROP_PRIVILEGES, "--"]


def _child(base: Path, request: dict[str, Any], out_w: int, err_w: int, res_w: int) -> None:
    """C1: a fresh mount and PID namespace; C2 (PID 1 there) becomes strace."""
    L.unshare(L.CLONE_NEWNS | L.CLONE_NEWPID)
    # The overlay's upper layer shares the world's file system, so files keep
    # their inode numbers and Git finds its index up to date.
    cmd = base / "cmd" / str(request["id"])
    cmd.mkdir()
    (cmd / "upper").mkdir()
    (cmd / "work").mkdir()
    # The trace has a file system of its own: a command filling the one its
    # HOME overlay writes to cannot make the tracer's writes fail.
    (cmd / "trace").mkdir()
    L.mount(
        "sandbox-trace",
        str(cmd / "trace"),
        "tmpfs",
        L.MS_NOSUID | L.MS_NODEV,
        f"size={2 * TRACE_CAP},mode=0700",
    )
    trace = cmd / "trace" / "log"
    trace.touch()
    root = base / "root"
    pid = os.fork()
    if pid == 0:
        try:
            L.set_parent_death_signal(signal.SIGKILL)
            L.mount(
                "proc",
                str(root / "proc"),
                "proc",
                L.MS_NOSUID | L.MS_NODEV | L.MS_NOEXEC,
                "hidepid=invisible",
            )
            L.mount("sandbox-tmp", str(root / "tmp"), "tmpfs", L.MS_NOSUID | L.MS_NODEV, "size=64m,mode=1777")
            lower = base / "world" / world.HOME.lstrip("/")
            L.mount(
                "sandbox-home",
                str(root / world.HOME.lstrip("/")),
                "overlay",
                L.MS_NOSUID | L.MS_NODEV,
                f"lowerdir={lower},upperdir={cmd / 'upper'},workdir={cmd / 'work'},userxattr",
            )
            null = os.open("/dev/null", os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            os.closerange(3, 1 << 16)
            resource.setrlimit(resource.RLIMIT_FSIZE, (32 << 20, 32 << 20))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            # System calls newer than the strace here can name are not
            # stopped by its filter, so their effects would go unseen: they
            # are refused instead (programs then use the older calls).
            L.refuse_system_calls_from(FIRST_UNNAMED_SYSCALL)
            argv = [
                "strace", "-f", "-y", "-qq", "--seccomp-bpf", "-s", "512", "-e", "signal=none",
                "-e", f"trace={TRACED}", "-o", str(trace),
                "--", *launcher(root, world.REPO), *request["argv"],
            ]  # fmt: skip
            os.execvpe("strace", argv, {**world.environment(), **request.get("env", {})})
        except BaseException as exc:  # reported through stderr, the run counts as broken
            os.write(2, f"planmode sandbox: cannot start: {exc}\n".encode())
        os._exit(126)

    state = {"timedOut": False, "capped": False}

    def stop(what: str) -> None:
        state[what] = True
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)

    signal.signal(signal.SIGALRM, lambda *_: stop("timedOut"))
    signal.signal(signal.SIGUSR1, lambda *_: stop("capped"))
    signal.setitimer(signal.ITIMER_REAL, float(request.get("timeout", 5.0)))
    os.close(out_w)
    os.close(err_w)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except ChildProcessError:
            status = 0
            break
        except InterruptedError:
            continue
    signal.setitimer(signal.ITIMER_REAL, 0)
    with open(trace, "rb") as handle:
        data = handle.read(TRACE_CAP + 1)
    header = {
        "exit": os.waitstatus_to_exitcode(status),
        "timedOut": state["timedOut"],
        # A trace longer than the cap is not read to its end: what the
        # command did after it is unknown, so nothing can be concluded.
        "traceCut": len(data) > TRACE_CAP,
    }
    data = data[:TRACE_CAP]
    payload = json.dumps(header).encode() + b"\n" + data
    view = memoryview(payload)
    while view:
        written = os.write(res_w, view)
        view = view[written:]
    os._exit(0)


def run(base: Path, request: dict[str, Any]) -> dict[str, Any]:
    started = time.monotonic()
    cap = int(request.get("cap", 1 << 20))
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    res_r, res_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            for fd in (out_r, err_r, res_r):
                os.close(fd)
            _child(base, request, out_w, err_w, res_w)
        finally:
            os._exit(125)
    for fd in (out_w, err_w, res_w):
        os.close(fd)
    scratch = base / "cmd" / str(request["id"])
    buffers: dict[int, bytearray] = {out_r: bytearray(), err_r: bytearray(), res_r: bytearray()}
    capped = False
    selector = selectors.DefaultSelector()
    for fd in buffers:
        selector.register(fd, selectors.EVENT_READ)
    open_fds = set(buffers)
    while open_fds:
        for key, _ in selector.select():
            fd = int(key.fd)
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                selector.unregister(fd)
                open_fds.discard(fd)
                os.close(fd)
                continue
            if fd == res_r or len(buffers[fd]) < cap:
                buffers[fd] += chunk
            elif not capped:
                capped = True
                os.kill(pid, signal.SIGUSR1)
    selector.close()
    os.waitpid(pid, 0)
    shutil.rmtree(scratch, ignore_errors=True)
    header_line, _, trace = bytes(buffers[res_r]).partition(b"\n")
    header = json.loads(header_line) if header_line else {"exit": None, "timedOut": False}

    def b64(data: bytes | bytearray) -> str:
        return base64.b64encode(bytes(data)).decode()

    return {
        **header,
        "outputCapped": capped,
        "stdout": b64(buffers[out_r][:cap]),
        "stderr": b64(buffers[err_r][:cap]),
        "trace": b64(trace),
        "seconds": time.monotonic() - started,
    }


def main() -> int:
    base = Path(sys.argv[1])
    L.unshare(L.CLONE_NEWUSER)
    _say(f"userns {os.getpid()}")
    if sys.stdin.readline().strip() != "mapped":
        return 1
    os.setresgid(0, 0, 0)
    # setgroups is denied in an unprivileged mapping
    with contextlib.suppress(PermissionError):
        os.setgroups([])
    os.setresuid(0, 0, 0)
    nproc = int(sys.argv[2])
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    try:
        setup(base)
    except Exception as exc:
        _say("error " + json.dumps(f"{type(exc).__name__}: {exc}"))
        return 1
    _say("ready")
    count = 0
    for line in sys.stdin:
        if not line.strip():
            continue
        count += 1
        try:
            answer = run(base, {**json.loads(line), "id": count})
        except Exception as exc:
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        _say(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
