"""Exports (an output's Export.Name) and who imports them (Fn::ImportValue), over the account's
live stacks in one region: an export's name is the region's, and an imported one cannot go."""

from __future__ import annotations

from typing import Any

from onceflow.cloudformation.store import CfnStore
from onceflow.context import RequestContext

Doc = dict[str, Any]


def exports(store: CfnStore, ctx: RequestContext) -> dict[str, tuple[Doc, str]]:
    """Export name -> (exporting stack, value)."""
    out = {}
    for d in store.all(ctx.account, ctx.region, False):
        for o in d.get("Outputs") or []:
            if "ExportName" in o:
                out[o["ExportName"]] = (d, o["OutputValue"])
    return out


def export_conflict(store: CfnStore, ctx: RequestContext, doc: Doc) -> str | None:
    """AWS's reason when one of the stack's exports is already another stack's."""
    taken = exports(store, ctx)
    for o in doc.get("Outputs") or []:
        name = o.get("ExportName")
        if name in taken and taken[name][0]["StackId"] != doc["StackId"]:
            return f"Export with name {name} is already exported by stack {taken[name][0]['StackName']}"
    return None


def importers(store: CfnStore, ctx: RequestContext, doc: Doc) -> list[tuple[str, str]]:
    """(export name, importing stack name) for this stack's exports other stacks import."""
    names = {o["ExportName"] for o in doc.get("Outputs") or [] if "ExportName" in o}
    return [(n, d["StackName"]) for d in store.all(ctx.account, ctx.region, False)
            if d["StackId"] != doc["StackId"] for n in d.get("_imports") or [] if n in names]
