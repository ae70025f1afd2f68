"""Vended-logs deliveries (sources, destinations, their policies, deliveries) and cross-account
destinations: stored, answered in AWS's shapes (LocalStack's test_logs_delivery and
test_logs_destinations snapshots, recorded on AWS), refused with AWS's errors, tagged by ARN."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from calls import refused, unique

ACCOUNT = "000000000000"
REGION = "us-east-1"
CLOUDFRONT = f"arn:aws:cloudfront::{ACCOUNT}:distribution/E1Q5F5862X9VJ5"
POLICY = json.dumps({"Version": "2012-10-17", "Statement": [{
    "Sid": "AllowLogDeliveryActions", "Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
    "Action": "logs:CreateDelivery", "Resource": f"arn:aws:logs:{REGION}:{ACCOUNT}:delivery-source:*"}]})





def s3_destination(logs: Any, name: str, bucket: str = "some-bucket", **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = logs.put_delivery_destination(
        name=name, deliveryDestinationConfiguration={"destinationResourceArn": f"arn:aws:s3:::{bucket}"}, **extra)
    return out["deliveryDestination"]


def test_delivery_destination_shapes_update_and_policy(logs: Any) -> None:
    name = unique("dd")
    made = s3_destination(logs, name, outputFormat="json", tags={"k": "v"})
    arn = f"arn:aws:logs:{REGION}:{ACCOUNT}:delivery-destination:{name}"
    assert made == {"name": name, "arn": arn, "deliveryDestinationType": "S3", "outputFormat": "json",
                    "deliveryDestinationConfiguration": {"destinationResourceArn": "arn:aws:s3:::some-bucket"}}
    assert logs.list_tags_for_resource(resourceArn=arn)["tags"] == {"k": "v"}
    code, _ = refused(logs.put_delivery_destination, name=name, outputFormat="plain",
                      deliveryDestinationConfiguration={"destinationResourceArn": "arn:aws:s3:::x"})
    assert code == "ValidationException"
    assert refused(logs.put_delivery_destination, name=name, tags={"k2": "v2"},
                   deliveryDestinationConfiguration={"destinationResourceArn": "arn:aws:s3:::x"})[0] == \
        "ConflictException"
    # An update overwrites every parameter (documented): one without outputFormat leaves none.
    updated = s3_destination(logs, name, bucket="second-bucket")
    assert updated["deliveryDestinationConfiguration"] == {"destinationResourceArn": "arn:aws:s3:::second-bucket"}
    assert "outputFormat" not in updated
    assert logs.get_delivery_destination(name=name)["deliveryDestination"] == updated

    assert logs.get_delivery_destination_policy(deliveryDestinationName=name)["policy"] == {}
    put = logs.put_delivery_destination_policy(deliveryDestinationName=name, deliveryDestinationPolicy=POLICY)
    assert put["policy"] == {"deliveryDestinationPolicy": POLICY}
    assert logs.get_delivery_destination_policy(deliveryDestinationName=name)["policy"] == {
        "deliveryDestinationPolicy": POLICY}
    logs.delete_delivery_destination_policy(deliveryDestinationName=name)
    assert logs.get_delivery_destination_policy(deliveryDestinationName=name)["policy"] == {}

    logs.delete_delivery_destination(name=name)
    missing = ("ResourceNotFoundException", "Requested Delivery Destination does not exist in this account.")
    assert refused(logs.get_delivery_destination, name=name) == missing
    assert refused(logs.delete_delivery_destination, name=name) == missing
    assert refused(logs.put_delivery_destination_policy, deliveryDestinationName=name,
                   deliveryDestinationPolicy=POLICY) == missing
    assert name not in [d["name"] for d in logs.describe_delivery_destinations()["deliveryDestinations"]]


def test_delivery_model_refusal_is_a_validation_exception(logs: Any) -> None:
    code, message = refused(logs.put_delivery_destination, name=unique("dd"), outputFormat="foobar",
                            deliveryDestinationConfiguration={"destinationResourceArn": "arn:aws:s3:::x"})
    assert code == "ValidationException" and "outputFormat" in message


def test_delivery_sources(logs: Any) -> None:
    name = unique("ds")
    made = logs.put_delivery_source(name=name, resourceArn=CLOUDFRONT, logType="ACCESS_LOGS",
                                    tags={"key1": "value1"})["deliverySource"]
    assert made == {"name": name, "arn": f"arn:aws:logs:{REGION}:{ACCOUNT}:delivery-source:{name}",
                    "resourceArns": [CLOUDFRONT], "service": "cloudfront", "logType": "ACCESS_LOGS",
                    "tags": {"key1": "value1"}}
    assert logs.get_delivery_source(name=name)["deliverySource"] == made
    assert refused(logs.put_delivery_source, name=unique("ds"), resourceArn="arn:aws:s3:::a-bucket",
                   logType="ACCESS_LOGS") == ("ResourceNotFoundException", "Cannot access provided service.")
    assert refused(logs.put_delivery_source, name=unique("ds"), resourceArn=CLOUDFRONT,
                   logType="EVENT_LOGS")[0] == "ValidationException"
    assert refused(logs.put_delivery_source, name=name, resourceArn=CLOUDFRONT[:-1] + "X",
                   logType="ACCESS_LOGS")[0] == "ConflictException"
    listed = [s["name"] for s in logs.describe_delivery_sources()["deliverySources"]]
    assert name in listed
    logs.delete_delivery_source(name=name)
    assert refused(logs.get_delivery_source, name=name) == (
        "ResourceNotFoundException", "Requested Delivery Source does not exist in this account.")


def test_deliveries_pair_a_source_and_a_destination(logs: Any) -> None:
    source, destination = unique("ds"), unique("dd")
    logs.put_delivery_source(name=source, resourceArn=CLOUDFRONT, logType="ACCESS_LOGS")
    dest_arn = s3_destination(logs, destination)["arn"]
    made = logs.create_delivery(deliverySourceName=source, deliveryDestinationArn=dest_arn, recordFields=["date"],
                                fieldDelimiter=",", tags={"key1": "value1"},
                                s3DeliveryConfiguration={"suffixPath": "AWSLogs/", "enableHiveCompatiblePath": True})
    delivery = made["delivery"]
    assert delivery == {
        "id": delivery["id"], "arn": f"arn:aws:logs:{REGION}:{ACCOUNT}:delivery:{delivery['id']}",
        "deliverySourceName": source, "deliveryDestinationArn": dest_arn, "deliveryDestinationType": "S3",
        "recordFields": ["date"], "fieldDelimiter": ",", "tags": {"key1": "value1"},
        "s3DeliveryConfiguration": {"suffixPath": "AWSLogs/", "enableHiveCompatiblePath": True}}
    assert delivery["id"].isalnum()
    assert logs.get_delivery(id=delivery["id"])["delivery"] == delivery
    assert refused(logs.create_delivery, deliverySourceName=source, deliveryDestinationArn=dest_arn)[0] == \
        "ConflictException"
    other = s3_destination(logs, unique("dd"))["arn"]  # a second S3 destination for the same source
    assert refused(logs.create_delivery, deliverySourceName=source, deliveryDestinationArn=other)[0] == \
        "ConflictException"
    # Neither end can go while the delivery pairs them (documented).
    assert refused(logs.delete_delivery_source, name=source)[0] == "ConflictException"
    assert refused(logs.delete_delivery_destination, name=destination)[0] == "ConflictException"

    logs.update_delivery_configuration(id=delivery["id"], recordFields=["date", "time"])
    assert logs.get_delivery(id=delivery["id"])["delivery"]["recordFields"] == ["date", "time"]
    assert delivery["id"] in [d["id"] for d in logs.describe_deliveries()["deliveries"]]
    logs.tag_resource(resourceArn=delivery["arn"], tags={"key2": "value2"})
    assert logs.list_tags_for_resource(resourceArn=delivery["arn"])["tags"] == {"key1": "value1", "key2": "value2"}

    logs.delete_delivery(id=delivery["id"])
    missing = ("ResourceNotFoundException", "Requested Delivery does not exist in this account.")
    assert refused(logs.get_delivery, id=delivery["id"]) == missing
    assert refused(logs.delete_delivery, id=delivery["id"]) == missing
    logs.delete_delivery_source(name=source)
    logs.delete_delivery_destination(name=destination)
    assert refused(logs.create_delivery, deliverySourceName=source, deliveryDestinationArn=other)[1] == \
        "Requested Delivery Source does not exist in this account."


def test_describe_pages(logs: Any) -> None:
    names = sorted(unique("pg") for _ in range(3))
    for n in names:
        s3_destination(logs, n)
    seen: list[str] = []
    token = None
    while True:
        page = logs.describe_delivery_destinations(limit=2, **({"nextToken": token} if token else {}))
        assert len(page["deliveryDestinations"]) <= 2
        seen += [d["name"] for d in page["deliveryDestinations"]]
        token = page.get("nextToken")
        if not token:
            break
    assert [n for n in seen if n in names] == names
    assert refused(logs.describe_delivery_destinations, nextToken="bogus") == (
        "InvalidParameterException", "The specified nextToken is invalid.")
    for n in names:
        logs.delete_delivery_destination(name=n)


def test_destinations(logs: Any) -> None:
    name = unique("dest")
    target = f"arn:aws:kinesis:{REGION}:{ACCOUNT}:stream/s"
    role = f"arn:aws:iam::{ACCOUNT}:role/r"
    made = logs.put_destination(destinationName=name, targetArn=target, roleArn=role,
                                tags={"key1": "val1"})["destination"]
    arn = f"arn:aws:logs:{REGION}:{ACCOUNT}:destination:{name}"
    assert made == {"destinationName": name, "targetArn": target, "roleArn": role, "arn": arn,
                    "creationTime": made["creationTime"]}
    access = json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"AWS": "111111111111"}, "Action": "logs:PutSubscriptionFilter",
        "Resource": arn}]})
    logs.put_destination_policy(destinationName=name, accessPolicy=access)
    again = logs.put_destination(destinationName=name, targetArn=target + "2", roleArn=role)["destination"]
    assert again["creationTime"] == made["creationTime"] and again["accessPolicy"] == access
    assert again["targetArn"] == target + "2"
    listed = logs.describe_destinations(DestinationNamePrefix=name)["destinations"]
    assert listed == [again]
    assert logs.describe_destinations(DestinationNamePrefix=unique("none"))["destinations"] == []

    logs.tag_resource(resourceArn=arn, tags={"key2": "val2"})
    assert logs.list_tags_for_resource(resourceArn=arn)["tags"] == {"key1": "val1", "key2": "val2"}
    logs.untag_resource(resourceArn=arn, tagKeys=["key2"])
    assert logs.list_tags_for_resource(resourceArn=arn)["tags"] == {"key1": "val1"}

    logs.delete_destination(destinationName=name)
    assert logs.describe_destinations(DestinationNamePrefix=name)["destinations"] == []
    assert refused(logs.delete_destination, destinationName=name)[0] == "ResourceNotFoundException"
    assert refused(logs.put_destination_policy, destinationName=name, accessPolicy=access)[0] == \
        "ResourceNotFoundException"
    assert refused(logs.list_tags_for_resource, resourceArn=arn)[0] == "ResourceNotFoundException"


def test_deliveries_destinations_and_policies_survive_kill9(server_factory: Callable[..., Any],
                                                            tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = server_factory(data)
    logs = server.client("logs")
    logs.put_delivery_source(name="src", resourceArn=CLOUDFRONT, logType="ACCESS_LOGS")
    dest_arn = s3_destination(logs, "dst")["arn"]
    logs.put_delivery_destination_policy(deliveryDestinationName="dst", deliveryDestinationPolicy=POLICY)
    delivery = logs.create_delivery(deliverySourceName="src", deliveryDestinationArn=dest_arn)["delivery"]
    logs.put_destination(destinationName="x", targetArn="arn:aws:kinesis:us-east-1:000000000000:stream/s",
                         roleArn="arn:aws:iam::000000000000:role/r")
    logs.create_log_group(logGroupName="/kept")
    logs.put_account_policy(policyName="idx", policyType="FIELD_INDEX_POLICY", policyDocument='{"Fields": ["id"]}')
    server.kill()

    logs = server_factory(data).client("logs")  # Logs starts with the server: its tables hold rows
    assert logs.get_delivery(id=delivery["id"])["delivery"] == delivery
    assert logs.get_delivery_source(name="src")["deliverySource"]["resourceArns"] == [CLOUDFRONT]
    assert logs.get_delivery_destination_policy(deliveryDestinationName="dst")["policy"] == {
        "deliveryDestinationPolicy": POLICY}
    assert [d["destinationName"] for d in logs.describe_destinations()["destinations"]] == ["x"]
    assert [p["policyName"] for p in logs.describe_account_policies(policyType="FIELD_INDEX_POLICY")[
        "accountPolicies"]] == ["idx"]
