"""DynamoDB resource-based policies on tables and streams: Put/Get/DeleteResourcePolicy, and the
lookup the authorizer evaluates beside the caller's identity policies (stack.resource_policies).

A policy is validated as IAM validates a resource policy (iam/policy, kind "resource"). Its row
remembers the table's TableId: a table deleted and created again under the name has no policy, as
DeleteTable removes the table's policy on AWS. A revision id names each distinct document.
"""

from __future__ import annotations

import time
from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext
from onceflow.ddb import errors_policies
from onceflow.ddb.schema import Table
from onceflow.ddb.service import CROSS_ACCOUNT, DynamoDB
from onceflow.errors import ServiceError
from onceflow.iam.policy import MalformedPolicy, parse
from onceflow.store.db import Database

MIGRATIONS = [
    ("ddb-policies-0001", """
        CREATE TABLE ddb_resource_policies (
            arn TEXT PRIMARY KEY,
            table_id TEXT NOT NULL,
            policy TEXT NOT NULL,
            revision TEXT NOT NULL
        );
    """),
]
MAX_SIZE = 20 * 1024  # DynamoDB's limit on a resource policy, whitespace included


class ResourcePolicies:
    def __init__(self, db: Database, svc: DynamoDB) -> None:
        self.db = db
        self.svc = svc
        # ARN -> (TableId, document) or None: every role's DynamoDB call asks, so the answer is kept
        # (this process is the only writer; put/delete and reset keep it true).
        self._cache: dict[str, tuple[str, str] | None] = {}
        self._generation = 0  # bumped by every change: a read that raced one is not kept

    def _changed(self, arn: str | None = None) -> None:
        self._generation += 1
        if arn is None:
            self._cache.clear()
        else:
            self._cache.pop(arn, None)

    def forget(self) -> None:
        self._changed()

    def _resource(self, account: str, region: str, arn: str) -> Table:
        """The table a table or stream ARN names (ResourceNotFoundException when there is none)."""
        prefix = f"arn:{partition(region)}:dynamodb:{region}:{account}:table/"
        if not arn.startswith(prefix):
            raise errors_policies.resource_arn_not_found(arn)
        name, _, rest = arn[len(prefix):].partition("/")
        t = self.svc.table(account, region, name, describe=True)  # unknown: "Table: <name> not found"
        if rest and (not rest.startswith("stream/") or rest[len("stream/"):] != t.stream_label):
            raise errors_policies.resource_arn_not_found(arn)
        return t

    def _row(self, arn: str, t: Table) -> Any:
        row = self.db.query_one("SELECT * FROM ddb_resource_policies WHERE arn=?", (arn,))
        return row if row is not None and row["table_id"] == t.table_id else None

    @staticmethod
    def check(text: str) -> None:
        """Refuse a document DynamoDB would refuse (too large, or not a valid resource policy)."""
        if len(text.encode()) > MAX_SIZE:
            raise errors_policies.policy_too_large(MAX_SIZE)
        try:
            parse(text, "resource")
        except MalformedPolicy as e:
            raise errors_policies.policy_malformed(e.message) from None

    def put(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        arn, text = p["ResourceArn"], p["Policy"]
        t = self._resource(account, region, arn)
        self.check(text)
        with self.db.transaction() as conn:
            row = conn.execute("SELECT * FROM ddb_resource_policies WHERE arn=?", (arn,)).fetchone()
            current = row if row is not None and row["table_id"] == t.table_id else None
            expected = p.get("ExpectedRevisionId")
            if expected == errors_policies.NO_POLICY:
                if current is not None:
                    raise errors_policies.policy_exists(t.name, current["revision"])
            elif expected is not None and (current is None or current["revision"] != expected):
                held = current["revision"] if current else None
                raise errors_policies.policy_revision_mismatch(t.name, expected, held)
            if current is not None and current["policy"] == text:
                return {"RevisionId": current["revision"]}  # idempotent: the same document, the same revision
            revision = str(time.time_ns() // 1000)
            conn.execute("INSERT INTO ddb_resource_policies (arn, table_id, policy, revision) VALUES (?, ?, ?, ?) "
                         "ON CONFLICT (arn) DO UPDATE SET table_id=excluded.table_id, policy=excluded.policy, "
                         "revision=excluded.revision", (arn, t.table_id, text, revision))
        self._changed(arn)
        return {"RevisionId": revision}

    def get(self, account: str, region: str, arn: str) -> dict[str, Any]:
        row = self._row(arn, self._resource(account, region, arn))
        if row is None:
            raise errors_policies.policy_not_found(arn)
        return {"Policy": row["policy"], "RevisionId": row["revision"]}

    def delete(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        arn = p["ResourceArn"]
        t = self._resource(account, region, arn)
        with self.db.transaction() as conn:
            row = conn.execute("SELECT * FROM ddb_resource_policies WHERE arn=?", (arn,)).fetchone()
            if row is None or row["table_id"] != t.table_id:
                raise errors_policies.policy_not_found(arn)
            expected = p.get("ExpectedRevisionId")
            if expected is not None and row["revision"] != expected:
                raise errors_policies.policy_revision_mismatch(t.name, expected, row["revision"])
            conn.execute("DELETE FROM ddb_resource_policies WHERE arn=?", (arn,))
        self._changed(arn)
        return {"RevisionId": row["revision"]}

    def lookup(self, ctx: RequestContext, resource: str) -> str | None:
        """The policy of the table (or stream) a resource ARN is on, for the authorizer: an index's
        ARN is governed by its table's policy. Across accounts a policy grants only the operations
        DynamoDB serves there (service.CROSS_ACCOUNT); for the others no policy applies, so the call is
        refused as one no resource-based policy allows (UNCONFIRMED: AWS's answer to, say, UpdateTimeToLive
        on another account's table is not recorded)."""
        if not resource.startswith(f"arn:{partition(ctx.region)}:dynamodb:"):
            return None
        if ctx.service == "dynamodb" and ctx.operation not in CROSS_ACCOUNT and resource.split(":")[4] != ctx.account:
            return None
        base = resource.partition("/index/")[0]
        if base in self._cache:
            found = self._cache[base]
        else:
            generation = self._generation
            row = self.db.query_one("SELECT table_id, policy FROM ddb_resource_policies WHERE arn=?", (base,))
            found = (row[0], row[1]) if row is not None else None
            if generation == self._generation:
                self._cache[base] = found
        if found is None:
            return None
        parts = base.split(":")
        name = parts[5].split("/")[1] if len(parts) > 5 else ""
        try:
            t = self.svc.table(parts[4], parts[3], name)
        except ServiceError:
            return None
        return found[1] if found[0] == t.table_id else None
