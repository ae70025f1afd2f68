"""DynamoDB: tables, items, the expression languages and atomic conditional writes."""

from __future__ import annotations

import threading

from onceflow.stack import Stack

TTL_SWEEP_SECONDS = 5.0
HISTORY_SWEEPS = 720  # point-in-time recovery's old versions are dropped about hourly


def setup(stack: Stack) -> None:
    """Build the store, service and API objects and register them on the stack."""
    from onceflow.ddb.api import DynamoDBApi, resource_arns
    from onceflow.ddb.backups import MIGRATIONS as BACKUP_MIGRATIONS
    from onceflow.ddb.export import MIGRATIONS as EXPORT_MIGRATIONS
    from onceflow.ddb.policies import MIGRATIONS as POLICY_MIGRATIONS
    from onceflow.ddb.service import DynamoDB
    from onceflow.ddb.store import MIGRATIONS, fill_key_hashes
    from onceflow.ddb.streams import MIGRATIONS as STREAM_MIGRATIONS

    applied = stack.db.migrate(MIGRATIONS + STREAM_MIGRATIONS + BACKUP_MIGRATIONS + POLICY_MIGRATIONS
                               + EXPORT_MIGRATIONS)
    if "ddb-0004" in applied:  # items stored before Scan's hash order get their hash once
        with stack.db.transaction() as conn:
            fill_key_hashes(conn)
    svc = DynamoDB(stack.db)
    svc.time_scale = lambda: stack.settings.time_scale  # /_onceflow/time-scale replaces the settings
    # S3 is set up after DynamoDB; stack.authorize is IAM's, installed before.
    api = DynamoDBApi(svc, stack.ports.objects, lambda ctx, params: stack.authorize(ctx, params))
    stack.registry.add_api("dynamodb", api)
    stack.action_resolvers["dynamodb"] = api.authorization_requests
    stack.resource_policies["dynamodb"] = api.policies.lookup
    stack.resource_policies["dynamodbstreams"] = api.policies.lookup  # a stream's policy governs its reads
    stack.services["dynamodb"] = svc
    stack.resource_resolvers["dynamodb"] = resource_arns
    stack.on_reset.append(svc.forget_tables)
    stack.on_reset.append(api.policies.forget)

    stop = threading.Event()

    def sweep() -> None:
        # DynamoDB deletes expired items (and stream records past 24 hours) in the background; so do we.
        sweeps = 0
        while not stop.wait(TTL_SWEEP_SECONDS):
            sweeps += 1
            try:
                svc.expire()
                svc.streams.trim()
                if sweeps % HISTORY_SWEEPS == 0:
                    svc.backups.trim()
            except Exception:  # a closed database at shutdown ends the sweeper quietly
                if stop.is_set():
                    return

    def start() -> None:
        threading.Thread(target=sweep, name="ddb-ttl", daemon=True).start()

    stack.on_start.append(start)
    stack.on_shutdown.append(stop.set)
