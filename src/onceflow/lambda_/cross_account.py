"""Another account's function (or layer version), named by its ARN: the resource-based policy the
authorizer weighs for it, and the account a call acts in once the authorizer let it through.

AWS ("Granting Lambda function access to other accounts"): a function's resource-based policy grants
other accounts access to the function, a version or an alias, and "users in the other account must
have the corresponding user permissions" too: across accounts both must allow (iam/authorizer.py, as
for DynamoDB's tables). Without a grant the call is refused "because no resource-based policy allows
the lambda:<Action> action" (AWS's words, as users' transcripts of GetLayerVersion and GetFunction
refusals record them), a 403 AccessDeniedException, not a 404.

Which calls reach another account's function once granted: AWS grants "most API actions that operate
on an existing function"; onceflow serves the reads, invocations, tagging and reserved concurrency
(CROSS_ACCOUNT); for the others (code, configuration, versions, aliases, deletion) no
policy applies across accounts, so they are refused as ungranted. The list is narrower in practice
than the docs' words: a user found AddPermission, RemovePermission and UpdateFunctionConfiguration
refused across accounts whatever the policy (awsdocs/aws-lambda-developer-guide issue 139); which of
the other writes AWS serves is UNCONFIRMED. A layer version's policy (AddLayerVersionPermission) is
weighed for calls on that version, as AWS does for GetLayerVersion.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from onceflow.context import RequestContext
from onceflow.lambda_ import names
from onceflow.lambda_.names import FunctionRef

if TYPE_CHECKING:
    from onceflow.lambda_.store import LambdaStore

# The calls on another account's function onceflow serves once its policy grants them: the reads, the
# invocations, tagging and reserved concurrency.
CROSS_ACCOUNT = frozenset({
    "GetFunction", "GetFunctionConfiguration", "Invoke", "InvokeWithResponseStream", "GetAlias", "ListAliases",
    "ListVersionsByFunction", "GetPolicy", "ListTags", "GetFunctionConcurrency", "TagResource", "UntagResource",
    "PutFunctionConcurrency", "DeleteFunctionConcurrency"})  # fmt: skip
# Layer versions: the calls their policies may grant across accounts (UNCONFIRMED beyond GetLayerVersion).
LAYER_CALLS = frozenset({"GetLayerVersion", "GetLayerVersionByArn"})

_FUNCTION = re.compile(r"arn:aws[a-zA-Z-]*:lambda:(?P<region>[a-z0-9-]+):(?P<account>\d{12}):function:"
                       r"(?P<name>[a-zA-Z0-9_-]+)(?::(?P<qualifier>[a-zA-Z0-9_$.-]+))?")  # fmt: skip
_LAYER_VERSION = re.compile(r"arn:aws[a-zA-Z-]*:lambda:(?P<region>[a-z0-9-]+):(?P<account>\d{12}):layer:"
                            r"(?P<name>[a-zA-Z0-9_-]+):(?P<version>\d+)")  # fmt: skip


def parse(ctx: RequestContext, name: str, qualifier: str | None = None) -> FunctionRef:
    """A FunctionName as names.parse reads it, in the account the call acts in (`owner`)."""
    return names.parse(name, owner(ctx, name), ctx.region, qualifier)


def owner(ctx: RequestContext, name: str) -> str:
    """The account a call on `name` acts in: the ARN's own for a call served across accounts (the
    authorizer has let it through only where the function's policy grants it), else the caller's."""
    if ctx.operation not in CROSS_ACCOUNT:
        return ctx.account
    found = _FUNCTION.fullmatch(name)
    return found["account"] if found is not None else ctx.account


class Policies:
    """stack.resource_policies["lambda"]: the policy text the authorizer weighs for a resource ARN."""

    def __init__(self, store: LambdaStore) -> None:
        self.store = store

    def lookup(self, ctx: RequestContext, resource: str) -> str | None:
        found = _FUNCTION.fullmatch(resource)
        if found is not None:
            if found["account"] != ctx.account and ctx.operation not in CROSS_ACCOUNT:
                return None
            qualifier = found["qualifier"] or ""
            key = (found["account"], found["region"], found["name"])
            held = self.store.get_policy(key, "" if qualifier == "$LATEST" else qualifier)
            return json.dumps(held[0]) if held is not None else None
        layer = _LAYER_VERSION.fullmatch(resource)
        if layer is None or (layer["account"] != ctx.account and ctx.operation not in LAYER_CALLS):
            return None
        config = self.store.get_layer((layer["account"], layer["region"], layer["name"]), int(layer["version"]))
        doc = (config or {}).get("_policy")
        return json.dumps(doc) if doc and doc.get("Statement") else None
