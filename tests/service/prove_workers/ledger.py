"""A worker that writes a ledger line under a new uuid key per call: a repeated call adds a line."""
import os
import uuid

import boto3


def handler(event, context):
    db = boto3.client("dynamodb")
    if event.get("stage") == "summary":
        return {"id": event["id"], "completed": True}
    db.put_item(TableName=os.environ["ORDERS_TABLE"],
                Item={"id": {"S": str(uuid.uuid4())}, "order": {"S": event["id"]}, "n": {"N": str(event["quantity"])}})
    return {"id": event["id"], "quantity": event["quantity"]}
