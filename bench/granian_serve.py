"""onceflow's own ASGI app served by granian instead of uvicorn: the HTTP-server candidate of issue 23.

    PYTHONPATH=<folder with granian> python bench/granian_serve.py --data DIR

A bench harness, not a way to run onceflow: it builds the same stack and app as `onceflow serve`
(server.build_stack / build_app, the stack's start hooks) and hands the app to granian's embedded
server on the same asyncio loop, so only the HTTP layer differs. It leaves out what onceflow's
uvicorn setup adds (the connection guard of wire/connections.py, signal draining), which favours
granian slightly. Prints "onceflow ready at URL" as `onceflow serve` does (bench/servers.py reads it).
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from granian.constants import Interfaces  # type: ignore[import-not-found]  # noqa: E402
from granian.server.embed import Server as Granian  # type: ignore[import-not-found]  # noqa: E402

from onceflow.config import Settings  # noqa: E402
from onceflow.server import build_app, build_stack  # noqa: E402


def free_port() -> int:
    # granian binds the address itself; a port just freed is good enough for a bench on loopback.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def wait_listening(port: int) -> None:
    while True:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.01)
            continue
        writer.close()
        return


async def serve(data: Path) -> None:
    port = free_port()
    settings = Settings(data_dir=data, port=port)
    stack = build_stack(settings)
    app = build_app(stack)
    server = Granian(app, address="127.0.0.1", port=port, interface=Interfaces.ASGI, log_enabled=False)
    task = asyncio.create_task(server.serve())
    await wait_listening(port)
    loop = asyncio.get_running_loop()
    for hook in stack.start():
        await loop.run_in_executor(None, hook)
    print(f"onceflow ready at http://127.0.0.1:{port}", flush=True)
    await task


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    asyncio.run(serve(ap.parse_args().data))


if __name__ == "__main__":
    main()
