"""A worker that writes an order in two steps without a transaction: a failure between them leaves
half an order."""
import os

import boto3


def handler(event, context):
    db = boto3.client("dynamodb")
    if event.get("stage") == "summary":
        return {"id": event["id"], "completed": True}
    key = {"id": {"S": event["id"]}}
    db.put_item(TableName=os.environ["ORDERS_TABLE"], Item={**key, "quantity": {"N": str(event["quantity"])}},
                ConditionExpression="attribute_not_exists(id) OR quantity = :q",
                ExpressionAttributeValues={":q": {"N": str(event["quantity"])}})
    db.update_item(TableName=os.environ["ORDERS_TABLE"], Key=key, UpdateExpression="SET shipped = :t",
                   ExpressionAttributeValues={":t": {"BOOL": True}})
    return {"id": event["id"], "quantity": event["quantity"]}
