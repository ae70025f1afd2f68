"""Which resource types onceflow makes, and with what: the one map from a type to its provider."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from onceflow.cloudformation import global_table as g
from onceflow.cloudformation import more_types as m
from onceflow.cloudformation import nested as n
from onceflow.cloudformation import resources as r
from onceflow.cloudformation import wiring as w
from onceflow.cloudformation.resources import Caller, Made, Props


@dataclass(frozen=True)
class Provider:
    create: Callable[[Caller, str, Props], Made]
    delete: Callable[[Caller, str, Props], None]
    iam: bool = False  # needs CAPABILITY_IAM
    named_iam: str | None = None  # the property that, when set, needs CAPABILITY_NAMED_IAM


PROVIDERS: dict[str, Provider] = {
    "AWS::IAM::Role": Provider(r.role_create, r.role_delete, iam=True, named_iam="RoleName"),
    "AWS::IAM::Policy": Provider(w.policy_create, w.policy_delete, iam=True),
    "AWS::IAM::ManagedPolicy": Provider(w.managed_policy_create, w.managed_policy_delete, iam=True,
                                        named_iam="ManagedPolicyName"),
    "AWS::DynamoDB::Table": Provider(r.table_create, r.table_delete),
    "AWS::DynamoDB::GlobalTable": Provider(g.global_table_create, g.global_table_delete),
    "AWS::Lambda::Function": Provider(r.function_create, r.function_delete),
    "AWS::Lambda::Permission": Provider(w.permission_create, w.permission_delete),
    "AWS::Lambda::EventSourceMapping": Provider(w.event_source_mapping_create, w.event_source_mapping_delete),
    "AWS::Lambda::Version": Provider(w.version_create, w.version_delete),
    "AWS::Lambda::Alias": Provider(w.alias_create, w.alias_delete),
    "AWS::StepFunctions::StateMachine": Provider(r.state_machine_create, r.state_machine_delete),
    "AWS::SQS::Queue": Provider(r.queue_create, r.queue_delete),
    "AWS::SQS::QueuePolicy": Provider(w.queue_policy_create, w.queue_policy_delete),
    "AWS::SNS::Topic": Provider(r.topic_create, r.topic_delete),
    "AWS::SNS::Subscription": Provider(w.subscription_create, w.subscription_delete),
    "AWS::S3::Bucket": Provider(r.bucket_create, r.bucket_delete),
    "AWS::Logs::LogGroup": Provider(r.log_group_create, r.log_group_delete),
    "AWS::Events::Rule": Provider(w.rule_create, w.rule_delete),
    "AWS::Events::EventBus": Provider(w.event_bus_create, w.event_bus_delete),
    "AWS::Scheduler::Schedule": Provider(w.schedule_create, w.schedule_delete),
    "AWS::StepFunctions::Activity": Provider(w.activity_create, w.activity_delete),
    "AWS::SNS::TopicPolicy": Provider(w.topic_policy_create, w.topic_policy_delete),
    "AWS::S3::BucketPolicy": Provider(w.bucket_policy_create, w.bucket_policy_delete),
    "AWS::CloudFormation::Stack": Provider(n.stack_create, n.stack_delete),
    "AWS::CDK::Metadata": Provider(r.cdk_metadata_create, r.cdk_metadata_delete),
    "AWS::IAM::User": Provider(m.user_create, m.user_delete, iam=True, named_iam="UserName"),
    "AWS::IAM::AccessKey": Provider(m.access_key_create, m.access_key_delete, iam=True),
    "AWS::IAM::InstanceProfile": Provider(m.instance_profile_create, m.instance_profile_delete, iam=True,
                                          named_iam="InstanceProfileName"),
    "AWS::Lambda::LayerVersion": Provider(m.layer_version_create, m.layer_version_delete),
    "AWS::Lambda::EventInvokeConfig": Provider(m.event_invoke_config_create, m.event_invoke_config_delete),
    "AWS::StepFunctions::StateMachineVersion": Provider(m.state_machine_version_create,
                                                        m.state_machine_version_delete),
    "AWS::StepFunctions::StateMachineAlias": Provider(m.state_machine_alias_create, m.state_machine_alias_delete),
    "AWS::Logs::MetricFilter": Provider(m.metric_filter_create, m.metric_filter_delete),
    "AWS::Logs::SubscriptionFilter": Provider(m.subscription_filter_create, m.subscription_filter_delete),
    "AWS::Events::Archive": Provider(m.archive_create, m.archive_delete),
}
