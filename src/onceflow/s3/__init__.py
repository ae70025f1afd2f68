"""s3: buckets and objects, bodies on disk (or in memory with --in-memory). See setup()."""

from __future__ import annotations

import logging
import threading
import time

from onceflow.s3 import lifecycle, restore
from onceflow.s3.api import S3Api, resolve_resources
from onceflow.s3.blobs import BlobStore
from onceflow.s3.multipart import Multipart
from onceflow.s3.notify import Notifier
from onceflow.s3.service import S3Service
from onceflow.s3.store import MIGRATIONS
from onceflow.stack import Stack

log = logging.getLogger("onceflow.s3")
LIFECYCLE_SWEEP_SECONDS = 2.0


def setup(stack: Stack) -> None:
    """Build this service's store, service and API objects and register them on the stack."""
    stack.db.migrate(MIGRATIONS)
    settings = stack.settings
    root = None if settings.in_memory or settings.data_dir is None else settings.data_dir / "s3"
    service = S3Service(stack.db, BlobStore(root))
    removed = service.sweep()  # files a crash left between their write and their commit
    if removed:
        log.info("s3: removed %d unreferenced body files", removed)
    notifier = Notifier(stack, stack.db)
    service.events = notifier
    multipart = Multipart(service)
    stack.registry.add_api("s3", S3Api(service, multipart, notifier))
    stack.services["s3"] = service
    stack.resource_resolvers["s3"] = resolve_resources
    stack.on_reset.append(service.reset)
    stack.on_reset.append(notifier.forget)
    stack.on_start.append(notifier.wake)  # events a stop or crash left in the outbox are delivered now
    stack.on_shutdown.append(notifier.stop)

    stop = threading.Event()
    sweeper = lifecycle.Sweeper(service, multipart)
    restores = restore.Expiry(service)

    def sweep() -> None:
        # AWS applies lifecycle rules and ends restored copies in the background; we look every few seconds.
        while not stop.wait(LIFECYCLE_SWEEP_SECONDS):
            try:
                sweeper.run(time.time())
                restores.run(time.time())
            except Exception:  # a closed database at shutdown ends the sweeper quietly
                if stop.is_set():
                    return
                log.exception("s3 lifecycle sweep failed")

    stack.on_start.append(lambda: threading.Thread(target=sweep, name="s3-lifecycle", daemon=True).start())
    stack.on_shutdown.append(stop.set)
