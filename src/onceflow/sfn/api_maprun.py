"""Step Functions' Map Run operations (sfn/maprun.py): DescribeMapRun, ListMapRuns, UpdateMapRun."""

from __future__ import annotations

from typing import Any

from onceflow.context import RequestContext
from onceflow.registry import operation
from onceflow.sfn.maprun import MapRuns

Params = dict[str, Any]


class MapRunApi:
    def __init__(self, runs: MapRuns) -> None:
        self.runs = runs

    @operation("DescribeMapRun")
    def describe_map_run(self, ctx: RequestContext, p: Params) -> Params:
        return self.runs.describe(p["mapRunArn"])

    @operation("ListMapRuns")
    def list_map_runs(self, ctx: RequestContext, p: Params) -> Params:
        return self.runs.list(p)

    @operation("UpdateMapRun")
    def update_map_run(self, ctx: RequestContext, p: Params) -> Params:
        self.runs.update(p)
        return {}
