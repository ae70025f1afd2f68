"""CloudWatch Logs resource policies: Put/Describe/DeleteResourcePolicy, stored per account and
region, either account-wide (at most 10, by name) or on one log group (one per group ARN).

AWS applies them only to AWS service principals writing logs (Route 53, EventBridge...); onceflow's
services write their logs through LogsService.append, which no policy stands between, so the
policies are kept and answered, not evaluated.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.logs import errors, resources
from onceflow.logs.json_docs import json_object
from onceflow.logs.service import LogsService, parse_group_arn
from onceflow.registry import operation
from onceflow.store.db import Database

MIGRATIONS = [
    (
        "logs-0004",
        """
        CREATE TABLE logs_resource_policies (
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            resource TEXT NOT NULL,  -- the log group ARN, '' for an account-wide policy
            name TEXT NOT NULL,
            document TEXT NOT NULL,
            updated INTEGER NOT NULL,
            revision TEXT NOT NULL,
            PRIMARY KEY (account, region, resource, name)
        );
        """,
    ),
]
MAX_ACCOUNT_POLICIES = 10
Params = dict[str, Any]


def _shape(row: Any, *, described: bool = False) -> Params:
    """A policy as AWS answers it (LocalStack's test_logs_resource_policies snapshots, recorded on AWS
    2026-02): an account-wide one carries no revisionId; DescribeResourcePolicies shows the document as
    AWS stored it, PutResourcePolicy as it was given."""
    document = _stored_form(row["document"]) if described else row["document"]
    out: Params = {"policyName": row["name"], "policyDocument": document, "lastUpdatedTime": row["updated"],
                   "policyScope": "RESOURCE" if row["resource"] else "ACCOUNT"}
    if row["resource"]:
        out["resourceArn"] = row["resource"]
        out["revisionId"] = row["revision"]
    return out


def _stored_form(text: str) -> str:
    """The document as AWS describes it: a Version (2008-10-17) when it had none, and a one-element list
    of principals as that principal (both recorded); other members as given. A document that needs
    neither is its text as given; UNCONFIRMED: the whitespace of one AWS rewrote (json.dumps' here)."""
    doc = json_object(text)
    if doc is None:
        return text
    changed = "Version" not in doc
    out = {"Version": doc.get("Version", "2008-10-17"), **{k: v for k, v in doc.items() if k != "Version"}}
    statements = out.get("Statement")
    for statement in statements if isinstance(statements, list) else [statements]:
        principal = statement.get("Principal") if isinstance(statement, dict) else None
        if isinstance(principal, dict):
            for kind, names in principal.items():
                if isinstance(names, list) and len(names) == 1:
                    principal[kind] = names[0]
                    changed = True
    return json.dumps(out) if changed else text


def _not_found(name: str) -> ServiceError:
    # Snapshot-recorded on AWS (LocalStack test_logs_resource_policies, 2026-02).
    return ServiceError("ResourceNotFoundException", f"Policy with name [{name}] does not exist.", 400)


class ResourcePoliciesApi:
    def __init__(self, db: Database, logs: LogsService) -> None:
        self.db = db
        self.logs = logs

    def _resource(self, ctx: RequestContext, arn: str | None) -> str:
        if not arn:
            return ""
        parsed = parse_group_arn(arn)
        if parsed is None:
            raise errors.invalid_arn(arn)
        region, account, name = parsed
        if (region, account) != (ctx.region, ctx.account) or self.db.query_one(
                "SELECT 1 FROM logs_groups WHERE account=? AND region=? AND name=?", (account, region, name)) is None:
            raise errors.group_not_found()
        return arn

    @operation("PutResourcePolicy")
    def put_resource_policy(self, ctx: RequestContext, p: Params) -> Params:
        resource = self._resource(ctx, p.get("resourceArn"))
        name = p.get("policyName") or ""
        if not name and not resource:
            raise errors.invalid_parameter("policyName is required for an account-level resource policy")
        document = p.get("policyDocument") or ""
        if json_object(document) is None:
            # UNCONFIRMED wording.
            raise errors.invalid_parameter("Policy document must be a valid JSON object")
        with self.db.transaction() as conn:
            key = (ctx.account, ctx.region, resource)
            rows = conn.execute("SELECT * FROM logs_resource_policies WHERE account=? AND region=? AND resource=?",
                                key).fetchall()
            same = next((r for r in rows if r["name"] == name or resource), None)
            # Revision ids are a log group policy's (an account-wide one shows none: UNCONFIRMED that AWS
            # then ignores expectedRevisionId, as here).
            expected = p.get("expectedRevisionId") if resource else None
            if expected is not None and (same is None or same["revision"] != expected):
                # UNCONFIRMED wording; the model's error for a concurrent change.
                raise ServiceError("OperationAbortedException", "The revision id does not match the current policy",
                                   400)
            if same is None and not resource and len(rows) >= MAX_ACCOUNT_POLICIES:
                raise ServiceError("LimitExceededException", "Resource limit exceeded.", 400)
            if same is not None:
                conn.execute("DELETE FROM logs_resource_policies WHERE account=? AND region=? AND resource=? "
                             "AND name=?", (*key, same["name"]))
            conn.execute("INSERT INTO logs_resource_policies VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (*key, name, document, int(time.time() * 1000), uuid.uuid4().hex))
            row = conn.execute("SELECT * FROM logs_resource_policies WHERE account=? AND region=? AND resource=? "
                               "AND name=?", (*key, name)).fetchone()
        shaped = _shape(row)
        out: Params = {"resourcePolicy": shaped}
        if "revisionId" in shaped:
            out["revisionId"] = shaped["revisionId"]
        return out

    @operation("DescribeResourcePolicies")
    def describe_resource_policies(self, ctx: RequestContext, p: Params) -> Params:
        sql = "SELECT * FROM logs_resource_policies WHERE account=? AND region=?"
        args: list[Any] = [ctx.account, ctx.region]
        if p.get("resourceArn"):
            sql += " AND resource=?"
            args.append(p["resourceArn"])
        elif p.get("policyScope") == "RESOURCE":
            sql += " AND resource != ''"
        elif p.get("policyScope") == "ACCOUNT":
            sql += " AND resource = ''"
        rows = self.db.query(sql + " ORDER BY resource, name", args)
        return resources.page([_shape(r, described=True) for r in rows], p.get("nextToken"), p.get("limit"),
                              "resource-policy", lambda r: r, "resourcePolicies")

    @operation("DeleteResourcePolicy")
    def delete_resource_policy(self, ctx: RequestContext, p: Params) -> None:
        resource = p.get("resourceArn") or ""
        name = p.get("policyName") or ""
        with self.db.transaction() as conn:
            key = (ctx.account, ctx.region, resource)
            row = conn.execute("SELECT * FROM logs_resource_policies WHERE account=? AND region=? AND resource=?"
                               + ("" if resource else " AND name=?"), key if resource else (*key, name)).fetchone()
            if row is None:
                raise _not_found(name or resource)
            if resource and p.get("expectedRevisionId") is not None and row["revision"] != p["expectedRevisionId"]:
                raise ServiceError("OperationAbortedException", "The revision id does not match the current policy",
                                   400)
            conn.execute("DELETE FROM logs_resource_policies WHERE account=? AND region=? AND resource=? AND name=?",
                         (*key, row["name"]))
