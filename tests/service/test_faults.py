"""Fault injection through a real server: boto3, the AWS CLI and raw HTTP for the rules."""

from __future__ import annotations

import io
import json
import sys
import time
import uuid
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

sys.path.insert(0, str(Path(__file__).parent))
from faults_client import faults, set_rules

NO_RETRY = Config(retries={"total_max_attempts": 1})


@pytest.fixture(autouse=True)
def no_rules_left(endpoint: str) -> Iterator[None]:
    """Rules are per server and the server is shared by the session: none may outlive a test."""
    yield
    assert faults(endpoint, "DELETE")[0] == 200


def client(endpoint: str, service: str, **kw: Any) -> Any:
    return boto3.client(service, endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test", config=kw.pop("config", NO_RETRY))


def table(ddb: Any) -> str:
    name = f"faults-{uuid.uuid4().hex[:8]}"
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}])
    return name


def test_before_refuses_and_writes_nothing(endpoint: str) -> None:
    ddb = client(endpoint, "dynamodb")
    name = table(ddb)
    set_rules(endpoint, {"rules": [{"service": "dynamodb", "operation": "PutItem", "resource": name,
                                    "error": {"code": "ProvisionedThroughputExceededException"}}]})
    with pytest.raises(ddb.exceptions.ProvisionedThroughputExceededException) as err:
        ddb.put_item(TableName=name, Item={"id": {"S": "a"}})
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert "provisioned throughput for the table was exceeded" in err.value.response["Error"]["Message"]
    assert "Item" not in ddb.get_item(TableName=name, Key={"id": {"S": "a"}})
    assert ddb.scan(TableName=name)["Count"] == 0


def test_after_writes_then_answers_the_error(endpoint: str) -> None:
    ddb = client(endpoint, "dynamodb")
    name = table(ddb)
    set_rules(endpoint, [{"service": "dynamodb", "operation": "PutItem", "resource": f"arn:aws:dynamodb:*:table/{name}",
                          "when": "after", "error": {"code": "InternalServerError"}}])
    with pytest.raises(ddb.exceptions.InternalServerError) as err:
        ddb.put_item(TableName=name, Item={"id": {"S": "a"}, "v": {"N": "1"}})
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 500
    assert ddb.get_item(TableName=name, Key={"id": {"S": "a"}})["Item"] == {"id": {"S": "a"}, "v": {"N": "1"}}
    [rule] = faults(endpoint)[1]["rules"]
    assert (rule["matched"], rule["fired"]) == (1, 1)


def test_skip_and_times_fire_on_the_chosen_calls(endpoint: str) -> None:
    ddb = client(endpoint, "dynamodb")
    name, other = table(ddb), table(ddb)
    set_rules(endpoint, [{"service": "dynamodb", "operation": "GetItem", "resource": name, "skip": 2, "times": 2,
                          "error": {"code": "ThrottlingException"}}])
    outcomes = []
    for _ in range(6):
        try:
            ddb.get_item(TableName=name, Key={"id": {"S": "x"}})
            outcomes.append("ok")
        except ClientError as exc:
            outcomes.append(exc.response["Error"]["Code"])
    ddb.get_item(TableName=other, Key={"id": {"S": "x"}})  # another table: not matched
    assert outcomes == ["ok", "ok", "ThrottlingException", "ThrottlingException", "ok", "ok"]
    [rule] = faults(endpoint)[1]["rules"]
    assert (rule["matched"], rule["fired"]) == (6, 2)


def test_seeded_probability_is_reproducible(endpoint: str) -> None:
    ddb = client(endpoint, "dynamodb")
    name = table(ddb)
    rule = {"service": "dynamodb", "operation": "GetItem", "resource": name, "probability": 0.5, "seed": 1234,
            "error": {"code": "InternalServerError"}}
    runs = []
    for _ in range(2):
        set_rules(endpoint, [rule])  # a new set: the counters start again
        run = []
        for _ in range(30):
            try:
                ddb.get_item(TableName=name, Key={"id": {"S": "x"}})
                run.append(0)
            except ddb.exceptions.InternalServerError:
                run.append(1)
        runs.append(run)
    assert runs[0] == runs[1]
    assert 0 < sum(runs[0]) < 30


@pytest.mark.parametrize(("rule", "field"), [
    ({"service": "kinesis"}, "rules[0].service"),
    ({"service": "dynamodb", "operation": "PutItemz"}, "rules[0].operation"),
    ({"service": "dynamodb", "operation": "GetItem", "error": {"code": "ConditionalCheckFailedException"}},
     "rules[0].error.code"),
    ({"service": "dynamodb", "resource": "bad\nglob"}, "rules[0].resource"),
    ({"service": "dynamodb", "probability": 2}, "rules[0].probability"),
])
def test_bad_rules_get_400_naming_the_field_and_change_nothing(endpoint: str, rule: dict[str, Any],
                                                               field: str) -> None:
    kept = set_rules(endpoint, [{"service": "dynamodb", "operation": "DeleteTable", "resource": "nothing-here"}])
    status, body = faults(endpoint, "POST", {"rules": [{"service": "dynamodb"}, rule]})
    assert status == 400
    assert body["field"] == field.replace("[0]", "[1]")
    assert body["message"].startswith(field.replace("[0]", "[1]") + ":")
    assert faults(endpoint)[1]["rules"] == kept


def test_localstack_chaos_rules_work_unchanged(endpoint: str) -> None:
    ddb = client(endpoint, "dynamodb")
    name = table(ddb)
    # The Chaos API's documented shapes: a bare list; service/region/operation/probability/error.
    chaos = [{"service": "dynamodb", "region": "us-east-1", "operation": "GetItem", "probability": 1.0,
              "error": {"statusCode": 500, "code": "InternalServerError"}},
             {"service": "dynamodb", "region": "eu-west-1"}]
    status, body = faults(endpoint, "POST", chaos)
    assert status == 200 and len(body["rules"]) == 2
    with pytest.raises(ddb.exceptions.InternalServerError):
        ddb.get_item(TableName=name, Key={"id": {"S": "x"}})
    west = boto3.client("dynamodb", endpoint_url=endpoint, region_name="eu-west-1", aws_access_key_id="test",
                        aws_secret_access_key="test", config=NO_RETRY)
    with pytest.raises(ClientError) as err:
        west.list_tables()
    assert (err.value.response["Error"]["Code"], err.value.response["ResponseMetadata"]["HTTPStatusCode"]) == \
        ("ServiceUnavailable", 503)
    client(endpoint, "dynamodb").list_tables()  # us-east-1 ListTables: no rule
    # PATCH adds, DELETE with a body removes those rules (the Chaos API's verbs).
    status, body = faults(endpoint, "PATCH", [{"service": "lambda", "operation": "ListFunctions"}])
    assert status == 200 and len(body["rules"]) == 3
    status, body = faults(endpoint, "DELETE", [chaos[1]])
    assert status == 200 and [r.get("region") for r in body["rules"]] == ["us-east-1", None]


def test_aws_cli_sees_the_error(endpoint: str, aws_cli: Callable[..., Any]) -> None:
    ddb = client(endpoint, "dynamodb")
    name = table(ddb)
    set_rules(endpoint, [{"service": "dynamodb", "operation": "PutItem", "resource": name, "when": "after",
                          "error": {"code": "ConditionalCheckFailedException"}}])
    proc = aws_cli("dynamodb", "put-item", "--table-name", name, "--item", '{"id": {"S": "cli"}}')
    assert proc.returncode != 0
    assert "ConditionalCheckFailedException" in proc.stderr and "The conditional request failed" in proc.stderr
    assert ddb.get_item(TableName=name, Key={"id": {"S": "cli"}})["Item"] == {"id": {"S": "cli"}}


def test_each_fault_is_logged_in_the_faults_log_group(endpoint: str) -> None:
    ddb = client(endpoint, "dynamodb")
    name = table(ddb)
    set_rules(endpoint, [{"service": "dynamodb", "operation": "GetItem", "resource": name,
                          "error": {"code": "ThrottlingException"}}])
    with pytest.raises(ClientError) as err:
        ddb.get_item(TableName=name, Key={"id": {"S": "x"}})
    request_id = err.value.response["ResponseMetadata"]["RequestId"]
    logs = client(endpoint, "logs")
    events = logs.filter_log_events(logGroupName="/aws/onceflow/faults", filterPattern=f'"{request_id}"')["events"]
    [event] = [json.loads(e["message"]) for e in events]
    assert event["operation"] == "GetItem" and event["fault"] == "ThrottlingException" and event["when"] == "before"
    assert event["resource"].endswith(f":table/{name}")


def test_latency_delays_the_answer(endpoint: str) -> None:
    ddb = client(endpoint, "dynamodb")
    name = table(ddb)
    set_rules(endpoint, [{"service": "dynamodb", "operation": "GetItem", "resource": name, "latency_ms": 300}])
    started = time.monotonic()
    assert "Item" not in ddb.get_item(TableName=name, Key={"id": {"S": "x"}})  # delayed, then answered
    print(f"GetItem with latency_ms=300 took {(time.monotonic() - started) * 1000:.0f} ms")
    [rule] = faults(endpoint)[1]["rules"]
    assert rule["fired"] == 1


# ------------------------------------------------------------------------------------ Lambda
COUNTER = """
import os, boto3
def handler(event, context):
    db = boto3.client('dynamodb')
    n = db.update_item(TableName=os.environ['TABLE'], Key={'id': {'S': event.get('id', 'n')}},
                       UpdateExpression='ADD runs :one', ExpressionAttributeValues={':one': {'N': '1'}},
                       ReturnValues='UPDATED_NEW')['Attributes']['runs']['N']
    return {'runs': int(n)}
"""
TRUST = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": s},
                                                 "Action": "sts:AssumeRole"}
                                                for s in ("lambda.amazonaws.com", "states.amazonaws.com")]}


@pytest.fixture(scope="module")
def counter(endpoint: str) -> dict[str, str]:
    """A function counting its runs per id in a table, and a role for it and for Step Functions."""
    prefix = f"faultfn-{uuid.uuid4().hex[:6]}"
    iam, ddb, lam = client(endpoint, "iam"), client(endpoint, "dynamodb"), client(endpoint, "lambda")
    role = iam.create_role(RoleName=f"{prefix}-role", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    iam.put_role_policy(RoleName=f"{prefix}-role", PolicyName="all", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["dynamodb:*", "lambda:*", "logs:*"],
                                                 "Resource": "*"}]}))
    name = table(ddb)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", COUNTER)
    lam.create_function(FunctionName=prefix, Runtime="python3.12", Handler="app.handler", Role=role,
                        Code={"ZipFile": buf.getvalue()}, Environment={"Variables": {"TABLE": name}}, Timeout=30)
    lam.get_waiter("function_active_v2").wait(FunctionName=prefix)
    return {"function": prefix, "table": name, "role": role}


def runs(endpoint: str, counter: dict[str, str], key: str) -> int:
    item = client(endpoint, "dynamodb").get_item(TableName=counter["table"], Key={"id": {"S": key}}).get("Item")
    return int(item["runs"]["N"]) if item else 0


def test_invoke_error_after_the_handler_ran(endpoint: str, counter: dict[str, str]) -> None:
    lam = client(endpoint, "lambda")
    set_rules(endpoint, [{"service": "lambda", "kind": "invoke_error", "resource": counter["function"]}])
    with pytest.raises(lam.exceptions.ServiceException) as err:
        lam.invoke(FunctionName=counter["function"], Payload=json.dumps({"id": "ie"}))
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 500
    assert runs(endpoint, counter, "ie") == 1  # the handler ran: only its answer was lost


def test_duplicate_runs_the_handler_twice(endpoint: str, counter: dict[str, str]) -> None:
    lam = client(endpoint, "lambda")
    set_rules(endpoint, [{"service": "lambda", "kind": "duplicate", "resource": counter["function"], "times": 1}])
    out = lam.invoke(FunctionName=counter["function"], Payload=json.dumps({"id": "dup"}))
    assert json.loads(out["Payload"].read()) == {"runs": 2}
    assert runs(endpoint, counter, "dup") == 2


def test_crash_answers_runtime_exit_error(endpoint: str, counter: dict[str, str]) -> None:
    lam = client(endpoint, "lambda")
    set_rules(endpoint, [{"service": "lambda", "kind": "crash", "resource": counter["function"], "times": 1}])
    out = lam.invoke(FunctionName=counter["function"], Payload=json.dumps({"id": "crash"}))
    assert out["FunctionError"] == "Unhandled"
    payload = json.loads(out["Payload"].read())
    assert payload["errorType"] == "Runtime.ExitError"
    assert payload["errorMessage"].endswith("Error: Runtime exited with error: signal: killed")
    assert runs(endpoint, counter, "crash") == 1
    again = lam.invoke(FunctionName=counter["function"], Payload=json.dumps({"id": "crash"}))  # times: 1 spent
    assert json.loads(again["Payload"].read()) == {"runs": 2}


def test_step_functions_task_sees_lambda_service_exception_and_retries(endpoint: str,
                                                                       counter: dict[str, str]) -> None:
    sfn = client(endpoint, "stepfunctions")
    definition = {"StartAt": "Count", "States": {"Count": {
        "Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
        "Parameters": {"FunctionName": counter["function"], "Payload": {"id.$": "$.id"}},
        "OutputPath": "$.Payload",
        "Retry": [{"ErrorEquals": ["Lambda.ServiceException"], "IntervalSeconds": 1, "MaxAttempts": 2}],
        "End": True}}}
    machine = sfn.create_state_machine(name=f"faults-{uuid.uuid4().hex[:6]}", definition=json.dumps(definition),
                                       roleArn=counter["role"])["stateMachineArn"]
    set_rules(endpoint, [{"service": "lambda", "kind": "invoke_error", "resource": counter["function"], "times": 1}])
    key = f"sfn-{uuid.uuid4().hex[:6]}"
    arn = sfn.start_execution(stateMachineArn=machine, input=json.dumps({"id": key}))["executionArn"]
    deadline = time.time() + 60
    while (d := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING" and time.time() < deadline:
        time.sleep(0.1)
    assert d["status"] == "SUCCEEDED", d
    assert json.loads(d["output"]) == {"runs": 2}  # the lost answer's run, then the retry's
    events = sfn.get_execution_history(executionArn=arn)["events"]
    [failed] = [e["taskFailedEventDetails"] for e in events if e["type"] == "TaskFailed"]
    assert failed["error"] == "Lambda.ServiceException"
    assert failed["cause"].startswith("The Lambda service encountered an internal error. (Service: AWSLambda; "
                                      "Status Code: 500; Error Code: ServiceException;")
    assert "onceflow" not in json.dumps(failed).lower()
    assert [e["type"] for e in events].count("TaskSucceeded") == 1
    # The console marks the attempt whose failure was injected, and only that one.
    import urllib.request

    machine_name = machine.rsplit(":", 1)[1]
    page = f"{endpoint}/states/{machine_name}/executions/{arn.rsplit(':', 1)[1]}"
    with urllib.request.urlopen(page, timeout=30) as response:
        text = response.read().decode()
    assert text.count("injected by fault rule") == 1
    assert "the handler ran; the fault replaced its answer" in text


# ------------------------------------------------------------------------------------ durability
def test_rules_survive_a_restart_and_go_on_reset(server_factory: Callable[..., Any], tmp_path: Path) -> None:
    server = server_factory(tmp_path / "data")
    rules = set_rules(server.url, [{"service": "dynamodb", "operation": "ListTables", "skip": 1, "times": 1}])
    ddb = client(server.url, "dynamodb")
    ddb.list_tables()
    with pytest.raises(ClientError):
        ddb.list_tables()
    server.stop()
    again = server_factory(tmp_path / "data")
    [rule] = faults(again.url)[1]["rules"]
    assert rule == {**rules[0], "matched": 2, "fired": 1}
    client(again.url, "dynamodb").list_tables()  # times: 1 was spent before the restart
    import urllib.request

    urllib.request.urlopen(urllib.request.Request(f"{again.url}/_onceflow/reset", method="POST"), timeout=30)
    assert faults(again.url)[1]["rules"] == []


def test_step_functions_dynamodb_task_sees_the_error_as_aws_reports_it(endpoint: str,
                                                                        counter: dict[str, str]) -> None:
    sfn = client(endpoint, "stepfunctions")
    definition = {"StartAt": "Put", "States": {
        "Put": {"Type": "Task", "Resource": "arn:aws:states:::dynamodb:putItem",
                "Parameters": {"TableName": counter["table"], "Item": {"id": {"S.$": "$.id"}}},
                "Catch": [{"ErrorEquals": ["DynamoDB.ProvisionedThroughputExceededException"], "Next": "Caught",
                           "ResultPath": "$.failure"}],
                "End": True},
        "Caught": {"Type": "Pass", "End": True}}}
    machine = sfn.create_state_machine(name=f"faults-{uuid.uuid4().hex[:6]}", definition=json.dumps(definition),
                                       roleArn=counter["role"])["stateMachineArn"]
    set_rules(endpoint, [{"service": "dynamodb", "operation": "PutItem", "resource": counter["table"],
                          "error": {"code": "ProvisionedThroughputExceededException"}}])
    key = f"sfn-ddb-{uuid.uuid4().hex[:6]}"
    arn = sfn.start_execution(stateMachineArn=machine, input=json.dumps({"id": key}))["executionArn"]
    deadline = time.time() + 60
    while (d := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING" and time.time() < deadline:
        time.sleep(0.1)
    assert d["status"] == "SUCCEEDED", d
    failure = json.loads(d["output"])["failure"]
    assert failure["Error"] == "DynamoDB.ProvisionedThroughputExceededException"
    assert "(Service: AmazonDynamoDBv2; Status Code: 400; Error Code: ProvisionedThroughputExceededException;" \
        in failure["Cause"]
    assert runs(endpoint, counter, key) == 0 and "Item" not in client(endpoint, "dynamodb").get_item(
        TableName=counter["table"], Key={"id": {"S": key}})


@pytest.mark.parametrize("headers", [{"Origin": "https://evil.example"}, {"Origin": "null"},
                                     {"Host": "attacker.example"}])
def test_a_web_page_cannot_change_the_rules(endpoint: str, headers: dict[str, str]) -> None:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(f"{endpoint}/_onceflow/faults", method="POST", headers=headers,
                                     data=json.dumps([{"service": "dynamodb"}]).encode())
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(request, timeout=30)
    err.value.close()
    assert err.value.code == 403
    assert faults(endpoint)[1]["rules"] == []


def test_timeout_holds_the_call_until_the_client_gives_up(server_factory: Callable[..., Any],
                                                          tmp_path: Path) -> None:
    from botocore.exceptions import ReadTimeoutError

    server = server_factory(tmp_path / "data")
    ddb = client(server.url, "dynamodb")
    name = table(ddb)
    set_rules(server.url, [{"service": "dynamodb", "operation": "PutItem", "resource": name, "when": "after",
                            "timeout": True, "times": 1}])
    impatient = boto3.client("dynamodb", endpoint_url=server.url, region_name="us-east-1", aws_access_key_id="test",
                             aws_secret_access_key="test",
                             config=Config(retries={"total_max_attempts": 1}, read_timeout=1, connect_timeout=5))
    with pytest.raises(ReadTimeoutError):
        impatient.put_item(TableName=name, Item={"id": {"S": "held"}})
    # `after`: the write took effect before the hold; the server goes on answering others.
    assert ddb.get_item(TableName=name, Key={"id": {"S": "held"}})["Item"] == {"id": {"S": "held"}}
    assert faults(server.url)[1]["rules"][0]["fired"] == 1
    assert server.stop() == 0
