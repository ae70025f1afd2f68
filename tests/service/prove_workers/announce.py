"""A worker that publishes the order to an SNS topic (a queue subscribes to it), with no
deduplication: a repeated call publishes again."""
import json
import os

import boto3


def handler(event, context):
    if event.get("stage") == "summary":
        return {"id": event["id"], "completed": True}
    sns = boto3.client("sns")
    topic = sns.create_topic(Name=os.environ["ORDERS_TABLE"].replace("-orders", "-news"))["TopicArn"]
    sns.publish(TopicArn=topic, Message=json.dumps(event, sort_keys=True))
    return {"id": event["id"], "quantity": event["quantity"]}
