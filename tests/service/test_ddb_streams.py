"""DynamoDB Streams through boto3: StreamSpecification on tables, records of every item write in
order with the four view types, the dynamodbstreams API, TTL deletes, durability across kill -9."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from serverproc import client_factory

KEYS = [{"AttributeName": "pk", "KeyType": "HASH"}]
ATTRS = [{"AttributeName": "pk", "AttributeType": "S"}]


@pytest.fixture(scope="module")
def ddb(aws: Any) -> Any:
    return aws("dynamodb")


@pytest.fixture(scope="module")
def streams(aws: Any) -> Any:
    return aws("dynamodbstreams")


def make_table(ddb: Any, view: str | None = "NEW_AND_OLD_IMAGES") -> tuple[str, dict[str, Any]]:
    name = f"st-{uuid.uuid4().hex[:10]}"
    kw: dict[str, Any] = {"StreamSpecification": {"StreamEnabled": True, "StreamViewType": view}} if view else {}
    d = ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", AttributeDefinitions=ATTRS, KeySchema=KEYS,
                         **kw)["TableDescription"]
    return name, d


def read_all(streams: Any, arn: str, kind: str = "TRIM_HORIZON", **kw: Any) -> list[dict[str, Any]]:
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType=kind, **kw)["ShardIterator"]
    out: list[dict[str, Any]] = []
    while it:
        r = streams.get_records(ShardIterator=it)
        out += r["Records"]
        if not r["Records"]:
            break
        it = r.get("NextShardIterator")
    return out


def test_table_describes_its_stream(ddb: Any, streams: Any) -> None:
    name, d = make_table(ddb)
    assert d["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    arn = d["LatestStreamArn"]
    assert arn == f"{d['TableArn']}/stream/{d['LatestStreamLabel']}"
    assert ddb.describe_table(TableName=name)["Table"]["LatestStreamArn"] == arn
    listed = streams.list_streams(TableName=name)["Streams"]
    assert listed == [{"StreamArn": arn, "TableName": name, "StreamLabel": d["LatestStreamLabel"]}]
    sd = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert (sd["StreamStatus"], sd["StreamViewType"], sd["TableName"], sd["KeySchema"]) == (
        "ENABLED", "NEW_AND_OLD_IMAGES", name, KEYS)
    assert len(sd["Shards"]) == 1 and "EndingSequenceNumber" not in sd["Shards"][0]["SequenceNumberRange"]


def test_records_of_each_write_in_order(ddb: Any, streams: Any) -> None:
    name, d = make_table(ddb)
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}, "v": {"N": "1"}})
    ddb.update_item(TableName=name, Key={"pk": {"S": "a"}}, UpdateExpression="SET v = :v",
                    ExpressionAttributeValues={":v": {"N": "2"}})
    ddb.update_item(TableName=name, Key={"pk": {"S": "a"}}, UpdateExpression="SET v = :v",
                    ExpressionAttributeValues={":v": {"N": "2"}})  # changes nothing: no record
    ddb.delete_item(TableName=name, Key={"pk": {"S": "a"}})
    ddb.delete_item(TableName=name, Key={"pk": {"S": "never"}})  # deletes nothing: no record
    ddb.transact_write_items(TransactItems=[{"Put": {"TableName": name, "Item": {"pk": {"S": "t"}}}}])
    ddb.batch_write_item(RequestItems={name: [{"PutRequest": {"Item": {"pk": {"S": "b"}}}}]})
    ddb.execute_statement(Statement=f"INSERT INTO \"{name}\" VALUE {{'pk': 'q'}}")
    recs = read_all(streams, d["LatestStreamArn"])
    assert [(r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"]) for r in recs] == [
        ("INSERT", "a"), ("MODIFY", "a"), ("REMOVE", "a"), ("INSERT", "t"), ("INSERT", "b"), ("INSERT", "q")]
    first, modify = recs[0], recs[1]
    assert (first["eventVersion"], first["eventSource"], first["awsRegion"]) == ("1.1", "aws:dynamodb", "us-east-1")
    assert modify["dynamodb"]["OldImage"] == {"pk": {"S": "a"}, "v": {"N": "1"}}
    assert modify["dynamodb"]["NewImage"] == {"pk": {"S": "a"}, "v": {"N": "2"}}
    assert modify["dynamodb"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert modify["dynamodb"]["SizeBytes"] > 0
    assert "NewImage" not in recs[2]["dynamodb"] and recs[2]["dynamodb"]["OldImage"]["v"] == {"N": "2"}
    seqs = [int(r["dynamodb"]["SequenceNumber"]) for r in recs]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert len({r["eventID"] for r in recs}) == len(recs)


@pytest.mark.parametrize(("view", "has_new", "has_old"), [
    ("KEYS_ONLY", False, False), ("NEW_IMAGE", True, False), ("OLD_IMAGE", False, True)])
def test_view_types(ddb: Any, streams: Any, view: str, has_new: bool, has_old: bool) -> None:
    name, d = make_table(ddb, view)
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}, "v": {"N": "1"}})
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}, "v": {"N": "2"}})
    rec = read_all(streams, d["LatestStreamArn"])[1]["dynamodb"]
    assert rec["Keys"] == {"pk": {"S": "a"}}
    assert ("NewImage" in rec, "OldImage" in rec) == (has_new, has_old)
    assert rec["StreamViewType"] == view


def test_iterator_types(ddb: Any, streams: Any) -> None:
    name, d = make_table(ddb, "KEYS_ONLY")
    arn = d["LatestStreamArn"]
    for k in "abc":
        ddb.put_item(TableName=name, Item={"pk": {"S": k}})
    recs = read_all(streams, arn)
    second = recs[1]["dynamodb"]["SequenceNumber"]
    keys = [r["dynamodb"]["Keys"]["pk"]["S"] for r in read_all(streams, arn, "AT_SEQUENCE_NUMBER",
                                                                 SequenceNumber=second)]
    assert keys == ["b", "c"]
    keys = [r["dynamodb"]["Keys"]["pk"]["S"] for r in read_all(streams, arn, "AFTER_SEQUENCE_NUMBER",
                                                                 SequenceNumber=second)]
    assert keys == ["c"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    latest = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="LATEST")["ShardIterator"]
    r = streams.get_records(ShardIterator=latest)
    assert r["Records"] == []
    ddb.put_item(TableName=name, Item={"pk": {"S": "d"}})
    r = streams.get_records(ShardIterator=r["NextShardIterator"], Limit=10)
    assert [x["dynamodb"]["Keys"]["pk"]["S"] for x in r["Records"]] == ["d"]
    # AT_TIMESTAMP and its Timestamp arrived in botocore 1.44's model; the suite's lowest botocore lacks both.
    if "Timestamp" in streams.meta.service_model.operation_model("GetShardIterator").input_shape.members:
        at = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="AT_TIMESTAMP",
                                        Timestamp=recs[0]["dynamodb"]["ApproximateCreationDateTime"])["ShardIterator"]
        assert streams.get_records(ShardIterator=at)["Records"][0]["dynamodb"]["Keys"] == {"pk": {"S": "a"}}
    limited = streams.get_records(ShardIterator=streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")["ShardIterator"], Limit=2)
    assert len(limited["Records"]) == 2


def test_disabling_closes_the_shard_and_a_new_stream_starts(ddb: Any, streams: Any) -> None:
    name, d = make_table(ddb, "KEYS_ONLY")
    old_arn = d["LatestStreamArn"]
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}})
    ddb.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
    ddb.put_item(TableName=name, Item={"pk": {"S": "b"}})  # no stream: not recorded
    sd = streams.describe_stream(StreamArn=old_arn)["StreamDescription"]
    assert sd["StreamStatus"] == "DISABLED"
    assert "EndingSequenceNumber" in sd["Shards"][0]["SequenceNumberRange"]
    shard = sd["Shards"][0]["ShardId"]
    it = streams.get_shard_iterator(StreamArn=old_arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    r = streams.get_records(ShardIterator=it["ShardIterator"])
    assert [x["dynamodb"]["Keys"]["pk"]["S"] for x in r["Records"]] == ["a"]
    assert "NextShardIterator" not in r  # the closed shard is read to its end
    t = ddb.update_table(TableName=name, StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
    new_arn = t["TableDescription"]["LatestStreamArn"]
    assert new_arn != old_arn
    ddb.put_item(TableName=name, Item={"pk": {"S": "c"}})
    assert [x["dynamodb"]["Keys"]["pk"]["S"] for x in read_all(streams, new_arn)] == ["c"]
    assert {s["StreamArn"] for s in streams.list_streams(TableName=name)["Streams"]} == {old_arn, new_arn}


def test_no_stream_no_records_and_bad_input(ddb: Any, streams: Any) -> None:
    name, d = make_table(ddb, None)
    assert "LatestStreamArn" not in d
    assert streams.list_streams(TableName=name)["Streams"] == []
    bogus = f"{d['TableArn']}/stream/2020-01-01T00:00:00.000"
    with pytest.raises(ClientError) as e:
        streams.describe_stream(StreamArn=bogus)
    assert e.value.response["Error"]["Code"] == "ResourceNotFoundException"
    _, s = make_table(ddb, "KEYS_ONLY")
    with pytest.raises(ClientError) as e:
        streams.get_shard_iterator(StreamArn=s["LatestStreamArn"], ShardId="shardId-00000000000000000000-00000000",
                                   ShardIteratorType="LATEST")
    assert e.value.response["Error"]["Code"] == "ResourceNotFoundException"
    with pytest.raises(ClientError) as e:
        streams.get_records(ShardIterator="x" * 40)
    assert e.value.response["Error"]["Code"] == "ValidationException"


@pytest.mark.slow
def test_records_survive_kill_9(server_factory: Callable[..., Any], tmp_path: Path) -> None:
    data = tmp_path / "data"
    srv = server_factory(data)
    ddb = client_factory(srv.url)("dynamodb")
    name, d = make_table(ddb, "NEW_IMAGE")
    ddb.put_item(TableName=name, Item={"pk": {"S": "kept"}})
    srv.kill()
    srv = server_factory(data)
    recs = read_all(client_factory(srv.url)("dynamodbstreams"), d["LatestStreamArn"])
    assert [r["dynamodb"]["NewImage"] for r in recs] == [{"pk": {"S": "kept"}}]


def test_ttl_delete_is_recorded_as_the_service(ddb: Any, streams: Any) -> None:
    name, d = make_table(ddb, "OLD_IMAGE")
    ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"})
    ddb.put_item(TableName=name, Item={"pk": {"S": "old"}, "exp": {"N": str(int(time.time()) - 60)}})
    deadline = time.monotonic() + 60  # the TTL sweeper runs every few seconds
    while ddb.get_item(TableName=name, Key={"pk": {"S": "old"}}).get("Item") and time.monotonic() < deadline:
        time.sleep(0.5)
    recs = read_all(streams, d["LatestStreamArn"])
    assert [r["eventName"] for r in recs] == ["INSERT", "REMOVE"]
    assert recs[1]["userIdentity"] == {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}
    assert "userIdentity" not in recs[0]
    assert recs[1]["dynamodb"]["OldImage"]["pk"] == {"S": "old"}


def test_the_cli_reads_a_stream(ddb: Any, aws_cli: Callable[..., Any]) -> None:
    import json

    name, d = make_table(ddb, "NEW_IMAGE")
    r = aws_cli("dynamodb", "execute-statement", "--statement", f"INSERT INTO \"{name}\" VALUE {{'pk': 'cli'}}")
    assert r.returncode == 0, r.stderr
    r = aws_cli("dynamodbstreams", "describe-stream", "--stream-arn", d["LatestStreamArn"])
    assert r.returncode == 0, r.stderr
    shard = json.loads(r.stdout)["StreamDescription"]["Shards"][0]["ShardId"]
    r = aws_cli("dynamodbstreams", "get-shard-iterator", "--stream-arn", d["LatestStreamArn"], "--shard-id", shard,
                "--shard-iterator-type", "TRIM_HORIZON")
    it = json.loads(r.stdout)["ShardIterator"]
    r = aws_cli("dynamodbstreams", "get-records", "--shard-iterator", it)
    assert r.returncode == 0, r.stderr
    assert [x["dynamodb"]["NewImage"] for x in json.loads(r.stdout)["Records"]] == [{"pk": {"S": "cli"}}]


def test_shards_roll_over_and_children_name_their_parents(server_factory: Callable[..., Any], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ONCEFLOW_DDB_SHARD_SECONDS", "1")  # the server's shards last a second, not 4 hours
    srv = server_factory(tmp_path / "data")
    ddb, streams = client_factory(srv.url)("dynamodb"), client_factory(srv.url)("dynamodbstreams")
    name, d = make_table(ddb, "KEYS_ONLY")
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}})
    time.sleep(1.2)  # into the next shard
    ddb.put_item(TableName=name, Item={"pk": {"S": "b"}})
    shards = streams.describe_stream(StreamArn=d["LatestStreamArn"])["StreamDescription"]["Shards"]
    assert len(shards) >= 2
    assert "ParentShardId" not in shards[0]
    assert [s["ParentShardId"] for s in shards[1:]] == [s["ShardId"] for s in shards[:-1]]
    assert all("EndingSequenceNumber" in s["SequenceNumberRange"] for s in shards[:-1])
    assert "EndingSequenceNumber" not in shards[-1]["SequenceNumberRange"]
    seen: list[tuple[int, str]] = []
    for i, shard in enumerate(shards):
        it = streams.get_shard_iterator(StreamArn=d["LatestStreamArn"], ShardId=shard["ShardId"],
                                        ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        r = streams.get_records(ShardIterator=it)
        seen += [(i, rec["dynamodb"]["Keys"]["pk"]["S"]) for rec in r["Records"]]
        if i < len(shards) - 1:
            assert "NextShardIterator" not in r  # a closed shard read to its end has none
        else:  # the open shard has one, unless it closed since (its second is short): asked after the read
            now = streams.describe_stream(StreamArn=d["LatestStreamArn"])["StreamDescription"]["Shards"][i]
            if "EndingSequenceNumber" not in now["SequenceNumberRange"]:
                assert "NextShardIterator" in r
    assert [k for _, k in seen] == ["a", "b"] and seen[0][0] < seen[1][0]  # each record once, in order
