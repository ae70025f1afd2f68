"""May an AWS service principal act on a resource? The one rule SQS queue policies, SNS topic
policies (and whatever else keeps a resource policy) are asked through when S3, SNS or
EventBridge deliver to them.

On AWS a service delivering on a customer's behalf (S3 event notifications, an SNS subscription,
an EventBridge target) is not the account: it gets in only through the resource's policy, which
must name it (`"Principal": {"Service": "s3.amazonaws.com"}`) for the action, usually with
`aws:SourceArn` / `aws:SourceAccount` conditions naming where the event came from. An explicit
deny wins; no policy, a policy that does not parse or one that does not name the service grants
nothing (fail closed). The statement matching is IAM's own evaluator (iam/policy/).
"""

from __future__ import annotations

from typing import Any

from onceflow.iam.policy import MalformedPolicy, Request, evaluate, stored


def service_may(policy_text: str | None, service: str, action: str, resource_arn: str,
                source_arn: str | None = None, source_account: str | None = None) -> bool:
    """Whether `policy_text` (a resource policy, JSON) lets `service` ("s3.amazonaws.com") do
    `action` ("sqs:SendMessage") on `resource_arn` for an event from `source_arn`."""
    policy = _parsed(policy_text)
    if policy is None:
        return False
    context: dict[str, list[str]] = {"aws:principalservicename": [service]}
    if source_arn:
        context["aws:sourcearn"] = [source_arn]
        parts = source_arn.split(":")
        if not source_account and len(parts) > 4 and parts[4]:
            source_account = parts[4]
    if source_account:
        context["aws:sourceaccount"] = [source_account]
        context["aws:sourceowner"] = [source_account]  # SNS's older name for the same fact
    request = Request(action, resource_arn, context, principal=("Service", service))
    return evaluate([policy], request).allowed


def principal_may(policy_text: str | None, principal_arn: str, action: str, resource_arn: str) -> bool:
    """Whether `policy_text` lets a principal of another account (its IAM ARN: a user, a role
    session's role, an account root) do `action` on `resource_arn`. Across accounts the resource
    policy must grant (and the caller's own identity policies too, where onceflow evaluates them)."""
    policy = _parsed(policy_text)
    if policy is None:
        return False
    account = principal_arn.split(":")[4] if principal_arn.count(":") >= 5 else ""
    context = {"aws:principalarn": [principal_arn], "aws:principalaccount": [account]}
    return evaluate([policy], Request(action, resource_arn, context, principal=("AWS", principal_arn))).allowed


def _parsed(policy_text: str | None) -> Any:
    """The stored resource policy, or None when there is none (or it no longer parses): grants nothing."""
    if not policy_text:
        return None
    try:
        return stored(policy_text, "resource")
    except MalformedPolicy:
        return None
