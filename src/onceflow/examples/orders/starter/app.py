"""The starter worker the labs' prepared environment deploys: it stores an order with an
UNCONDITIONAL PutItem, so a retry after the write writes again. Lab 000/001 replaces it with the
protected handler in ../protected/app.py; lab 002 uses it as it is."""

import json
import os

import boto3


class TransientOrderError(Exception):
    pass


class InvalidOrder(Exception):
    pass


def handler(event, context):
    print("WORKFLOW " + json.dumps(event, sort_keys=True))
    db = boto3.client("dynamodb")
    orders, attempts = os.environ["ORDERS_TABLE"], os.environ["ATTEMPTS_TABLE"]
    if event.get("stage") == "summary":
        item = db.get_item(TableName=orders, Key={"id": {"S": event["id"]}})["Item"]
        result = {"id": event["id"], "total_cents": int(item["total_cents"]["N"]), "completed": True}
        print("RESULT " + json.dumps(result, sort_keys=True))
        return result
    if event.get("mode") == "permanent":
        raise InvalidOrder("Order cannot be completed")
    quantity = event["quantity"]
    if isinstance(quantity, bool) or not isinstance(quantity, int) or not 1 <= quantity <= 10:
        raise InvalidOrder("Invalid quantity")
    attempt = db.update_item(
        TableName=attempts,
        Key={"id": {"S": event["id"]}},
        UpdateExpression="ADD attempts :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )["Attributes"]["attempts"]["N"]
    if event.get("mode") == "flaky" and attempt == "1":
        raise TransientOrderError("Dependency temporarily unavailable")
    total = quantity * 250 + 100
    db.put_item(
        TableName=orders,
        Item={"id": {"S": event["id"]}, "quantity": {"N": str(quantity)}, "total_cents": {"N": str(total)}},
    )
    if event.get("mode") == "after-write" and attempt == "1":
        raise TransientOrderError("Result delivery failed after the write")
    result = {"id": event["id"], "quantity": quantity, "total_cents": total}
    print("RESULT " + json.dumps(result, sort_keys=True))
    return result
