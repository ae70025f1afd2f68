"""ExportTableToPointInTime writes AWS's export layout to onceflow's S3, and ImportTable reads it
back (and CSV) into a new table."""

from __future__ import annotations

import gzip
import json
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from botocore.exceptions import ClientError


def _table(ddb: Any, pitr: bool = True) -> str:
    name = f"ex-{uuid.uuid4().hex[:8]}"
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "sk", "AttributeType": "N"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}])
    if pitr:
        ddb.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})
    return name


def _arn(ddb: Any, name: str) -> str:
    return str(ddb.describe_table(TableName=name)["Table"]["TableArn"])


def _role_client(aws: Callable[..., Any], statements: list[dict[str, Any]]) -> Any:
    role = f"ex-{uuid.uuid4().hex[:8]}"
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::000000000000:root"}, "Action": "sts:AssumeRole"}]}
    aws("iam").create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))
    aws("iam").put_role_policy(RoleName=role, PolicyName="p", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": statements}))
    creds = aws("sts").assume_role(RoleArn=f"arn:aws:iam::000000000000:role/{role}", RoleSessionName="s1")[
        "Credentials"]
    return aws("dynamodb", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
               session_token=creds["SessionToken"])


def _items(ddb: Any, name: str) -> list[dict[str, Any]]:
    return sorted(ddb.scan(TableName=name)["Items"], key=lambda i: (i["pk"]["S"], i["sk"]["N"]))


def test_export_then_import_round_trips_the_items(aws: Callable[..., Any]) -> None:
    ddb, s3 = aws("dynamodb"), aws("s3")
    bucket = f"exports-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=bucket)
    name = _table(ddb)
    for i in range(3):
        ddb.put_item(TableName=name, Item={"pk": {"S": f"k{i}"}, "sk": {"N": str(i)}, "b": {"B": b"\x00\x01"},
                                           "m": {"M": {"l": {"L": [{"BOOL": True}, {"NULL": True}]}}}})
    started = ddb.export_table_to_point_in_time(TableArn=_arn(ddb, name), S3Bucket=bucket, S3Prefix="snap")[
        "ExportDescription"]
    assert started["ExportStatus"] == "IN_PROGRESS" and started["ExportFormat"] == "DYNAMODB_JSON"
    done = ddb.describe_export(ExportArn=started["ExportArn"])["ExportDescription"]
    assert done["ExportStatus"] == "COMPLETED" and done["ItemCount"] == 3
    summary = json.loads(s3.get_object(Bucket=bucket, Key=done["ExportManifest"])["Body"].read())
    assert summary["itemCount"] == 3 and summary["exportArn"] == started["ExportArn"]
    export_id = started["ExportArn"].rsplit("/", 1)[1]
    assert done["ExportManifest"] == f"snap/AWSDynamoDB/{export_id}/manifest-summary.json"
    files = [json.loads(line) for line in s3.get_object(Bucket=bucket, Key=summary["manifestFilesS3Key"])[
        "Body"].read().decode().splitlines()]
    lines = gzip.decompress(s3.get_object(Bucket=bucket, Key=files[0]["dataFileS3Key"])["Body"].read()).decode()
    assert sorted(json.loads(x)["Item"]["pk"]["S"] for x in lines.splitlines()) == ["k0", "k1", "k2"]
    assert [e["ExportArn"] for e in ddb.list_exports(TableArn=_arn(ddb, name))["ExportSummaries"]] == [
        started["ExportArn"]]

    target = f"im-{uuid.uuid4().hex[:8]}"
    imp = ddb.import_table(
        S3BucketSource={"S3Bucket": bucket, "S3KeyPrefix": f"snap/AWSDynamoDB/{export_id}/data/"},
        InputFormat="DYNAMODB_JSON", InputCompressionType="GZIP",
        TableCreationParameters={"TableName": target, "BillingMode": "PAY_PER_REQUEST",
                                 "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                                          {"AttributeName": "sk", "AttributeType": "N"}],
                                 "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                               {"AttributeName": "sk", "KeyType": "RANGE"}]})["ImportTableDescription"]
    got = ddb.describe_import(ImportArn=imp["ImportArn"])["ImportTableDescription"]
    assert (got["ImportStatus"], got["ImportedItemCount"], got["ErrorCount"]) == ("COMPLETED", 3, 0)
    assert _items(ddb, target) == _items(ddb, name)
    assert imp["ImportArn"] in [i["ImportArn"] for i in ddb.list_imports()["ImportSummaryList"]]


def test_csv_import_types_keys_by_their_definitions(aws: Callable[..., Any]) -> None:
    ddb, s3 = aws("dynamodb"), aws("s3")
    bucket = f"csv-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="in/a.csv", Body=b"pk,sk,note\nx,1,hello\ny,2,\nbroken\n")
    target = f"csv-{uuid.uuid4().hex[:8]}"
    ddb.import_table(S3BucketSource={"S3Bucket": bucket, "S3KeyPrefix": "in/"}, InputFormat="CSV",
                     TableCreationParameters={"TableName": target, "BillingMode": "PAY_PER_REQUEST",
                                              "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                                                       {"AttributeName": "sk", "AttributeType": "N"}],
                                              "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                                            {"AttributeName": "sk", "KeyType": "RANGE"}]})
    assert _items(ddb, target) == [{"pk": {"S": "x"}, "sk": {"N": "1"}, "note": {"S": "hello"}},
                                   {"pk": {"S": "y"}, "sk": {"N": "2"}}]
    imports = ddb.list_imports(TableArn=_arn(ddb, target))["ImportSummaryList"]
    got = ddb.describe_import(ImportArn=imports[0]["ImportArn"])["ImportTableDescription"]
    assert (got["ImportedItemCount"], got["ErrorCount"]) == (2, 1)


def _import_json(aws: Callable[..., Any], objects: dict[str, str]) -> tuple[str, dict[str, Any]]:
    ddb, s3 = aws("dynamodb"), aws("s3")
    bucket = f"js-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=bucket)
    for key, body in objects.items():
        s3.put_object(Bucket=bucket, Key=key, Body=body.encode())
    target = f"js-{uuid.uuid4().hex[:8]}"
    imp = ddb.import_table(S3BucketSource={"S3Bucket": bucket}, InputFormat="DYNAMODB_JSON",
                           TableCreationParameters={"TableName": target, "BillingMode": "PAY_PER_REQUEST",
                                                    "AttributeDefinitions": [{"AttributeName": "pk",
                                                                              "AttributeType": "S"}],
                                                    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
    return target, ddb.describe_import(ImportArn=imp["ImportTableDescription"]["ImportArn"])["ImportTableDescription"]


def test_json_import_reads_documents_back_to_back_and_fails_on_a_malformed_one(aws: Callable[..., Any]) -> None:
    """As recorded on DynamoDB: documents may follow each other on one line; a record that is not an
    {"Item": ...} document fails the import, which keeps the items it could read."""
    item = '{{"Item": {{"pk": {{"S": "{}"}}}}}}'
    target, got = _import_json(aws, {"a.json": item.format("a") + "\n" + item.format("b") + item.format("c")})
    counts = ("ImportStatus", "ErrorCount", "ProcessedItemCount", "ImportedItemCount")
    assert tuple(got[k] for k in counts) == ("COMPLETED", 0, 3, 3)
    assert sorted(i["pk"]["S"] for i in aws("dynamodb").scan(TableName=target)["Items"]) == ["a", "b", "c"]
    target, got = _import_json(aws, {"good.json": item.format("a"), "bad": '{"pk": {"S": "b"}}'})
    assert tuple(got[k] for k in counts) == ("FAILED", 1, 2, 1)
    assert [i["pk"]["S"] for i in aws("dynamodb").scan(TableName=target)["Items"]] == ["a"]
    _, got = _import_json(aws, {"keyless.json": '{"Item": {"other": {"S": "x"}}}\n' + item.format("a")})
    assert tuple(got[k] for k in counts) == ("COMPLETED", 1, 2, 1)  # an item without its key is only counted


def test_refusals_and_failures(aws: Callable[..., Any]) -> None:
    ddb = aws("dynamodb")
    plain = _table(ddb, pitr=False)
    with pytest.raises(ClientError) as e:
        ddb.export_table_to_point_in_time(TableArn=_arn(ddb, plain), S3Bucket="any")
    assert e.value.response["Error"]["Code"] == "PointInTimeRecoveryUnavailableException"
    with pytest.raises(ClientError) as e:
        ddb.export_table_to_point_in_time(TableArn=_arn(ddb, plain) + "-gone", S3Bucket="any")
    assert e.value.response["Error"]["Code"] == "TableNotFoundException"
    name = _table(ddb)
    started = ddb.export_table_to_point_in_time(TableArn=_arn(ddb, name), S3Bucket=f"gone-{uuid.uuid4().hex[:8]}")
    failed = ddb.describe_export(ExportArn=started["ExportDescription"]["ExportArn"])["ExportDescription"]
    assert (failed["ExportStatus"], failed["FailureCode"]) == ("FAILED", "S3NoSuchBucket")
    with pytest.raises(ClientError) as e:
        ddb.import_table(S3BucketSource={"S3Bucket": "any"}, InputFormat="CSV", TableCreationParameters={
            "TableName": name, "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"})
    assert e.value.response["Error"]["Code"] == "ResourceInUseException"


def test_an_export_holds_the_items_as_they_were_at_export_time(aws: Callable[..., Any]) -> None:
    ddb, s3 = aws("dynamodb"), aws("s3")
    bucket = f"asof-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=bucket)
    name = _table(ddb)
    ddb.put_item(TableName=name, Item={"pk": {"S": "old"}, "sk": {"N": "1"}})
    # A whole second after the first write: botocore before 1.44 sends ExportTime in whole seconds.
    time.sleep(1.05 - time.time() % 1)
    at = datetime.now(UTC).replace(microsecond=0)
    ddb.put_item(TableName=name, Item={"pk": {"S": "new"}, "sk": {"N": "2"}})
    ddb.delete_item(TableName=name, Key={"pk": {"S": "old"}, "sk": {"N": "1"}})
    arn = ddb.export_table_to_point_in_time(TableArn=_arn(ddb, name), S3Bucket=bucket, ExportTime=at)[
        "ExportDescription"]["ExportArn"]
    done = ddb.describe_export(ExportArn=arn)["ExportDescription"]
    summary = json.loads(s3.get_object(Bucket=bucket, Key=done["ExportManifest"])["Body"].read())
    files = s3.get_object(Bucket=bucket, Key=summary["manifestFilesS3Key"])["Body"].read().decode().splitlines()
    data = gzip.decompress(s3.get_object(Bucket=bucket, Key=json.loads(files[0])["dataFileS3Key"])["Body"].read())
    assert [json.loads(line)["Item"]["pk"]["S"] for line in data.decode().splitlines()] == ["old"]


def test_transfers_need_the_callers_s3_permissions(aws: Callable[..., Any]) -> None:
    ddb, s3 = aws("dynamodb"), aws("s3")
    bucket = f"perm-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=bucket)
    name = _table(ddb)
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}, "sk": {"N": "1"}})
    dynamo_only = _role_client(aws, [{"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"}])
    writer = _role_client(aws, [{"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"}, {
        "Effect": "Allow", "Action": "s3:PutObject", "Resource": f"arn:aws:s3:::{bucket}/ok/*"}])

    def export(client: Any, prefix: str) -> dict[str, Any]:
        arn = client.export_table_to_point_in_time(TableArn=_arn(ddb, name), S3Bucket=bucket, S3Prefix=prefix)[
            "ExportDescription"]["ExportArn"]
        return dict(ddb.describe_export(ExportArn=arn)["ExportDescription"])

    denied = export(dynamo_only, "ok")
    assert (denied["ExportStatus"], denied["FailureCode"]) == ("FAILED", "S3AccessDenied")
    assert "s3:PutObject" in denied["FailureMessage"]
    assert s3.list_objects_v2(Bucket=bucket).get("KeyCount") == 0  # nothing written
    assert export(writer, "elsewhere")["ExportStatus"] == "FAILED"  # the grant is for ok/* only
    done = export(writer, "ok")
    assert done["ExportStatus"] == "COMPLETED"

    source = {"S3Bucket": bucket, "S3KeyPrefix": "ok/"}
    params = {"TableName": f"im-{uuid.uuid4().hex[:8]}", "BillingMode": "PAY_PER_REQUEST",
              "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
              "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}
    lister = _role_client(aws, [{"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"},
                                {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": f"arn:aws:s3:::{bucket}"}])
    for client, missing in ((dynamo_only, "s3:ListBucket"), (lister, "s3:GetObject")):
        arn = client.import_table(S3BucketSource=source, InputFormat="DYNAMODB_JSON",
                                  TableCreationParameters=params)["ImportTableDescription"]["ImportArn"]
        got = ddb.describe_import(ImportArn=arn)["ImportTableDescription"]
        assert (got["ImportStatus"], got["FailureCode"]) == ("FAILED", "S3AccessDenied")
        assert missing in got["FailureMessage"]
