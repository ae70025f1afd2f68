"""The fork server: `python -m onceflow.lambda_.runtime.zygote <control fd>`.

It imports boto3 and warms botocore's model loader once, then forks one worker per `spawn` request,
so a worker starts with everything already imported (a fork costs a few milliseconds; importing
boto3 costs a hundred or more). It reaps its children and reports each exit status to the server,
which turns deaths into Runtime.ExitError. When the server closes the control socket, the zygote
kills every worker it started and exits.

Each worker runs under a keeper of its own: the zygote forks the keeper (a session leader and a
child subreaper), the keeper forks the worker. What the function starts and abandons (a
double-forked setsid daemon included) is adopted by the keeper, which reaps it while the worker
lives and kills it when the worker ends, then exits as the worker did; the server signals the
keeper's process group. The zygote is a subreaper too, and kills any child that is not a keeper
(what is left when a keeper itself was killed).
"""

from __future__ import annotations

import contextlib
import gc
import os
import select
import signal
import socket
import sys
import time
from typing import Any

from onceflow.lambda_.runtime import botocore_memo, confine, protocol, worker

_SCAN_IDLE_S = 0.01
_SCAN_WAIT_S = 0.2
# Models a handler is most likely to use; each costs a few ms here and nothing in the worker.
_PRELOAD_SERVICES = ("dynamodb", "sts", "lambda", "logs", "stepfunctions", "iam", "s3", "sqs", "sns")


def preload() -> Any:
    """Import boto3 and return a botocore loader with the common models cached (None without boto3)."""
    try:
        import boto3
        import botocore.loaders
        import botocore.session
    except ImportError:
        return None
    # What a client's first call still imports (http.client encodes the host name with IDNA):
    # ~1.7 ms of each worker's first invocation otherwise.
    import encodings.idna  # noqa: F401
    botocore_memo.install()  # per-client work botocore redoes for the same answers (botocore_memo.py)
    loader = botocore.loaders.create_loader()
    for name in _PRELOAD_SERVICES:
        with contextlib.suppress(Exception):
            loader.load_service_model(name, "service-2")
            loader.load_service_model(name, "endpoint-rule-set-1")
    for data in ("endpoints", "partitions", "sdk-default-configuration", "_retry"):
        with contextlib.suppress(Exception):
            loader.load_data(data)
    # The default session is built here once (~25-45 ms otherwise, in every worker). It reads nothing
    # from the environment until a client is made, so a worker's own variables still decide.
    default = botocore.session.Session()
    default.register_component("data_loader", loader)
    boto3.setup_default_session(botocore_session=default)
    # One throwaway client imports botocore's lazily imported modules (parsers, signers, retries).
    with contextlib.suppress(Exception):
        session = botocore.session.Session()
        session.register_component("data_loader", loader)
        session.create_client(
            "dynamodb",
            region_name="us-east-1",
            aws_access_key_id="x",
            aws_secret_access_key="x",
            endpoint_url="http://127.0.0.1:1",
        )
    return loader


class Zygote:
    def __init__(self, control: socket.socket, loader: Any) -> None:
        self.control = control
        self.loader = loader
        self.children: set[int] = set()
        self.scan_due: float | None = None  # when orphans must be looked for at the latest
        self.spare: tuple[int, socket.socket] | None = None  # a keeper forked ahead, waiting
        self.want_spare = True
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_w, False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(self.wake_w)

    def serve(self) -> None:
        """Spawn requests first; the search for orphans (a few ms of /proc) and the fork of the next
        spare keeper wait until the zygote is idle for a moment (orphans _SCAN_WAIT_S at most)."""
        try:
            while True:
                if self.want_spare and self.spare is None:
                    ready, _, _ = select.select([self.control, self.wake_r], [], [], _SCAN_IDLE_S)
                    if not ready:
                        self.want_spare = False
                        self.spare = self.fork_keeper()
                        continue
                idle = None if self.scan_due is None else _SCAN_IDLE_S
                try:
                    ready, _, _ = select.select([self.control, self.wake_r], [], [], idle)
                except InterruptedError:
                    continue
                if self.control in ready and not self.handle_control():
                    return
                if self.wake_r in ready:
                    os.read(self.wake_r, 4096)
                    self.reap()
                if self.scan_due is not None and (not ready or time.monotonic() >= self.scan_due):
                    self.scan_due = None
                    self.kill_orphans()
        finally:
            self.kill_all()

    def handle_control(self) -> bool:
        try:
            header, fds = protocol.recv_packet(self.control)
        except (protocol.Closed, ConnectionError):
            return False
        if header.get("t") == "spawn" and fds:
            self.spawn(header["spec"], fds[0])
        else:
            for fd in fds:
                os.close(fd)
        return True

    def spawn(self, spec: dict[str, Any], fd: int) -> None:
        """Hand the spawn to the spare keeper (forked while idle), or fork one now."""
        keeper, self.spare = self.spare, None
        for attempt in (keeper, None):
            _pid, sock = attempt or self.fork_keeper()
            try:
                protocol.send_packet(sock, {"t": "spawn", "spec": spec}, [fd])
            except OSError:  # the spare died meanwhile: a fresh one
                continue
            finally:
                sock.close()
            break
        os.close(fd)
        self.want_spare = True

    def fork_keeper(self) -> tuple[int, socket.socket]:
        """A keeper waiting for its spawn, with its worker already forked and waiting for the spec:
        both forks happen ahead of need, so a cold start costs none (a fork of this process, which
        holds boto3, is several ms on a loaded machine)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:  # the keeper
            try:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                for fd in (self.wake_r, self.wake_w):
                    os.close(fd)
                self.control.close()
                ours.close()
                if self.spare is not None:
                    self.spare[1].close()
                os.setsid()  # the server kills this process group: keeper, worker and what they started
                confine.prctl(confine.PR_SET_CHILD_SUBREAPER, 1)
                keeper = os.getpid()
                to_worker, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                child = os.fork()
                if child == 0:  # the worker, until its spec comes
                    theirs.close()
                    to_worker.close()
                    _await_spawn(worker_end, self.loader, keeper)
                worker_end.close()
                header, fds = protocol.recv_packet(theirs)  # Closed when the zygote goes: exit (the worker too)
                theirs.close()
                protocol.send_packet(to_worker, header, fds)
                os.close(fds[0])
                to_worker.close()
                keep(child)
            finally:
                os._exit(1)  # pragma: no cover - keep() and worker.run never return
        theirs.close()
        self.children.add(pid)
        return pid, ours

    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                self.children.clear()
                return
            if pid == 0:
                break
            if pid in self.children:
                self.children.discard(pid)
                with contextlib.suppress(OSError):
                    protocol.send_packet(self.control, {"t": "exited", "pid": pid, "status": describe(status)})
                if not os.WIFSIGNALED(status):
                    continue  # a keeper that ended by itself killed what its worker left
            # A keeper killed outright, or an orphan: what they held may have come to us.
            if self.scan_due is None:
                self.scan_due = time.monotonic() + _SCAN_WAIT_S

    def kill_orphans(self) -> None:
        """SIGKILL every child that is not a worker: the leftovers of a dead worker. Their own
        children are adopted in turn, and their deaths bring us back here until none is left."""
        me = os.getpid()
        for pid in _children_of(me):
            if pid not in self.children:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)

    def kill_all(self) -> None:
        """Kill every worker and, as they are adopted, everything the workers left behind."""
        self.children.clear()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            for pid in _children_of(os.getpid()):
                with contextlib.suppress(OSError):
                    os.killpg(pid, signal.SIGKILL)
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                time.sleep(0.01)


def _await_spawn(channel: socket.socket, loader: Any, keeper: int) -> None:
    """The pre-forked worker: wait for the spawn its keeper passes on, then run it; exit if the
    keeper goes first (the zygote went, or the spare was dropped)."""
    try:
        header, fds = protocol.recv_packet(channel)
        channel.close()
    except BaseException:
        os._exit(1)
    worker.run(socket.socket(fileno=fds[0]), header["spec"], loader, keeper)


def keep(worker_pid: int) -> None:
    """The keeper's life: reap what the worker's processes abandon; once the worker is gone, kill
    everything left (each death hands us its own children, killed in turn), then end as it did."""
    me = os.getpid()
    status: int | None = None
    while True:
        if status is not None:
            for pid in _children_of(me):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        try:
            pid, code = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if pid == worker_pid:
            status = code
    if status is not None and os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(me, sig)
    os._exit(os.waitstatus_to_exitcode(status) if status is not None else 1)


def _children_of(parent: int) -> list[int]:
    """Pids whose parent is `parent` (from /proc/<pid>/stat: this kernel may lack .../children)."""
    out = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == parent:
            out.append(int(entry.name))
    return out


def describe(status: int) -> str:
    """The way Lambda words a runtime's end: `exit status 1`, `signal: killed`."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        names = {
            signal.SIGKILL: "killed",
            signal.SIGSEGV: "segmentation fault",
            signal.SIGABRT: "aborted",
            signal.SIGTERM: "terminated",
        }
        return f"signal: {names.get(signal.Signals(sig), signal.Signals(sig).name.lower())}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def main() -> None:
    # Ctrl-C in a terminal signals the whole foreground process group: the server, not the zygote
    # and its workers, decides when they stop (it ends them on shutdown).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    confine.prctl(confine.PR_SET_CHILD_SUBREAPER, 1)
    control = socket.socket(fileno=int(sys.argv[1]))
    # What the sandbox can do here (README "Lambda sandbox"): a mount namespace, and whether the
    # Python folders are readable by a function's own uid (or can be made so in that namespace).
    confine.libc()  # loaded once here, not in every worker
    paths = confine.python_paths()
    mount_ns = os.geteuid() == 0 and confine.probe_namespaces()
    blocked = [p for p in paths if confine.blocked_folder(p)]
    if mount_ns:
        confine.EXPOSE[:] = confine.to_expose(paths)
    loader = preload()
    # Move everything imported so far out of the collector's reach: a worker's first collections
    # would otherwise touch (and copy) every page it shares with the zygote.
    gc.collect()
    gc.freeze()
    try:
        ready = {"t": "zygote_ready", "pid": os.getpid(), "boto3": loader is not None, "mount_ns": mount_ns}
        ready["unreadable"] = "" if mount_ns or not blocked else blocked[0]
        protocol.send_packet(control, ready)
    except OSError:  # the server went away while we were loading: nothing to serve
        return
    Zygote(control, loader).serve()


if __name__ == "__main__":
    main()
