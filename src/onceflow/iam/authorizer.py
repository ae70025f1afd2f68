"""Authorization of every call (HTTP and internal): `make_authorizer(stack)` builds the function
server.py installs as `stack.authorize`.

The account root and AWS services acting on their own are always allowed. A role session is always
evaluated against its role's policies (inline and attached) as they are at the moment of the call;
an IAM user only when the server enforces IAM. A denial raises the AccessDenied error of the
service called, in AWS's words.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext
from onceflow.iam.errors import access_denied_in, denial_message
from onceflow.iam.last_used import KEY, ROLE, SERVICE, LastUsed, service_key
from onceflow.iam.policy import Decision, MalformedPolicy, Policy, Request, evaluate, parse
from onceflow.stack import Authorizer, Stack

log = logging.getLogger("onceflow.iam")

# boto3 service name -> IAM action prefix.
PREFIXES = {
    "stepfunctions": "states",
    "lambda": "lambda",
    "dynamodb": "dynamodb",
    "dynamodbstreams": "dynamodb",
    "logs": "logs",
    "iam": "iam",
    "sts": "sts",
}
# Operations whose IAM action is named differently from the API operation.
ACTIONS = {
    ("lambda", "Invoke"): "InvokeFunction",
    ("lambda", "InvokeWithResponseStream"): "InvokeFunction",
    # The Service Authorization Reference names no GetLayerVersionByArn action: GetLayerVersion covers it.
    ("lambda", "GetLayerVersionByArn"): "GetLayerVersion",
    # S3 (the Service Authorization Reference's "Actions defined by Amazon S3").
    **{("s3", op): action for action, ops in {
        "ListBucket": ("ListObjects", "ListObjectsV2", "HeadBucket"),
        "ListBucketVersions": ("ListObjectVersions",),
        "ListAllMyBuckets": ("ListBuckets",),
        "GetObject": ("HeadObject", "GetObjectAttributes"),
        "PutObject": ("CreateMultipartUpload", "UploadPart", "UploadPartCopy", "CompleteMultipartUpload",
                      "CopyObject"),
        "DeleteObject": ("DeleteObjects",),
        "ListMultipartUploadParts": ("ListParts",),
        "ListBucketMultipartUploads": ("ListMultipartUploads",),
        "GetBucketCORS": ("GetBucketCors",), "PutBucketCORS": ("PutBucketCors", "DeleteBucketCors"),
        "GetLifecycleConfiguration": ("GetBucketLifecycleConfiguration",),
        "PutLifecycleConfiguration": ("PutBucketLifecycleConfiguration", "DeleteBucketLifecycle"),
        "GetBucketNotification": ("GetBucketNotificationConfiguration",),
        "PutBucketNotification": ("PutBucketNotificationConfiguration",),
        "GetEncryptionConfiguration": ("GetBucketEncryption",),
        "PutEncryptionConfiguration": ("PutBucketEncryption", "DeleteBucketEncryption"),
        "PutBucketTagging": ("PutBucketTagging", "DeleteBucketTagging"),
        "GetBucketPublicAccessBlock": ("GetPublicAccessBlock",),
        "PutBucketPublicAccessBlock": ("PutPublicAccessBlock", "DeletePublicAccessBlock"),
        "PutBucketOwnershipControls": ("PutBucketOwnershipControls", "DeleteBucketOwnershipControls"),
    }.items() for op in ops},
}
# Calls that need no permission at all (IAM user guide: GetCallerIdentity, GetSessionToken).
ALWAYS_ALLOWED = {("sts", "GetCallerIdentity"), ("sts", "GetSessionToken")}


def _namespace(service: str) -> str:
    """The service's IAM namespace, which AWS names as the service a key was last used with."""
    return PREFIXES.get(service, service)


# IAM answers from one region of each partition: a key used with it was used there (recorded:
# LocalStack's test_iam_users snapshot, "get-access-key-last-used-used": iam, us-east-1).
GLOBAL_REGIONS = {"aws": "us-east-1", "aws-cn": "cn-north-1", "aws-us-gov": "us-gov-west-1"}


def _used_in(service: str, region: str) -> str:
    return GLOBAL_REGIONS.get(partition(region), region) if service == "iam" else region


def action_name(service: str, operation: str) -> str:
    return f"{_namespace(service)}:{ACTIONS.get((service, operation), operation)}"


@lru_cache(maxsize=2)
def _clock(second: int) -> tuple[str, str]:
    """aws:CurrentTime and aws:EpochTime for one second (formatted once per second, not per call)."""
    return datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), str(second)


def request_context(ctx: RequestContext) -> dict[str, list[str]]:
    """The global condition keys IAM sets on every request (lower-cased)."""
    p = ctx.principal
    current, epoch = _clock(int(time.time()))
    keys = {
        "aws:currenttime": [current],
        "aws:epochtime": [epoch],
        "aws:securetransport": ["false"],
        "aws:requestedregion": [ctx.region],
        "aws:principalaccount": [p.account],
        "aws:principalarn": [p.role_arn or p.arn],
        "aws:principaltype": [{"assumed-role": "AssumedRole", "user": "User"}.get(p.kind, "Account")],
        "aws:viaawsservice": ["true" if ctx.internal else "false"],
    }
    if not ctx.internal:
        keys["aws:sourceip"] = [ctx.source_ip]
    if p.kind == "user":
        keys["aws:username"] = [p.name]
    if p.kind == "assumed-role" and p.role_arn:
        keys["aws:rolesessionname"] = [p.session_name or ""]
    return keys


def condition_keys(tags: Iterable[dict[str, str]] | Mapping[str, dict[str, str]]) -> dict[str, list[str]]:
    """aws:PrincipalTag/<key> for each tag (condition keys are compared lower-cased)."""
    items = tags.values() if isinstance(tags, Mapping) else tags
    return {f"aws:principaltag/{t['Key'].lower()}": [t["Value"]] for t in items}


def make_authorizer(stack: Stack, last_used: LastUsed | None = None) -> Authorizer:
    def authorize(ctx: RequestContext, params: dict[str, Any]) -> None:
        principal = ctx.principal
        if principal.kind == "assumed-role":
            if last_used is not None and principal.role_arn:
                namespace = _namespace(ctx.service)
                last_used.mark(ROLE, principal.role_arn, principal.account, namespace, ctx.region,
                               (SERVICE, service_key(principal.role_arn, namespace)))
        elif principal.kind == "service":
            return
        elif principal.kind != "user":
            return foreign_grants(ctx, params)
        else:
            if last_used is not None and principal.access_key and not ctx.internal:
                namespace, region = _namespace(ctx.service), _used_in(ctx.service, ctx.region)
                last_used.mark(KEY, principal.access_key, principal.account, namespace, region,
                               (SERVICE, service_key(principal.arn, namespace)))
            if not stack.settings.enforce_iam:
                return foreign_grants(ctx, params)
        if (ctx.service, ctx.operation) in ALWAYS_ALLOWED:
            return
        iam = stack.services["iam"]
        sts = stack.ports.sessions.get()
        # Identity policies grant; a permissions boundary and session policies can only narrow.
        current = sts is None or sts.role_is_current(principal)
        layers = [
            ("identity-based policy", iam.policies_for(principal) if current else []),
            ("permissions boundary", iam.boundary_for(principal)),
            ("session policy", sts.session_policies(principal) if sts is not None else None),
        ]
        context = request_context(ctx)
        # aws:PrincipalTag/<key>: the user's or the role's tags, a session's own tags over them.
        tags = iam.principal_tags(principal)
        own = sts.session_tags(principal) if sts is not None else {}
        if tags or own:
            context = {**context, **condition_keys(tags), **condition_keys(own)}
        per_resource = stack.resource_policies.get(ctx.service)  # DynamoDB: each table its own policy
        granting = None if per_resource else _resource_policy(stack, ctx, params)  # an S3 bucket policy, say
        for action, resource, keys in _requests(stack, ctx, params):
            request = Request(action, resource, {**context, **keys} if keys else context)
            # Within an account, a resource policy that allows the principal grants as an identity
            # policy would; across accounts both must allow. An explicit deny in either denies.
            by_resource = Decision.IMPLICIT_DENY
            policy = _parsed(per_resource(ctx, resource)) if per_resource else granting
            if policy is not None:
                who = Request(action, resource, request.context, principal=("AWS", principal.role_arn or principal.arn))
                by_resource = evaluate([policy], who)
                if by_resource is Decision.EXPLICIT_DENY:
                    raise access_denied_in(ctx.service, denial_message(principal, action, resource, by_resource,
                                                                    "resource-based policy"))
            foreign = per_resource is not None and _account_of(resource) not in ("", principal.account)
            if foreign and not by_resource.allowed:
                raise access_denied_in(ctx.service, denial_message(principal, action, resource, by_resource,
                                                                "resource-based policy"))
            for kind, policies in layers:
                if policies is None:
                    continue
                decision = evaluate(policies, request)
                if kind == "identity-based policy" and by_resource.allowed and not foreign and (
                        decision is not Decision.EXPLICIT_DENY):
                    continue
                if not decision.allowed:
                    raise access_denied_in(ctx.service, denial_message(principal, action, resource, decision, kind))

    def foreign_grants(ctx: RequestContext, params: dict[str, Any]) -> None:
        """A principal whose own policies are not evaluated (an account's root; a user while IAM is not
        enforced) still needs another account's resource policy to reach that account's resource: a
        DynamoDB table ARN of another account is refused as AWS refuses it (nubo-db/dynamodb-conformance
        tests/tier2/tags/basic.test.ts: ListTagsOfResource on another account's ARN, AccessDeniedException)."""
        per_resource = stack.resource_policies.get(ctx.service)
        if per_resource is None:
            return
        principal = ctx.principal
        for action, resource, keys in _requests(stack, ctx, params):
            if _account_of(resource) in ("", principal.account):
                continue
            policy = _parsed(per_resource(ctx, resource))
            decision = Decision.IMPLICIT_DENY
            if policy is not None:
                context = {**request_context(ctx), **keys}
                decision = evaluate([policy], Request(action, resource, context, principal=("AWS", principal.arn)))
            if not decision.allowed:
                raise access_denied_in(ctx.service, denial_message(principal, action, resource, decision,
                                                                "resource-based policy"))

    return authorize


def _account_of(arn: str) -> str:
    """The account field of an ARN ("" for "*" and for ARNs without one, as S3's)."""
    parts = arn.split(":", 5)
    return parts[4] if len(parts) > 5 and parts[0] == "arn" else ""


def _resource_policy(stack: Stack, ctx: RequestContext, params: dict[str, Any]) -> Policy | None:
    """The resource-based policy a service keeps for the call's resource (`resource_policy(ctx,
    params)` -> JSON text or None on its service object), parsed; None when there is none."""
    lookup = getattr(stack.services.get(ctx.service), "resource_policy", None)
    return _parsed(lookup(ctx, params) if lookup is not None else None)


def _parsed(text: str | None) -> Policy | None:
    if not text:
        return None
    try:
        return parse(text, "resource")
    except MalformedPolicy:  # stored before it was checked this way: it grants nothing
        return None


def _requests(stack: Stack, ctx: RequestContext, params: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(action, resource, extra condition keys) to evaluate: the service's own say where the action
    depends on the request (PartiQL), else the operation's action on each resource."""
    per_request = stack.action_resolvers.get(ctx.service)
    pairs = per_request(ctx, params) if per_request is not None else None
    if pairs is not None:
        return pairs
    action = action_name(ctx.service, ctx.operation)
    return [(action, resource, {}) for resource in _resources(stack, ctx, params)]


def _resources(stack: Stack, ctx: RequestContext, params: dict[str, Any]) -> list[str]:
    resolver = stack.resource_resolvers.get(ctx.service)
    if resolver is None:
        return ["*"]
    try:
        return resolver(ctx, params) or ["*"]
    except Exception:  # a resolver bug must not turn into a 500; "*" only matches Resource "*" statements
        log.exception("resource resolver for %s.%s failed", ctx.service, ctx.operation)
        return ["*"]
