"""PartiQL calls are authorized as DynamoDB authorizes them: each statement needs the PartiQL action of
its kind (PartiQLSelect/Insert/Update/Delete) on its table or index, never dynamodb:ExecuteStatement."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

ACCT, REGION = "000000000000", "us-east-1"


def _role_client(aws: Callable[..., Any], statements: list[dict[str, Any]]) -> Any:
    role = f"pql-{uuid.uuid4().hex[:8]}"
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCT}:root"}, "Action": "sts:AssumeRole"}]}
    iam = aws("iam")
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))
    iam.put_role_policy(RoleName=role, PolicyName="p", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": statements}))
    creds = aws("sts").assume_role(RoleArn=f"arn:aws:iam::{ACCT}:role/{role}", RoleSessionName="s1")["Credentials"]
    return aws("dynamodb", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
               session_token=creds["SessionToken"])


@pytest.fixture(scope="module")
def table(aws: Callable[..., Any]) -> str:
    name = f"pql-{uuid.uuid4().hex[:8]}"
    ddb = aws("dynamodb")
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "g", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     GlobalSecondaryIndexes=[{"IndexName": "byg", "KeySchema": [{"AttributeName": "g",
                                                                                 "KeyType": "HASH"}],
                                              "Projection": {"ProjectionType": "ALL"}}])
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}, "g": {"S": "x"}, "n": {"N": "1"}})
    return name


def _arn(table: str) -> str:
    return f"arn:aws:dynamodb:{REGION}:{ACCT}:table/{table}"


def _denied(call: Callable[[], Any], action: str, resource: str) -> None:
    with pytest.raises(ClientError) as e:
        call()
    assert e.value.response["Error"]["Code"] == "AccessDeniedException"
    assert f"not authorized to perform: {action} on resource: {resource} because no identity-based policy " \
           f"allows the {action} action" in e.value.response["Error"]["Message"]


def test_a_select_only_role_reads_and_is_refused_each_write_kind(aws: Callable[..., Any], table: str) -> None:
    ddb = _role_client(aws, [{"Effect": "Allow", "Action": "dynamodb:PartiQLSelect", "Resource": _arn(table)}])
    got = ddb.execute_statement(Statement=f'SELECT * FROM "{table}" WHERE pk = ?', Parameters=[{"S": "a"}])
    assert got["Items"] == [{"pk": {"S": "a"}, "g": {"S": "x"}, "n": {"N": "1"}}]
    _denied(lambda: ddb.execute_statement(Statement=f"INSERT INTO \"{table}\" VALUE {{'pk': 'b'}}"),
            "dynamodb:PartiQLInsert", _arn(table))
    _denied(lambda: ddb.execute_statement(Statement=f"UPDATE \"{table}\" SET n = 2 WHERE pk = 'a'"),
            "dynamodb:PartiQLUpdate", _arn(table))
    _denied(lambda: ddb.execute_statement(Statement=f"DELETE FROM \"{table}\" WHERE pk = 'a'"),
            "dynamodb:PartiQLDelete", _arn(table))
    # A read of an index is authorized on the index's ARN, which the table's ARN does not cover.
    _denied(lambda: ddb.execute_statement(Statement=f"SELECT * FROM \"{table}\".\"byg\" WHERE g = 'x'"),
            "dynamodb:PartiQLSelect", f"{_arn(table)}/index/byg")
    # Nothing the refused writes asked for happened.
    assert aws("dynamodb").scan(TableName=table)["Items"] == [{"pk": {"S": "a"}, "g": {"S": "x"}, "n": {"N": "1"}}]
    # The native operations are other actions: PartiQLSelect does not grant GetItem.
    _denied(lambda: ddb.get_item(TableName=table, Key={"pk": {"S": "a"}}), "dynamodb:GetItem", _arn(table))


def test_batch_and_transaction_need_every_statements_action(aws: Callable[..., Any], table: str) -> None:
    ddb = _role_client(aws, [{"Effect": "Allow", "Action": "dynamodb:PartiQLSelect", "Resource": _arn(table)}])
    got = ddb.batch_execute_statement(Statements=[{"Statement": f"SELECT * FROM \"{table}\" WHERE pk = 'a'"}])
    assert got["Responses"][0]["Item"]["pk"] == {"S": "a"}
    got = ddb.execute_transaction(TransactStatements=[{"Statement": f"SELECT n FROM \"{table}\" WHERE pk = 'a'"}])
    assert got["Responses"] == [{"Item": {"n": {"N": "1"}}}]
    _denied(lambda: ddb.execute_transaction(TransactStatements=[
        {"Statement": f"INSERT INTO \"{table}\" VALUE {{'pk': 'c'}}"},
        {"Statement": f"UPDATE \"{table}\" SET n = 5 WHERE pk = 'a'"}]), "dynamodb:PartiQLInsert", _arn(table))
    assert "Item" not in aws("dynamodb").get_item(TableName=table, Key={"pk": {"S": "c"}})


def test_conditions_on_full_table_scan_and_enclosing_operation(aws: Callable[..., Any], table: str) -> None:
    ddb = _role_client(aws, [
        {"Effect": "Allow", "Action": ["dynamodb:PartiQLSelect", "dynamodb:PartiQLUpdate"], "Resource": _arn(table)},
        {"Effect": "Deny", "Action": "dynamodb:PartiQLSelect", "Resource": _arn(table),
         "Condition": {"Bool": {"dynamodb:FullTableScan": ["true"]}}},
        {"Effect": "Deny", "Action": "dynamodb:PartiQLUpdate", "Resource": _arn(table),
         "Condition": {"StringNotEquals": {"dynamodb:EnclosingOperation": "ExecuteTransaction"}}}])
    assert ddb.execute_statement(Statement=f"SELECT pk FROM \"{table}\" WHERE pk = 'a'")["Items"] == [
        {"pk": {"S": "a"}}]
    with pytest.raises(ClientError) as scan:
        ddb.execute_statement(Statement=f"SELECT * FROM \"{table}\" WHERE n = 1")
    assert "with an explicit deny in an identity-based policy" in scan.value.response["Error"]["Message"]
    with pytest.raises(ClientError) as alone:
        ddb.execute_statement(Statement=f"UPDATE \"{table}\" SET n = 3 WHERE pk = 'a'")
    assert alone.value.response["Error"]["Code"] == "AccessDeniedException"
    ddb.execute_transaction(TransactStatements=[{"Statement": f"UPDATE \"{table}\" SET n = 4 WHERE pk = 'a'"}])
    assert aws("dynamodb").get_item(TableName=table, Key={"pk": {"S": "a"}})["Item"]["n"] == {"N": "4"}
