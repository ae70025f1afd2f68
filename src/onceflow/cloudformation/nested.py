"""AWS::CloudFormation::Stack: a nested stack, made from a template in onceflow's S3 (TemplateURL)
as a stack of its own named `parent-Logical-RANDOM`, created, updated in place (a new TemplateURL
or new parameters) and deleted inside the parent's operation; `Fn::GetAtt Child.Outputs.Key` reads
its outputs. A nested stack may do what its parent may: it gets the parent's capabilities, and a
template that needs one the parent was not given fails its resource with AWS's reason
("Requires capabilities : [CAPABILITY_IAM]"). Same contracts as resources.py and updates.py."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from onceflow.cloudformation.resources import Caller, Made, Props
from onceflow.cloudformation.template import TemplateError, parse
from onceflow.context import RequestContext
from onceflow.errors import ServiceError

Doc = dict[str, Any]


def _params(p: Props) -> list[dict[str, str]]:
    out = []
    for key, value in (p.get("Parameters") or {}).items():
        text = ",".join(map(str, value)) if isinstance(value, list) else str(value)
        out.append({"ParameterKey": str(key), "ParameterValue": text})
    return out


def _service(c: Caller) -> Any:
    return c.stack.services["cloudformation"]


def _parent(svc: Any, c: Caller) -> Doc | None:
    return svc.store.live(c.account, c.region, c.stack_name)


def _prepare(svc: Any, ctx: RequestContext, p: dict[str, Any], doc: Doc, parent: Doc | None,
             previous: dict[str, Any] | None = None) -> Any:
    """The child's template prepared with the parent's capabilities; a refusal is the resource's
    failure reason, as AWS words it."""
    given = list((parent or {}).get("Capabilities") or [])
    try:
        template, _ = svc.prepare_template(ctx, dict(p, Capabilities=given), doc, previous)
        # A nested template's transform runs as part of the parent's operation: that is AUTO_EXPAND.
        if parse(doc["_template"]).get("Transform") and "CAPABILITY_AUTO_EXPAND" not in given:
            raise ServiceError("InsufficientCapabilitiesException",
                               "Requires capabilities : [CAPABILITY_AUTO_EXPAND]", 400)
    except ServiceError as exc:
        raise TemplateError(exc.message) from None
    if given:
        doc["Capabilities"] = given
    return template


def create_child(c: Caller, name: str, p: dict[str, Any]) -> Doc:
    """A nested stack, made to its end in the parent's operation."""
    svc = _service(c)
    ctx = RequestContext("cloudformation", "CreateStack", c.account, c.region, c.principal, internal=True)
    p = dict(p, StackName=name)
    with svc.lock:
        parent = _parent(svc, c)
        doc = svc.new_doc(ctx, p, "CREATE_IN_PROGRESS")
        template = _prepare(svc, ctx, p, doc, parent)
        doc["_principal"] = dataclasses.asdict(c.principal)
        if parent is not None:
            doc["ParentId"], doc["RootId"] = parent["StackId"], parent.get("RootId", parent["StackId"])
        svc.store.put(ctx.account, ctx.region, doc)
        svc.event(doc, None, "CREATE_IN_PROGRESS", "User Initiated")
    svc.create(ctx, doc, template)
    return doc


def update_child(c: Caller, stack_id: str, p: dict[str, Any]) -> Doc:
    """A nested stack's update, run to its end in the parent's operation; the stack as it is
    when the template and parameters are what it has already."""
    svc = _service(c)
    ctx = RequestContext("cloudformation", "UpdateStack", c.account, c.region, c.principal, internal=True)
    with svc.lock:
        doc: Doc = svc.find(ctx, stack_id)
        svc.check_updatable(doc)
        old = copy.deepcopy(doc)
        template = _prepare(svc, ctx, dict(p, StackName=doc["StackName"]), doc, _parent(svc, c),
                            old.get("_parameters"))
        if doc["_template"] == old["_template"] and doc["_parameters"] == old["_parameters"]:
            return old
        update = svc.new_update(ctx, old, doc, template)
        update.start()
    update.run()
    if doc["StackStatus"] != "UPDATE_COMPLETE":
        doc["_failure"] = doc.get("StackStatusReason") or next(
            (e.get("ResourceStatusReason") for e in svc.store.events(doc["StackId"])
             if e["ResourceStatus"] == "UPDATE_ROLLBACK_IN_PROGRESS"), "")
    return doc


def delete_child(c: Caller, stack_id: str) -> None:
    svc = _service(c)
    doc = svc.store.by_id(stack_id)
    if doc is None or doc["StackStatus"] == "DELETE_COMPLETE":
        return
    ctx = RequestContext("cloudformation", "DeleteStack", c.account, c.region, c.principal, internal=True)
    svc.status(ctx, doc, "DELETE_IN_PROGRESS", "User Initiated")
    svc.run_delete(ctx, svc.caller(ctx, doc), doc)
    if doc["StackStatus"] != "DELETE_COMPLETE":
        raise ServiceError("InvalidRequest", f"Embedded stack {stack_id} was not successfully deleted: "
                           f"{doc.get('StackStatusReason', '')}", 400)


# ------------------------------------------------------------------ the resource type's provider
def stack_create(c: Caller, logical: str, p: Props) -> Made:
    child = create_child(c, c.name(logical, 128), {
        "TemplateURL": p["TemplateURL"], "Parameters": _params(p), "Tags": list(p.get("Tags") or []),
        "NotificationARNs": list(p.get("NotificationARNs") or [])})
    if child["StackStatus"] != "CREATE_COMPLETE":
        why = child.get("_failure") or ""
        delete_child(c, child["StackId"])  # the parent's rollback cannot name it: it never got an id
        raise TemplateError(f"Embedded stack {child['StackId']} was not successfully created: {why}")
    return str(child["StackId"]), _outputs(child)


def _outputs(child: dict[str, Any]) -> dict[str, Any]:
    return {f"Outputs.{o['OutputKey']}": o["OutputValue"] for o in child.get("Outputs") or []}


def stack_update(c: Caller, logical: str, physical: str, old: Props, new: Props, attrs: dict[str, Any]) -> Made:
    child = update_child(c, physical, {
        "TemplateURL": new["TemplateURL"], "Parameters": _params(new), "Tags": list(new.get("Tags") or [])})
    if child["StackStatus"] not in ("UPDATE_COMPLETE", "CREATE_COMPLETE"):
        raise TemplateError(f"Embedded stack {physical} was not successfully updated. Currently in "
                            f"{child['StackStatus']} with reason: {child.get('_failure') or ''}")
    return physical, _outputs(child)


def stack_delete(c: Caller, physical: str, p: Props) -> None:
    delete_child(c, physical)
