"""The authorizer on a real in-memory stack (IAM set up, no HTTP): the seed's exact policies."""

from __future__ import annotations

import json
from typing import Any

import pytest

from onceflow import iam, sts
from onceflow.config import Settings
from onceflow.context import Principal, RequestContext
from onceflow.errors import ServiceError
from onceflow.stack import Stack
from onceflow.store.db import Database

ACCT = "000000000000"
WORKER = f"arn:aws:lambda:us-east-1:{ACCT}:function:labex-ev04-worker"
ORDERS = f"arn:aws:dynamodb:us-east-1:{ACCT}:table/labex-ev04-orders"
TRUST_STATES = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}
        ],
    }
)
TRUST_LAMBDA = TRUST_STATES.replace("states.amazonaws.com", "lambda.amazonaws.com")
INVOKE = f"""{{
  "Version": "2012-10-17",
  "Statement": [
    {{
      "Effect": "Allow",
      "Action": "lambda:InvokeFunction",
      "Resource": "{WORKER}"
    }}
  ]
}}
"""
WORKER_POLICY = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Action": ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
                "Resource": [ORDERS],
            },
        ],
    }
)


def make_stack(enforce: bool = False) -> Stack:
    stack = Stack(Settings(in_memory=True, enforce_iam=enforce), Database(":memory:"))
    iam.setup(stack)
    sts.setup(stack)  # on the ports IAM's setup publishes
    stack.resource_resolvers["lambda"] = lambda ctx, params: [
        f"arn:aws:lambda:{ctx.region}:{ctx.account}:function:{params['FunctionName']}"
    ]
    stack.resource_resolvers["dynamodb"] = lambda ctx, params: [
        f"arn:aws:dynamodb:{ctx.region}:{ctx.account}:table/{params['TableName']}"
    ]
    return stack


def session(stack: Stack, role: str, trust: str, name: str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef") -> Principal:
    svc = stack.services["iam"]
    if svc.store.role(ACCT, role) is None:
        svc.create_role(ACCT, {"RoleName": role, "AssumeRolePolicyDocument": trust})
    creds = stack.services["sts"].issue_role_session(ACCT, f"arn:aws:iam::{ACCT}:role/{role}", name)
    principal = stack.services["sts"].principal_for(creds["AccessKeyId"])
    assert principal is not None
    return principal


def call(stack: Stack, principal: Principal, service: str, op: str, params: dict[str, Any]) -> None:
    ctx = RequestContext(service, op, ACCT, "us-east-1", principal, internal=True)
    stack.authorize(ctx, params)


@pytest.fixture
def stack() -> Stack:
    return make_stack()


def test_workflow_role_may_invoke_its_worker(stack: Stack) -> None:
    principal = session(stack, "labex-ev04-workflow-role", TRUST_STATES)
    stack.services["iam"].put_role_policy(ACCT, "labex-ev04-workflow-role", "InvokeWorker", INVOKE)
    call(stack, principal, "lambda", "Invoke", {"FunctionName": "labex-ev04-worker"})


def test_workflow_role_without_its_policy_is_denied_with_lambdas_message(stack: Stack) -> None:
    principal = session(stack, "labex-ev04-workflow-role", TRUST_STATES)
    svc = stack.services["iam"]
    svc.put_role_policy(ACCT, "labex-ev04-workflow-role", "InvokeWorker", INVOKE)
    svc.delete_role_policy(ACCT, "labex-ev04-workflow-role", "InvokeWorker")  # the lab's step
    with pytest.raises(ServiceError) as info:
        call(stack, principal, "lambda", "Invoke", {"FunctionName": "labex-ev04-worker"})
    err = info.value
    assert (err.code, err.status) == ("AccessDeniedException", 403)
    assert err.message == (
        f"User: arn:aws:sts::{ACCT}:assumed-role/labex-ev04-workflow-role/ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef "
        f"is not authorized to perform: lambda:InvokeFunction on resource: {WORKER} "
        "because no identity-based policy allows the lambda:InvokeFunction action"
    )
    # Restoring the policy applies to the very next call.
    svc.put_role_policy(ACCT, "labex-ev04-workflow-role", "InvokeWorker", INVOKE)
    call(stack, principal, "lambda", "Invoke", {"FunctionName": "labex-ev04-worker"})


def test_workflow_role_may_not_invoke_another_function(stack: Stack) -> None:
    principal = session(stack, "wf", TRUST_STATES)
    stack.services["iam"].put_role_policy(ACCT, "wf", "InvokeWorker", INVOKE)
    with pytest.raises(ServiceError):
        call(stack, principal, "lambda", "Invoke", {"FunctionName": "labex-ev04-other"})


def test_worker_role_dynamodb_denial_uses_dynamodbs_error(stack: Stack) -> None:
    principal = session(stack, "worker-role", TRUST_LAMBDA, "labex-ev04-worker")
    stack.services["iam"].put_role_policy(ACCT, "worker-role", "tables", WORKER_POLICY)
    call(stack, principal, "dynamodb", "PutItem", {"TableName": "labex-ev04-orders"})
    with pytest.raises(ServiceError) as info:
        call(stack, principal, "dynamodb", "DeleteItem", {"TableName": "labex-ev04-orders"})
    assert (info.value.code, info.value.status) == ("AccessDeniedException", 400)
    assert info.value.message == (
        f"User: arn:aws:sts::{ACCT}:assumed-role/worker-role/labex-ev04-worker is not authorized to perform: "
        f"dynamodb:DeleteItem on resource: {ORDERS} because no identity-based policy allows the "
        "dynamodb:DeleteItem action"
    )


def test_explicit_deny_message(stack: Stack) -> None:
    principal = session(stack, "worker-role", TRUST_LAMBDA, "s")
    svc = stack.services["iam"]
    svc.put_role_policy(ACCT, "worker-role", "tables", WORKER_POLICY)
    deny = json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Action": "dynamodb:PutItem", "Resource": "*"}]}
    )
    svc.put_role_policy(ACCT, "worker-role", "deny", deny)
    with pytest.raises(ServiceError) as info:
        call(stack, principal, "dynamodb", "PutItem", {"TableName": "labex-ev04-orders"})
    assert info.value.message.endswith(
        f"dynamodb:PutItem on resource: {ORDERS} with an explicit deny in an identity-based policy"
    )


def test_attached_managed_policies_count(stack: Stack) -> None:
    principal = session(stack, "worker-role", TRUST_LAMBDA, "s")
    svc = stack.services["iam"]
    with pytest.raises(ServiceError):
        call(stack, principal, "logs", "PutLogEvents", {})
    svc.attach(ACCT, "role", "worker-role", "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole")
    call(stack, principal, "logs", "PutLogEvents", {})
    with pytest.raises(ServiceError) as info:
        call(stack, principal, "logs", "DeleteLogGroup", {})
    assert (info.value.code, info.value.status) == ("AccessDeniedException", 400)


def test_a_deleted_role_allows_nothing(stack: Stack) -> None:
    principal = session(stack, "gone", TRUST_STATES)
    svc = stack.services["iam"]
    svc.put_role_policy(ACCT, "gone", "InvokeWorker", INVOKE)
    svc.delete_role_policy(ACCT, "gone", "InvokeWorker")
    svc.delete_role(ACCT, "gone")
    with pytest.raises(ServiceError):
        call(stack, principal, "lambda", "Invoke", {"FunctionName": "labex-ev04-worker"})


def test_root_is_always_allowed_and_users_only_when_enforced() -> None:
    for enforce in (False, True):
        stack = make_stack(enforce)
        call(stack, Principal.root(ACCT), "dynamodb", "DeleteTable", {"TableName": "t"})
        users = stack.services["iam_users"]
        users.create_user(ACCT, {"UserName": "alice"})
        key = users.create_access_key(ACCT, "alice")
        alice = users.principal_for(key["access_key_id"])
        assert alice is not None and alice.kind == "user"
        if not enforce:
            call(stack, alice, "dynamodb", "DeleteTable", {"TableName": "t"})
            continue
        with pytest.raises(ServiceError) as info:
            call(stack, alice, "dynamodb", "DeleteTable", {"TableName": "t"})
        assert info.value.message.startswith(f"User: arn:aws:iam::{ACCT}:user/alice is not authorized")
        read = json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Action": "dynamodb:*",
                        "Resource": "arn:aws:dynamodb:*:*:table/${aws:username}",
                    }
                ],
            }
        )
        users.put_policy(ACCT, "alice", "own-table", read)
        call(stack, alice, "dynamodb", "DeleteTable", {"TableName": "alice"})
        with pytest.raises(ServiceError):
            call(stack, alice, "dynamodb", "DeleteTable", {"TableName": "bob"})


def test_get_caller_identity_needs_no_permission(stack: Stack) -> None:
    principal = session(stack, "nothing", TRUST_STATES)
    call(stack, principal, "sts", "GetCallerIdentity", {})
    with pytest.raises(ServiceError) as info:
        call(stack, principal, "iam", "GetRole", {"RoleName": "nothing"})
    assert (info.value.code, info.value.status) == ("AccessDenied", 403)
    assert info.value.message.endswith(
        f"iam:GetRole on resource: arn:aws:iam::{ACCT}:role/nothing because no identity-based policy allows "
        "the iam:GetRole action"
    )


def test_role_trusts(stack: Stack) -> None:
    session(stack, "wf", TRUST_STATES)
    svc = stack.services["iam"]
    arn = f"arn:aws:iam::{ACCT}:role/wf"
    assert svc.role_trusts(ACCT, arn, ("Service", "states.amazonaws.com"))
    assert not svc.role_trusts(ACCT, arn, ("Service", "lambda.amazonaws.com"))
    assert not svc.role_trusts(ACCT, f"arn:aws:iam::{ACCT}:role/missing", ("Service", "states.amazonaws.com"))
    role = svc.get_role_by_arn(ACCT, arn)
    assert role is not None and role["AssumeRolePolicyDocument"] == json.loads(TRUST_STATES)
    assert svc.get_role_by_arn("111111111111", arn) is None


def test_role_allows(stack: Stack) -> None:
    session(stack, "worker-role", TRUST_LAMBDA, "s")
    svc = stack.services["iam"]
    arn = f"arn:aws:iam::{ACCT}:role/worker-role"
    group = f"arn:aws:logs:us-east-1:{ACCT}:log-group:/aws/lambda/w"
    assert not svc.role_allows(ACCT, arn, "logs:CreateLogGroup", group)
    svc.attach(ACCT, "role", "worker-role", "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole")
    assert svc.role_allows(ACCT, arn, "logs:CreateLogGroup", group)
    assert not svc.role_allows(ACCT, arn, "logs:DeleteLogGroup", group)
    assert not svc.role_allows(ACCT, f"arn:aws:iam::{ACCT}:role/missing", "logs:CreateLogGroup", group)


@pytest.mark.parametrize(
    ("service", "operation", "action"),
    [
        ("stepfunctions", "StartExecution", "states:StartExecution"),
        ("lambda", "Invoke", "lambda:InvokeFunction"),
        ("lambda", "GetFunctionConfiguration", "lambda:GetFunctionConfiguration"),
        ("dynamodb", "PutItem", "dynamodb:PutItem"),
        ("logs", "PutLogEvents", "logs:PutLogEvents"),
        ("iam", "CreateRole", "iam:CreateRole"),
        ("sts", "AssumeRole", "sts:AssumeRole"),
    ],
)
def test_action_names(service: str, operation: str, action: str) -> None:
    from onceflow.iam.authorizer import action_name

    assert action_name(service, operation) == action


def test_denials_use_each_services_error() -> None:
    from onceflow.iam.errors import access_denied_in

    codes = {
        s: (access_denied_in(s, "m").code, access_denied_in(s, "m").status)
        for s in ("dynamodb", "stepfunctions", "logs", "lambda", "iam", "sts")
    }
    assert codes == {
        "dynamodb": ("AccessDeniedException", 400),
        "stepfunctions": ("AccessDeniedException", 400),
        "logs": ("AccessDeniedException", 400),
        "lambda": ("AccessDeniedException", 403),
        "iam": ("AccessDenied", 403),
        "sts": ("AccessDenied", 403),
    }


def test_request_context_keys(stack: Stack) -> None:
    from onceflow.iam.authorizer import request_context

    principal = session(stack, "ctx-role", TRUST_STATES, "sess")
    ctx = RequestContext("dynamodb", "PutItem", ACCT, "eu-west-1", principal, source_ip="10.1.2.3")
    keys = request_context(ctx)
    assert keys["aws:requestedregion"] == ["eu-west-1"]
    assert keys["aws:principalarn"] == [f"arn:aws:iam::{ACCT}:role/ctx-role"]
    assert keys["aws:principaltype"] == ["AssumedRole"]
    assert keys["aws:sourceip"] == ["10.1.2.3"]
    assert keys["aws:currenttime"][0].endswith("Z") and keys["aws:epochtime"][0].isdigit()


def test_a_recreated_role_does_not_revive_old_sessions(stack: Stack) -> None:
    principal = session(stack, "phoenix", TRUST_STATES)
    svc = stack.services["iam"]
    svc.put_role_policy(ACCT, "phoenix", "InvokeWorker", INVOKE)
    call(stack, principal, "lambda", "Invoke", {"FunctionName": "labex-ev04-worker"})
    svc.delete_role_policy(ACCT, "phoenix", "InvokeWorker")
    svc.delete_role(ACCT, "phoenix")
    svc.create_role(ACCT, {"RoleName": "phoenix", "AssumeRolePolicyDocument": TRUST_STATES})
    svc.put_role_policy(ACCT, "phoenix", "InvokeWorker", INVOKE)
    with pytest.raises(ServiceError) as info:
        call(stack, principal, "lambda", "Invoke", {"FunctionName": "labex-ev04-worker"})
    assert "because no identity-based policy allows the lambda:InvokeFunction action" in info.value.message
    fresh = session(stack, "phoenix", TRUST_STATES, "fresh")
    call(stack, fresh, "lambda", "Invoke", {"FunctionName": "labex-ev04-worker"})
