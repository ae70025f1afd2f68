"""Where and as whom each function's workers run (the server's side of the sandbox).

As root, every function gets a uid (and a gid of the same number) of its own, from 100000 up,
and a copy of its code that only that uid can read and nobody but root can change; each worker
gets a private temporary folder owned by that uid. Without root, workers keep the server's uid:
the code is the unpacked folder itself, inside the server's 0700 folders, and only the limits,
the scrubbed environment and the private TMPDIR apply. See README "Lambda sandbox".

Uids are claimed machine-wide a block of a thousand at a time, with a lock file per block held
for the server's life, so two onceflow servers on one machine never hand the same uid to
different functions.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import pwd
import shutil
import stat
import tempfile
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from onceflow.lambda_.runtime.confine import PR_SET_DUMPABLE, Limits, copy_tree, prctl

log = logging.getLogger("onceflow.lambda")

_PREFIX = "onceflow-sandbox-"
UID_BASE = 100_000
UID_BLOCK = 1_000  # uids a server claims at a time
UID_BLOCKS = 200


@dataclass(frozen=True)
class Placement:
    task_root: str
    uid: int | None
    gid: int | None
    private_tmp: bool = False


class Host(Protocol):
    """What the zygote found out about the machine (ZygoteClient's attributes)."""

    mount_ns: bool
    unreadable: str


def protect_server() -> None:
    """Make the server's /proc entries (environ, mem, fd) root's and refuse ptrace from its own uid:
    without root, handlers share the server's uid, and this is what keeps them out of its memory."""
    prctl(PR_SET_DUMPABLE, 0)


class Sandbox:
    def __init__(self, isolate: bool | None = None, private_tmp: bool = True) -> None:
        protect_server()
        self.isolate = os.geteuid() == 0 if isolate is None else isolate
        self.private_tmp = private_tmp and self.isolate
        self._root: Path | None = None  # made at the first cold start
        self._lock = threading.RLock()  # root is made under it, from place() too
        self._uids: dict[str, int] = {}
        self._claims: list[int] = []  # lock file descriptors held for the server's life
        self._blocks: list[int] = []  # first uid of each block this server holds
        self._copies: dict[tuple[int, str], str] = {}
        self._warned = False

    @property
    def root(self) -> Path:
        """This server's sandbox folder: code copies and workers' temporary folders (under /var/tmp
        when isolating: on disk where /tmp may be a small tmpfs; a worker's namespace covers both
        and puts its own task root back)."""
        with self._lock:
            if self._root is None:
                base = "/var/tmp" if self.isolate and os.path.isdir("/var/tmp") else tempfile.gettempdir()
                _remove_abandoned(Path(base))
                root = Path(tempfile.mkdtemp(prefix=_PREFIX, dir=base))
                if self.isolate:
                    os.chmod(root, 0o711)  # function uids may pass through to their own folders only
                (root / "code").mkdir(mode=0o711)
                (root / "tmp").mkdir(mode=0o711)
                (root / "server.pid").write_text(str(os.getpid()))
                self._root = root
            return self._root

    # ------------------------------------------------------------------ identities
    def is_handler_uid(self, uid: int) -> bool:
        """Whether handlers (of this onceflow or another on the machine) may run as `uid`."""
        return self.isolate and UID_BASE <= uid < UID_BASE + UID_BLOCK * UID_BLOCKS

    def uid_for(self, function_id: str) -> int | None:
        if not self.isolate:
            return None
        with self._lock:
            uid = self._uids.get(function_id)
            if uid is None:
                uid = self._claim_uid()
                self._uids[function_id] = uid
                log.info("Lambda function %s runs as uid %d", function_id, uid)
            return uid

    def _claim_uid(self) -> int:
        """The next free uid of this server's blocks, claiming another block when they are used up."""
        taken = set(self._uids.values())
        busy: set[int] | None = None
        while True:
            for block in self._blocks:
                for uid in range(block, block + UID_BLOCK):
                    if uid in taken:
                        continue
                    busy = _uids_with_processes() if busy is None else busy
                    if uid not in busy and not _is_user(uid):
                        return uid
                    taken.add(uid)
            self._blocks.append(self._claim_block())

    def _claim_block(self) -> int:
        """A block of UID_BLOCK uids no other onceflow server on this machine holds (a lock file
        each, held for the server's life: one descriptor per thousand functions)."""
        claims = _claims_dir()
        for block in range(UID_BASE, UID_BASE + UID_BLOCK * UID_BLOCKS, UID_BLOCK):
            if block in self._blocks:
                continue
            if claims is None:
                return block
            fd = os.open(claims / f"block-{block}", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            self._claims.append(fd)
            return block
        raise RuntimeError("no free uid left for a Lambda function")

    # ------------------------------------------------------------------ code and temporary folders
    def place(self, function_id: str, code_dir: str, host: Host) -> Placement:
        """The task root a worker of function_id runs from (a private copy when isolating)."""
        if self.isolate and host.unreadable and not host.mount_ns:
            if not self._warned:
                self._warned = True
                log.warning("Lambda workers run as root, not as a uid of their own: other users cannot read "
                            "%s, which the Python needs, and this machine allows no mount namespace to fix that "
                            "(README: Lambda sandbox)", host.unreadable)  # fmt: skip
            return Placement(code_dir, None, None)
        uid = self.uid_for(function_id)
        if uid is None:
            return Placement(code_dir, None, None)
        key = (uid, code_dir)
        with self._lock:
            copy = self._copies.get(key)
            if copy is None or not os.path.isdir(copy):
                copy = self._copies[key] = self._copy_code(uid, code_dir)
        return Placement(copy, uid, uid, self.private_tmp and host.mount_ns)

    def _copy_code(self, uid: int, code_dir: str) -> str:
        home = self.root / "code" / str(uid)
        if not home.is_dir():
            home.mkdir(mode=0o750)
            os.chown(home, 0, uid)
        target = home / Path(code_dir).name
        if target.is_dir():
            return str(target)
        tmp = home / f".copy-{uuid.uuid4().hex}"
        shutil.copytree(code_dir, tmp, symlinks=False)
        _owned_read_only(tmp, uid)
        os.rename(tmp, target)
        return str(target)

    def new_tmp(self, uid: int | None) -> str:
        path = self.root / "tmp" / uuid.uuid4().hex
        path.mkdir(mode=0o700)
        if uid is not None:
            os.chown(path, uid, uid)
        return str(path)

    @staticmethod
    def drop_tmp(path: str | None) -> None:
        if path:
            shutil.rmtree(path, ignore_errors=True)

    def limits(self, placement: Placement, memory_mb: int | None, ephemeral_mb: int | None,
               carried: str | None = None) -> Limits:  # fmt: skip
        """`carried`: what keep_tmp kept of the environment this worker replaces."""
        return Limits(
            uid=placement.uid,
            gid=placement.gid,
            memory_mb=memory_mb,
            ephemeral_mb=ephemeral_mb,
            # A folder of its own for TMPDIR, where no private /tmp can be mounted
            tmp_dir=None if placement.private_tmp else (carried or self.new_tmp(placement.uid)),
            private_tmp=placement.private_tmp,
            tmp_seed=carried if placement.private_tmp else None,
        )

    def keep_tmp(self, keeper: int, tmp_dir: str | None, private_tmp: bool) -> str | None:
        """Lambda keeps an execution environment's /tmp when a timeout restarts its runtime (recorded:
        a file written before a timeout is read after it, while the module's globals start afresh).
        The worker's TMPDIR folder is that folder itself; a private /tmp (a tmpfs in the worker's
        namespace, gone with it) is copied out of the stopped worker, to seed its replacement's."""
        if tmp_dir or not private_tmp or keeper <= 0:
            return tmp_dir
        root = _namespace_root(keeper)
        if root is None:
            return None
        kept = self.new_tmp(None)
        try:
            copy_tree(f"{root}/tmp", kept)
        except OSError as exc:  # a /tmp fuller than the folder's disk, a vanished process: start empty
            log.warning("the /tmp of a timed-out Lambda worker could not be kept: %s", exc)
            self.drop_tmp(kept)
            return None
        return kept

    def close(self) -> None:
        if self._root is not None:
            shutil.rmtree(self._root, ignore_errors=True)
        for fd in self._claims:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._claims.clear()


def _namespace_root(keeper: int) -> str | None:
    """/proc's view of the root of the worker under `keeper` (the zygote's keeper of a worker stays
    in the server's mount namespace; the worker it forked made its own)."""
    try:
        ours = os.readlink("/proc/self/ns/mnt")
        with open(f"/proc/{keeper}/task/{keeper}/children") as f:
            children = f.read().split()
        for child in children:
            if os.readlink(f"/proc/{child}/ns/mnt") != ours:
                return f"/proc/{child}/root"
    except OSError:
        pass
    return None


def _remove_abandoned(base: Path) -> None:
    """Sandbox folders of servers that died without cleaning up (kill -9): their pid is gone."""
    for folder in base.glob(_PREFIX + "*"):
        try:
            info = os.lstat(folder)
            if info.st_uid != os.geteuid() or not stat.S_ISDIR(info.st_mode):  # not ours: leave it
                continue
            pid = int((folder / "server.pid").read_text())
        except (OSError, ValueError):
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except PermissionError:  # alive, someone else's
            pass


def _owned_read_only(top: Path, gid: int) -> None:
    """root:gid, group may read (and run what was executable), nobody else anything: the function
    reads its code through its gid and cannot change it; other functions cannot even list it."""
    for folder, dirs, files in os.walk(top):
        os.chown(folder, 0, gid)
        os.chmod(folder, 0o750)
        for name in files:
            path = os.path.join(folder, name)
            mode = os.lstat(path).st_mode
            os.chown(path, 0, gid, follow_symlinks=False)
            os.chmod(path, 0o750 if mode & 0o100 else 0o640)
        for name in dirs:
            path = os.path.join(folder, name)
            if os.path.islink(path):  # copytree(symlinks=False) resolves them; belt and braces
                os.unlink(path)


def _is_user(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def _uids_with_processes() -> set[int]:
    uids: set[int] = set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                uids.add(entry.stat().st_uid)
    return uids


def _claims_dir() -> Path | None:
    """A root-only folder for the uid lock files (/run when it is there), or None if none is safe."""
    for base in ("/run", tempfile.gettempdir()):
        path = Path(base) / "onceflow-uids"
        with contextlib.suppress(OSError):
            path.mkdir(mode=0o700, exist_ok=True)
            info = os.lstat(path)
            if info.st_uid == 0 and not os.path.islink(path) and (info.st_mode & 0o077) == 0:
                return path
    return None
