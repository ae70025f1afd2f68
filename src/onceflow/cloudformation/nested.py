"""AWS::CloudFormation::Stack: a nested stack, made from a template in onceflow's S3 (TemplateURL)
as a stack of its own named `parent-Logical-RANDOM`, created, updated in place (a new TemplateURL
or new parameters) and deleted inside the parent's operation; `Fn::GetAtt Child.Outputs.Key` reads
its outputs. Same contracts as resources.py and updates.py."""

from __future__ import annotations

from typing import Any

from onceflow.cloudformation.resources import Caller, Made, Props
from onceflow.cloudformation.template import TemplateError


def _params(p: Props) -> list[dict[str, str]]:
    out = []
    for key, value in (p.get("Parameters") or {}).items():
        text = ",".join(map(str, value)) if isinstance(value, list) else str(value)
        out.append({"ParameterKey": str(key), "ParameterValue": text})
    return out


def stack_create(c: Caller, logical: str, p: Props) -> Made:
    service: Any = c.stack.services["cloudformation"]
    child = service.create_nested(c, c.name(logical, 128), {
        "TemplateURL": p["TemplateURL"], "Parameters": _params(p), "Tags": list(p.get("Tags") or []),
        "NotificationARNs": list(p.get("NotificationARNs") or [])})
    if child["StackStatus"] != "CREATE_COMPLETE":
        why = child.get("_failure") or ""
        service.delete_nested(c, child["StackId"])  # the parent's rollback cannot name it: it never got an id
        raise TemplateError(f"Embedded stack {child['StackId']} was not successfully created: {why}")
    return str(child["StackId"]), _outputs(child)


def _outputs(child: dict[str, Any]) -> dict[str, Any]:
    return {f"Outputs.{o['OutputKey']}": o["OutputValue"] for o in child.get("Outputs") or []}


def stack_update(c: Caller, logical: str, physical: str, old: Props, new: Props, attrs: dict[str, Any]) -> Made:
    child = c.stack.services["cloudformation"].update_nested(c, physical, {
        "TemplateURL": new["TemplateURL"], "Parameters": _params(new), "Tags": list(new.get("Tags") or [])})
    if child["StackStatus"] not in ("UPDATE_COMPLETE", "CREATE_COMPLETE"):
        raise TemplateError(f"Embedded stack {physical} was not successfully updated. Currently in "
                            f"{child['StackStatus']} with reason: {child.get('_failure') or ''}")
    return physical, _outputs(child)


def stack_delete(c: Caller, physical: str, p: Props) -> None:
    c.stack.services["cloudformation"].delete_nested(c, physical)
