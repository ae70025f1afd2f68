"""The legacy global tables API (version 2017.11.29: CreateGlobalTable, DescribeGlobalTable,
ListGlobalTables, UpdateGlobalTable, Describe/UpdateGlobalTableSettings) as DynamoDB answers it today:
it creates no new legacy global table, so none exists to describe or update, and a version 2019.11.21
global table is not one of them (recorded against DynamoDB by scylladb's test/alternator/test_global_tables.py).
Global tables are made with UpdateTable's ReplicaUpdates (ddb/replicas.py)."""

from __future__ import annotations

from typing import Any

from onceflow.ddb import errors_replicas
from onceflow.ddb.schema import check_table_name
from onceflow.errors import validation_error


def create(p: dict[str, Any]) -> dict[str, Any]:
    check_table_name(p["GlobalTableName"])
    raise validation_error(errors_replicas.LEGACY_UNSUPPORTED)


def named(p: dict[str, Any]) -> dict[str, Any]:
    """DescribeGlobalTable, UpdateGlobalTable, Describe/UpdateGlobalTableSettings: no such global table."""
    check_table_name(p["GlobalTableName"])
    raise errors_replicas.global_table_not_found(p["GlobalTableName"])


def list_all(p: dict[str, Any]) -> dict[str, Any]:
    return {"GlobalTables": []}
