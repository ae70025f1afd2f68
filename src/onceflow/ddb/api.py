"""DynamoDB's operations: each turns a parsed request into one service call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext
from onceflow.ddb import legacy_global
from onceflow.ddb.batch import Batches
from onceflow.ddb.errors import INVALID_NEXT_TOKEN
from onceflow.ddb.export import S3Authorizer, Transfers
from onceflow.ddb.insights import ContributorInsights
from onceflow.ddb.partiql import PARTIQL_OPERATIONS, AuthRequests, PartiQL, statement_tables
from onceflow.ddb.policies import ResourcePolicies
from onceflow.ddb.reads import ON_LOOP, Reader
from onceflow.ddb.replica_scaling import ReplicaAutoScaling
from onceflow.ddb.schema import check_table_name
from onceflow.ddb.service import DynamoDB
from onceflow.errors import validation_error
from onceflow.registry import on_loop, operation

Params = dict[str, Any]
Result = dict[str, Any]


class DynamoDBApi:
    def __init__(self, svc: DynamoDB, s3: Callable[[], Any] = lambda: None,
                 authorize: S3Authorizer | None = None) -> None:
        self.svc = svc
        self.reads = Reader(svc)
        self.batches = Batches(svc)
        self.partiql = PartiQL(svc, self.reads, self.batches)
        self.policies = ResourcePolicies(svc.db, svc)
        self.transfers = Transfers(svc, s3, authorize)
        self.insights = ContributorInsights(svc)
        self.scaling = ReplicaAutoScaling(svc)

    # ---------------------------------------------------------------- tables
    @operation("CreateTable")
    def create_table(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableName"])
        if p.get("ResourcePolicy") is None:
            return self.svc.create_table(ctx.account, ctx.region, p)
        self.policies.check(p["ResourcePolicy"])  # a bad policy refuses the table: nothing is created
        out = self.svc.create_table(ctx.account, ctx.region, {k: v for k, v in p.items() if k != "ResourcePolicy"})
        self.policies.put(ctx.account, ctx.region, {"ResourceArn": out["TableDescription"]["TableArn"],
                                                     "Policy": p["ResourcePolicy"]})
        return out

    @operation("DescribeTable")
    def describe_table(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableName"])
        return self.svc.describe_table(ctx.account, ctx.region, p["TableName"])

    @operation("ListTables")
    def list_tables(self, ctx: RequestContext, p: Params) -> Result:
        return self.svc.list_tables(ctx.account, ctx.region, p.get("ExclusiveStartTableName"), p.get("Limit"))

    @operation("DeleteTable")
    def delete_table(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableName"])
        return self.svc.delete_table(ctx.account, ctx.region, p["TableName"])

    @operation("UpdateTable")
    def update_table(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableName"])
        return self.svc.update_table(ctx.account, ctx.region, p)

    @operation("TagResource")
    def tag_resource(self, ctx: RequestContext, p: Params) -> Result:
        self.svc.tag(ctx.region, p["ResourceArn"], {t["Key"]: t["Value"] for t in p["Tags"]}, None)
        return {}

    @operation("UntagResource")
    def untag_resource(self, ctx: RequestContext, p: Params) -> Result:
        self.svc.tag(ctx.region, p["ResourceArn"], None, p["TagKeys"])
        return {}

    @operation("ListTagsOfResource")
    def list_tags(self, ctx: RequestContext, p: Params) -> Result:
        tags = self.svc.tags(ctx.region, p["ResourceArn"])
        if p.get("NextToken"):  # a table's tags (at most 50) are one page: any token is one never issued
            raise validation_error(INVALID_NEXT_TOKEN)
        return {"Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}

    @operation("DescribeTimeToLive")
    def describe_ttl(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableName"])
        return self.svc.describe_ttl(ctx.account, ctx.region, p["TableName"])

    @operation("UpdateTimeToLive")
    def update_ttl(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableName"])
        return self.svc.update_ttl(ctx.account, ctx.region, p["TableName"], p["TimeToLiveSpecification"])

    @operation("DescribeEndpoints")
    def describe_endpoints(self, ctx: RequestContext, p: Params) -> Result:
        return {"Endpoints": [{"Address": f"dynamodb.{ctx.region}.amazonaws.com", "CachePeriodInMinutes": 1440}]}

    @operation("DescribeContinuousBackups")
    def describe_continuous_backups(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableName"])
        return self.svc.continuous_backups(ctx.account, ctx.region, p["TableName"])

    @operation("UpdateContinuousBackups")
    def update_continuous_backups(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableName"])
        return self.svc.continuous_backups(ctx.account, ctx.region, p["TableName"],
                                           p["PointInTimeRecoverySpecification"])

    @operation("DescribeContributorInsights")
    def describe_contributor_insights(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableName"])
        return self.insights.describe(ctx.account, ctx.region, p)

    @operation("UpdateContributorInsights")
    def update_contributor_insights(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableName"])
        return self.insights.update(ctx.account, ctx.region, p)

    @operation("ListContributorInsights")
    def list_contributor_insights(self, ctx: RequestContext, p: Params) -> Result:
        if p.get("TableName"):
            check_table_name(p["TableName"])
        return self.insights.list(ctx.account, ctx.region, p)

    @operation("DescribeLimits")
    def describe_limits(self, ctx: RequestContext, p: Params) -> Result:
        # DynamoDB's default quotas per account and per table (us-east-1).
        return {"AccountMaxReadCapacityUnits": 80000, "AccountMaxWriteCapacityUnits": 80000,
                "TableMaxReadCapacityUnits": 40000, "TableMaxWriteCapacityUnits": 40000}

    # ---------------------------------------------------------------- global tables (ddb/replicas.py: UpdateTable)
    @operation("DescribeTableReplicaAutoScaling")
    def describe_table_replica_auto_scaling(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableName"])
        return self.scaling.describe(ctx.account, ctx.region, p["TableName"])

    @operation("UpdateTableReplicaAutoScaling")
    def update_table_replica_auto_scaling(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableName"])
        return self.scaling.update(ctx.account, ctx.region, p)

    @operation("CreateGlobalTable")
    def create_global_table(self, ctx: RequestContext, p: Params) -> Result:
        return legacy_global.create(p)

    @operation("DescribeGlobalTable")
    def describe_global_table(self, ctx: RequestContext, p: Params) -> Result:
        return legacy_global.named(p)

    @operation("UpdateGlobalTable")
    def update_global_table(self, ctx: RequestContext, p: Params) -> Result:
        return legacy_global.named(p)

    @operation("DescribeGlobalTableSettings")
    def describe_global_table_settings(self, ctx: RequestContext, p: Params) -> Result:
        return legacy_global.named(p)

    @operation("UpdateGlobalTableSettings")
    def update_global_table_settings(self, ctx: RequestContext, p: Params) -> Result:
        return legacy_global.named(p)

    @operation("ListGlobalTables")
    def list_global_tables(self, ctx: RequestContext, p: Params) -> Result:
        return legacy_global.list_all(p)

    # ---------------------------------------------------------------- items
    # Single-item writes run on the event loop when the store's writers' lock is free (see registry).
    @operation("PutItem", commits=True)
    def put_item(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableName"])
        return self.svc.put_item(ctx.account, ctx.region, p)

    # Inline (on the event loop): a point read through a WAL reader connection never waits for a writer.
    # Reads answered over the wire pass stored items through as raw JSON (onceflow.raw_json).
    @operation("GetItem", inline=True)
    def get_item(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableName"])
        return self.svc.get_item(ctx.account, ctx.region, p, raw=not ctx.internal)

    @operation("UpdateItem", commits=True)
    def update_item(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableName"])
        return self.svc.update_item(ctx.account, ctx.region, p)

    @operation("DeleteItem", commits=True)
    def delete_item(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableName"])
        return self.svc.delete_item(ctx.account, ctx.region, p)

    # Bounded (on the event loop within reads.ON_LOOP, else in the thread pool): a Query of a small
    # partition or with a small Limit costs less than the thread hop it would otherwise take.
    @operation("Query", bounded=True)
    def query(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableName"])
        return self.reads.query(ctx.account, ctx.region, p, raw=not ctx.internal,
                                budget=ON_LOOP if on_loop() else None)

    @operation("Scan")
    def scan(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableName"])
        return self.reads.scan(ctx.account, ctx.region, p, raw=not ctx.internal)

    @operation("BatchGetItem")
    def batch_get_item(self, ctx: RequestContext, p: Params) -> Result:
        return self.batches.batch_get(ctx.account, ctx.region, p)

    @operation("BatchWriteItem")
    def batch_write_item(self, ctx: RequestContext, p: Params) -> Result:
        return self.batches.batch_write(ctx.account, ctx.region, p)

    @operation("TransactWriteItems")
    def transact_write_items(self, ctx: RequestContext, p: Params) -> Result:
        return self.batches.transact_write(ctx.account, ctx.region, p)

    @operation("TransactGetItems")
    def transact_get_items(self, ctx: RequestContext, p: Params) -> Result:
        return self.batches.transact_get(ctx.account, ctx.region, p)

    # ---------------------------------------------------------------- backups
    @operation("CreateBackup")
    def create_backup(self, ctx: RequestContext, p: Params) -> Result:
        return self.svc.backups.create(ctx.account, ctx.region, p["TableName"], p["BackupName"])

    @operation("DescribeBackup")
    def describe_backup(self, ctx: RequestContext, p: Params) -> Result:
        return self.svc.backups.describe(ctx.account, ctx.region, p["BackupArn"])

    @operation("DeleteBackup")
    def delete_backup(self, ctx: RequestContext, p: Params) -> Result:
        return self.svc.backups.delete(ctx.account, ctx.region, p["BackupArn"])

    @operation("ListBackups")
    def list_backups(self, ctx: RequestContext, p: Params) -> Result:
        return self.svc.backups.list(ctx.account, ctx.region, p)

    @operation("RestoreTableFromBackup")
    def restore_table_from_backup(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TargetTableName"])
        return self.svc.backups.restore_from_backup(ctx.account, ctx.region, p)

    @operation("RestoreTableToPointInTime")
    def restore_table_to_point_in_time(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TargetTableName"])
        return self.svc.backups.restore_to_time(ctx.account, ctx.region, p)

    # ---------------------------------------------------------------- PartiQL
    @operation("ExecuteStatement")
    def execute_statement(self, ctx: RequestContext, p: Params) -> Result:
        return self.partiql.execute(ctx.account, ctx.region, p, raw=not ctx.internal)

    @operation("BatchExecuteStatement")
    def batch_execute_statement(self, ctx: RequestContext, p: Params) -> Result:
        return self.partiql.batch(ctx.account, ctx.region, p)

    @operation("ExecuteTransaction")
    def execute_transaction(self, ctx: RequestContext, p: Params) -> Result:
        return self.partiql.transaction(ctx.account, ctx.region, p)

    # ---------------------------------------------------------------- resource-based policies
    @operation("PutResourcePolicy")
    def put_resource_policy(self, ctx: RequestContext, p: Params) -> Result:
        return self.policies.put(ctx.account, ctx.region, p)

    @operation("GetResourcePolicy")
    def get_resource_policy(self, ctx: RequestContext, p: Params) -> Result:
        return self.policies.get(ctx.account, ctx.region, p["ResourceArn"])

    @operation("DeleteResourcePolicy")
    def delete_resource_policy(self, ctx: RequestContext, p: Params) -> Result:
        return self.policies.delete(ctx.account, ctx.region, p)

    # ---------------------------------------------------------------- export to and import from S3
    @operation("ExportTableToPointInTime")
    def export_table(self, ctx: RequestContext, p: Params) -> Result:
        return self.transfers.export(ctx, p)

    @operation("DescribeExport")
    def describe_export(self, ctx: RequestContext, p: Params) -> Result:
        return self.transfers.describe_export(ctx.account, ctx.region, p["ExportArn"])

    @operation("ListExports")
    def list_exports(self, ctx: RequestContext, p: Params) -> Result:
        return self.transfers.list_exports(ctx.account, ctx.region, p)

    @operation("ImportTable")
    def import_table(self, ctx: RequestContext, p: Params) -> Result:
        check_table_name(p["TableCreationParameters"]["TableName"])
        return self.transfers.import_table(ctx, p)

    @operation("DescribeImport")
    def describe_import(self, ctx: RequestContext, p: Params) -> Result:
        return self.transfers.describe_import(ctx.account, ctx.region, p["ImportArn"])

    @operation("ListImports")
    def list_imports(self, ctx: RequestContext, p: Params) -> Result:
        return self.transfers.list_imports(ctx.account, ctx.region, p)

    def authorization_requests(self, ctx: RequestContext, p: Params) -> AuthRequests | None:
        """PartiQL calls are authorized per statement, by its kind (stack.action_resolvers); an UpdateTable
        that adds or removes replicas also needs dynamodb:CreateTableReplica / DeleteTableReplica on the
        table (AWS's "Using IAM with global tables")."""
        if ctx.operation == "UpdateTable" and p.get("ReplicaUpdates"):
            table = resource_arns(ctx, p)[0]
            wanted = ["dynamodb:UpdateTable"] + [f"dynamodb:{kind}TableReplica"
                                                  for kind in ("Create", "Delete", "Disassociate")
                                                  if any(u.get(kind) for u in p["ReplicaUpdates"])]
            return [(action, table, {}) for action in wanted]
        if ctx.operation not in PARTIQL_OPERATIONS:
            return None
        return self.partiql.authorization(ctx.account, ctx.region, ctx.operation, p)


def resource_arns(ctx: RequestContext, p: Params) -> list[str]:
    """The table ARNs a call acts on (every table of a batch or transaction)."""
    prefix = f"arn:{partition(ctx.region)}:dynamodb:{ctx.region}:{ctx.account}:table/"
    if "ResourceArn" in p:
        return [p["ResourceArn"]]
    if "BackupArn" in p:
        return [p["BackupArn"]]
    for member in ("TableArn", "ExportArn", "ImportArn"):  # exports and imports act on their table
        if isinstance(p.get(member), str):
            return [p[member].split("/export/")[0].split("/import/")[0]]
    if "GlobalTableName" in p:  # a legacy global table's ARN has no region
        return [f"arn:{partition(ctx.region)}:dynamodb::{ctx.account}:global-table/{p['GlobalTableName']}"]
    if "TableCreationParameters" in p:
        return [prefix + p["TableCreationParameters"]["TableName"]]
    if "TargetTableName" in p:  # a restore to a point in time acts on its source and its target
        source = p.get("SourceTableArn") or p.get("SourceTableName")
        return [n if n.startswith("arn:") else prefix + n for n in (source, p["TargetTableName"]) if n]
    if "TableName" in p:
        name = p["TableName"]
        return [name if name.startswith("arn:") else prefix + name]
    names: list[str] = []
    if "RequestItems" in p:
        names = list(p["RequestItems"])
    if "Statement" in p or "Statements" in p or "TransactStatements" in p:
        names = statement_tables(p)
    for ti in p.get("TransactItems") or []:
        for action in ti.values():
            if isinstance(action, dict) and "TableName" in action and action["TableName"] not in names:
                names.append(action["TableName"])
    if not names:
        return ["*"]  # ListTables, DescribeEndpoints: IAM evaluates them against "*"
    return [n if n.startswith("arn:") else prefix + n for n in names]
