"""`onceflow serve --in-memory` on wire/http.py instead of uvicorn, for bench_wire.py --lean.

It builds the stack exactly as onceflow.server does and differs only in the HTTP server, so the
two can be compared side by side; it prints the same ready line on stdout.

    python bench/lean_server.py [port]
"""

from __future__ import annotations

import asyncio
import signal
import sys
from dataclasses import replace

from onceflow.config import Settings
from onceflow.server import bind, build_app, build_stack
from onceflow.wire.http import HttpServer


async def serve(port: int) -> None:
    settings = Settings(port=port, in_memory=True)
    sock = bind(settings)
    settings = replace(settings, port=sock.getsockname()[1])  # Lambda workers call back on this port
    stack = build_stack(settings)
    app = build_app(stack)
    server = HttpServer(app)
    await server.start(sock)
    loop = asyncio.get_running_loop()
    for hook in stack.on_start:
        await loop.run_in_executor(None, hook)
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    print(f"onceflow ready at {settings.endpoint_url} (data: in memory)", flush=True)
    await stop.wait()
    await server.shutdown()
    for hook in reversed(stack.on_shutdown):
        hook()
    stack.db.close()


if __name__ == "__main__":
    asyncio.run(serve(int(sys.argv[1]) if len(sys.argv) > 1 else 0))
