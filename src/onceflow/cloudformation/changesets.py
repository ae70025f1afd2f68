"""Change sets: CREATE (a stack in REVIEW_IN_PROGRESS until executed), UPDATE (the changes an
update would make, as AWS lists them) and IMPORT (existing resources adopted into a stack, see
importing.py); executing one runs the stack operation it describes."""

from __future__ import annotations

import copy
import time
import uuid
from typing import TYPE_CHECKING, Any

from onceflow.cloudformation import errors
from onceflow.cloudformation.importing import IMPORTABLE
from onceflow.cloudformation.preparing import prepare
from onceflow.cloudformation.stack_imports import StackImport
from onceflow.cloudformation.stack_updates import StackUpdate, changes, check_updatable
from onceflow.cloudformation.template import Template
from onceflow.context import RequestContext
from onceflow.errors import ServiceError

if TYPE_CHECKING:
    from onceflow.cloudformation.service import CfnService

Doc = dict[str, Any]
NO_CHANGES = "The submitted information didn't contain changes. Submit different information to create a change set."
DONE = {"CREATE_COMPLETE", "UPDATE_COMPLETE", "IMPORT_COMPLETE"}


class ChangeSets:
    def __init__(self, svc: CfnService) -> None:
        self.svc = svc

    def create(self, ctx: RequestContext, p: dict[str, Any]) -> tuple[str, str]:
        svc = self.svc
        kind = p.get("ChangeSetType") or "UPDATE"
        if kind == "IMPORT" and not p.get("ResourcesToImport"):
            raise errors.validation("ResourcesToImport must be specified when ChangeSetType is IMPORT")
        with svc.lock:
            existing = svc.store.live(ctx.account, ctx.region, p["StackName"]) if not \
                str(p["StackName"]).startswith("arn:") else svc.store.by_id(p["StackName"])
            reviewing = existing is None or existing["StackStatus"] == "REVIEW_IN_PROGRESS"
            if kind == "CREATE" or (kind == "IMPORT" and reviewing):
                if existing is not None and existing["StackStatus"] != "REVIEW_IN_PROGRESS":
                    raise errors.already_exists(p["StackName"])
                doc = existing or svc.new_doc(ctx, p, "REVIEW_IN_PROGRESS")
            elif existing is None:
                raise errors.no_stack(p["StackName"])
            else:
                doc = existing
                check_updatable(doc)
                if p.get("UsePreviousTemplate"):
                    p = dict(p, TemplateBody=doc["_template"])
            staged: Doc = {"_resources": {}}
            template, values = prepare(svc.stack, ctx, p, staged, doc.get("_parameters"))
            change_set_id = f"arn:{ctx.partition}:cloudformation:{ctx.region}:{ctx.account}" \
                            f":changeSet/{p['ChangeSetName']}/{uuid.uuid4()}"
            cs: Doc = {
                "ChangeSetName": p["ChangeSetName"], "ChangeSetId": change_set_id, "StackId": doc["StackId"],
                "StackName": doc["StackName"], "Parameters": staged["Parameters"], "CreationTime": time.time(),
                "ExecutionStatus": "AVAILABLE", "Status": "CREATE_COMPLETE",
                "NotificationARNs": list(p.get("NotificationARNs") or []),
                "Capabilities": list(p.get("Capabilities") or []), "Tags": list(p.get("Tags") or []),
                "IncludeNestedStacks": False, "_type": kind, "_request": _request_of(p, staged),
            }
            if p.get("Description"):
                cs["Description"] = p["Description"]
            if kind == "IMPORT":
                cs["_request"]["ResourcesToImport"] = list(p["ResourcesToImport"])
                cs["Changes"] = self._import_changes(ctx, doc, template, list(p["ResourcesToImport"]))
            elif kind == "CREATE":
                cs["Changes"] = [_add_change(logical, str(body["Type"]))
                                 for logical, body in template.resources.items()]
            elif staged["_template"] == doc.get("_template") and staged["_parameters"] == doc.get("_parameters"):
                cs.update(Status="FAILED", ExecutionStatus="UNAVAILABLE", Changes=[], StatusReason=NO_CHANGES)
            else:
                cs["Changes"] = changes(doc, template, values)
                if not cs["Changes"]:
                    cs.update(Status="FAILED", ExecutionStatus="UNAVAILABLE", StatusReason=NO_CHANGES)
            if existing is None:
                svc.store.put(ctx.account, ctx.region, doc)
                svc.event(doc, None, "REVIEW_IN_PROGRESS", "User Initiated")
            svc.store.put_change_set(cs)
        return change_set_id, str(doc["StackId"])

    def _import_changes(self, ctx: RequestContext, doc: Doc, template: Template, wanted: list[Doc]) -> list[Doc]:
        """An IMPORT change set's changes, after AWS's checks: each resource to import is in the
        template with a DeletionPolicy, of a type onceflow imports, named by that type's identifier,
        exists and is in no other stack; and nothing else in the template changes."""
        before = (doc.get("_processed") or {}).get("Resources") or {}
        logicals = [str(w["LogicalResourceId"]) for w in wanted]
        missing = [n for n in logicals if n not in template.resources]
        if missing:
            raise errors.validation(f"Resources [{', '.join(missing)}] in ResourcesToImport are not in the template")
        no_policy = [n for n in logicals if "DeletionPolicy" not in template.resources[n]]
        if no_policy:
            raise errors.validation(f"The following resources to import [{', '.join(no_policy)}] must have "
                                    "DeletionPolicy attribute specified in the template.")
        already = [n for n in logicals if n in before]
        if already:
            raise errors.validation(f"Resources [{', '.join(already)}] already exist in the stack")
        changed = sorted(n for n, body in template.resources.items()
                         if n not in logicals and before.get(n) != body) + \
            sorted(n for n in before if n not in template.resources)
        if changed:
            raise errors.validation(f"You have modified resources [{', '.join(changed)}] in your template that are "
                                    "not being imported. Update, create or delete operations cannot be executed "
                                    "during import operations.")
        if (template.doc.get("Outputs") or {}) != ((doc.get("_processed") or {}).get("Outputs") or {}):
            raise errors.validation("As part of the import operation, you cannot modify or add [Outputs]")
        owned = {(r["ResourceType"], r.get("PhysicalResourceId")): d["StackName"]
                 for d in self.svc.store.all(ctx.account, ctx.region, False) for r in d["_resources"].values()}
        caller = self.svc.caller(ctx, doc)
        out = []
        for w in wanted:
            logical, kind = str(w["LogicalResourceId"]), str(w["ResourceType"])
            if str(template.resources[logical].get("Type")) != kind:
                raise errors.validation(f"ResourceType {kind} of resource {logical} in ResourcesToImport does not "
                                        "match the template")
            if kind not in IMPORTABLE:
                raise errors.validation(f"ResourceType {kind} does not support resource import in onceflow (it "
                                        f"imports: {', '.join(sorted(IMPORTABLE))})")
            key, read = IMPORTABLE[kind]
            ident = (w.get("ResourceIdentifier") or {})
            if set(ident) != {key}:
                raise errors.validation(f"Invalid ResourceIdentifier for resource {logical}: {kind} is identified "
                                        f"by [{key}]")
            try:
                physical, _ = read(caller, str(ident[key]))
            except ServiceError:
                raise errors.validation(f"Resource of type '{kind}' with identifier '{ident[key]}' was not "
                                        "found.") from None
            if (kind, physical) in owned:
                raise errors.validation(f"Resource of type '{kind}' with identifier '{ident[key]}' already exists "
                                        f"in stack {owned[(kind, physical)]}.")
            out.append({"Type": "Resource", "ResourceChange": {
                "Action": "Import", "LogicalResourceId": logical, "PhysicalResourceId": physical,
                "ResourceType": kind, "Scope": [], "Details": [],
                "PolicyAction": "Retain" if template.resources[logical]["DeletionPolicy"] == "Retain" else "Delete"}})
        return out

    def delete(self, ctx: RequestContext, name: str, stack_name: str | None) -> None:
        cs = self.get(ctx, name, stack_name)
        if cs["ExecutionStatus"] == "EXECUTE_IN_PROGRESS":
            raise errors.invalid_change_set_status(f"Cannot delete ChangeSet {cs['ChangeSetId']} as it is in "
                                                   "EXECUTE_IN_PROGRESS status")
        self.svc.store.drop_change_set(cs["ChangeSetId"])

    def get(self, ctx: RequestContext, name: str, stack_name: str | None) -> Doc:
        stack_id = None
        if not name.startswith("arn:"):
            if stack_name is None:
                raise errors.validation("StackName must be specified if ChangeSetName is not specified as an ARN.")
            try:
                stack_id = self.svc.find(ctx, stack_name)["StackId"]
            except ServiceError:
                raise errors.change_set_not_found(name) from None
        cs = self.svc.store.change_set(stack_id, name)
        if cs is None:
            raise errors.change_set_not_found(name)
        return cs

    def execute(self, ctx: RequestContext, p: dict[str, Any]) -> None:
        svc = self.svc
        with svc.lock:
            cs = self.get(ctx, p["ChangeSetName"], p.get("StackName"))
            if cs["ExecutionStatus"] != "AVAILABLE":
                raise errors.invalid_change_set_status(f"ChangeSet [{cs['ChangeSetId']}] cannot be executed in its "
                                                       f"current status of [{cs['Status']}]")
            doc = svc.find(ctx, cs["StackId"])
            kind = cs["_type"]
            if kind != "CREATE" and doc["StackStatus"] != "REVIEW_IN_PROGRESS":
                check_updatable(doc)
            request = dict(cs["_request"])
            if "DisableRollback" in p:
                doc["DisableRollback"] = bool(p["DisableRollback"])
            old = copy.deepcopy(doc)
            template, _ = prepare(svc.stack, ctx, request, doc, old.get("_parameters"))
            doc["ChangeSetId"] = cs["ChangeSetId"]
            ctx = svc.acting(ctx, doc, request)
            cs.update(ExecutionStatus="EXECUTE_IN_PROGRESS")
            svc.store.put_change_set(cs)
            operation: StackUpdate | StackImport | None = None
            if kind == "IMPORT":
                operation = StackImport(svc, ctx, old, doc, template, request["ResourcesToImport"])
                operation.start()
            elif kind == "CREATE":
                svc.status(ctx, doc, "CREATE_IN_PROGRESS", "User Initiated")
            else:
                operation = StackUpdate(svc, ctx, old, doc, template)
                operation.start()

        def work() -> None:
            if operation is None:
                svc.create(ctx, doc, template)
            else:
                operation.run()
            cs.update(ExecutionStatus="EXECUTE_COMPLETE" if doc["StackStatus"] in DONE else "EXECUTE_FAILED")
            svc.store.put_change_set(cs)

        svc.background(ctx, doc, work)


def _add_change(logical: str, kind: str) -> Doc:
    return {"Type": "Resource", "ResourceChange": {"Action": "Add", "LogicalResourceId": logical,
                                                   "ResourceType": kind, "Scope": [], "Details": []}}


def _request_of(p: dict[str, Any], staged: Doc) -> Doc:
    """What executing the change set will make the stack from (the template as given)."""
    return {"StackName": p["StackName"], "TemplateBody": staged["_template"],
            "Parameters": [{"ParameterKey": k, "ParameterValue": ",".join(v) if isinstance(v, list) else v}
                           for k, v in staged["_parameters"].items()
                           if k in {x["ParameterKey"] for x in p.get("Parameters") or []}],
            "Capabilities": list(p.get("Capabilities") or []),
            **({"RoleARN": p["RoleARN"]} if p.get("RoleARN") else {})}
