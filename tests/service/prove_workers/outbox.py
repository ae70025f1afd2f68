"""A worker that announces the order on an SQS queue, with no deduplication: a repeated call
sends the message again."""
import json
import os

import boto3


def handler(event, context):
    if event.get("stage") == "summary":
        return {"id": event["id"], "completed": True}
    queue = boto3.client("sqs").get_queue_url(QueueName=os.environ["ORDERS_TABLE"].replace("-orders", "-outbox"))
    boto3.client("sqs").send_message(QueueUrl=queue["QueueUrl"], MessageBody=json.dumps(event, sort_keys=True),
                                     MessageAttributes={"kind": {"DataType": "String", "StringValue": "order"}})
    return {"id": event["id"], "quantity": event["quantity"]}
