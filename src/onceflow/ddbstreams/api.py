"""DynamoDB Streams' four operations, each one call on onceflow.ddb.streams.Streams.

A stream ARN of another account names that account's stream: DescribeStream, GetShardIterator and
GetRecords are served across accounts (rbac-iam-actions), and the authorizer has let such a call through
only where the stream's own resource policy grants it (ddb.policies.lookup)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from onceflow.context import RequestContext
from onceflow.ddb.streams import Streams
from onceflow.registry import operation

Params = dict[str, Any]
Result = dict[str, Any]


class DynamoDBStreamsApi:
    def __init__(self, streams: Streams) -> None:
        self.streams = streams

    @operation("ListStreams")
    def list_streams(self, ctx: RequestContext, p: Params) -> Result:
        return self.streams.list_streams(ctx.account, ctx.region, _table_name(p.get("TableName")),
                                         p.get("ExclusiveStartStreamArn"), p.get("Limit"))

    @operation("DescribeStream")
    def describe_stream(self, ctx: RequestContext, p: Params) -> Result:
        return self.streams.describe_stream(_owner(ctx, p["StreamArn"]), ctx.region, p["StreamArn"])

    @operation("GetShardIterator")
    def get_shard_iterator(self, ctx: RequestContext, p: Params) -> Result:
        return {"ShardIterator": self.streams.get_shard_iterator(
            _owner(ctx, p["StreamArn"]), ctx.region, p["StreamArn"], p["ShardId"], p["ShardIteratorType"],
            p.get("SequenceNumber"), p.get("Timestamp"))}

    @operation("GetRecords")
    def get_records(self, ctx: RequestContext, p: Params) -> Result:
        owner = _owner(ctx, self.streams.iterator_stream(p["ShardIterator"]))  # an iterator names its stream
        return self.streams.get_records(owner, ctx.region, p["ShardIterator"], p.get("Limit"))


def _owner(ctx: RequestContext, arn: str | None) -> str:
    """The account whose stream an ARN names (the caller's for what is no ARN: that fails as before)."""
    parts = (arn or "").split(":")
    return parts[4] if len(parts) > 5 and parts[4] else ctx.account


def _table_name(name: str | None) -> str | None:
    """ListStreams takes a table's name or its ARN."""
    if name and name.startswith("arn:") and ":table/" in name:
        return name.split(":table/", 1)[1].split("/")[0]
    return name


def resource_arns(streams: Streams) -> Callable[[RequestContext, Params], list[str]]:
    def arns(ctx: RequestContext, p: Params) -> list[str]:
        if "StreamArn" in p:
            return [p["StreamArn"]]
        if "ShardIterator" in p:
            arn = streams.iterator_stream(p["ShardIterator"])
            return [arn] if arn else ["*"]
        return ["*"]

    return arns
