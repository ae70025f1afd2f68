"""The rest of the resource types, each checked through its own service: an event bus with a rule
feeding a queue (and the queue's policy), an activity, a schedule, topic and bucket policies, and
a state machine whose definition is read from S3."""

from __future__ import annotations

import json
import uuid
from typing import Any

TRUST = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": [
    "scheduler.amazonaws.com", "states.amazonaws.com"]}, "Action": "sts:AssumeRole"}]}


def test_more_types_are_made_and_deleted(aws: Any) -> None:
    cfn = aws("cloudformation")
    name, bucket = f"m{uuid.uuid4().hex[:8]}", f"defs-{uuid.uuid4().hex[:10]}"
    aws("s3").create_bucket(Bucket=bucket)
    aws("s3").put_object(Bucket=bucket, Key="machine.json", Body=json.dumps({
        "StartAt": "P", "States": {"P": {"Type": "Pass", "Result": "from-s3", "End": True}}}).encode())
    body = {"Resources": {
        "Role": {"Type": "AWS::IAM::Role", "Properties": {"AssumeRolePolicyDocument": TRUST}},
        "Bus": {"Type": "AWS::Events::EventBus", "Properties": {"Name": f"{name}-bus"}},
        "Inbox": {"Type": "AWS::SQS::Queue"},
        "InboxPolicy": {"Type": "AWS::SQS::QueuePolicy", "Properties": {"Queues": [{"Ref": "Inbox"}],
            "PolicyDocument": {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {
                "Service": "events.amazonaws.com"}, "Action": "sqs:SendMessage",
                "Resource": {"Fn::GetAtt": ["Inbox", "Arn"]}}]}}},
        "Rule": {"Type": "AWS::Events::Rule", "Properties": {
            "EventBusName": {"Ref": "Bus"}, "EventPattern": {"source": ["app.orders"]},
            "Targets": [{"Id": "inbox", "Arn": {"Fn::GetAtt": ["Inbox", "Arn"]}}]}},
        "Work": {"Type": "AWS::StepFunctions::Activity", "Properties": {"Name": f"{name}-work"}},
        "Tick": {"Type": "AWS::Scheduler::Schedule", "Properties": {
            "ScheduleExpression": "rate(1 day)", "FlexibleTimeWindow": {"Mode": "OFF"},
            "Target": {"Arn": {"Fn::GetAtt": ["Inbox", "Arn"]}, "RoleArn": {"Fn::GetAtt": ["Role", "Arn"]}}}},
        "Topic": {"Type": "AWS::SNS::Topic"},
        "TopicPolicy": {"Type": "AWS::SNS::TopicPolicy", "Properties": {"Topics": [{"Ref": "Topic"}],
            "PolicyDocument": {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {
                "Service": "events.amazonaws.com"}, "Action": "sns:Publish", "Resource": {"Ref": "Topic"}}]}}},
        "BucketPolicy": {"Type": "AWS::S3::BucketPolicy", "Properties": {"Bucket": bucket, "PolicyDocument": {
            "Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Principal": "*", "Action": "s3:DeleteBucket",
                                                    "Resource": f"arn:aws:s3:::{bucket}"}]}}},
        "Machine": {"Type": "AWS::StepFunctions::StateMachine", "Properties": {
            "RoleArn": {"Fn::GetAtt": ["Role", "Arn"]},
            "DefinitionS3Location": {"Bucket": bucket, "Key": "machine.json"}}},
    }}
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(body), Capabilities=["CAPABILITY_IAM"])
    stack = cfn.describe_stacks(StackName=name)["Stacks"][0]
    failures = [e.get("ResourceStatusReason") for e in cfn.describe_stack_events(StackName=name)["StackEvents"]
                if e["ResourceStatus"] == "CREATE_FAILED"]
    assert stack["StackStatus"] == "CREATE_COMPLETE", failures
    res = {r["LogicalResourceId"]: r["PhysicalResourceId"]
           for r in cfn.list_stack_resources(StackName=name)["StackResourceSummaries"]}

    aws("events").put_events(Entries=[{"Source": "app.orders", "DetailType": "placed", "Detail": "{}",
                                       "EventBusName": f"{name}-bus"}])
    got = aws("sqs").receive_message(QueueUrl=res["Inbox"], WaitTimeSeconds=10).get("Messages", [])
    assert json.loads(got[0]["Body"])["source"] == "app.orders"
    policy = aws("sqs").get_queue_attributes(QueueUrl=res["Inbox"], AttributeNames=["Policy"])["Attributes"]
    assert json.loads(policy["Policy"])["Statement"][0]["Action"] == "sqs:SendMessage"
    assert aws("stepfunctions").describe_activity(activityArn=res["Work"])["name"] == f"{name}-work"
    assert aws("scheduler").get_schedule(Name=res["Tick"])["ScheduleExpression"] == "rate(1 day)"
    topic = aws("sns").get_topic_attributes(TopicArn=res["Topic"])["Attributes"]
    assert json.loads(topic["Policy"])["Statement"][0]["Action"] == "sns:Publish"
    assert json.loads(aws("s3").get_bucket_policy(Bucket=bucket)["Policy"])["Statement"][0]["Effect"] == "Deny"
    sfn = aws("stepfunctions")
    assert json.loads(sfn.describe_state_machine(stateMachineArn=res["Machine"])["definition"])["StartAt"] == "P"

    cfn.delete_stack(StackName=name)
    assert cfn.describe_stacks(StackName=stack["StackId"])["Stacks"][0]["StackStatus"] == "DELETE_COMPLETE"
    assert f"{name}-bus" not in [b["Name"] for b in aws("events").list_event_buses()["EventBuses"]]
    assert res["Tick"] not in [s["Name"] for s in aws("scheduler").list_schedules()["Schedules"]]


def test_language_extensions_for_each_and_cidr_in_a_stack(aws: Any) -> None:
    cfn, name = aws("cloudformation"), f"le{uuid.uuid4().hex[:8]}"
    body = {
        "Transform": "AWS::LanguageExtensions",
        "Parameters": {"Topics": {"Type": "CommaDelimitedList", "Default": "a,b"}},
        "Resources": {"Fn::ForEach::Topics": ["T", {"Ref": "Topics"}, {"Topic${T}": {
            "Type": "AWS::SNS::Topic", "Properties": {"TopicName": {"Fn::Sub": "${AWS::StackName}-${T}"}}}}]},
        "Outputs": {"Subnets": {"Value": {"Fn::Join": [",", {"Fn::Cidr": ["10.1.0.0/16", 2, 12]}]}}},
    }
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(body), Capabilities=["CAPABILITY_AUTO_EXPAND"],
                     Parameters=[{"ParameterKey": "Topics", "ParameterValue": "x,y,z"}])
    cfn.get_waiter("stack_create_complete").wait(StackName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    made = {r["LogicalResourceId"]: r["PhysicalResourceId"]
            for r in cfn.list_stack_resources(StackName=name)["StackResourceSummaries"]}
    assert sorted(made) == ["Topicx", "Topicy", "Topicz"]
    topics = {t["TopicArn"] for t in aws("sns").list_topics()["Topics"]}
    assert {f"arn:aws:sns:us-east-1:000000000000:{name}-{x}" for x in "xyz"} <= topics
    assert cfn.describe_stacks(StackName=name)["Stacks"][0]["Outputs"][0]["OutputValue"] == \
        "10.1.0.0/20,10.1.16.0/20"
    processed = cfn.get_template(StackName=name, TemplateStage="Processed")["TemplateBody"]
    assert "Transform" not in processed and "Topicx" in processed["Resources"]
    cfn.delete_stack(StackName=name)


def _zip(source: str) -> bytes:
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("python/helper.py", source)
    return buf.getvalue()


def test_iam_users_layers_versions_and_filters_are_made_and_deleted(aws: Any) -> None:
    """IAM User, AccessKey and InstanceProfile; Lambda LayerVersion and EventInvokeConfig; Step
    Functions StateMachineVersion and StateMachineAlias; Logs MetricFilter and SubscriptionFilter:
    made, read through their own APIs (the Ref and GetAtt values AWS gives), and deleted."""
    cfn, iam, lam, sfn, logs = aws("cloudformation"), aws("iam"), aws("lambda"), aws("stepfunctions"), aws("logs")
    name, bucket = f"x{uuid.uuid4().hex[:8]}", f"layers-{uuid.uuid4().hex[:10]}"
    aws("s3").create_bucket(Bucket=bucket)
    aws("s3").put_object(Bucket=bucket, Key="layer.zip", Body=_zip("VALUE = 1\n"))
    lambda_trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {
        "Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    body = {"Resources": {
        "Role": {"Type": "AWS::IAM::Role", "Properties": {"AssumeRolePolicyDocument": TRUST}},
        "FnRole": {"Type": "AWS::IAM::Role", "Properties": {"AssumeRolePolicyDocument": lambda_trust}},
        "Dev": {"Type": "AWS::IAM::User", "Properties": {"Policies": [{"PolicyName": "read", "PolicyDocument": {
            "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]}}]}},
        "DevKey": {"Type": "AWS::IAM::AccessKey", "Properties": {"UserName": {"Ref": "Dev"}}},
        "Profile": {"Type": "AWS::IAM::InstanceProfile", "Properties": {"Roles": [{"Ref": "Role"}]}},
        "Layer": {"Type": "AWS::Lambda::LayerVersion", "Properties": {
            "Content": {"S3Bucket": bucket, "S3Key": "layer.zip"}, "CompatibleRuntimes": ["python3.12"]}},
        "Fn": {"Type": "AWS::Lambda::Function", "Properties": {
            "Runtime": "python3.12", "Handler": "index.handler", "Role": {"Fn::GetAtt": ["FnRole", "Arn"]},
            "Layers": [{"Ref": "Layer"}], "Code": {"ZipFile": "def handler(e, c):\n    return e\n"}}},
        "FnAsync": {"Type": "AWS::Lambda::EventInvokeConfig", "Properties": {
            "FunctionName": {"Ref": "Fn"}, "Qualifier": "$LATEST", "MaximumRetryAttempts": 0}},
        "Machine": {"Type": "AWS::StepFunctions::StateMachine", "Properties": {
            "RoleArn": {"Fn::GetAtt": ["Role", "Arn"]},
            "Definition": {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}}},
        "MachineV1": {"Type": "AWS::StepFunctions::StateMachineVersion", "Properties": {
            "StateMachineArn": {"Ref": "Machine"}, "Description": "first"}},
        "Live": {"Type": "AWS::StepFunctions::StateMachineAlias", "Properties": {
            "Name": "live", "RoutingConfiguration": [{"StateMachineVersionArn": {"Ref": "MachineV1"}, "Weight": 100}]}},
        "Logs": {"Type": "AWS::Logs::LogGroup"},
        "Errors": {"Type": "AWS::Logs::MetricFilter", "Properties": {
            "LogGroupName": {"Ref": "Logs"}, "FilterPattern": "ERROR", "MetricTransformations": [{
                "MetricName": "Errors", "MetricNamespace": "App", "MetricValue": "1"}]}},
        "Feed": {"Type": "AWS::Logs::SubscriptionFilter", "Properties": {
            "LogGroupName": {"Ref": "Logs"}, "FilterPattern": "", "DestinationArn": {"Fn::GetAtt": ["Fn", "Arn"]}}},
        "FeedPermission": {"Type": "AWS::Lambda::Permission", "Properties": {
            "FunctionName": {"Ref": "Fn"}, "Action": "lambda:InvokeFunction", "Principal": "logs.amazonaws.com"}},
    }, "Outputs": {"Secret": {"Value": {"Fn::GetAtt": ["DevKey", "SecretAccessKey"]}},
                   "ProfileArn": {"Value": {"Fn::GetAtt": ["Profile", "Arn"]}},
                   "UserArn": {"Value": {"Fn::GetAtt": ["Dev", "Arn"]}}}}
    body["Resources"]["Feed"]["DependsOn"] = "FeedPermission"
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(body), Capabilities=["CAPABILITY_IAM"])
    stack = cfn.describe_stacks(StackName=name)["Stacks"][0]
    failures = [e.get("ResourceStatusReason") for e in cfn.describe_stack_events(StackName=name)["StackEvents"]
                if e["ResourceStatus"] == "CREATE_FAILED"]
    assert stack["StackStatus"] == "CREATE_COMPLETE", failures
    res = {r["LogicalResourceId"]: r["PhysicalResourceId"]
           for r in cfn.list_stack_resources(StackName=name)["StackResourceSummaries"]}
    out = {o["OutputKey"]: o["OutputValue"] for o in stack["Outputs"]}

    user = iam.get_user(UserName=res["Dev"])["User"]
    assert user["Arn"] == out["UserArn"] and user["UserName"].startswith(f"{name}-Dev-")
    assert iam.list_user_policies(UserName=res["Dev"])["PolicyNames"] == ["read"]
    keys = iam.list_access_keys(UserName=res["Dev"])["AccessKeyMetadata"]
    assert [k["AccessKeyId"] for k in keys] == [res["DevKey"]] and len(out["Secret"]) == 40
    profile = iam.get_instance_profile(InstanceProfileName=res["Profile"])["InstanceProfile"]
    assert profile["Arn"] == out["ProfileArn"] and [r["RoleName"] for r in profile["Roles"]] == [res["Role"]]
    assert res["Layer"].startswith("arn:aws:lambda:us-east-1:") and res["Layer"].endswith(":1")
    config = lam.get_function_configuration(FunctionName=res["Fn"])
    assert [x["Arn"] for x in config["Layers"]] == [res["Layer"]]
    assert lam.get_function_event_invoke_config(FunctionName=res["Fn"], Qualifier="$LATEST")[
        "MaximumRetryAttempts"] == 0
    assert sfn.describe_state_machine(stateMachineArn=res["MachineV1"])["description"] == "first"
    alias = sfn.describe_state_machine_alias(stateMachineAliasArn=res["Live"])
    assert alias["name"] == "live" and alias["routingConfiguration"] == [
        {"stateMachineVersionArn": res["MachineV1"], "weight": 100}]
    filters = logs.describe_metric_filters(logGroupName=res["Logs"])["metricFilters"]
    assert [(f["filterName"], f["filterPattern"]) for f in filters] == [(res["Errors"], "ERROR")]
    subs = logs.describe_subscription_filters(logGroupName=res["Logs"])["subscriptionFilters"]
    assert [(s["filterName"], s["destinationArn"]) for s in subs] == [(res["Feed"], config["FunctionArn"])]

    cfn.delete_stack(StackName=name)
    assert cfn.describe_stacks(StackName=stack["StackId"])["Stacks"][0]["StackStatus"] == "DELETE_COMPLETE"
    assert res["Dev"] not in [u["UserName"] for u in iam.list_users()["Users"]]
    assert res["Profile"] not in [p["InstanceProfileName"] for p in iam.list_instance_profiles()["InstanceProfiles"]]
    assert not lam.list_layer_versions(LayerName=res["Layer"].rsplit(":", 1)[0])["LayerVersions"]
    assert res["Logs"] not in [g["logGroupName"] for g in logs.describe_log_groups()["logGroups"]]


def test_an_access_key_made_inactive_and_activated_in_place(aws: Any) -> None:
    """AWS::IAM::AccessKey's Status: Inactive at create, then Active by an update that keeps the key
    (only UserName and Serial replace it)."""
    cfn, iam = aws("cloudformation"), aws("iam")
    name = f"k{uuid.uuid4().hex[:8]}"

    def template(status: str) -> str:
        return json.dumps({"Resources": {
            "Dev": {"Type": "AWS::IAM::User"},
            "Key": {"Type": "AWS::IAM::AccessKey", "Properties": {"UserName": {"Ref": "Dev"}, "Status": status}}}})

    def keys() -> tuple[dict[str, str], list[tuple[str, str]]]:
        res = {r["LogicalResourceId"]: r["PhysicalResourceId"]
               for r in cfn.list_stack_resources(StackName=name)["StackResourceSummaries"]}
        listed = iam.list_access_keys(UserName=res["Dev"])["AccessKeyMetadata"]
        return res, [(k["AccessKeyId"], k["Status"]) for k in listed]

    cfn.create_stack(StackName=name, TemplateBody=template("Inactive"), Capabilities=["CAPABILITY_IAM"])
    assert cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    res, listed = keys()
    assert listed == [(res["Key"], "Inactive")]
    cfn.update_stack(StackName=name, TemplateBody=template("Active"), Capabilities=["CAPABILITY_IAM"])
    assert cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"] == "UPDATE_COMPLETE"
    assert keys() == (res, [(res["Key"], "Active")])  # the same key
    cfn.delete_stack(StackName=name)
    assert res["Dev"] not in {u["UserName"] for u in iam.list_users()["Users"]}


def test_an_event_archive_is_made_updated_in_place_and_deleted(aws: Any) -> None:
    cfn, events = aws("cloudformation"), aws("events")
    name = f"a{uuid.uuid4().hex[:8]}"

    def template(description: str) -> str:
        return json.dumps({"Resources": {"Archive": {"Type": "AWS::Events::Archive", "Properties": {
            "ArchiveName": name, "Description": description, "EventPattern": {"source": ["app"]},
            "SourceArn": {"Fn::Sub": "arn:aws:events:${AWS::Region}:${AWS::AccountId}:event-bus/default"}}}},
            "Outputs": {"Arn": {"Value": {"Fn::GetAtt": ["Archive", "Arn"]}}, "Name": {"Value": {"Ref": "Archive"}}}})

    cfn.create_stack(StackName=name, TemplateBody=template("first"))
    stack = cfn.describe_stacks(StackName=name)["Stacks"][0]
    assert stack["StackStatus"] == "CREATE_COMPLETE"
    arn = events.describe_archive(ArchiveName=name)["ArchiveArn"]
    assert {o["OutputKey"]: o["OutputValue"] for o in stack["Outputs"]} == {"Arn": arn, "Name": name}
    cfn.update_stack(StackName=name, TemplateBody=template("second"))
    assert cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"] == "UPDATE_COMPLETE"
    described = events.describe_archive(ArchiveName=name)
    assert (described["Description"], described["ArchiveArn"]) == ("second", arn)
    assert json.loads(described["EventPattern"]) == {"source": ["app"]}
    cfn.delete_stack(StackName=name)
    assert name not in [a["ArchiveName"] for a in events.list_archives()["Archives"]]
