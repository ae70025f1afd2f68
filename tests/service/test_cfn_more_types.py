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
