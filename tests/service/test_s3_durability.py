"""kill -9 during uploads: every acknowledged object is there, whole, after a restart; none is
half-written; the bodies left between their write and their commit are swept away."""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import botocore.config
from botocore.exceptions import BotoCoreError, ClientError

CONFIG = botocore.config.Config(retries={"max_attempts": 1}, read_timeout=30, connect_timeout=5)


def test_acknowledged_objects_survive_kill_9_and_none_is_half_written(server_factory: Callable[..., Any],
                                                                      tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = server_factory(data)
    s3 = server.client("s3", config=CONFIG)
    s3.create_bucket(Bucket="durable")
    acknowledged: dict[str, str] = {}
    stop = threading.Event()

    def upload(worker: int) -> None:
        client = server.client("s3", config=CONFIG)
        n = 0
        while not stop.is_set():
            key = f"w{worker}/{n}"
            body = os.urandom(200 * 1024 if n % 2 else 2048)  # files and inline rows both
            try:
                client.put_object(Bucket="durable", Key=key, Body=body)
            except (BotoCoreError, ClientError):
                return  # the server went away mid-request: this one was never acknowledged
            acknowledged[key] = hashlib.md5(body).hexdigest()
            n += 1

    threads = [threading.Thread(target=upload, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    while len(acknowledged) < 30:
        threading.Event().wait(0.05)
    server.kill()  # kill -9 with uploads in flight
    stop.set()
    for t in threads:
        t.join(30)
    again = server_factory(data)
    s3 = again.client("s3", config=CONFIG)
    listed = {o["Key"]: o for page in s3.get_paginator("list_objects_v2").paginate(Bucket="durable")
              for o in page.get("Contents", [])}
    assert set(acknowledged) <= set(listed)
    for key, obj in listed.items():  # acknowledged or not, whatever is listed is whole
        body = s3.get_object(Bucket="durable", Key=key)["Body"].read()
        assert len(body) == obj["Size"] and f'"{hashlib.md5(body).hexdigest()}"' == obj["ETag"]
        if key in acknowledged:
            assert hashlib.md5(body).hexdigest() == acknowledged[key]
    assert list((data / "s3" / "tmp").iterdir()) == []  # partial uploads were swept at start
    blobs = {p.name for p in (data / "s3" / "blobs").rglob("*") if p.is_file()}
    assert len(blobs) == sum(1 for o in listed.values() if o["Size"] > 64 * 1024)  # no orphan files
