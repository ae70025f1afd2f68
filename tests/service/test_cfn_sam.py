"""The SAM transform through AWS's aws-sam-translator: `aws cloudformation deploy` of a SAM template,
then the function, table and state machine it made, used through their own APIs."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

TEMPLATE = Path(__file__).with_name("cfn_sam_app.yaml")


def test_deploy_a_sam_template_and_run_its_workflow(aws: Any, aws_cli: Any) -> None:
    name = f"sam{uuid.uuid4().hex[:8]}"
    done = aws_cli("cloudformation", "deploy", "--template-file", str(TEMPLATE), "--stack-name", name,
                   "--capabilities", "CAPABILITY_IAM")
    assert done.returncode == 0, done.stderr
    cfn = aws("cloudformation")
    stack = cfn.describe_stacks(StackName=name)["Stacks"][0]
    assert stack["StackStatus"] == "CREATE_COMPLETE"
    out = {o["OutputKey"]: o["OutputValue"] for o in stack["Outputs"]}
    types = {r["LogicalResourceId"]: r["ResourceType"]
             for r in cfn.list_stack_resources(StackName=name)["StackResourceSummaries"]}
    assert types == {"Items": "AWS::DynamoDB::Table", "Worker": "AWS::Lambda::Function",
                     "WorkerRole": "AWS::IAM::Role", "Flow": "AWS::StepFunctions::StateMachine",
                     "FlowRole": "AWS::IAM::Role"}
    processed = json.loads(json.dumps(cfn.get_template(StackName=name, TemplateStage="Processed")["TemplateBody"]))
    assert "Transform" not in processed and processed["Resources"]["Worker"]["Type"] == "AWS::Lambda::Function"
    aws("dynamodb").describe_table(TableName=out["TableName"])

    sfn = aws("stepfunctions")
    arn = sfn.start_execution(stateMachineArn=out["FlowArn"], input='{"n": 1}')["executionArn"]
    for _ in range(300):  # the Step Functions model has no execution waiter: poll
        run = sfn.describe_execution(executionArn=arn)
        if run["status"] != "RUNNING":
            break
        time.sleep(0.1)
    assert run["status"] == "SUCCEEDED", run
    assert json.loads(run["output"]) == {"table": out["TableName"], "got": {"n": 1}}

    done = aws_cli("cloudformation", "delete-stack", "--stack-name", name)
    assert done.returncode == 0, done.stderr
    with pytest.raises(ClientError):
        sfn.describe_state_machine(stateMachineArn=out["FlowArn"])


def test_create_stack_with_a_transform_needs_auto_expand(aws: Any) -> None:
    with pytest.raises(ClientError) as err:
        aws("cloudformation").create_stack(StackName=f"sam{uuid.uuid4().hex[:8]}", TemplateBody=TEMPLATE.read_text(),
                                           Capabilities=["CAPABILITY_IAM"])
    assert err.value.response["Error"]["Code"] == "InsufficientCapabilitiesException"
    assert err.value.response["Error"]["Message"] == "Requires capabilities : [CAPABILITY_AUTO_EXPAND]"


def test_an_invalid_sam_template_gets_the_translator_error(aws: Any) -> None:
    body = "Transform: AWS::Serverless-2016-10-31\nResources:\n  F:\n    Type: AWS::Serverless::Function\n" \
           "    Properties:\n      Runtime: python3.12\n"
    with pytest.raises(ClientError) as err:
        aws("cloudformation").validate_template(TemplateBody=body)
    assert err.value.response["Error"]["Code"] == "ValidationError"
    assert err.value.response["Error"]["Message"].startswith(
        "Transform AWS::Serverless-2016-10-31 failed with: Invalid Serverless Application Specification document.")


EVENTS = Path(__file__).with_name("cfn_sam_events.yaml")


def _failures(cfn: Any, name: str) -> list[str]:
    """Why a stack failed, from its events (for the assertion's message)."""
    return [f"{e['LogicalResourceId']}: {e.get('ResourceStatusReason')}"
            for e in cfn.describe_stack_events(StackName=name)["StackEvents"] if e["ResourceStatus"].endswith("FAILED")]


def test_sam_events_wire_a_topic_to_the_function(aws: Any, aws_cli: Any) -> None:
    name = f"sam{uuid.uuid4().hex[:8]}"
    done = aws_cli("cloudformation", "deploy", "--template-file", str(EVENTS), "--stack-name", name,
                   "--capabilities", "CAPABILITY_IAM")
    cfn = aws("cloudformation")
    assert done.returncode == 0, _failures(cfn, name)
    stack = cfn.describe_stacks(StackName=name)["Stacks"][0]
    out = {o["OutputKey"]: o["OutputValue"] for o in stack["Outputs"]}
    types = sorted(r["ResourceType"] for r in cfn.list_stack_resources(StackName=name)["StackResourceSummaries"])
    assert types == sorted(["AWS::DynamoDB::Table", "AWS::SNS::Topic", "AWS::Lambda::Function", "AWS::IAM::Role",
                            "AWS::Lambda::Version", "AWS::Lambda::Alias", "AWS::SNS::Subscription",
                            "AWS::Lambda::Permission"])
    aws("lambda").get_alias(FunctionName=next(r["PhysicalResourceId"] for r in cfn.list_stack_resources(
        StackName=name)["StackResourceSummaries"] if r["LogicalResourceId"] == "Consumer"), Name="live")
    aws("sns").publish(TopicArn=out["TopicArn"], Message="from-sns")
    table = aws("dynamodb")
    seen: set[str] = set()
    for _ in range(200):  # SNS delivers from its own thread
        seen = {i["id"]["S"] for i in table.scan(TableName=out["TableName"])["Items"]}
        if seen:
            break
        time.sleep(0.1)
    assert seen == {"from-sns"}
    done = aws_cli("cloudformation", "delete-stack", "--stack-name", name)
    assert done.returncode == 0, done.stderr
    assert cfn.describe_stacks(StackName=stack["StackId"])["Stacks"][0]["StackStatus"] == "DELETE_COMPLETE"


PACKAGED = """\
Transform: AWS::Serverless-2016-10-31
Resources:
  Hello:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: python3.12
      Handler: app.handler
      CodeUri: ./code
Outputs:
  Name:
    Value: !Ref Hello
"""


def test_package_uploads_the_code_to_s3_and_deploy_makes_the_function_from_it(aws: Any, aws_cli: Any,
                                                                               tmp_path: Path) -> None:
    name, bucket = f"pkg{uuid.uuid4().hex[:8]}", f"pkg-{uuid.uuid4().hex[:10]}"
    aws("s3").create_bucket(Bucket=bucket)
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "app.py").write_text("def handler(event, context):\n    return {'hello': event['who']}\n")
    (tmp_path / "t.yaml").write_text(PACKAGED)
    done = aws_cli("cloudformation", "package", "--template-file", "t.yaml", "--s3-bucket", bucket,
                   "--output-template-file", "packaged.yaml", cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert f"s3://{bucket}/" in (tmp_path / "packaged.yaml").read_text()
    done = aws_cli("cloudformation", "deploy", "--template-file", str(tmp_path / "packaged.yaml"), "--stack-name",
                   name, "--capabilities", "CAPABILITY_IAM")
    cfn = aws("cloudformation")
    assert done.returncode == 0, _failures(cfn, name)
    fn = cfn.describe_stacks(StackName=name)["Stacks"][0]["Outputs"][0]["OutputValue"]
    answer = aws("lambda").invoke(FunctionName=fn, Payload=b'{"who": "s3"}')["Payload"].read()
    assert json.loads(answer) == {"hello": "s3"}
    cfn.delete_stack(StackName=name)


SQS_EVENT = """\
Transform: AWS::Serverless-2016-10-31
Resources:
  Jobs:
    Type: AWS::SQS::Queue
  Consumer:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: python3.12
      Handler: index.handler
      InlineCode: "def handler(event, context):\\n    return len(event['Records'])\\n"
      Events:
        FromQueue:
          Type: SQS
          Properties:
            Queue: !GetAtt Jobs.Arn
            BatchSize: 5
"""


def test_an_sqs_event_attaches_aws_managed_sqs_execution_role(aws: Any) -> None:
    name = f"sqsev{uuid.uuid4().hex[:8]}"
    cfn = aws("cloudformation")
    cfn.create_stack(StackName=name, TemplateBody=SQS_EVENT, Capabilities=["CAPABILITY_IAM", "CAPABILITY_AUTO_EXPAND"])
    cfn.get_waiter("stack_create_complete").wait(StackName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    made = {r["LogicalResourceId"]: r["PhysicalResourceId"]
            for r in cfn.list_stack_resources(StackName=name)["StackResourceSummaries"]}
    attached = aws("iam").list_attached_role_policies(RoleName=made["ConsumerRole"])["AttachedPolicies"]
    assert {p["PolicyArn"] for p in attached} == {
        "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
        "arn:aws:iam::aws:policy/service-role/AWSLambdaSQSQueueExecutionRole"}
    mappings = aws("lambda").list_event_source_mappings(FunctionName=made["Consumer"])["EventSourceMappings"]
    assert [(m["BatchSize"], m["EventSourceArn"].rsplit(":", 1)[1]) for m in mappings] == [
        (5, made["Jobs"].rsplit("/", 1)[1])]
    cfn.delete_stack(StackName=name)
    cfn.get_waiter("stack_delete_complete").wait(StackName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
