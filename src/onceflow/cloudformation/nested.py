"""AWS::CloudFormation::Stack: a nested stack, made from a template in onceflow's S3 (TemplateURL)
as a stack of its own named `parent-Logical-RANDOM`, created and deleted inside the parent's
operation; `Fn::GetAtt Child.Outputs.Key` reads its outputs. Same contract as resources.py."""

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
    attrs: dict[str, Any] = {f"Outputs.{o['OutputKey']}": o["OutputValue"] for o in child.get("Outputs") or []}
    return str(child["StackId"]), attrs


def stack_delete(c: Caller, physical: str, p: Props) -> None:
    c.stack.services["cloudformation"].delete_nested(c, physical)
