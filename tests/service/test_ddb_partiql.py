"""PartiQL through boto3: ExecuteStatement, BatchExecuteStatement and ExecuteTransaction."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError


@pytest.fixture(scope="module")
def ddb(aws: Any) -> Any:
    return aws("dynamodb")


@pytest.fixture(scope="module")
def table(ddb: Any) -> str:
    """pk (S) + sk (N), a GSI on g, ten items pk=a sk=0..9 and one pk=b sk=0."""
    n = f"pq-{uuid.uuid4().hex[:10]}"
    ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "sk", "AttributeType": "N"},
                                           {"AttributeName": "g", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}],
                     GlobalSecondaryIndexes=[{"IndexName": "byg", "KeySchema": [{"AttributeName": "g",
                                                                                  "KeyType": "HASH"}],
                                              "Projection": {"ProjectionType": "ALL"}}])
    for i in range(10):
        ddb.put_item(TableName=n, Item={"pk": {"S": "a"}, "sk": {"N": str(i)}, "v": {"N": str(i * 10)},
                                        "g": {"S": "even" if i % 2 == 0 else "odd"}})
    ddb.put_item(TableName=n, Item={"pk": {"S": "b"}, "sk": {"N": "0"}, "tags": {"SS": ["x"]}})
    return n


@pytest.fixture
def fresh(ddb: Any) -> str:
    """A table of one hash key id (S), empty."""
    n = f"pqw-{uuid.uuid4().hex[:10]}"
    ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}])
    return n


def refused(call: Any, **kw: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as e:
        call(**kw)
    err = e.value.response["Error"]
    return err["Code"], err["Message"]


def get(ddb: Any, table: str, i: str) -> dict[str, Any] | None:
    return ddb.get_item(TableName=table, Key={"id": {"S": i}}, ConsistentRead=True).get("Item")


# ------------------------------------------------------------------ SELECT
def test_select_by_full_key_with_parameters(ddb: Any, table: str) -> None:
    r = ddb.execute_statement(Statement=f'SELECT * FROM "{table}" WHERE pk = ? AND sk = ?',
                              Parameters=[{"S": "a"}, {"N": "3"}])
    assert r["Items"] == [{"pk": {"S": "a"}, "sk": {"N": "3"}, "v": {"N": "30"}, "g": {"S": "odd"}}]


def test_select_query_range_filter_projection_and_order(ddb: Any, table: str) -> None:
    r = ddb.execute_statement(Statement=f'SELECT sk, v FROM "{table}" WHERE pk = \'a\' AND sk BETWEEN 2 AND 7 '
                                        'AND v > 30 ORDER BY sk DESC')
    assert [it["sk"]["N"] for it in r["Items"]] == ["7", "6", "5", "4"]
    assert all(set(it) == {"sk", "v"} for it in r["Items"])


def test_select_scan_with_or_and_functions(ddb: Any, table: str) -> None:
    r = ddb.execute_statement(Statement=f'SELECT * FROM "{table}" WHERE sk = 0 AND (begins_with(pk, \'b\') '
                                        'OR v IS MISSING OR contains(tags, \'x\'))')
    assert [it["pk"]["S"] for it in r["Items"]] == ["b"]
    r = ddb.execute_statement(Statement=f'SELECT pk FROM "{table}" WHERE v IS NOT MISSING AND v IN [10, 20, 99]')
    assert sorted(it["pk"]["S"] for it in r["Items"]) == ["a", "a"]


def test_select_on_index(ddb: Any, table: str) -> None:
    r = ddb.execute_statement(Statement=f'SELECT sk FROM "{table}"."byg" WHERE g = \'even\'')
    assert sorted(int(it["sk"]["N"]) for it in r["Items"]) == [0, 2, 4, 6, 8]
    code, msg = refused(ddb.execute_statement, Statement=f'SELECT * FROM "{table}"."byg" WHERE g = \'even\'',
                        ConsistentRead=True)
    assert (code, msg) == ("ValidationException",
                           "Strongly consistent read is not supported on Global Secondary Indexes")


def test_select_nested_paths_come_back_under_their_last_name(ddb: Any, fresh: str) -> None:
    ddb.put_item(TableName=fresh, Item={"id": {"S": "n"}, "m": {"M": {"inner": {"S": "deep"}}}, "x": {"S": "no"}})
    r = ddb.execute_statement(Statement=f'SELECT m.inner, id FROM "{fresh}" WHERE id = \'n\'')
    assert r["Items"] == [{"inner": {"S": "deep"}, "id": {"S": "n"}}]


def test_index_reads_name_only_what_the_index_holds(ddb: Any) -> None:
    n = f"pqi-{uuid.uuid4().hex[:10]}"
    ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"},
                                           {"AttributeName": "g", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     GlobalSecondaryIndexes=[{"IndexName": "keys", "KeySchema": [{"AttributeName": "g",
                                                                                   "KeyType": "HASH"}],
                                              "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    code, msg = refused(ddb.execute_statement, Statement=f'SELECT id FROM "{n}"."keys" WHERE g = \'y\' AND v = 1')
    assert (code, msg) == ("ValidationException", "One or more parameter values were invalid: Secondary index keys "
                                                  "does not project one or more filter attributes: [v]")
    code, msg = refused(ddb.execute_statement, Statement=f'SELECT v FROM "{n}"."keys" WHERE g = \'y\'')
    assert (code, msg) == ("ValidationException", "One or more parameter values were invalid: Global secondary index "
                                                  "keys does not project [v]")
    code, msg = refused(ddb.execute_statement, Statement=f'SELECT * FROM "{n}"."nope" WHERE g = \'y\'')
    assert (code, msg) == ("ValidationException", "The table does not have the specified index")
    code, msg = refused(ddb.execute_statement, Statement=f'SELECT * FROM "{n}"."keys"."x" WHERE g = \'y\'')
    assert (code, msg) == ("ValidationException", "A path may contain at most 2 components in the FROM clause")


def test_unkeyed_index_reads_scan_the_index_and_a_local_index_reads_back(ddb: Any) -> None:
    n = f"pql-{uuid.uuid4().hex[:10]}"
    ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("pk", "sk", "l", "g")],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}],
                     LocalSecondaryIndexes=[{"IndexName": "lsi", "KeySchema": [
                         {"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "l", "KeyType": "RANGE"}],
                         "Projection": {"ProjectionType": "KEYS_ONLY"}}],
                     GlobalSecondaryIndexes=[{"IndexName": "gsi", "KeySchema": [
                         {"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    ddb.put_item(TableName=n, Item={"pk": {"S": "p"}, "sk": {"S": "1"}, "l": {"S": "a"}, "g": {"S": "y"},
                                    "x": {"S": "np"}})
    # Unkeyed, the read scans the index, which has no x: the filter matches nothing (and NOT matches all).
    assert ddb.execute_statement(Statement=f"SELECT pk FROM \"{n}\".\"gsi\" WHERE x = 'np'")["Items"] == []
    got = ddb.execute_statement(Statement=f"SELECT sk FROM \"{n}\".\"gsi\" WHERE NOT x = 'np'")["Items"]
    assert got == [{"sk": {"S": "1"}}]
    got = ddb.execute_statement(Statement=f"SELECT x FROM \"{n}\".\"lsi\" WHERE pk = 'p'")["Items"]
    assert got == [{"x": {"S": "np"}}]
    got = ddb.execute_statement(Statement=f"SELECT * FROM \"{n}\".\"lsi\" WHERE pk = 'p'")["Items"]
    assert got == [{"pk": {"S": "p"}, "sk": {"S": "1"}, "l": {"S": "a"}}]  # the index's own projection


def test_ordering_an_unordered_operand_is_refused_in_the_statement_words(ddb: Any, table: str) -> None:
    code, msg = refused(ddb.execute_statement, Statement=f'SELECT pk FROM "{table}" WHERE pk = \'a\' AND v < ?',
                        Parameters=[{"BOOL": True}])
    assert (code, msg) == ("ValidationException", "Incorrect operand type for operator or function; operator or "
                                                  "function: <, operand type: BOOL")


def test_index_reads_are_charged_to_the_index_and_writes_refuse_a_qualifier(ddb: Any, table: str) -> None:
    r = ddb.execute_statement(Statement=f'SELECT sk FROM "{table}"."byg" WHERE g = \'odd\'',
                              ReturnConsumedCapacity="INDEXES")
    cc = r["ConsumedCapacity"]
    assert cc["Table"] == {"CapacityUnits": 0.0}
    assert cc["GlobalSecondaryIndexes"] == {"byg": {"CapacityUnits": cc["CapacityUnits"]}}
    code, msg = refused(ddb.execute_statement, Statement=f"INSERT INTO \"{table}\".\"byg\" VALUE {{'pk': 'w'}}")
    assert (code, msg) == ("ValidationException", "FROM clause may only contain a single table name in data "
                                                  "manipulation statements")
    code, msg = refused(ddb.execute_statement, Statement=f"DELETE FROM \"{table}\".\"byg\" WHERE pk = 'a' AND sk = 1")
    assert (code, msg) == ("ValidationException", "This operation is not supported on an index")


def test_select_pages_with_limit_and_next_token(ddb: Any, table: str) -> None:
    stmt = f'SELECT sk FROM "{table}" WHERE pk = ?'
    seen, token = [], None
    for _ in range(5):
        kw = {"NextToken": token} if token else {}
        r = ddb.execute_statement(Statement=stmt, Parameters=[{"S": "a"}], Limit=4, ConsistentRead=True, **kw)
        seen += [int(it["sk"]["N"]) for it in r["Items"]]
        token = r.get("NextToken")
        if token is None:
            break
    assert seen == list(range(10))
    first = ddb.execute_statement(Statement=stmt, Parameters=[{"S": "a"}], Limit=4)
    assert first["LastEvaluatedKey"] == {"pk": {"S": "a"}, "sk": {"N": "3"}}
    code, msg = refused(ddb.execute_statement, Statement=f'SELECT * FROM "{table}"', NextToken=first["NextToken"])
    assert (code, msg) == ("ValidationException", "NextToken does not match request")
    code, msg = refused(ddb.execute_statement, Statement=stmt, Parameters=[{"S": "a"}], NextToken="garbage!")
    assert (code, msg) == ("ValidationException", "Invalid NextToken")


def test_select_consumed_capacity(ddb: Any, table: str) -> None:
    r = ddb.execute_statement(Statement=f'SELECT * FROM "{table}" WHERE pk = \'a\' AND sk = 1',
                              ReturnConsumedCapacity="TOTAL", ConsistentRead=True)
    assert r["ConsumedCapacity"] == {"TableName": table, "CapacityUnits": 1.0}


# ------------------------------------------------------------------ writes
def test_insert_update_delete_round_trip(ddb: Any, fresh: str) -> None:
    r = ddb.execute_statement(Statement=f"INSERT INTO \"{fresh}\" VALUE {{'id': ?, 'n': 1, 'l': [1, 'x'], "
                                        "'m': {'k': true}, 's': <<'a', 'b'>>}", Parameters=[{"S": "1"}])
    assert r["Items"] == []
    assert get(ddb, fresh, "1") == {"id": {"S": "1"}, "n": {"N": "1"}, "l": {"L": [{"N": "1"}, {"S": "x"}]},
                                    "m": {"M": {"k": {"BOOL": True}}}, "s": {"SS": ["a", "b"]}}
    r = ddb.execute_statement(Statement=f"UPDATE \"{fresh}\" SET n = n + 2 SET s = set_add(s, <<'c'>>) "
                                        "SET l = list_append(l, [2]) REMOVE m WHERE id = '1' RETURNING ALL NEW *")
    assert r["Items"] == [{"id": {"S": "1"}, "n": {"N": "3"}, "s": {"SS": ["a", "b", "c"]},
                           "l": {"L": [{"N": "1"}, {"S": "x"}, {"N": "2"}]}}]
    r = ddb.execute_statement(Statement=f"UPDATE \"{fresh}\" SET n = 7 WHERE id = '1' RETURNING MODIFIED OLD *")
    assert r["Items"] == [{"n": {"N": "3"}}]
    r = ddb.execute_statement(Statement=f"DELETE FROM \"{fresh}\" WHERE id = '1' RETURNING ALL OLD *")
    assert r["Items"][0]["n"] == {"N": "7"}
    assert get(ddb, fresh, "1") is None


def test_insert_duplicate_is_refused_and_changes_nothing(ddb: Any, fresh: str) -> None:
    ddb.execute_statement(Statement=f"INSERT INTO \"{fresh}\" VALUE {{'id': 'd', 'v': 1}}")
    code, msg = refused(ddb.execute_statement, Statement=f"INSERT INTO \"{fresh}\" VALUE {{'id': 'd', 'v': 2}}")
    assert (code, msg) == ("DuplicateItemException", "Duplicate primary key exists in table")
    assert get(ddb, fresh, "d") == {"id": {"S": "d"}, "v": {"N": "1"}}


def test_update_of_missing_item_and_failed_condition(ddb: Any, fresh: str) -> None:
    code, msg = refused(ddb.execute_statement, Statement=f"UPDATE \"{fresh}\" SET v = 1 WHERE id = 'none'")
    assert (code, msg) == ("ConditionalCheckFailedException", "The conditional request failed")
    assert get(ddb, fresh, "none") is None
    ddb.execute_statement(Statement=f"INSERT INTO \"{fresh}\" VALUE {{'id': 'c', 'v': 1}}")
    with pytest.raises(ClientError) as e:
        ddb.execute_statement(Statement=f"UPDATE \"{fresh}\" SET v = 2 WHERE id = 'c' AND v = 5",
                              ReturnValuesOnConditionCheckFailure="ALL_OLD")
    assert e.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    assert e.value.response["Item"] == {"id": {"S": "c"}, "v": {"N": "1"}}
    code, _ = refused(ddb.execute_statement, Statement=f"DELETE FROM \"{fresh}\" WHERE id = 'c' AND v = 5")
    assert code == "ConditionalCheckFailedException"
    # A DELETE of an item that is not there succeeds, whatever its condition says.
    assert ddb.execute_statement(Statement=f"DELETE FROM \"{fresh}\" WHERE id = 'gone' AND v = 5")["Items"] == []
    assert get(ddb, fresh, "c") == {"id": {"S": "c"}, "v": {"N": "1"}}


@pytest.mark.parametrize(("statement", "message"), [
    ("SELEC * FROM t", "Statement wasn't well formed, can't be processed: Expected data manipulation"),
    ("UPDATE \"{t}\" SET v = 1 WHERE id = 'a' garbage",
     "Statement wasn't well formed, can't be processed: Unexpected token after expression"),
    ("UPDATE \"{t}\" SET v = 1 WHERE v = 2", "Where clause does not contain a mandatory equality on all key "
                                            "attributes"),
    ("DELETE FROM \"{t}\" WHERE id = 'a' OR id = 'b'", "Where clause does not contain a mandatory equality on "
                                                      "all key attributes"),
    ("SELECT * FROM \"{t}\" WHERE id = ?", "Number of parameters in request and statement don't match."),
    ("SELECT * FROM \"{t}\" WHERE v = MISSING", "MISSING must be compared using IS operator"),
    ("INSERT INTO \"{t}\" VALUE [1]", "Unsupported format in item expression. Please use struct format {...} to "
                                      "express item values for insert statement."),
    ("DELETE FROM \"{t}\" WHERE id = 'a' RETURNING ALL NEW *", "Invalid returning clause: RETURNING ALL NEW *. "
                                                               "Only RETURNING ALL OLD * is allowed in DELETE "
                                                               "statements."),
    ("EXISTS(SELECT * FROM \"{t}\" WHERE id = 'a')", "EXISTS can only be used in ExecuteTransaction write "
                                                     "requests."),
])
def test_bad_statements(ddb: Any, fresh: str, statement: str, message: str) -> None:
    code, msg = refused(ddb.execute_statement, Statement=statement.replace("{t}", fresh))
    assert (code, msg) == ("ValidationException", message)


def test_unknown_table(ddb: Any) -> None:
    code, msg = refused(ddb.execute_statement, Statement='SELECT * FROM "no-such-table-pq"')
    assert (code, msg) == ("ResourceNotFoundException", "Requested resource not found")


# ------------------------------------------------------------------ batches and transactions
def test_batch_execute_statement(ddb: Any, fresh: str) -> None:
    ddb.execute_statement(Statement=f"INSERT INTO \"{fresh}\" VALUE {{'id': 'dup'}}")
    r = ddb.batch_execute_statement(Statements=[
        {"Statement": f"INSERT INTO \"{fresh}\" VALUE {{'id': ?, 'v': 1}}", "Parameters": [{"S": "b1"}]},
        {"Statement": f"INSERT INTO \"{fresh}\" VALUE {{'id': 'dup'}}"},
        {"Statement": f"UPDATE \"{fresh}\" SET v = 1 WHERE id = 'nope'"},
    ], ReturnConsumedCapacity="TOTAL")
    got = r["Responses"]
    assert got[0] == {"TableName": fresh}
    assert got[1]["TableName"] == fresh  # it ran and failed
    assert got[1]["Error"] == {"Code": "DuplicateItem", "Message": "Duplicate primary key exists in table"}
    assert got[2]["Error"]["Code"] == "ConditionalCheckFailed"
    assert r["ConsumedCapacity"] == [{"TableName": fresh, "CapacityUnits": 1.0}]
    r = ddb.batch_execute_statement(Statements=[
        {"Statement": f"SELECT * FROM \"{fresh}\" WHERE id = 'b1'"},
        {"Statement": f"SELECT * FROM \"{fresh}\" WHERE id = 'absent'"},
    ])
    assert r["Responses"] == [{"TableName": fresh, "Item": {"id": {"S": "b1"}, "v": {"N": "1"}}},
                              {"TableName": fresh}]
    r = ddb.batch_execute_statement(Statements=[
        {"Statement": f"SELECT * FROM \"{fresh}\" WHERE v = 1"},
        {"Statement": "SLECT * FROM x"},
        {"Statement": f"DELETE FROM \"{fresh}\" WHERE id = 'b1' RETURNING ALL OLD *"},
    ])
    assert r["Responses"][0] == {"Error": {"Code": "ValidationError", "Message": "Select statements within "
                                           "BatchExecuteStatement must specify the primary key in the where clause."}}
    assert r["Responses"][1] == {"Error": {"Code": "ValidationError", "Message": "Statement wasn't well formed, "
                                           "can't be processed: Expected data manipulation"}}
    assert r["Responses"][2] == {"TableName": fresh, "Item": {"id": {"S": "b1"}, "v": {"N": "1"}}}


def test_execute_transaction_writes_all_or_nothing(ddb: Any, fresh: str) -> None:
    ddb.execute_statement(Statement=f"INSERT INTO \"{fresh}\" VALUE {{'id': 'x', 'v': 1}}")
    ddb.execute_statement(Statement=f"INSERT INTO \"{fresh}\" VALUE {{'id': 'w', 'v': 1}}")
    with pytest.raises(ClientError) as e:
        ddb.execute_transaction(TransactStatements=[
            {"Statement": f"INSERT INTO \"{fresh}\" VALUE {{'id': 'y'}}"},
            {"Statement": f"INSERT INTO \"{fresh}\" VALUE {{'id': 'x'}}"},
        ])
    assert e.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert e.value.response["CancellationReasons"] == [
        {"Code": "None"}, {"Code": "DuplicateItem", "Message": "Duplicate primary key exists in table"}]
    assert get(ddb, fresh, "y") is None
    with pytest.raises(ClientError) as e:
        ddb.execute_transaction(TransactStatements=[
            {"Statement": f"EXISTS(SELECT * FROM \"{fresh}\" WHERE id = 'x' AND v = 2)"},
            {"Statement": f"UPDATE \"{fresh}\" SET v = 5 WHERE id = 'w'"},
        ])
    assert [r["Code"] for r in e.value.response["CancellationReasons"]] == ["ConditionalCheckFailed", "None"]
    token = uuid.uuid4().hex
    stmts = [{"Statement": f"EXISTS(SELECT * FROM \"{fresh}\" WHERE id = 'x' AND v = 1)"},
             {"Statement": f"UPDATE \"{fresh}\" SET v = v + 1 WHERE id = 'w'"},
             {"Statement": f"INSERT INTO \"{fresh}\" VALUE {{'id': 'z'}}"}]
    first = ddb.execute_transaction(TransactStatements=stmts, ClientRequestToken=token,
                                    ReturnConsumedCapacity="INDEXES")["ConsumedCapacity"][0]
    again = ddb.execute_transaction(TransactStatements=stmts, ClientRequestToken=token,  # the same request: done once
                                    ReturnConsumedCapacity="INDEXES")["ConsumedCapacity"][0]
    # 2 writes and 1 check, each charged as a transactional write (a ConditionCheck is billed as a write:
    # nubo-db/dynamodb-conformance tests/tier2/transactions/transactWrite.test.ts, recorded on DynamoDB).
    assert (first["WriteCapacityUnits"], "ReadCapacityUnits" in first) == (6.0, False)
    assert (again["ReadCapacityUnits"], "WriteCapacityUnits" in again) == (6.0, False)  # a replay reads
    assert get(ddb, fresh, "w") == {"id": {"S": "w"}, "v": {"N": "2"}}
    assert get(ddb, fresh, "z") == {"id": {"S": "z"}}
    code, _ = refused(ddb.execute_transaction, TransactStatements=stmts[1:2], ClientRequestToken=token)
    assert code == "IdempotentParameterMismatchException"


def test_execute_transaction_reads(ddb: Any, fresh: str) -> None:
    ddb.execute_statement(Statement=f"INSERT INTO \"{fresh}\" VALUE {{'id': 'r', 'v': 1, 'w': 2}}")
    r = ddb.execute_transaction(TransactStatements=[
        {"Statement": f"SELECT v FROM \"{fresh}\" WHERE id = ?", "Parameters": [{"S": "r"}]},
        {"Statement": f"SELECT * FROM \"{fresh}\" WHERE id = 'none'"},
    ])
    assert r["Responses"] == [{"Item": {"v": {"N": "1"}}}, {}]
    code, msg = refused(ddb.execute_transaction, TransactStatements=[
        {"Statement": f"SELECT * FROM \"{fresh}\" WHERE v = 1"}])
    assert (code, msg) == ("ValidationException", "Validation failed in TransactStatements[0]: Select statements "
                                                  "within ExecuteTransaction must specify the primary key in the "
                                                  "where clause.")
    code, msg = refused(ddb.execute_transaction, TransactStatements=[
        {"Statement": f"UPDATE \"{fresh}\" SET v = 2 WHERE id = 'r' RETURNING ALL NEW *"}])
    assert (code, msg) == ("ValidationException", "Validation failed in TransactStatements[0]: RETURNING clause is "
                                                  "not supported in ExecuteTransaction.")
