"""Confining a freshly forked worker before it loads any function code (stdlib only; runs as the
zygote's user, then drops to the function's).

The order matters: everything that needs root (a mount namespace, a tmpfs on /tmp, raising
limits) comes first, then the supplementary groups, the gid and finally the uid are dropped, and
PR_SET_NO_NEW_PRIVS makes sure no setuid program can win them back. What the function starts and
abandons is its keeper's to reap and, once the worker ends, to kill (zygote.keep).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import stat
import sys
import sysconfig
from dataclasses import dataclass
from typing import Any

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
_CLONE_NEWNS = 0x00020000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
_MS_REMOUNT, _MS_REC, _MS_PRIVATE = 0x20, 0x4000, 0x40000
MAX_PROCESSES = 1024  # Lambda's quota: 1,024 processes or threads per execution environment
MAX_FILES = 1024  # Lambda's quota: 1,024 file descriptors
MAX_LOCKED_BYTES = 65536
STACK_BYTES = 8 * 1024 * 1024

_libc: Any = None


def libc() -> Any:
    global _libc
    if _libc is None:
        # The process's own symbols: libc is loaded already, and find_library would run ldconfig.
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def prctl(option: int, value: int) -> bool:
    """prctl(option, value); False when the kernel refuses (never raises: confinement is best effort
    where the platform lacks a feature, and the README says which parts are guaranteed)."""
    try:
        return libc().prctl(option, ctypes.c_ulong(value), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


@dataclass(frozen=True)
class Limits:
    """What the server decided for one worker (the `sandbox` member of a spawn spec)."""

    uid: int | None = None  # None: keep the server's identity (onceflow does not run as root)
    gid: int | None = None
    memory_mb: int | None = None  # MemorySize: added on top of the interpreter's own footprint
    ephemeral_mb: int | None = None  # EphemeralStorage: the size of /tmp and of any one file
    tmp_dir: str | None = None  # the worker's own temporary folder (TMPDIR; /tmp when it can be mounted)
    private_tmp: bool = False  # try a mount namespace with a tmpfs on /tmp (root only)
    tmp_seed: str | None = None  # what /tmp held in the environment this one replaces (a timeout's restart)

    @classmethod
    def from_spec(cls, doc: dict[str, Any] | None) -> Limits:
        return cls(**{k: v for k, v in (doc or {}).items() if k in cls.__dataclass_fields__})

    def to_spec(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


# Where the function's layers are in this worker: /opt itself when the mount namespace could put
# them there, else their folder as the server laid it out (set by apply, read by the worker).
OPT_AT: list[str | None] = [None]


def apply(limits: Limits, task_root: str, opt_root: str | None = None) -> dict[str, str]:
    """Confine this process; return environment variables the handler must see (TMPDIR)."""
    env: dict[str, str] = {}
    OPT_AT[0] = opt_root
    if limits.private_tmp and not _private_tmp(limits, task_root, opt_root):
        # The zygote's probe said namespaces work: fail closed rather than share the host's /tmp.
        raise OSError("cannot make the worker's mount namespace")
    if limits.tmp_dir:
        env["TMPDIR"] = limits.tmp_dir
    _set_limits(limits)
    if limits.uid is not None and limits.gid is not None:
        os.setgroups([])
        os.setresgid(limits.gid, limits.gid, limits.gid)
        os.setresuid(limits.uid, limits.uid, limits.uid)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    # A uid change leaves the process undumpable, its /proc entries root's: give them back to it.
    prctl(PR_SET_DUMPABLE, 1)
    return env


def _set_limits(limits: Limits) -> None:
    if limits.memory_mb:
        # RLIMIT_DATA counts what the process can write to (heap, anonymous mappings, thread stacks
        # as used), not reserved address space: RLIMIT_AS would count each thread's 64 MB malloc
        # arena reservation and fail a 128 MB function that merely starts a few threads.
        base = _vm_data_bytes()
        _lower(resource.RLIMIT_DATA, base + limits.memory_mb * 1024 * 1024)
    if limits.ephemeral_mb:
        _lower(resource.RLIMIT_FSIZE, limits.ephemeral_mb * 1024 * 1024)
    _lower(resource.RLIMIT_CORE, 0)
    # Per process, as an execution environment has them (recorded on AWS: test_lambda.py
    # test_runtime_ulimits, RLIMIT_NOFILE 1024 and RLIMIT_MEMLOCK 65536, soft and hard)
    _lower(resource.RLIMIT_NOFILE, MAX_FILES)
    _lower(resource.RLIMIT_MEMLOCK, MAX_LOCKED_BYTES)
    _soft_limit(resource.RLIMIT_STACK, STACK_BYTES)  # 8 MiB, its hard limit left (unlimited there)
    if limits.uid is not None:  # counted per uid: with the function's own uid, per function
        _lower(resource.RLIMIT_NPROC, MAX_PROCESSES)


def _lower(which: int, value: int) -> None:
    _soft, hard = resource.getrlimit(which)
    cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(which, (cap, cap))


def _soft_limit(which: int, value: int) -> None:
    _soft, hard = resource.getrlimit(which)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(which, (value if hard == resource.RLIM_INFINITY else min(value, hard), hard))


def _vm_data_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmData:"):
                return int(line.split()[1]) * 1024
    return 0


# ---------------------------------------------------------------------------------- mounts
# The Python the workers run (its prefix, sys.path) may sit in a folder other users cannot enter
# (pyenv in root's 0700 home). In the worker's mount namespace such a folder is covered by an empty
# tmpfs and only the Python folders are put back in it, at the same paths: the function can import
# what it needs and still sees nothing else of that home. EXPOSE is set by the zygote at start.
EXPOSE: list[str] = []
COVERED = ("/tmp", "/dev/shm", "/var/tmp")  # private (tmpfs) in a worker's namespace
_AT_FDCWD = -100
_OPEN_TREE_CLONE, _AT_RECURSIVE, _MOVE_MOUNT_F_EMPTY_PATH = 1, 0x8000, 0x4
_SYS_OPEN_TREE, _SYS_MOVE_MOUNT = 428, 429  # Linux 5.2+, the generic syscall table (x86_64, arm64)


def python_paths() -> list[str]:
    """The folders a worker must read: the interpreter's prefixes and this process's sys.path."""
    found = {os.path.dirname(os.path.realpath(sys.executable))}
    for path in [sys.prefix, sys.base_prefix, sys.exec_prefix, *sysconfig.get_paths().values(), *sys.path]:
        if path and os.path.exists(path):
            found.add(os.path.realpath(path))
    found.discard("/")  # sys.path[0] of `python -m` run from /
    ordered = sorted(found)
    return [p for p in ordered if not any(p != q and p.startswith(q.rstrip("/") + "/") for q in ordered)]


def blocked_folder(path: str) -> str | None:
    """The outermost folder on path's way that other users cannot pass (search permission), if any."""
    current = "/"
    for part in [p for p in path.split("/") if p]:
        current = os.path.join(current, part)
        with contextlib.suppress(OSError):
            info = os.stat(current)
            if stat.S_ISDIR(info.st_mode) and not info.st_mode & 0o001:
                return current
    return None


def to_expose(paths: list[str]) -> list[str]:
    """The paths a worker's namespace must put back: under a blocked folder or a covered one."""
    return [p for p in paths if blocked_folder(p) is not None or _covered(p)]


def _covered(path: str) -> bool:
    return any(path == root or path.startswith(root + "/") for root in COVERED)


def probe_namespaces() -> bool:
    """Whether this process may make a mount namespace with a tmpfs and move mounts (in a child)."""
    pid = os.fork()
    if pid == 0:
        ok = False
        with contextlib.suppress(BaseException):
            lib = libc()
            ok = (
                lib.unshare(_CLONE_NEWNS) == 0
                and lib.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) == 0
                and lib.mount(b"tmpfs", b"/tmp", b"tmpfs", _MS_NOSUID | _MS_NODEV, b"size=1m") == 0
                and _open_tree("/tmp") >= 0
            )
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def _open_tree(path: str) -> int:
    flags = _OPEN_TREE_CLONE | _AT_RECURSIVE | os.O_CLOEXEC
    return int(libc().syscall(_SYS_OPEN_TREE, _AT_FDCWD, path.encode(), flags))


def _private_tmp(limits: Limits, task_root: str, opt_root: str | None = None) -> bool:
    """A mount namespace with a private /tmp (a tmpfs of EphemeralStorage's size owned by the
    function), a private /dev/shm, an empty read-only /var/tmp (Lambda's file system is read-only
    outside /tmp), and the Python folders in EXPOSE and the task root put back where those or an
    unreachable folder hid them, and the function's layers on /opt, as Lambda mounts them. False
    (nothing changed) where namespaces are not allowed."""
    lib = libc()
    if lib.unshare(_CLONE_NEWNS) != 0:
        return False
    # Private propagation first: nothing mounted here may leak back into the server's namespace.
    if lib.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        return False  # a namespace with nothing mounted in it yet is harmless
    expose = sorted({*EXPOSE, *([task_root] if _covered(task_root) or blocked_folder(task_root) else [])})
    clones = [(path, _open_tree(path)) for path in expose]  # detached copies: covering cannot hide them
    if opt_root and os.path.isdir("/opt"):
        clones.append(("/opt", _open_tree(opt_root)))
        OPT_AT[0] = "/opt"
    elif opt_root and (_covered(opt_root) or blocked_folder(opt_root)):
        clones.append((opt_root, _open_tree(opt_root)))
    if any(fd < 0 for _, fd in clones):
        raise OSError(ctypes.get_errno(), "cannot clone the mounts a worker needs")
    owner = f",uid={limits.uid},gid={limits.gid}" if limits.uid is not None else ""
    covers = [
        ("/tmp", f"size={limits.ephemeral_mb or 512}m,mode=0700{owner}"),
        ("/dev/shm", f"size=64m,mode=0700{owner}"),
        ("/var/tmp", "size=1m,mode=0755"),
    ]
    blocked = {blocked_folder(p) or "" for p in expose}
    covers += [(b, "size=1m,mode=0755") for b in sorted(blocked) if b and not _covered(b)]
    for folder, options in covers:
        if os.path.isdir(folder) and _mount_tmpfs(folder, options) != 0:
            raise OSError(ctypes.get_errno(), f"cannot cover {folder}")
        if folder == "/tmp" and limits.tmp_seed:  # before /var/tmp, where the seed is, is covered
            with contextlib.suppress(OSError):  # a seed out of reach or too large: what fits of it
                copy_tree(limits.tmp_seed, "/tmp", limits.uid, limits.gid)
    for path, fd in clones:
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            os.makedirs(path, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "a").close()
        if lib.syscall(_SYS_MOVE_MOUNT, fd, b"", _AT_FDCWD, path.encode(), _MOVE_MOUNT_F_EMPTY_PATH) != 0:
            raise OSError(ctypes.get_errno(), f"cannot put {path} back")
        os.close(fd)
    if os.path.isdir("/var/tmp"):
        lib.mount(None, b"/var/tmp", None, _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV, None)
    _private_proc()
    return True


def _private_proc() -> None:
    """A /proc of this namespace's own in which a process's entries are open only to its uid
    (hidepid=1): the server's cmdline (a --root-key secret, the data folder) and other functions'
    processes are closed to the handler, as on Lambda, where it sees none. Best effort: a container
    whose /proc has masked paths refuses a fresh proc mount; environ, fds and memory stay guarded by
    the uid either way."""
    libc().mount(b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, b"hidepid=1")


def copy_tree(src: str, dst: str, uid: int | None = None, gid: int | None = None) -> None:
    """Copy the folders, regular files and symbolic links (as links) under src into the folder dst,
    owned by uid:gid when given. src may be a function's /tmp, written by the function while this
    runs as root: each name is opened relative to its folder's descriptor without following a link,
    and nothing but a regular file is read (a FIFO would block, a device is no file of its). Only
    src's own file system is copied: the folders mounted into it (the Python folders put back where
    the worker's /tmp covered them, such as a virtualenv under /tmp) are the host's, not the function's."""
    fd = os.open(src, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        _copy_from(fd, dst, uid, gid, os.fstat(fd).st_dev)
    finally:
        os.close(fd)


def _copy_from(dir_fd: int, dst: str, uid: int | None, gid: int | None, device: int) -> None:
    with os.scandir(dir_fd) as entries:
        names = [entry.name for entry in entries]
    for name in names:
        target = os.path.join(dst, name)
        mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
        if stat.S_ISLNK(mode):
            os.symlink(os.readlink(name, dir_fd=dir_fd), target)
            if uid is not None and gid is not None:
                os.chown(target, uid, gid, follow_symlinks=False)
            continue
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
            continue
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | (os.O_DIRECTORY if stat.S_ISDIR(mode) else 0)
        try:
            fd = os.open(name, flags, dir_fd=dir_fd)
        except OSError:  # changed under the copy: passed over
            continue
        try:
            info = os.fstat(fd)
            if info.st_dev != device:
                continue  # another file system mounted here (not the function's): left out
            if stat.S_ISDIR(info.st_mode):
                os.mkdir(target, 0o700)
                _copy_from(fd, target, uid, gid, device)
            elif stat.S_ISREG(info.st_mode):
                with open(target, "xb") as out:
                    while chunk := os.read(fd, 1 << 20):
                        out.write(chunk)
            else:
                continue
        finally:
            os.close(fd)
        if uid is not None and gid is not None:
            os.chown(target, uid, gid)
        # Permission bits and the sticky bit only: a set-user/group-id bit from the function's tree
        # must not reach a file this (root) process wrote.
        os.chmod(target, stat.S_IMODE(info.st_mode) & ~(stat.S_ISUID | stat.S_ISGID))


def _mount_tmpfs(folder: str, options: str) -> int:
    return int(libc().mount(b"tmpfs", folder.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options.encode()))
