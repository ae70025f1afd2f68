"""The testing API's own server: a `python -m onceflow serve` child process on a loopback port
(ServerChild, the default), or a server on a thread of the test process (ServerThread).

A child keeps the test process's warnings filters (pytest's `-W error`), monkeypatches, frozen
clocks and environment away from the server, and its threads do not compete with the test's for
one GIL. A thread starts in a fraction of the time: no interpreter to start, and onceflow's
modules are imported once.
"""

from __future__ import annotations

import atexit
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from onceflow.testing.errors import OnceflowError

READY = re.compile(r"onceflow ready at (http://\S+)")


class ServerChild:
    def __init__(self, *, data: Path | None = None, port: int = 0, time_scale: float = 1.0,
                 extra_args: tuple[str, ...] = ()) -> None:
        self.data = data
        self.port = port
        self.time_scale = time_scale
        self.extra_args = extra_args
        self.proc: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None
        fd, name = tempfile.mkstemp(prefix="onceflow-test-server-", suffix=".log")
        os.close(fd)
        self.log_path = Path(name)

    def start(self, timeout: float = 60.0) -> str:
        """Start the server and return its endpoint once it answers."""
        args = [sys.executable, "-m", "onceflow", "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        args += ["--data", str(self.data)] if self.data is not None else ["--in-memory"]
        if self.time_scale != 1.0:
            args += ["--time-scale", repr(self.time_scale)]
        args += list(self.extra_args)
        # The server must not take the test session's AWS settings (AWS_ENDPOINT_URL pointing at itself).
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        with self.log_path.open("w") as log:
            self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL,
                                         text=True, env=env)
        # A script that forgets close() (or ends on an exception) still stops its server; in the
        # same process group, a Ctrl-C reaches it too.
        atexit.register(self.stop)
        found: list[str] = []
        ready = threading.Event()
        self._reader = threading.Thread(target=self._read_ready, args=(found, ready), daemon=True)
        self._reader.start()
        ready.wait(timeout)
        if not found:
            tail = self.log_tail()
            self.kill()
            why = tail.strip().splitlines()[-1] if tail.strip() else f"no answer within {timeout:g} s"
            raise OnceflowError(f"the onceflow server did not start: {why}")
        return found[0]

    def _read_ready(self, found: list[str], ready: threading.Event) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        try:
            for line in self.proc.stdout:
                match = READY.search(line)
                if match and not found:
                    found.append(match.group(1))
                    ready.set()
                # and on: drained so the child never blocks on a full pipe
        except (OSError, ValueError):
            pass
        ready.set()  # the child ended (or its pipe did) without a ready line

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM (the clean shutdown path), SIGKILL if it does not end in time."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        self._close()

    def kill(self) -> None:
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        self._close()

    def _close(self) -> None:
        atexit.unregister(self.stop)
        if self._reader is not None:
            self._reader.join(5)  # the child is gone: its stdout is at EOF
            self._reader = None
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()
        self.log_path.unlink(missing_ok=True)


class ServerThread:
    """onceflow.server.ThreadedServer behind ServerChild's start/stop."""

    def __init__(self, *, data: Path | None = None, port: int = 0, time_scale: float = 1.0) -> None:
        self.data = data
        self.port = port
        self.time_scale = time_scale
        self._server: Any = None

    def start(self, timeout: float = 60.0) -> str:
        from onceflow.config import Settings
        from onceflow.server import StartupError, ThreadedServer

        settings = Settings(host="127.0.0.1", port=self.port, data_dir=self.data, in_memory=self.data is None,
                            time_scale=self.time_scale)
        self._server = ThreadedServer(settings)
        try:
            endpoint = self._server.start(timeout)
        except (StartupError, OSError) as exc:
            self._server = None
            raise OnceflowError(str(exc)) from None
        atexit.register(self.stop)
        return endpoint

    def stop(self, timeout: float = 30.0) -> None:
        atexit.unregister(self.stop)
        if self._server is not None:
            self._server.stop(timeout)
            self._server = None
