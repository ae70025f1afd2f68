"""Warm throughput (WarmThroughput on CreateTable, UpdateTable and a GSI): the read and write units
per second a table or index is ready to serve at once. Recorded and described, not enforced.

A new on-demand table or GSI starts at DynamoDB's initial on-demand values (12,000 reads and 4,000
writes per second), which DescribeTable reports without being asked; a request may raise them, not
ask for less. A provisioned table reports warm throughput only once one is asked for.
"""

from __future__ import annotations

from typing import Any

from onceflow.ddb.errors import warm_below_on_demand

ON_DEMAND = {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000}


def requested(spec: dict[str, Any] | None, billing: str, current: dict[str, int] | None,
              index: str | None = None) -> dict[str, int] | None:
    """The warm throughput after a request's WarmThroughput (None: none was asked for, or ever was)."""
    if not spec:
        return current
    base = current or (ON_DEMAND if billing == "PAY_PER_REQUEST" else {})
    out = {**base, **{k: int(spec[k]) for k in ON_DEMAND if spec.get(k) is not None}}
    if billing == "PAY_PER_REQUEST":
        for k, floor in ON_DEMAND.items():
            if out.get(k, floor) < floor:
                raise warm_below_on_demand(k, index)
    return out


def describe(warm: dict[str, int] | None, billing: str) -> dict[str, Any] | None:
    """TableWarmThroughputDescription / GlobalSecondaryIndexWarmThroughputDescription."""
    if warm is None and billing != "PAY_PER_REQUEST":
        return None
    return {**ON_DEMAND, **(warm or {}), "Status": "ACTIVE"}
