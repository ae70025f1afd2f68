"""DynamoDB items through boto3: PutItem/GetItem/UpdateItem/DeleteItem, conditions, return values,
the type system on the wire, and AWS's messages for bad input (which must change nothing)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError

V = "com.amazon.coral.validate#ValidationException"
# PutItem and UpdateItem envelope their request-validation refusals (ddb/errors.py ENVELOPE has the evidence).
ENVELOPE = "1 validation error detected: "


@pytest.fixture
def ddb(aws: Any) -> Any:
    return aws("dynamodb")


@pytest.fixture
def table(ddb: Any) -> str:
    n = f"items-{uuid.uuid4().hex[:10]}"
    ddb.create_table(
        TableName=n,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
    )
    return n


def error(call: Any, **kw: Any) -> dict[str, Any]:
    with pytest.raises(ClientError) as e:
        call(**kw)
    return e.value.response  # type: ignore[no-any-return]


def key(i: str) -> dict[str, Any]:
    return {"id": {"S": i}}


def test_put_get_types_and_normalisation(ddb: Any, table: str) -> None:
    item = {
        "id": {"S": "a"},
        "n": {"N": "1.50"},
        "big": {"N": "12345678901234567890123456789012345678"},
        "b": {"B": b"\x00\xff"},
        "t": {"BOOL": True},
        "z": {"NULL": True},
        "e": {"S": ""},
        "m": {"M": {"x": {"L": [{"N": "001"}, {"SS": ["p", "q"]}]}}},
        "ns": {"NS": ["1", "2.0"]},
        "bs": {"BS": [b"a", b"b"]},
    }
    ddb.put_item(TableName=table, Item=item)
    got = ddb.get_item(TableName=table, Key=key("a"), ConsistentRead=True)["Item"]
    assert got["n"] == {"N": "1.5"}
    assert got["big"] == item["big"]
    assert got["b"] == {"B": b"\x00\xff"}
    assert got["m"] == {"M": {"x": {"L": [{"N": "1"}, {"SS": ["p", "q"]}]}}}
    assert sorted(got["ns"]["NS"]) == ["1", "2"]
    assert got["e"] == {"S": ""}
    assert ddb.get_item(TableName=table, Key=key("nope")).get("Item") is None
    proj = ddb.get_item(
        TableName=table, Key=key("a"), ProjectionExpression="m.x[1], #n", ExpressionAttributeNames={"#n": "n"}
    )["Item"]
    assert proj == {"m": {"M": {"x": {"L": [{"SS": ["p", "q"]}]}}}, "n": {"N": "1.5"}}


def test_conditional_put_returns_old_item(ddb: Any, table: str) -> None:
    ddb.put_item(
        TableName=table, Item={"id": {"S": "a"}, "v": {"N": "650"}}, ConditionExpression="attribute_not_exists(id)"
    )
    r = error(
        ddb.put_item,
        TableName=table,
        Item={"id": {"S": "a"}, "v": {"N": "1"}},
        ConditionExpression="attribute_not_exists(id)",
        ReturnValuesOnConditionCheckFailure="ALL_OLD",
    )
    assert r["Error"] == {"Code": "ConditionalCheckFailedException", "Message": "The conditional request failed"}
    assert r["Item"] == {"id": {"S": "a"}, "v": {"N": "650"}}
    # With the old item DynamoDB's body says "Message", so the SDK finds no modeled `message` member.
    assert "message" not in r
    r = error(ddb.put_item, TableName=table, Item={"id": {"S": "a"}}, ConditionExpression="attribute_not_exists(id)")
    assert "Item" not in r
    assert r["message"] == "The conditional request failed"
    assert ddb.get_item(TableName=table, Key=key("a"))["Item"]["v"] == {"N": "650"}
    old = ddb.put_item(TableName=table, Item={"id": {"S": "a"}}, ReturnValues="ALL_OLD")
    assert old["Attributes"] == {"id": {"S": "a"}, "v": {"N": "650"}}


def test_update_item_return_values(ddb: Any, table: str) -> None:
    r = ddb.update_item(
        TableName=table,
        Key=key("w"),
        UpdateExpression="ADD attempts :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )
    assert r["Attributes"] == {"attempts": {"N": "1"}}
    r = ddb.update_item(
        TableName=table,
        Key=key("w"),
        UpdateExpression="ADD attempts :one SET m = :m",
        ExpressionAttributeValues={":one": {"N": "1"}, ":m": {"M": {"a": {"S": "b"}}}},
        ReturnValues="UPDATED_OLD",
    )
    assert r["Attributes"] == {"attempts": {"N": "1"}}
    r = ddb.update_item(
        TableName=table,
        Key=key("w"),
        UpdateExpression="SET m.a = :v REMOVE attempts",
        ExpressionAttributeValues={":v": {"S": "c"}},
        ReturnValues="ALL_NEW",
    )
    assert r["Attributes"] == {"id": {"S": "w"}, "m": {"M": {"a": {"S": "c"}}}}
    r = ddb.update_item(
        TableName=table,
        Key=key("w"),
        UpdateExpression="SET m.a = :v",
        ExpressionAttributeValues={":v": {"S": "d"}},
        ReturnValues="UPDATED_NEW",
    )
    assert r["Attributes"] == {"m": {"M": {"a": {"S": "d"}}}}
    r = ddb.update_item(TableName=table, Key=key("w"), UpdateExpression="REMOVE m", ReturnValues="ALL_OLD")
    assert r["Attributes"] == {"id": {"S": "w"}, "m": {"M": {"a": {"S": "d"}}}}
    assert "Attributes" not in ddb.update_item(
        TableName=table, Key=key("w"), UpdateExpression="REMOVE m", ReturnValues="UPDATED_NEW"
    )


def test_update_condition_failure_and_runtime_errors_change_nothing(ddb: Any, table: str) -> None:
    ddb.put_item(TableName=table, Item={"id": {"S": "u"}, "n": {"N": "1"}, "s": {"S": "x"}})
    r = error(
        ddb.update_item,
        TableName=table,
        Key=key("u"),
        UpdateExpression="SET n = :two",
        ConditionExpression="n = :zero",
        ExpressionAttributeValues={":two": {"N": "2"}, ":zero": {"N": "0"}},
        ReturnValuesOnConditionCheckFailure="ALL_OLD",
    )
    assert r["Error"] == {"Code": "ConditionalCheckFailedException", "Message": "The conditional request failed"}
    assert r["Item"]["n"] == {"N": "1"}
    assert "message" not in r
    r = error(
        ddb.update_item,
        TableName=table,
        Key=key("u"),
        UpdateExpression="SET n = :two ADD s :one",
        ExpressionAttributeValues={":two": {"N": "2"}, ":one": {"N": "1"}},
    )
    assert r["Error"] == {
        "Code": "ValidationException",
        "Message": "An operand in the update expression has an incorrect data type",
    }
    assert ddb.get_item(TableName=table, Key=key("u"))["Item"] == {"id": {"S": "u"}, "n": {"N": "1"}, "s": {"S": "x"}}


def test_delete_item(ddb: Any, table: str) -> None:
    assert "Attributes" not in ddb.delete_item(TableName=table, Key=key("none"), ReturnValues="ALL_OLD")
    ddb.put_item(TableName=table, Item={"id": {"S": "d"}, "v": {"S": "1"}})
    r = error(
        ddb.delete_item,
        TableName=table,
        Key=key("d"),
        ConditionExpression="v = :x",
        ExpressionAttributeValues={":x": {"S": "2"}},
    )
    assert r["Error"]["Code"] == "ConditionalCheckFailedException"
    r = ddb.delete_item(TableName=table, Key=key("d"), ReturnValues="ALL_OLD")
    assert r["Attributes"] == {"id": {"S": "d"}, "v": {"S": "1"}}
    assert "Item" not in ddb.get_item(TableName=table, Key=key("d"))


BAD = [
    (
        "put_item",
        {"Item": {"x": {"S": "a"}}},
        "One or more parameter values were invalid: Missing the key id in the item",
    ),
    (
        "put_item",
        {"Item": {"id": {"N": "1"}}},
        "One or more parameter values were invalid: Type mismatch for key id expected: S actual: N",
    ),
    (
        "put_item",
        {"Item": {"id": {"S": ""}}},
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty "
        "string value. Key: id",
    ),
    (
        "put_item",
        {"Item": {"id": {"S": "a", "N": "1"}}},
        "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes",
    ),
    (
        "put_item",
        {"Item": {"id": {"S": "a"}, "s": {"SS": []}}},
        ENVELOPE + "One or more parameter values were invalid: An string set  may not be empty",
    ),
    (
        "put_item",
        {"Item": {"id": {"S": "a"}, "n": {"N": "1E126"}}},
        "Number overflow. Attempting to store a number with magnitude larger than supported range",
    ),
    (
        "put_item",
        {"Item": {"id": {"S": "a"}, "big": {"S": "x" * 410000}}},
        "Item size has exceeded the maximum allowed size",
    ),
    (
        "put_item",
        {"Item": {"id": {"S": "k" * 2049}}},
        "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes",
    ),
    (
        "get_item",
        {"Key": {"id": {"S": "a"}}, "ExpressionAttributeNames": {"#a": "a"}},
        "ExpressionAttributeNames can only be specified when using expressions",
    ),
    (
        "get_item",
        {"Key": {"id": {"S": "a"}}, "ProjectionExpression": "#a", "ExpressionAttributeNames": {"a": "a"}},
        'ExpressionAttributeNames contains invalid key: Syntax error; key: "a"',
    ),
    ("get_item", {"Key": {"id": {"N": "1"}}}, "The provided key element does not match the schema"),
    ("get_item", {"Key": {"id": {"S": "1"}, "x": {"S": "1"}}}, "The provided key element does not match the schema"),
    ("delete_item", {"Key": {"other": {"S": "1"}}}, "The provided key element does not match the schema"),
    (
        "update_item",
        {"Key": {"id": {"S": "a"}}, "UpdateExpression": "SET id = :v", "ExpressionAttributeValues": {":v": {"S": "b"}}},
        "One or more parameter values were invalid: Cannot update attribute id. This attribute is part of the key",
    ),
    (
        "update_item",
        {
            "Key": {"id": {"S": "a"}},
            "UpdateExpression": "SET status = :v",
            "ExpressionAttributeValues": {":v": {"S": "b"}},
        },
        ENVELOPE + "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: status",
    ),
    (
        "update_item",
        {
            "Key": {"id": {"S": "a"}},
            "UpdateExpression": "SET a = :v",
            "ExpressionAttributeValues": {":v": {"S": "b"}, ":x": {"S": "c"}},
        },
        ENVELOPE + "Value provided in ExpressionAttributeValues unused in expressions: keys: {:x}",
    ),
    (
        "update_item",
        {
            "Key": {"id": {"S": "a"}},
            "UpdateExpression": "SET a = :nope",
            "ExpressionAttributeValues": {":v": {"S": "b"}},
        },
        ENVELOPE + "Invalid UpdateExpression: An expression attribute value used in expression is not defined; "
        "attribute value: :nope",
    ),
    (
        "update_item",
        {
            "Key": {"id": {"S": "a"}},
            "UpdateExpression": "SET a = :v, a = :v",
            "ExpressionAttributeValues": {":v": {"S": "b"}},
        },
        ENVELOPE + "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite "
        "one of these paths; path one: [a], path two: [a]",
    ),
    (
        "update_item",
        {"Key": {"id": {"S": "a"}}, "UpdateExpression": "ADD a :v", "ExpressionAttributeValues": {":v": {"S": "b"}}},
        ENVELOPE + "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, "
        "operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND",
    ),
    (
        "put_item",
        {
            "Item": {"id": {"S": "a"}},
            "ConditionExpression": "a = = :v",
            "ExpressionAttributeValues": {":v": {"S": "b"}},
        },
        ENVELOPE + 'Invalid ConditionExpression: Syntax error; token: "=", near: "= = :v"',
    ),
    (
        "put_item",
        {
            "Item": {"id": {"S": "a"}},
            "ConditionExpression": "#a = :v",
            "ExpressionAttributeNames": {"#a": "a", "#b": "b"},
            "ExpressionAttributeValues": {":v": {"S": "b"}},
        },
        ENVELOPE + "Value provided in ExpressionAttributeNames unused in expressions: keys: {#b}",
    ),
    (
        "put_item",
        {"Item": {"id": {"S": "a"}}, "ExpressionAttributeValues": {":v": {"S": "b"}}},
        ENVELOPE + "ExpressionAttributeValues can only be specified when using expressions: "
        "ConditionExpression is null",
    ),
]


@pytest.mark.parametrize(("op", "params", "message"), BAD, ids=[b[2][:60] for b in BAD])
def test_bad_input_gets_aws_message_and_writes_nothing(
    ddb: Any, table: str, op: str, params: dict[str, Any], message: str
) -> None:
    r = error(getattr(ddb, op), TableName=table, **params)
    assert r["Error"] == {"Code": "ValidationException", "Message": message}
    assert r["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert ddb.scan(TableName=table)["Items"] == []


def test_put_and_update_envelope_request_validation_only(ddb: Any, table: str) -> None:
    """PutItem and UpdateItem send a malformed value or expression as '1 validation error detected: ...', the
    same value elsewhere (GetItem) bare, and data-plane refusals bare (ddb/errors.py ENVELOPE: the evidence)."""
    null = "One or more parameter values were invalid: Null attribute value types must have the value of true"
    assert error(ddb.put_item, TableName=table, Item={"id": {"S": "a"}, "f": {"NULL": False}})["Error"][
        "Message"] == ENVELOPE + null
    assert error(ddb.update_item, TableName=table, Key={"id": {"NULL": False}}, UpdateExpression="SET a = :v",
                 ExpressionAttributeValues={":v": {"S": "x"}})["Error"]["Message"] == ENVELOPE + null
    assert error(ddb.get_item, TableName=table, Key={"id": {"NULL": False}})["Error"]["Message"] == null
    r = error(ddb.update_item, TableName=table, Key=key("a"), UpdateExpression="SET t = :t",
              ExpressionAttributeValues={":t": {"SS": ["a", "b", "a"]}})
    assert r["Error"]["Message"] == (ENVELOPE + "ExpressionAttributeValues contains invalid value: One or more "
                                     "parameter values were invalid: Input collection [a, b, a] contains "
                                     "duplicates. for key :t")
    r = error(ddb.put_item, TableName=table, Item={"id": {"S": "a"}}, ReturnValues="ALL_NEW")
    assert r["Error"]["Message"] == ENVELOPE + "ReturnValues can only be ALL_OLD or NONE"
    # The model's own constraint messages are counted already: never enveloped twice.
    r = error(ddb.update_item, TableName=table, Key=key("a"), ReturnValues="BOGUS")
    assert r["Error"]["Message"].startswith(ENVELOPE + "Value 'BOGUS' at 'returnValues'")
    # Bare: an AttributeValue with no type, and a key attribute an update would change.
    r = error(ddb.put_item, TableName=table, Item={"id": {"S": "a"}, "d": {}})
    assert r["Error"]["Message"] == ("Supplied AttributeValue is empty, must contain exactly one of the supported "
                                     "datatypes")
    r = error(ddb.update_item, TableName=table, Key=key("a"), UpdateExpression="SET id = :v",
              ExpressionAttributeValues={":v": {"S": "b"}})
    assert r["Error"]["Message"] == ("One or more parameter values were invalid: Cannot update attribute id. "
                                     "This attribute is part of the key")
    assert ddb.scan(TableName=table)["Items"] == []


def test_validation_namespace_on_the_wire(endpoint: str, table: str) -> None:
    import json
    import urllib.request

    from serverproc import signed_headers

    body = json.dumps({"TableName": table, "Key": {"id": {"N": "1"}}}).encode()
    headers = {"X-Amz-Target": "DynamoDB_20120810.GetItem", "Content-Type": "application/x-amz-json-1.0"}
    req = urllib.request.Request(endpoint + "/", method="POST", data=body,
                                 headers=signed_headers("POST", endpoint + "/", "dynamodb", body, headers))
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req)
    body = json.loads(e.value.read())
    assert body["__type"] == V


def test_unknown_table(ddb: Any) -> None:
    r = error(ddb.get_item, TableName="no-such-table", Key=key("a"))
    assert r["Error"] == {"Code": "ResourceNotFoundException", "Message": "Requested resource not found"}


def test_consumed_capacity_when_asked(ddb: Any, table: str) -> None:
    r = ddb.put_item(TableName=table, Item={"id": {"S": "c"}, "big": {"S": "x" * 3000}}, ReturnConsumedCapacity="TOTAL")
    assert r["ConsumedCapacity"] == {"TableName": table, "CapacityUnits": 3.0}
    r = ddb.get_item(TableName=table, Key=key("c"), ReturnConsumedCapacity="TOTAL")
    assert r["ConsumedCapacity"] == {"TableName": table, "CapacityUnits": 0.5}
    r = ddb.get_item(TableName=table, Key=key("c"), ConsistentRead=True, ReturnConsumedCapacity="INDEXES")
    assert r["ConsumedCapacity"] == {"TableName": table, "CapacityUnits": 1.0, "Table": {"CapacityUnits": 1.0}}
    assert "ConsumedCapacity" not in ddb.get_item(TableName=table, Key=key("c"))


def test_cli_put_get_and_condition_failure(aws_cli: Any, table: str) -> None:
    import json

    item = json.dumps({"id": {"S": "cli"}, "n": {"N": "1.50"}})
    r = aws_cli(
        "dynamodb",
        "put-item",
        "--table-name",
        table,
        "--item",
        item,
        "--condition-expression",
        "attribute_not_exists(id)",
    )
    assert r.returncode == 0, r.stderr
    r = aws_cli(
        "dynamodb",
        "put-item",
        "--table-name",
        table,
        "--item",
        item,
        "--condition-expression",
        "attribute_not_exists(id)",
    )
    assert r.returncode != 0
    assert (
        "An error occurred (ConditionalCheckFailedException) when calling the PutItem operation: "
        "The conditional request failed" in r.stderr
    )
    r = aws_cli("dynamodb", "get-item", "--table-name", table, "--key", json.dumps({"id": {"S": "cli"}}))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"Item": {"id": {"S": "cli"}, "n": {"N": "1.5"}}}


def test_null_false_is_refused(aws: Any) -> None:
    """PutItem with {"NULL": false} is refused and writes nothing: a few regions briefly stored it as
    {"NULL": true} in mid-2026, every region refuses it again (paritysuite/dynamodb-conformance
    tests/tier3/error-messages/putItem, ground-truth sweep of 2026-07-17)."""
    ddb = aws("dynamodb")
    n = f"null-{uuid.uuid4().hex[:10]}"
    ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    r = error(ddb.put_item, TableName=n, Item={"pk": {"S": "a"}, "attr1": {"NULL": False}})
    assert r["Error"]["Code"] == "ValidationException"
    assert ("One or more parameter values were invalid: Null attribute value types must have the value of true"
            in r["Error"]["Message"])
    assert "Item" not in ddb.get_item(TableName=n, Key={"pk": {"S": "a"}}, ConsistentRead=True)


def test_an_invalid_table_name_is_reported_alone(aws: Any) -> None:
    """DynamoDB stops at an invalid TableName: the other violations of the request go unreported
    (recorded by nubo-db/dynamodb-conformance)."""
    import botocore.config

    raw = aws("dynamodb", config=botocore.config.Config(parameter_validation=False, retries={"max_attempts": 0}))
    with pytest.raises(ClientError) as e:
        raw.put_item(TableName="", Item={}, ReturnValues="INVALID")
    assert e.value.response["Error"]["Message"] == (
        "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: Member must have length "
        "greater than or equal to 1")


def test_update_item_measures_what_it_writes(aws: Any) -> None:
    """UpdateItem charges the attributes its statement writes plus 3 bytes and 19 per SET clause against
    the 400 KB gate, leaving the key out: at a 3-byte key the largest item it writes is 409,600 - 19. A
    transacted Update measures the finished item only (measured against eu-west-2 by
    nubo-db/dynamodb-conformance)."""
    ddb = aws("dynamodb")
    n = f"size-{uuid.uuid4().hex[:10]}"
    ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    ceiling = 409_600 - 19  # the key {pk: "K"} is 3 bytes, one SET costs 3 + 19

    def padded(total: int) -> dict[str, Any]:
        return {":pad": {"S": "x" * (total - 3 - 1)}}  # minus the key and the name "b"

    ddb.update_item(TableName=n, Key={"pk": {"S": "K"}}, UpdateExpression="SET b = :pad",
                    ExpressionAttributeValues=padded(ceiling))
    with pytest.raises(ClientError) as e:
        ddb.update_item(TableName=n, Key={"pk": {"S": "L"}}, UpdateExpression="SET b = :pad",
                        ExpressionAttributeValues=padded(ceiling + 1))
    assert e.value.response["Error"] == {"Code": "ValidationException",
                                         "Message": "Item size to update has exceeded the maximum allowed size"}
    assert "Item" not in ddb.get_item(TableName=n, Key={"pk": {"S": "L"}})
    ddb.transact_write_items(TransactItems=[{"Update": {
        "TableName": n, "Key": {"pk": {"S": "M"}}, "UpdateExpression": "SET b = :pad",
        "ExpressionAttributeValues": padded(409_600)}}])
    assert len(ddb.get_item(TableName=n, Key={"pk": {"S": "M"}})["Item"]["b"]["S"]) == 409_600 - 4


NESTED = ("Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond "
          "supported limit")


def nested(wraps: int) -> dict[str, Any]:
    """A string inside `wraps` one-entry maps: as an attribute, its leaf is at level wraps + 1."""
    v: dict[str, Any] = {"S": "leaf"}
    for _ in range(wraps):
        v = {"M": {"n": v}}
    return v


def test_documents_nest_at_most_32_levels(ddb: Any, table: str) -> None:
    """DynamoDB stores a document 32 levels deep, the attribute being level 1, and refuses a 33rd, in an item
    or an UpdateItem value (recorded by the conformance suite's successor, paritysuite/dynamodb-conformance
    tests/tier3/limits/nestingDepth); a refused write changes nothing."""
    ddb.put_item(TableName=table, Item={**key("deep"), "doc": nested(31)})
    assert ddb.get_item(TableName=table, Key=key("deep"))["Item"]["doc"] == nested(31)
    r = error(ddb.put_item, TableName=table, Item={**key("deeper"), "doc": nested(32)})
    assert r["Error"] == {"Code": "ValidationException", "Message": NESTED}
    assert "Item" not in ddb.get_item(TableName=table, Key=key("deeper"))
    # A value in ExpressionAttributeValues is held to the same bound before the condition runs.
    r = error(ddb.update_item, TableName=table, Key=key("deep"), UpdateExpression="SET touched = :t",
              ConditionExpression="doc = :deep", ExpressionAttributeValues={":t": {"S": "y"}, ":deep": nested(32)})
    assert r["Error"] == {"Code": "ValidationException", "Message": NESTED}
    r = error(ddb.update_item, TableName=table, Key=key("deep"), UpdateExpression="SET touched = :t",
              ConditionExpression="#a = :deep", ExpressionAttributeNames={"#a": "absent"},
              ExpressionAttributeValues={":t": {"S": "y"}, ":deep": nested(31)})
    assert r["Error"]["Code"] == "ConditionalCheckFailedException"
    # An update nesting a value under an existing map is measured on the finished item.
    ddb.update_item(TableName=table, Key=key("deep"), UpdateExpression="SET doc.n = :v",
                    ExpressionAttributeValues={":v": nested(30)})
    r = error(ddb.update_item, TableName=table, Key=key("deep"), UpdateExpression="SET doc.n = :v, touched = :t",
              ExpressionAttributeValues={":v": nested(31), ":t": {"S": "y"}})
    assert r["Error"] == {"Code": "ValidationException", "Message": NESTED}
    got = ddb.get_item(TableName=table, Key=key("deep"))["Item"]
    assert got["doc"] == {"M": {"n": nested(30)}} and "touched" not in got


def test_numbers_with_exponents_far_out_of_range(ddb: Any, table: str) -> None:
    """DynamoDB reads a number's exponent in full: far past the range is an overflow or underflow (never a
    server error), past a 64-bit integer unconvertible, and a zero is held to the exponent it is written with
    (paritysuite/dynamodb-conformance tests/tier3/limits/numberExponent, recorded against DynamoDB)."""
    over = "Number overflow. Attempting to store a number with magnitude larger than supported range"
    under = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
    for text, message in (("1e99999999999", over), ("1e-99999999999", under), ("0e126", over), ("0e-131", under),
                          ("1e9223372036854775808",
                           "The parameter cannot be converted to a numeric value: 1e9223372036854775808")):
        r = error(ddb.put_item, TableName=table, Item={**key("n"), "val": {"N": text}})
        assert r["Error"] == {"Code": "ValidationException", "Message": message}, text
        assert r["ResponseMetadata"]["HTTPStatusCode"] == 400
    r = error(ddb.update_item, TableName=table, Key=key("n"), UpdateExpression="SET m = :v",
              ExpressionAttributeValues={":v": {"N": "1e99999999999"}})
    assert r["Error"]["Code"] == "ValidationException" and over in r["Error"]["Message"]  # the framing is ours
    assert "Item" not in ddb.get_item(TableName=table, Key=key("n"))
    ddb.put_item(TableName=table, Item={**key("n"), "val": {"N": "0e125"}})
    assert ddb.get_item(TableName=table, Key=key("n"))["Item"]["val"] == {"N": "0"}
    numbered = f"numbered-{uuid.uuid4().hex[:10]}"
    ddb.create_table(TableName=numbered, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "N"}],
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}])
    for call, kw in ((ddb.get_item, {"TableName": numbered, "Key": {"id": {"N": "1e99999999999"}}}),
                     (ddb.delete_item, {"TableName": numbered, "Key": {"id": {"N": "1e99999999999"}}}),
                     (ddb.batch_get_item, {"RequestItems": {numbered: {"Keys": [{"id": {"N": "1e99999999999"}}]}}}),
                     (ddb.query, {"TableName": numbered, "KeyConditionExpression": "id = :v",
                                  "ExpressionAttributeValues": {":v": {"N": "1e99999999999"}}})):
        r = error(call, **kw)
        assert r["Error"]["Code"] == "ValidationException" and over in r["Error"]["Message"], call


def sized(target: int, prefix: str, joiner: str, clause: Any) -> tuple[str, int]:
    """Clauses clause(i, name) joined to exactly `target` bytes, the last name stretched to land on it."""
    parts: list[str] = []
    total = len(prefix)
    while True:
        c = clause(len(parts), "a" * 48 + f"x{len(parts)}")
        if total + (len(joiner) if parts else 0) + len(c) > target:
            break
        total += (len(joiner) if parts else 0) + len(c)
        parts.append(c)
    i = len(parts) - 1
    parts[i] = clause(i, "a" * (48 + target - total) + f"x{i}")
    text = prefix + joiner.join(parts)
    assert len(text) == target
    return text, len(parts)


def test_expressions_are_bounded_at_4096_bytes_as_sent(ddb: Any, table: str) -> None:
    """Every expression parameter is capped at 4096 bytes of the text as sent (names are not substituted
    first), an UpdateExpression's message without the size (paritysuite/dynamodb-conformance
    tests/tier3/limits/expressionSize and validation-ordering/deepRequests, recorded against DynamoDB).
    A transaction refuses an oversized member before running any."""
    def update(target: int) -> dict[str, Any]:
        text, n = sized(target, "SET ", ", ", lambda i, a: f"{a} = :v{i}")
        return {"UpdateExpression": text, "ExpressionAttributeValues": {f":v{i}": {"S": "x"} for i in range(n)}}

    ddb.update_item(TableName=table, Key=key("at"), **update(4096))
    r = error(ddb.update_item, TableName=table, Key=key("over"), **update(4097))
    assert r["Error"] == {"Code": "ValidationException", "Message": (
        ENVELOPE + "Invalid UpdateExpression: Expression size has exceeded the maximum allowed size;")}
    assert "Item" not in ddb.get_item(TableName=table, Key=key("over"))
    cond = sized(4096, "", " AND ", lambda i, a: f"attribute_not_exists({a})")[0]
    ddb.put_item(TableName=table, Item=key("cond"), ConditionExpression=cond)
    r = error(ddb.put_item, TableName=table, Item=key("cond-over"),
              ConditionExpression=sized(4097, "", " AND ", lambda i, a: f"attribute_not_exists({a})")[0])
    assert r["Error"]["Message"] == (ENVELOPE + "Invalid ConditionExpression: Expression size has exceeded the "
                                     "maximum allowed size; expression size: 4097")
    filt, n = sized(4097, "", " OR ", lambda i, a: f"{a} = :v{i}")
    r = error(ddb.scan, TableName=table, FilterExpression=filt,
              ExpressionAttributeValues={f":v{i}": {"S": "x"} for i in range(n)})
    assert r["Error"]["Message"].startswith("Invalid FilterExpression: Expression size has exceeded")
    r = error(ddb.get_item, TableName=table, Key=key("at"), ProjectionExpression=sized(4097, "", ", ",
                                                                                        lambda i, a: a)[0])
    assert r["Error"]["Message"].startswith("Invalid ProjectionExpression: Expression size has exceeded")
    # Aliases count as written: 30 names expanding to ~7.5 KB are fine.
    names = {f"#a{i}": "n" * 246 + f"q{i}" for i in range(30)}
    got = ddb.get_item(TableName=table, Key=key("at"), ProjectionExpression=", ".join(names),
                       ExpressionAttributeNames=names)
    assert got["Item"] == {}
    r = error(ddb.transact_write_items, TransactItems=[
        {"Put": {"TableName": table, "Item": key("first")}},
        {"Update": {"TableName": table, "Key": key("second"), **update(4097)}}])
    assert r["Error"]["Code"] == "ValidationException" and "Expression size has exceeded" in r["Error"]["Message"]
    assert "Item" not in ddb.get_item(TableName=table, Key=key("first"))


def test_an_index_key_keeps_the_key_size_limits(ddb: Any) -> None:
    """A table's hash key may be 2048 bytes; as a GSI's sort key it is held to the sort key's 1024."""
    n = f"t-{uuid.uuid4().hex[:10]}"
    ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "g", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     GlobalSecondaryIndexes=[{"IndexName": "by-g", "Projection": {"ProjectionType": "KEYS_ONLY"},
                                              "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                                                            {"AttributeName": "pk", "KeyType": "RANGE"}]}])
    ddb.put_item(TableName=n, Item={"pk": {"S": "x" * 1025}})  # not in the index: no g
    r = error(ddb.put_item, TableName=n, Item={"pk": {"S": "y" * 1025}, "g": {"S": "a"}})
    assert r["Error"] == {"Code": "ValidationException", "Message": (
        "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit "
        "of 1024 bytes")}
    assert ddb.scan(TableName=n)["Count"] == 1

