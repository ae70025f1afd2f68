"""Servers the benchmarks start, each in its own process (so the clients' GIL never slows it):
onceflow itself, and moto's server as a baseline."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

# A null HTTP server: answers every request with the same bytes (what boto3 alone costs).
# argv: the response as hex, then the port (0: any free one, printed on stdout).
NULL_SERVER = r'''
import asyncio, sys
RESPONSE = bytes.fromhex(sys.argv[1])

class Null(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport, self.buf = transport, b""

    def data_received(self, data):
        self.buf += data
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            length = 0
            for line in self.buf[:end].split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if len(self.buf) < end + 4 + length:
                return
            self.buf = self.buf[end + 4 + length:]
            self.transport.write(RESPONSE)

async def main(port):
    server = await asyncio.get_running_loop().create_server(Null, "127.0.0.1", port)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()

asyncio.run(main(int(sys.argv[2]) if len(sys.argv) > 2 else 0))
'''


MOTO_SERVER = r'''
import socket, sys, time
from moto.server import ThreadedMotoServer
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
srv = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
srv.start()
print(port, flush=True)
while True: time.sleep(3600)
'''


def spawn_onceflow(data: str | None, *extra: str, src: str | None = None,
                   wrapper: tuple[str, ...] = ()) -> tuple[subprocess.Popen[str], str]:
    """`onceflow serve` on a free port, on `data` (None: in memory); returns the process and URL.
    `src`: run the onceflow found in that folder (another checkout's `src`, a baseline) instead.
    `wrapper`: a command the server runs under (valgrind, strace: bench_seed_counts.py)."""
    where = ["--data", data] if data else ["--in-memory"]
    args = [*wrapper, sys.executable, "-m", "onceflow", "serve", "--port", "0", *where, *extra]
    env = None if src is None else {**os.environ, "PYTHONPATH": src}
    return _spawn_ready(args, env)


def spawn_granian(data: str) -> tuple[subprocess.Popen[str], str]:
    """onceflow's app on granian instead of uvicorn (bench/granian_serve.py; granian importable)."""
    return _spawn_ready([sys.executable, str(Path(__file__).with_name("granian_serve.py")), "--data", data], None)


def _spawn_ready(args: list[str], env: dict[str, str] | None) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    assert proc.stdout is not None
    for line in proc.stdout:
        m = re.search(r"onceflow ready at (http://\S+)", line)
        if m:
            threading.Thread(target=proc.stdout.read, daemon=True).start()
            return proc, m.group(1)
    raise RuntimeError("onceflow did not start")


def spawn_moto(config: dict[str, object] | None = None) -> tuple[subprocess.Popen[str], str]:
    """moto's threaded server (`pip install 'moto[server]'`), optionally configured (moto-api/config)."""
    proc = subprocess.Popen([sys.executable, "-c", MOTO_SERVER], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    assert proc.stdout is not None
    url = f"http://127.0.0.1:{int(proc.stdout.readline())}"
    wait_port(url)
    if config:
        body = json.dumps(config).encode()
        urllib.request.urlopen(urllib.request.Request(f"{url}/moto-api/config", data=body, method="POST"))
    return proc, url


def wait_port(url: str) -> None:
    host, port = url.split("//")[1].rsplit(":", 1)
    for _ in range(100):
        try:
            socket.create_connection((host, int(port)), 0.2).close()
            return
        except OSError:
            time.sleep(0.1)
