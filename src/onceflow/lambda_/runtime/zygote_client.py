"""The server's handle on one zygote process: start it, ask it to fork workers, learn how they ended."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import onceflow
from onceflow.lambda_.runtime import protocol

_SRC_ROOT = str(Path(onceflow.__file__).resolve().parent.parent)


class ZygoteError(RuntimeError):
    pass


class ZygoteClient:
    def __init__(self, interpreter: str | None = None) -> None:
        self.interpreter = interpreter or sys.executable
        self._lock = threading.Lock()  # serializes starting and spawn requests
        self._cond = threading.Condition()
        self._statuses: dict[int, str] = {}
        self._proc: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self.mount_ns = False  # workers may have a mount namespace (a private /tmp)
        self.unreadable = ""  # a folder of this Python that another uid could not read, if any

    # ------------------------------------------------------------------ lifecycle
    def _start(self) -> socket.socket:
        if self._control is not None and self._proc is not None and self._proc.poll() is None:
            return self._control
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "PYTHONPATH": os.pathsep.join(p for p in (_SRC_ROOT, os.environ.get("PYTHONPATH")) if p),
            "LANG": "C.UTF-8",
            # Neither the zygote nor the workers it forks may read the server user's AWS files.
            "AWS_CONFIG_FILE": os.devnull,
            "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        }
        proc = subprocess.Popen(
            [self.interpreter, "-m", "onceflow.lambda_.runtime.zygote", str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            cwd="/",
        )
        theirs.close()
        try:
            header, _ = protocol.recv_packet(ours)
        except (protocol.Closed, OSError) as exc:
            proc.kill()
            proc.wait()
            raise ZygoteError(f"the Lambda zygote for {self.interpreter} failed to start") from exc
        self.mount_ns = bool(header.get("mount_ns"))
        self.unreadable = str(header.get("unreadable") or "")
        self._proc, self._control = proc, ours
        threading.Thread(target=self._read_exits, args=(ours,), name="lambda-zygote", daemon=True).start()
        return ours

    def running(self) -> bool:
        return self._control is not None and self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        with self._lock:
            self._start()

    def close(self) -> None:
        """Closing the control socket makes the zygote kill its workers and exit."""
        with self._lock:
            control, proc = self._control, self._proc
            self._control = self._proc = None
        if control is not None:
            with contextlib.suppress(OSError):
                control.shutdown(socket.SHUT_RDWR)
            control.close()
        if proc is not None:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    # ------------------------------------------------------------------ workers
    def spawn(self, spec: dict[str, Any]) -> socket.socket:
        """Fork a worker for spec; return the server's end of its socket."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with self._lock:
                control = self._start()
                protocol.send_packet(control, {"t": "spawn", "spec": spec}, [theirs.fileno()])
        except Exception:
            ours.close()
            raise
        finally:
            theirs.close()
        return ours

    def exit_status(self, pid: int, wait_s: float = 2.0) -> str | None:
        """How worker pid ended (`exit status 1`, `signal: killed`), waiting briefly for the report."""
        with self._cond:
            self._cond.wait_for(lambda: pid in self._statuses, timeout=wait_s)
            return self._statuses.pop(pid, None)

    def forget(self, pid: int) -> None:
        with self._cond:
            self._statuses.pop(pid, None)

    def _read_exits(self, control: socket.socket) -> None:
        while True:
            try:
                header, _ = protocol.recv_packet(control)
            except (protocol.Closed, OSError):
                return
            if header.get("t") == "exited":
                with self._cond:
                    self._statuses[int(header["pid"])] = str(header["status"])
                    if len(self._statuses) > 10_000:  # statuses nobody asked for (killed idle workers)
                        self._statuses.pop(next(iter(self._statuses)))
                    self._cond.notify_all()
