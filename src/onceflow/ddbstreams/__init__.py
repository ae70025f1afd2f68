"""DynamoDB Streams (the `dynamodbstreams` API): reads the change records that DynamoDB's item
writes capture (onceflow.ddb.streams); it signs as `dynamodb` and has its own X-Amz-Target prefix."""

from __future__ import annotations

from onceflow.stack import Stack


def setup(stack: Stack) -> None:
    """Register the API over the records the DynamoDB service keeps (ddb.setup runs first)."""
    from onceflow.ddbstreams.api import DynamoDBStreamsApi, resource_arns

    streams = stack.services["dynamodb"].streams
    stack.registry.add_api("dynamodbstreams", DynamoDBStreamsApi(streams))
    stack.services["dynamodbstreams"] = streams  # for a Lambda event-source poller: records_after, get_records
    stack.resource_resolvers["dynamodbstreams"] = resource_arns(streams)
