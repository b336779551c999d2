"""Thin wrappers over the Linux system calls the sandbox needs and Python
3.11's `os` module lacks: unshare, mount, mount_setattr, sethostname and
bringing the loopback interface up."""

from __future__ import annotations

import ctypes
import ctypes.util
import fcntl
import os
import socket
import struct

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18

MOUNT_ATTR_RDONLY = 0x1
MOUNT_ATTR_NOSUID = 0x2
MOUNT_ATTR_NODEV = 0x4
AT_FDCWD = -100
AT_RECURSIVE = 0x8000
_SYS_MOUNT_SETATTR = 442  # the same number on every architecture (generic table)

PR_SET_PDEATHSIG = 1

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def unshare(flags: int) -> None:
    _check(_libc.unshare(ctypes.c_int(flags)), "unshare")


def mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    result = _libc.mount(
        source.encode(),
        target.encode(),
        fstype.encode() if fstype else None,
        ctypes.c_ulong(flags),
        data.encode() if data else None,
    )
    _check(result, f"mount {source} on {target}")


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def make_tree_read_only(path: str) -> None:
    """Read-only, nosuid and nodev on `path` and every mount below it."""
    attr = _MountAttr(MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0, 0, 0)
    result = _libc.syscall(
        ctypes.c_long(_SYS_MOUNT_SETATTR),
        ctypes.c_int(AT_FDCWD),
        path.encode(),
        ctypes.c_uint(AT_RECURSIVE),
        ctypes.byref(attr),
        ctypes.c_size_t(ctypes.sizeof(attr)),
    )
    _check(result, f"mount_setattr {path}")


def set_parent_death_signal(signal: int) -> None:
    _check(_libc.prctl(PR_SET_PDEATHSIG, ctypes.c_ulong(signal), 0, 0, 0), "prctl")


def sethostname(name: str) -> None:
    raw = name.encode()
    _check(_libc.sethostname(raw, ctypes.c_size_t(len(raw))), "sethostname")


def loopback_up() -> None:
    """`ip link set lo up` in the current network namespace."""
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sh14x", b"lo", 0)
        flags = struct.unpack("16sh14x", fcntl.ioctl(sock.fileno(), siocgifflags, request))[1]
        fcntl.ioctl(sock.fileno(), siocsifflags, struct.pack("16sh14x", b"lo", flags | iff_up))


class _SockFilter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
_BPF_LD_W_ABS = 0x20
_BPF_JGE_K = 0x35
_BPF_RET_K = 0x06
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_RET_ERRNO = 0x00050000
_ENOSYS = 38


def refuse_system_calls_from(number: int) -> None:
    """Every system call numbered `number` or above fails with ENOSYS, for
    this process and all it starts (a seccomp filter; the numbers of the
    x32 ABI lie above every other, so it is refused too)."""
    program = (_SockFilter * 4)(
        _SockFilter(_BPF_LD_W_ABS, 0, 0, 0),  # A = seccomp_data.nr
        _SockFilter(_BPF_JGE_K, 0, 1, number),
        _SockFilter(_BPF_RET_K, 0, 0, _SECCOMP_RET_ERRNO | _ENOSYS),
        _SockFilter(_BPF_RET_K, 0, 0, _SECCOMP_RET_ALLOW),
    )
    fprog = _SockFprog(len(program), program)
    _check(
        _libc.prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(fprog), 0, 0), "seccomp"
    )
