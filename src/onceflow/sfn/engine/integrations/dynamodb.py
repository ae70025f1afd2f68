"""`arn:aws:states:::dynamodb:putItem|getItem|updateItem|deleteItem`: the DynamoDB API response
plus the SDK metadata AWS adds; service errors become `DynamoDB.<Code>` with the Java SDK cause."""

from __future__ import annotations

import uuid
from typing import Any

from onceflow.context import Principal
from onceflow.errors import ServiceError
from onceflow.sfn.asl.errors import StatesError
from onceflow.sfn.engine.integrations.calls import call_service, handed_over
from onceflow.stack import Stack

MODELED = {
    "ConditionalCheckFailedException", "ProvisionedThroughputExceededException", "ResourceNotFoundException",
    "ItemCollectionSizeLimitExceededException", "TransactionConflictException", "RequestLimitExceeded",
    "InternalServerErrorException",
}


def _error(e: ServiceError) -> StatesError:
    name = e.code if e.code in MODELED else "AmazonDynamoDBException"
    return StatesError(
        f"DynamoDB.{name}",
        f"{e.message} (Service: AmazonDynamoDBv2; Status Code: {e.status}; Error Code: {e.code}; "
        f"Request ID: {uuid.uuid4().hex.upper()[:52]}; Proxy: null)",
    )


def call(stack: Stack, principal: Principal, region: str, action: str, params: Any) -> dict[str, Any]:
    operation = action[0].upper() + action[1:]
    handed_over()
    try:
        out = call_service(stack, principal, region, "dynamodb", operation, params)
    except ServiceError as e:
        raise _error(e) from None
    rid = uuid.uuid4().hex.upper()
    result = dict(out)
    result["SdkHttpMetadata"] = {
        "AllHttpHeaders": {"Content-Type": ["application/x-amz-json-1.0"], "x-amzn-RequestId": [rid]},
        "HttpHeaders": {"Content-Type": "application/x-amz-json-1.0", "x-amzn-RequestId": rid},
        "HttpStatusCode": 200,
    }
    result["SdkResponseMetadata"] = {"RequestId": rid}
    return result
