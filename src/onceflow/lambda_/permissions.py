"""AddPermission, RemovePermission and GetPolicy, Put/Get/DeleteResourcePolicy, and the check other
services make before they invoke a function as a service principal (`may_invoke`: SNS, EventBridge,
S3 notifications).

A policy belongs to the unqualified function or to one version or alias (stored under '' or the
qualifier), as on AWS, where an invocation through an alias is authorized by the alias's policy.
PutResourcePolicy writes that same policy as a whole document ("If you previously added permissions
using the AddPermission operation, the new policy overwrites those permissions", the model), so the
statement calls and the document calls read and write one row, under one RevisionId.
"""

from __future__ import annotations

import json
import re
from typing import Any

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.iam.policy import MalformedPolicy, parse
from onceflow.iam.resource_access import principal_may, service_may
from onceflow.lambda_ import config as cfg
from onceflow.lambda_ import cross_account, errors, names, policy
from onceflow.lambda_.names import FunctionRef
from onceflow.lambda_.service import LambdaService

_ALIAS_NAME = re.compile(r"[a-zA-Z0-9-_]+")  # what an alias may be called (the model's Alias pattern)


class Permissions:
    def __init__(self, service: LambdaService) -> None:
        self.service = service
        self.store = service.store

    def _target(self, ctx: RequestContext, params: dict[str, Any], op: str) -> tuple[FunctionRef, str]:
        """The function and the qualifier a policy call acts on ('' for the unqualified function). What
        is missing is named as AWS records it per operation: GetPolicy answers a missing version or
        alias as a missing policy, RemovePermission a missing function as one with no policy, and the
        writes a missing alias (a name an alias could have) as that alias."""
        ref = cross_account.parse(ctx, params["FunctionName"], params.get("Qualifier"))
        if self.store.get_function(ref.key) is None and op == "remove":
            raise errors.not_found(f"No policy found for: {ref.arn()}")
        try:
            return ref, self.service.existing_qualifier(ref)
        except ServiceError as err:
            q = ref.qualifier
            if err.code != "ResourceNotFoundException" or not q or self.store.get_function(ref.key) is None:
                raise
            if op == "get":
                raise errors.not_found("The resource you requested does not exist.") from None
            if _ALIAS_NAME.fullmatch(q) and not q.isdigit():
                raise errors.alias_not_found(ref.arn(q)) from None
            raise

    def add(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref, qualifier = self._target(ctx, params, "add")
        if ref.qualifier == "$LATEST":
            raise errors.invalid("We currently do not support adding policies for $LATEST.")
        stmt = policy.statement(params, ref.arn(qualifier or None))
        # Read, check and write under the writer's lock: two AddPermissions at once each keep their statement.
        with self.store.db.transaction() as conn:
            found = self.store.get_policy(ref.key, qualifier)
            _check_revision(self._revision(ref, qualifier, found), params.get("RevisionId"))
            updated = policy.add(found[0] if found else policy.empty(), stmt)
            self.store.put_policy(conn, ref.key, qualifier, updated, self._new_revision(conn, ref, qualifier))
        return {"Statement": _compact(stmt)}

    def remove(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        ref, qualifier = self._target(ctx, params, "remove")
        with self.store.db.transaction() as conn:
            found = self.store.get_policy(ref.key, qualifier)
            _check_revision(self._revision(ref, qualifier, found) if found else None, params.get("RevisionId"))
            updated = policy.remove(found[0] if found else None, params["StatementId"])
            self.store.put_policy(conn, ref.key, qualifier, updated, self._new_revision(conn, ref, qualifier))

    def get(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref, qualifier = self._target(ctx, params, "get")
        found = self.store.get_policy(ref.key, qualifier)
        if found is None:
            raise errors.not_found("The resource you requested does not exist.")
        return {"Policy": _compact(found[0]), "RevisionId": self._revision(ref, qualifier, found)}

    # ------------------------------------------------------------------ the policy as one document
    def _of_arn(self, ctx: RequestContext, arn: str, op: str) -> tuple[FunctionRef, str]:
        return self._target(ctx, {"FunctionName": arn}, op)

    def put_document(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref, qualifier = self._of_arn(ctx, params["ResourceArn"], "add")
        if ref.qualifier == "$LATEST":  # as AddPermission refuses it (UNCONFIRMED for PutResourcePolicy)
            raise errors.invalid("We currently do not support adding policies for $LATEST.")
        doc = _document(params["Policy"])
        with self.store.db.transaction() as conn:
            found = self.store.get_policy(ref.key, qualifier)
            _check_revision(self._revision(ref, qualifier, found), params.get("RevisionId"))
            revision = self._new_revision(conn, ref, qualifier)
            self.store.put_policy(conn, ref.key, qualifier, doc, revision)
        return {"Policy": _compact(doc), "RevisionId": revision}

    def get_document(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref, qualifier = self._of_arn(ctx, params["ResourceArn"], "get")
        found = self.store.get_policy(ref.key, qualifier)
        if found is None:  # GetPolicy's words (UNCONFIRMED for GetResourcePolicy)
            raise errors.not_found("The resource you requested does not exist.")
        return {"Policy": _compact(found[0]), "RevisionId": self._revision(ref, qualifier, found)}

    def delete_document(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        ref, qualifier = self._of_arn(ctx, params["ResourceArn"], "remove")
        with self.store.db.transaction() as conn:
            found = self.store.get_policy(ref.key, qualifier)
            if found is None:  # RemovePermission's words (UNCONFIRMED for DeleteResourcePolicy)
                raise errors.not_found("No policy is associated with the given resource.")
            _check_revision(self._revision(ref, qualifier, found), params.get("RevisionId"))
            self.store.put_policy(conn, ref.key, qualifier, policy.empty(), self._new_revision(conn, ref, qualifier))

    # A policy's RevisionId is its function's, version's or alias's (AWS's recordings: GetPolicy answers
    # the RevisionId GetFunction shows, a publish moves both), and a policy change gives that a new one.
    def _revision(self, ref: FunctionRef, qualifier: str, found: tuple[dict[str, Any], str] | None) -> str | None:
        record = self._holder(ref, qualifier)
        if record is not None:
            return str(record["RevisionId"])
        return found[1] if found else None

    def _holder(self, ref: FunctionRef, qualifier: str) -> dict[str, Any] | None:
        if not qualifier:
            return self.store.get_function(ref.key)
        if qualifier.isdigit():
            return self.store.get_version(ref.key, int(qualifier))
        return self.store.get_alias(ref.key, qualifier)  # ($LATEST.PUBLISHED: None, the policy's own)

    def _new_revision(self, conn: Any, ref: FunctionRef, qualifier: str) -> str:
        revision = cfg.new_revision()
        record = self._holder(ref, qualifier)
        if record is not None:
            record["RevisionId"] = revision
            if not qualifier:
                self.store.update_function(conn, ref.key, record)
            elif qualifier.isdigit():
                self.store.update_version(conn, ref.key, int(qualifier), record)
            else:
                self.store.put_alias(conn, ref.key, qualifier, record)
        return revision

    def may_invoke(
        self,
        account: str,
        function: str,
        principal: str,
        source_arn: str | None = None,
        source_account: str | None = None,
        region: str | None = None,
        action: str = "lambda:InvokeFunction",
    ) -> bool | None:
        """Whether the function's resource policy lets `principal` ("sns.amazonaws.com", or an
        account id / IAM ARN) invoke it for an event from `source_arn`. A name or ARN, qualified
        or not; None when there is no such function (or version or alias): nothing to invoke, and
        the caller's Invoke answers ResourceNotFoundException as on AWS."""
        region = region or (function.split(":")[3] if function.startswith("arn:") else "us-east-1")
        try:
            ref = names.parse(function, account, region)
            qualifier = self.service.existing_qualifier(ref)
        except Exception:  # not found, malformed, another region: nothing to invoke
            return None
        found = self.store.get_policy(ref.key, qualifier)
        text = json.dumps(found[0]) if found else None
        resource = ref.arn(qualifier or None)
        # The rule every resource policy is asked through (IAM's evaluator, iam/resource_access.py).
        if principal.endswith(".amazonaws.com"):
            return service_may(text, principal, action, resource, source_arn, source_account)
        return principal_may(text, principal, action, resource)

def _check_revision(current: str | None, wanted: str | None) -> None:
    if wanted and wanted != current:
        raise errors.revision_mismatch()


def _document(text: str) -> dict[str, Any]:
    """PutResourcePolicy's document, checked as IAM checks a resource policy (its words,
    UNCONFIRMED as Lambda's), kept with its statements as a list (AddPermission appends to it)."""
    try:
        parse(text, "resource")
    except MalformedPolicy as e:
        raise errors.invalid(f"The policy is not valid: {e.message}") from None
    doc = json.loads(text)
    statements = doc["Statement"]
    doc["Statement"] = [statements] if isinstance(statements, dict) else list(statements)
    if not doc["Statement"]:  # a policy with no statement is none at all (the store keeps no row)
        raise errors.invalid("The policy is not valid: it has no statement.")  # UNCONFIRMED wording
    return dict(doc)


def _compact(doc: dict[str, Any]) -> str:
    return json.dumps(doc, separators=(",", ":"))
