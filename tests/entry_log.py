"""A place for Lambda handlers under test to mark that they ran, outside onceflow and its sandbox."""

from __future__ import annotations

import socketserver
import threading


class EntryLog:
    """Where handlers mark their entry: a TCP listener of the test's own on loopback, so a mark
    outlives the server and needs nothing the Lambda sandbox hides (the test's files). A handler
    sends one line and waits for the ack, so a mark is recorded before the handler goes on."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._lock = threading.Lock()
        log = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                line = self.rfile.readline().decode().strip()
                with log._lock:
                    log.lines.append(line)
                self.wfile.write(b"ok\n")

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def snapshot(self) -> list[str]:
        with self._lock:
            return list(self.lines)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


# The handler's side of EntryLog: `mark(text)` returns once the mark is recorded.
MARK = """import os, socket
def mark(text):
    with socket.create_connection(("127.0.0.1", int(os.environ["ENTRY_PORT"]))) as s:
        s.sendall(text.encode() + b"\\n")
        s.makefile().readline()
"""
