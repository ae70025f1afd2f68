"""The front door's bounds, measured on a real server on loopback:

    python bench/bench_front_door.py [--bodies 6] [--mb 70] [--slow 1000]

1. Large bodies: `--bodies` concurrent Lambda CreateFunction requests of `--mb` MB each (signed
   with test/test; the zip inside is junk, so each ends in a 4xx once parsed). Prints the server's
   peak RSS (VmHWM) and how the requests were answered. The in-flight budget (256 MB) makes the
   ones that do not fit wait for room.
2. Slowloris: `--slow` connections that send half a request line and then nothing, plus as many
   that send nothing at all. Prints the server's open file descriptors while they are held and
   after the request-head deadline (10 s), and whether a normal call is answered meanwhile.
3. Half-sent bodies: 100 requests whose headers promise a body that never comes; their
   connections are closed after the body deadline (30 s).

Run it against another tree with PYTHONPATH=<tree>/src to compare (e.g. /work/main/src).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from serverproc import ServerProcess, signed_headers


def status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return -1


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def large_bodies(server: ServerProcess, count: int, mb: int) -> None:
    pid = server.proc.pid  # type: ignore[union-attr]
    zip_b64 = "A" * (mb * 1024 * 1024)
    body = json.dumps({"FunctionName": "big", "Runtime": "python3.12", "Handler": "a.h",
                       "Role": "arn:aws:iam::000000000000:role/r", "Code": {"ZipFile": zip_b64}}).encode()
    del zip_b64
    url = server.url + "/2015-03-31/functions"
    headers = signed_headers("POST", url, "lambda", body, {"Content-Type": "application/json"})
    results: list[str] = []
    port = int(server.url.rsplit(":", 1)[1])

    def send() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        try:
            conn.request("POST", "/2015-03-31/functions", body=body, headers=headers)
            resp = conn.getresponse()
            results.append(f"{resp.status} {resp.getheader('x-amzn-errortype')}")
            resp.read()
        except OSError as exc:
            results.append(f"error {exc}")
        finally:
            conn.close()

    before = status_kb(pid, "VmRSS")
    started = time.perf_counter()
    threads = [threading.Thread(target=send) for _ in range(count)]
    for t in threads:
        t.start()
    peak_seen = 0
    while any(t.is_alive() for t in threads):
        peak_seen = max(peak_seen, status_kb(pid, "VmRSS"))
        time.sleep(0.05)
    wall = time.perf_counter() - started
    print(f"{count} x {len(body) / 2**20:.0f} MB bodies at once: server RSS {before / 1024:.0f} MB before, peak "
          f"{status_kb(pid, 'VmHWM') / 1024:.0f} MB (VmHWM; sampled max {peak_seen / 1024:.0f} MB), "
          f"{status_kb(pid, 'VmRSS') / 1024:.0f} MB after; {wall:.1f} s")
    print(f"  answers: {sorted(results)}")


def slowloris(server: ServerProcess, count: int) -> None:
    pid = server.proc.pid  # type: ignore[union-attr]
    port = int(server.url.rsplit(":", 1)[1])
    base = open_fds(pid)
    socks = []
    for i in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        if i % 2 == 0:
            s.sendall(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Tar")  # half a request head
        socks.append(s)
    time.sleep(1.0)
    held = open_fds(pid)
    t0 = time.perf_counter()
    ok = server.client("sts").get_caller_identity()["Account"] == "000000000000"
    served = time.perf_counter() - t0
    print(f"{count} slowloris connections (half with half a request line, half silent): server fds {base} before, "
          f"{held} while held; a normal call meanwhile {'answered' if ok else 'FAILED'} in {served * 1000:.1f} ms")
    deadline = time.time() + 20
    while time.time() < deadline and open_fds(pid) > base + 5:
        time.sleep(0.5)
    print(f"  after the request-head deadline: {open_fds(pid)} fds, {time.time() - (deadline - 20) + 1:.1f} s after "
          "the burst")
    closed = 0
    for s in socks:
        try:
            s.settimeout(0.01)
            closed += s.recv(1) == b""
        except (TimeoutError, BlockingIOError):
            pass
        except OSError:
            closed += 1
        s.close()
    print(f"  connections the server had closed: {closed} of {count}")


def half_bodies(server: ServerProcess, count: int = 100) -> None:
    pid = server.proc.pid  # type: ignore[union-attr]
    port = int(server.url.rsplit(":", 1)[1])
    base = open_fds(pid)
    body = b"{}"
    url = server.url + "/"
    headers = signed_headers("POST", url, "dynamodb", body, {"X-Amz-Target": "DynamoDB_20120810.ListTables",
                                                              "Content-Type": "application/x-amz-json-1.0"})
    head = "POST / HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    head += f"Host: 127.0.0.1:{port}\r\nContent-Length: 1000\r\n\r\n"
    socks = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(head.encode() + b"{")
        socks.append(s)
    time.sleep(1)
    print(f"{count} half-sent bodies: server fds {base} before, {open_fds(pid)} while held")
    started = time.time()
    while time.time() - started < 45 and open_fds(pid) > base + 5:
        time.sleep(0.5)
    answers = []
    for s in socks:
        s.settimeout(1)
        try:
            answers.append(s.recv(200).split(b"\r\n", 1)[0].decode())
        except OSError as exc:
            answers.append(str(exc))
        s.close()
    print(f"  closed after {time.time() - started + 1:.0f} s: {open_fds(pid)} fds; answers {sorted(set(answers))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bodies", type=int, default=6)
    parser.add_argument("--mb", type=int, default=70)
    parser.add_argument("--slow", type=int, default=1000)
    parser.add_argument("--skip-half", action="store_true")
    args = parser.parse_args()
    for part in ("bodies", "slow", "half"):
        if part == "half" and args.skip_half:
            continue
        server = ServerProcess().start()
        try:
            if part == "bodies":
                large_bodies(server, args.bodies, args.mb)
            elif part == "slow":
                slowloris(server, args.slow)
            else:
                half_bodies(server)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
