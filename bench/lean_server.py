"""`onceflow serve --in-memory` on wire/http.py instead of uvicorn, for bench_wire.py --lean.

It builds the stack exactly as onceflow.server does and differs only in the HTTP server, so the
two can be compared side by side; it prints the same ready line on stdout. (This is also the
shape server.py takes if it adopts wire/http.py.)

    python bench/lean_server.py [port]
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import replace

from onceflow.config import Settings
from onceflow.server import bind, build_app, build_stack
from onceflow.wire.http import serve


async def main(port: int) -> None:
    settings = Settings(port=port, in_memory=True)
    sock = bind(settings)
    settings = replace(settings, port=sock.getsockname()[1])  # Lambda workers call back on this port
    stack = build_stack(settings)
    loop = asyncio.get_running_loop()

    async def start_hooks() -> None:
        for hook in stack.on_start:
            await loop.run_in_executor(None, hook)

    def ready() -> None:
        print(f"onceflow ready at {settings.endpoint_url} (data: in memory)", flush=True)

    try:
        await serve(build_app(stack), sock, before_ready=start_hooks, ready=ready)
    finally:
        for hook in reversed(stack.on_shutdown):
            hook()
        stack.db.close()
        sock.close()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 0))
