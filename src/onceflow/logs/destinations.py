"""Cross-account subscription destinations: PutDestination, PutDestinationPolicy,
DescribeDestinations, DeleteDestination, stored in logs_resources (resources.py).

A destination stands for a Kinesis stream (or Firehose stream) that other accounts' subscription
filters send to; onceflow serves neither, so destinations are kept and answered (their target is
not checked: AWS's own check puts a test record on the stream, UNCONFIRMED how it words a failure)
and a subscription filter cannot name one yet (filters.py delivers to Lambda only).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from onceflow.context import RequestContext
from onceflow.logs import errors, resources
from onceflow.logs.resources import Row
from onceflow.registry import operation
from onceflow.store.db import Database

Params = dict[str, Any]
KIND = "destination"


def _shape(row: Row) -> Params:
    out: Params = {"destinationName": row["name"], "targetArn": row["targetArn"], "roleArn": row["roleArn"]}
    if row.get("accessPolicy"):
        out["accessPolicy"] = row["accessPolicy"]
    out["arn"] = row["arn"]
    out["creationTime"] = row["created"]
    return out


class DestinationsApi:
    def __init__(self, db: Database, clock: Callable[[], int]) -> None:
        self.db = db
        self.clock = clock

    @operation("PutDestination")
    def put_destination(self, ctx: RequestContext, p: Params) -> Params:
        name = p["destinationName"]
        with self.db.transaction() as conn:
            existing = resources.get(conn, ctx.account, ctx.region, KIND, name)
            data: Params = {"targetArn": p["targetArn"], "roleArn": p["roleArn"],
                            "arn": resources.arn(ctx.region, ctx.account, KIND, name)}
            if existing is None:
                created = self.clock()
                data["tags"] = p.get("tags") or {}
            else:  # an update changes the target and the role; the policy and the tags stay
                created = existing["created"]
                data["tags"] = {**(existing.get("tags") or {}), **(p.get("tags") or {})}
                if existing.get("accessPolicy"):
                    data["accessPolicy"] = existing["accessPolicy"]
            resources.put(conn, ctx.account, ctx.region, KIND, name, created, data)
        return {"destination": _shape({"name": name, "created": created, **data})}

    @operation("PutDestinationPolicy")
    def put_destination_policy(self, ctx: RequestContext, p: Params) -> None:
        name = p["destinationName"]
        with self.db.transaction() as conn:
            row = resources.get(conn, ctx.account, ctx.region, KIND, name)
            if row is None:
                raise errors.destination_not_found()
            data = {k: v for k, v in row.items() if k not in ("name", "created")}
            data["accessPolicy"] = p["accessPolicy"]
            resources.put(conn, ctx.account, ctx.region, KIND, name, row["created"], data)

    @operation("DescribeDestinations")
    def describe_destinations(self, ctx: RequestContext, p: Params) -> Params:
        prefix = p.get("DestinationNamePrefix") or ""
        rows = self.db.read(lambda conn: resources.every(conn, ctx.account, ctx.region, KIND))
        items = [r for r in rows if r["name"].startswith(prefix)]
        return resources.page(items, p.get("nextToken"), p.get("limit"), KIND, _shape, "destinations")

    @operation("DeleteDestination")
    def delete_destination(self, ctx: RequestContext, p: Params) -> None:
        with self.db.transaction() as conn:
            if not resources.delete(conn, ctx.account, ctx.region, KIND, p["destinationName"]):
                raise errors.destination_not_found()
