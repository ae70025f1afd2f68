"""CloudFormation operations (query protocol): parsed request members in, output members out."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import UTC, datetime
from typing import Any

from onceflow.cloudformation.errors import validation
from onceflow.cloudformation.exports import exports, importers
from onceflow.cloudformation.preparing import capabilities_needed, load, template_text
from onceflow.cloudformation.service import CfnService, Doc
from onceflow.cloudformation.template import TemplateError, parse
from onceflow.context import RequestContext
from onceflow.registry import operation

Params = dict[str, Any]
TIMES = ("CreationTime", "DeletionTime", "LastUpdatedTime", "Timestamp", "LastUpdatedTimestamp")
STACK_MEMBERS = ("StackId", "StackName", "ChangeSetId", "Description", "Parameters", "CreationTime", "DeletionTime",
                 "LastUpdatedTime", "StackStatus", "StackStatusReason", "DisableRollback", "NotificationARNs",
                 "Capabilities", "Outputs", "RoleARN", "Tags", "EnableTerminationProtection", "ParentId", "RootId",
                 "DriftInformation")


PAGE = 100  # what one page of a CloudFormation list holds


def _page(p: Params, items: list[Any], key: str) -> Params:
    """One page of `items` from the request's NextToken; the next page's token while more remain."""
    token = p.get("NextToken")
    start = 0
    if token:
        try:
            start = int(base64.urlsafe_b64decode(str(token).encode()).decode().removeprefix("cfn:"))
        except (ValueError, binascii.Error, UnicodeDecodeError):
            raise validation("Invalid NextToken") from None
    out: Params = {key: items[start:start + PAGE]}
    if start + PAGE < len(items):
        out["NextToken"] = base64.urlsafe_b64encode(f"cfn:{start + PAGE}".encode()).decode()
    return out


def _public(doc: Doc, members: tuple[str, ...] | None = None) -> Doc:
    """A stored document as the wire answers it: own fields dropped, times as datetimes."""
    out = {}
    for key in members or tuple(doc):
        if key not in doc or key.startswith("_"):
            continue
        value = doc[key]
        out[key] = datetime.fromtimestamp(value, UTC) if key in TIMES else value
    return out


class CfnApi:
    def __init__(self, service: CfnService) -> None:
        self.service = service

    # ------------------------------------------------------------------ stacks
    @operation("CreateStack")
    def create_stack(self, ctx: RequestContext, p: Params) -> Params:
        return {"StackId": self.service.create_stack(ctx, p)}

    @operation("UpdateStack")
    def update_stack(self, ctx: RequestContext, p: Params) -> Params:
        return {"StackId": self.service.update_stack(ctx, p)}

    @operation("ContinueUpdateRollback")
    def continue_update_rollback(self, ctx: RequestContext, p: Params) -> Params:
        self.service.continue_update_rollback(ctx, p)
        return {}

    @operation("RollbackStack")
    def rollback_stack(self, ctx: RequestContext, p: Params) -> Params:
        return {"StackId": self.service.rollback_stack(ctx, p)}

    @operation("UpdateTerminationProtection")
    def update_termination_protection(self, ctx: RequestContext, p: Params) -> Params:
        return {"StackId": self.service.set_termination_protection(ctx, p["StackName"],
                                                                   bool(p["EnableTerminationProtection"]))}

    @operation("DescribeStacks")
    def describe_stacks(self, ctx: RequestContext, p: Params) -> Params:
        name = p.get("StackName")
        docs = [self.service.find(ctx, name)] if name else self.service.store.all(ctx.account, ctx.region, False)
        return _page(p, [_public(d, STACK_MEMBERS) for d in docs], "Stacks")

    @operation("ListStacks")
    def list_stacks(self, ctx: RequestContext, p: Params) -> Params:
        wanted = set(p.get("StackStatusFilter") or [])
        out = []
        for d in self.service.store.all(ctx.account, ctx.region, True):
            if wanted and d["StackStatus"] not in wanted:
                continue
            summary = _public(d, ("StackId", "StackName", "CreationTime", "LastUpdatedTime", "DeletionTime",
                                  "StackStatus", "StackStatusReason", "DriftInformation"))
            if d.get("Description") is not None:
                summary["TemplateDescription"] = d["Description"]
            out.append(summary)
        return _page(p, out, "StackSummaries")

    @operation("DeleteStack")
    def delete_stack(self, ctx: RequestContext, p: Params) -> None:
        self.service.delete_stack(ctx, p["StackName"])

    @operation("DescribeStackEvents")
    def describe_stack_events(self, ctx: RequestContext, p: Params) -> Params:
        doc = self.service.find(ctx, p["StackName"])
        return _page(p, [_public(e) for e in self.service.store.events(doc["StackId"])], "StackEvents")

    def _resources(self, ctx: RequestContext, name: str) -> tuple[Doc, list[Doc]]:
        doc = self.service.find(ctx, name)
        return doc, [r for r in doc["_resources"].values()]

    @operation("DescribeStackResources")
    def describe_stack_resources(self, ctx: RequestContext, p: Params) -> Params:
        name = p.get("StackName")
        if name is None:
            physical = p.get("PhysicalResourceId")
            if physical is None:
                raise validation("Either StackName or PhysicalResourceId must be specified.")
            owner = next((d for d in self.service.store.all(ctx.account, ctx.region, False)
                          if any(r.get("PhysicalResourceId") == physical for r in d["_resources"].values())), None)
            if owner is None:
                raise validation(f"Stack for {physical} does not exist")
            name = owner["StackId"]
        doc, resources = self._resources(ctx, name)
        logical = p.get("LogicalResourceId")
        out = [dict(_public(r, ("LogicalResourceId", "PhysicalResourceId", "ResourceType", "Timestamp",
                                "ResourceStatus", "ResourceStatusReason")),
                    StackName=doc["StackName"], StackId=doc["StackId"],
                    DriftInformation={"StackResourceDriftStatus": "NOT_CHECKED"})
               for r in resources if logical is None or r["LogicalResourceId"] == logical]
        return {"StackResources": out}

    @operation("DescribeStackResource")
    def describe_stack_resource(self, ctx: RequestContext, p: Params) -> Params:
        doc, resources = self._resources(ctx, p["StackName"])
        for r in resources:
            if r["LogicalResourceId"] == p["LogicalResourceId"]:
                detail = _public(r, ("LogicalResourceId", "PhysicalResourceId", "ResourceType", "ResourceStatus",
                                     "ResourceStatusReason"))
                detail.update(StackName=doc["StackName"], StackId=doc["StackId"],
                              LastUpdatedTimestamp=_public(r, ("Timestamp",))["Timestamp"],
                              DriftInformation={"StackResourceDriftStatus": "NOT_CHECKED"})
                return {"StackResourceDetail": detail}
        raise validation(f"Resource {p['LogicalResourceId']} does not exist for stack {p['StackName']}")

    @operation("ListStackResources")
    def list_stack_resources(self, ctx: RequestContext, p: Params) -> Params:
        _, resources = self._resources(ctx, p["StackName"])
        out = []
        for r in resources:
            if r.get("ResourceStatus") == "DELETE_COMPLETE":
                continue
            summary = _public(r, ("LogicalResourceId", "PhysicalResourceId", "ResourceType", "ResourceStatus",
                                  "ResourceStatusReason"))
            summary["LastUpdatedTimestamp"] = _public(r, ("Timestamp",))["Timestamp"]
            summary["DriftInformation"] = {"StackResourceDriftStatus": "NOT_CHECKED"}
            out.append(summary)
        return _page(p, out, "StackResourceSummaries")

    # ------------------------------------------------------------------ templates
    @operation("GetTemplate")
    def get_template(self, ctx: RequestContext, p: Params) -> Params:
        if p.get("ChangeSetName"):
            doc = self.service.change_sets.get(ctx, p["ChangeSetName"], p.get("StackName"))["_request"]
            return {"TemplateBody": doc["TemplateBody"], "StagesAvailable": ["Original", "Processed"]}
        if not p.get("StackName"):
            raise validation("Either StackName or ChangeSetName must be specified.")
        doc = self.service.find(ctx, p["StackName"])
        if p.get("TemplateStage") == "Processed":
            body = json.dumps(doc["_processed"])
        else:
            body = doc["_template"]
        return {"TemplateBody": body, "StagesAvailable": ["Original", "Processed"]}

    @operation("ValidateTemplate")
    def validate_template(self, ctx: RequestContext, p: Params) -> Params:
        text = template_text(self.service.stack, ctx, p)
        template = load(self.service.stack, ctx, text, {})
        try:
            declared = parse(text).get("Transform")
        except TemplateError:
            declared = None
        out: Params = {"Parameters": [_parameter(k, v) for k, v in template.parameters.items()]}
        if template.description is not None:
            out["Description"] = template.description
        needed, types = capabilities_needed(template)
        if needed:
            out["Capabilities"] = [needed]
            out["CapabilitiesReason"] = f"The following resource(s) require capabilities: [{', '.join(types)}]"
        if declared:
            out["DeclaredTransforms"] = [declared] if isinstance(declared, str) else list(declared)
        return out

    @operation("GetTemplateSummary")
    def get_template_summary(self, ctx: RequestContext, p: Params) -> Params:
        if p.get("StackName"):
            text = self.service.find(ctx, p["StackName"])["_template"]
        else:
            text = template_text(self.service.stack, ctx, p)
        template = load(self.service.stack, ctx, text, {})
        out: Params = {"Parameters": [
            dict(_parameter(k, v), ParameterType=str(v.get("Type", "String")), ParameterConstraints=(
                {"AllowedValues": [str(a) for a in v["AllowedValues"]]} if "AllowedValues" in v else {}))
            for k, v in template.parameters.items()],
            "ResourceTypes": sorted({str(b["Type"]) for b in template.resources.values()}),
            "Version": str(template.doc.get("AWSTemplateFormatVersion", "2010-09-09"))}
        if template.description is not None:
            out["Description"] = template.description
        needed, types = capabilities_needed(template)
        if needed:
            out["Capabilities"] = [needed]
            out["CapabilitiesReason"] = f"The following resource(s) require capabilities: [{', '.join(types)}]"
        return out

    # ------------------------------------------------------------------ change sets
    @operation("CreateChangeSet")
    def create_change_set(self, ctx: RequestContext, p: Params) -> Params:
        change_set_id, stack_id = self.service.change_sets.create(ctx, p)
        return {"Id": change_set_id, "StackId": stack_id}

    @operation("DescribeChangeSet")
    def describe_change_set(self, ctx: RequestContext, p: Params) -> Params:
        return _public(self.service.change_sets.get(ctx, p["ChangeSetName"], p.get("StackName")))

    @operation("DeleteChangeSet")
    def delete_change_set(self, ctx: RequestContext, p: Params) -> Params:
        self.service.change_sets.delete(ctx, p["ChangeSetName"], p.get("StackName"))
        return {}

    @operation("ListChangeSets")
    def list_change_sets(self, ctx: RequestContext, p: Params) -> Params:
        doc = self.service.find(ctx, p["StackName"])
        return _page(p, [_public(cs, ("StackId", "StackName", "ChangeSetId", "ChangeSetName", "ExecutionStatus",
                                           "Status", "StatusReason", "CreationTime", "Description",
                                           "IncludeNestedStacks")) for cs in self.service.store.change_sets(
                                               doc["StackId"])], "Summaries")

    # ------------------------------------------------------------------ exports
    @operation("ListExports")
    def list_exports(self, ctx: RequestContext, p: Params) -> Params:
        return _page(p, [{"ExportingStackId": d["StackId"], "Name": name, "Value": value}
                         for name, (d, value) in sorted(exports(self.service.store, ctx).items())], "Exports")

    @operation("ListImports")
    def list_imports(self, ctx: RequestContext, p: Params) -> Params:
        name = p["ExportName"]
        exported = exports(self.service.store, ctx).get(name)
        if exported is None:
            raise validation(f"Export '{name}' is not imported by any stack.")
        users = sorted(s for n, s in importers(self.service.store, ctx, exported[0]) if n == name)
        if not users:
            raise validation(f"Export '{name}' is not imported by any stack.")
        return _page(p, users, "Imports")

    @operation("ExecuteChangeSet")
    def execute_change_set(self, ctx: RequestContext, p: Params) -> Params:
        self.service.change_sets.execute(ctx, p)
        return {}


def _parameter(name: str, spec: dict[str, Any]) -> Params:
    out: Params = {"ParameterKey": name, "NoEcho": spec.get("NoEcho") in (True, "true")}
    if "Default" in spec:
        out["DefaultValue"] = str(spec["Default"])
    if spec.get("Description") is not None:
        out["Description"] = str(spec["Description"])
    return out


def resolve_resources(ctx: RequestContext, p: Params) -> list[str]:
    """The stack ARN a call acts on (any stack of that name when only the name is known)."""
    name = p.get("StackName")
    if isinstance(name, str) and name.startswith("arn:"):
        return [name]
    if name:
        return [f"arn:{ctx.partition}:cloudformation:{ctx.region}:{ctx.account}:stack/{name}/*"]
    return ["*"]
