"""Updating a stack: what a new template (or new parameters) changes, made in dependency order -
added resources created, changed ones updated in place or replaced, removed ones deleted in the
cleanup - and a failed update rolled back to the stack as it was (UPDATE_ROLLBACK_COMPLETE)."""

from __future__ import annotations

import copy
import time
from typing import Any, Protocol

from onceflow.cloudformation.errors import handler_reason, validation
from onceflow.cloudformation.exports import export_conflict, importers
from onceflow.cloudformation.providers import PROVIDERS
from onceflow.cloudformation.resources import Caller
from onceflow.cloudformation.store import CfnStore
from onceflow.cloudformation.template import Env, Template, TemplateError, conditions, evaluate, included, order, refs
from onceflow.cloudformation.template import outputs as template_outputs
from onceflow.cloudformation.updates import REPLACE_ON, UPDATERS, needs_replacement
from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.stack import Stack

Doc = dict[str, Any]
UPDATABLE = {"CREATE_COMPLETE", "UPDATE_COMPLETE", "UPDATE_ROLLBACK_COMPLETE", "IMPORT_COMPLETE",
             "IMPORT_ROLLBACK_COMPLETE", "UPDATE_FAILED"}
REPLACING = "Requested update requires the creation of a new physical resource; hence creating one."


def check_updatable(doc: Doc) -> None:
    if doc["StackStatus"] not in UPDATABLE:
        raise validation(f"Stack:{doc['StackId']} is in {doc['StackStatus']} state and can not be updated.")


def changes(old: Doc, new: Template, values: dict[str, Any]) -> list[Doc]:
    """The change set's changes: Add, Modify (with whether it replaces, and the properties that
    change and why) and Remove, with what becomes of a removed or replaced resource, as AWS lists them."""
    before = (old.get("_processed") or {}).get("Resources") or {}
    params_changed = {k for k, v in values.items() if (old.get("_parameters") or {}).get(k) != v}
    out = []
    for logical, body in new.resources.items():
        kind = str(body["Type"])
        if logical not in before:
            out.append(_change("Add", logical, kind))
            continue
        if body == before[logical] and not refs(body) & params_changed:
            continue
        props_old, props_new = before[logical].get("Properties") or {}, body.get("Properties") or {}
        details = _details(kind, props_old, props_new, params_changed)
        replaces = kind not in UPDATERS or any(d["Target"]["RequiresRecreation"] == "Always" for d in details)
        physical = (old["_resources"].get(logical) or {}).get("PhysicalResourceId")
        change = _change("Modify", logical, kind, physical, "True" if replaces else "False", details)
        if replaces:
            change["ResourceChange"]["PolicyAction"] = "ReplaceAndRetain" if body.get("UpdateReplacePolicy") == \
                "Retain" else "ReplaceAndDelete"
        out.append(change)
    for logical, body in before.items():
        if logical not in new.resources:
            physical = (old["_resources"].get(logical) or {}).get("PhysicalResourceId")
            change = _change("Remove", logical, str(body["Type"]), physical)
            change["ResourceChange"]["PolicyAction"] = "Retain" if body.get("DeletionPolicy") == "Retain" else "Delete"
            out.append(change)
    return out


def _details(kind: str, props_old: Doc, props_new: Doc, params_changed: set[str]) -> list[Doc]:
    """What changes in a resource's properties: a property changed in the template (Static,
    DirectModification), or one naming a parameter whose value changed (Static, ParameterReference,
    then the Dynamic DirectModification it makes)."""
    out: list[Doc] = []
    for key in sorted(set(props_old) | set(props_new)):
        recreation = "Always" if kind not in UPDATERS or key in REPLACE_ON.get(kind, ()) else "Never"
        target: Doc = {"Attribute": "Tags", "RequiresRecreation": recreation} if key == "Tags" else \
            {"Attribute": "Properties", "Name": key, "RequiresRecreation": recreation}
        if props_old.get(key) != props_new.get(key):
            out.append({"Target": target, "Evaluation": "Static", "ChangeSource": "DirectModification"})
            continue
        causes = sorted(refs(props_new.get(key)) & params_changed)
        for cause in causes:
            out.append({"Target": target, "Evaluation": "Static", "ChangeSource": "ParameterReference",
                        "CausingEntity": cause})
        if causes:
            out.append({"Target": target, "Evaluation": "Dynamic", "ChangeSource": "DirectModification"})
    return out


def _change(action: str, logical: str, kind: str, physical: str | None = None, replacement: str | None = None,
            details: list[Doc] | None = None) -> Doc:
    rc: Doc = {"Action": action, "LogicalResourceId": logical}
    if physical:
        rc["PhysicalResourceId"] = physical
    rc["ResourceType"] = kind
    if replacement is not None:
        rc["Replacement"] = replacement
    rc["Scope"] = sorted({d["Target"]["Attribute"] for d in details or []})
    rc["Details"] = details or []
    return {"Type": "Resource", "ResourceChange": rc}


class StackOps(Protocol):
    """What an update needs of the service that runs it (service.CfnService)."""

    stack: Stack
    store: CfnStore

    def status(self, ctx: RequestContext, doc: Doc, status: str, reason: str | None) -> None: ...
    def resource_event(self, doc: Doc, res: Doc, status: str, reason: str | None) -> None: ...
    def env(self, ctx: RequestContext, doc: Doc, template: Template) -> Env: ...
    def create_one(self, caller: Caller, doc: Doc, template: Template, env: Env, logical: str) -> str | None: ...
    def delete_one(self, caller: Caller, doc: Doc, res: Doc, policy: str = "_policy") -> bool: ...


class StackUpdate:
    """One update of `doc` (already holding the new template and parameters) from `old`.

    What a stop must not lose is kept in the stored document as the update goes: `_previous` (the
    stack as it was), `_retired` (a replaced resource's old copy, deleted in the cleanup), `_keep`
    (the resources the new template has, for the cleanup) and `_made` (a rollback's new copies of
    replaced resources, deleted in the rollback's cleanup)."""

    def __init__(self, svc: StackOps, ctx: RequestContext, old: Doc, doc: Doc, template: Template) -> None:
        self.svc, self.ctx, self.old, self.doc, self.template = svc, ctx, old, doc, template
        self.caller = Caller(svc.stack, ctx.principal, ctx.region, doc["StackName"])
        self.touched: list[tuple[str, str, Doc | None]] = []  # (logical, add|update|replace, resource before)

    def start(self) -> None:
        self.doc["_resources"] = copy.deepcopy(self.old["_resources"])
        # The stack as it was, stored with it while the update runs: what a restart rolls back to.
        self.doc["_previous"] = {k: v for k, v in self.old.items() if k != "_previous"}
        self.svc.status(self.ctx, self.doc, "UPDATE_IN_PROGRESS", "User Initiated")

    @classmethod
    def resume(cls, svc: StackOps, ctx: RequestContext, doc: Doc) -> StackUpdate:
        """The update a stop cut (or whose rollback failed), rebuilt from the stored stack (see
        start) for rolling it back: what it added, replaced or changed is read off the resources
        as they now are, so what a rollback already put back is not touched again."""
        old = doc["_previous"]
        update = cls(svc, ctx, old, doc, Template(old.get("_processed") or {}))
        for logical, res in doc["_resources"].items():
            prev = old["_resources"].get(logical)
            if prev is None or prev.get("ResourceStatus") == "DELETE_COMPLETE":
                update.touched.append((logical, "add", None))
            elif res.get("PhysicalResourceId") != prev.get("PhysicalResourceId"):
                update.touched.append((logical, "replace", prev))
            elif res.get("_props") != prev.get("_props"):
                update.touched.append((logical, "update", prev))
        return update

    def run(self) -> None:
        svc, doc = self.svc, self.doc
        env = svc.env(self.ctx, doc, self.template)
        env.resources = {k: r["PhysicalResourceId"] for k, r in doc["_resources"].items()
                         if r.get("PhysicalResourceId") and r.get("ResourceStatus") != "DELETE_COMPLETE"}
        failed = None
        try:
            conditions(self.template, env)
            names = [n for n in order(self.template) if included(self.template.resources[n], env)]
        except TemplateError as exc:
            names, failed = [], exc.message
        for logical in names:
            prev = self.old["_resources"].get(logical)
            if prev is None or prev.get("ResourceStatus") == "DELETE_COMPLETE":
                self.touched.append((logical, "add", None))
                if svc.create_one(self.caller, doc, self.template, env, logical) is not None:
                    failed = f"The following resource(s) failed to create: [{logical}]. "
                    break
                continue
            reason = self._change(env, logical, prev)
            if reason is not None:
                failed = reason
                break
        if failed is None:
            try:
                doc["Outputs"] = template_outputs(self.template, env)
            except TemplateError as exc:
                failed = exc.message
        if failed is None:
            failed = export_conflict(svc.store, self.ctx, doc)
            gone = {o["ExportName"] for o in self.old.get("Outputs") or [] if "ExportName" in o} - \
                {o["ExportName"] for o in doc.get("Outputs") or [] if "ExportName" in o}
            in_use = [(n, s) for n, s in importers(svc.store, self.ctx, self.old) if n in gone]
            if failed is None and in_use:
                failed = f"Cannot delete export {in_use[0][0]} as it is in use by {in_use[0][1]}."
        if failed is None:
            self._finish(names)
        elif doc.get("DisableRollback"):  # kept as the failure left it, to be fixed by the next update
            svc.status(self.ctx, doc, "UPDATE_FAILED", failed)
        else:
            self.roll_back(failed)

    def _change(self, env: Any, logical: str, prev: Doc) -> str | None:
        body = self.template.resources[logical]
        kind = str(body["Type"])
        res = self.doc["_resources"][logical]
        try:
            props = evaluate(body.get("Properties") or {}, env)
        except TemplateError as exc:
            return exc.message
        if props == prev.get("_props") and kind == prev["ResourceType"]:
            return None
        replace = kind != prev["ResourceType"] or needs_replacement(kind, prev.get("_props") or {}, props)
        self.touched.append((logical, "replace" if replace else "update", prev))
        self.svc.resource_event(self.doc, res, "UPDATE_IN_PROGRESS", REPLACING if replace else None)
        try:
            if replace:
                provider = PROVIDERS.get(kind)
                if provider is None:
                    raise TemplateError(f"Resource type {kind} is not supported by onceflow")
                physical, attrs = provider.create(self.caller, logical, props)
                # Stored with the next event: the cleanup deletes it even after a stop.
                self.doc.setdefault("_retired", []).append(copy.deepcopy(prev))
            else:
                physical, attrs = UPDATERS[kind](self.caller, logical, prev["PhysicalResourceId"],
                                                 prev.get("_props") or {}, props, prev.get("_attrs") or {})
        except (ServiceError, TemplateError, KeyError) as exc:
            self.svc.resource_event(self.doc, res, "UPDATE_FAILED", _reason(exc))
            return f"The following resource(s) failed to update: [{logical}]. "
        res.update(PhysicalResourceId=physical, ResourceType=kind, _props=props, _attrs=attrs,
                   _policy=body.get("DeletionPolicy"), _replace_policy=body.get("UpdateReplacePolicy"))
        env.resources[logical] = physical
        self.svc.resource_event(self.doc, res, "UPDATE_COMPLETE", None)
        return None

    def _finish(self, names: list[str]) -> None:
        doc = self.doc
        if not doc.get("Outputs"):
            doc.pop("Outputs", None)
        doc["_keep"] = names
        self.svc.status(self.ctx, doc, "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS", None)
        self.clean_up()

    def clean_up(self) -> None:
        """The cleanup of an update that succeeded (run again after a stop cut it): the removed
        resources and the replaced ones' old copies deleted (or kept, by their policies)."""
        svc, doc = self.svc, self.doc
        keep = set(doc.get("_keep") or [])
        for logical in reversed(list(doc["_resources"])):
            res = doc["_resources"][logical]
            if logical not in keep and res.get("ResourceStatus") != "DELETE_COMPLETE":
                svc.delete_one(self.caller, doc, res)
                del doc["_resources"][logical]
        for res in doc.get("_retired") or []:
            svc.delete_one(self.caller, doc, res, "_replace_policy")
        doc["LastUpdatedTime"] = time.time()
        for key in ("_previous", "_retired", "_keep"):
            doc.pop(key, None)
        svc.status(self.ctx, doc, "UPDATE_COMPLETE", None)

    def roll_back(self, reason: str, skip: frozenset[str] = frozenset()) -> None:
        """Back to the stack as it was. A resource that cannot be put back stops the rollback at
        UPDATE_ROLLBACK_FAILED (ContinueUpdateRollback goes on, skipping what it is told to)."""
        svc, doc, old = self.svc, self.doc, self.old
        if doc["StackStatus"] != "UPDATE_ROLLBACK_IN_PROGRESS":  # ContinueUpdateRollback and RollbackStack set it
            svc.status(self.ctx, doc, "UPDATE_ROLLBACK_IN_PROGRESS", reason)
        made = doc.setdefault("_made", [])
        for logical, action, prev in reversed(self.touched):
            res = doc["_resources"][logical]
            if action == "add":
                continue  # deleted in the cleanup: it is not in the stack as it was
            assert prev is not None
            svc.resource_event(doc, res, "UPDATE_IN_PROGRESS", None)
            if action == "replace":
                if res.get("PhysicalResourceId") != prev["PhysicalResourceId"]:  # its new copy was made
                    made.append(dict(res))
            elif logical not in skip:
                try:
                    UPDATERS[prev["ResourceType"]](self.caller, logical, prev["PhysicalResourceId"],
                                                   res.get("_props") or {}, prev.get("_props") or {},
                                                   prev.get("_attrs") or {})
                except (ServiceError, TemplateError, KeyError) as exc:
                    svc.resource_event(doc, res, "UPDATE_FAILED", _reason(exc))
                    svc.status(self.ctx, doc, "UPDATE_ROLLBACK_FAILED",
                               f"The following resource(s) failed to update: [{logical}]. ")
                    return
            doc["_resources"][logical] = copy.deepcopy(prev)
            svc.resource_event(doc, doc["_resources"][logical], "UPDATE_COMPLETE", None)
        for key in ("_template", "_processed", "_parameters", "_imports", "Parameters", "Outputs", "Description",
                    "Capabilities"):
            if key in old:
                doc[key] = old[key]
            else:
                doc.pop(key, None)
        svc.status(self.ctx, doc, "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS", None)
        self.clean_up_rollback()

    def clean_up_rollback(self) -> None:
        """A rollback's cleanup (run again after a stop cut it): what the update added, and the
        new copies of what it replaced, deleted."""
        svc, doc, old = self.svc, self.doc, self.old
        for logical in reversed([k for k in doc["_resources"] if k not in old["_resources"]]):
            svc.delete_one(self.caller, doc, doc["_resources"][logical])
            del doc["_resources"][logical]
        for res in doc.get("_made") or []:
            svc.delete_one(self.caller, doc, res)
        for key in ("_previous", "_retired", "_keep", "_made"):
            doc.pop(key, None)
        svc.status(self.ctx, doc, "UPDATE_ROLLBACK_COMPLETE", None)


def _reason(exc: ServiceError | TemplateError | KeyError) -> str:
    if isinstance(exc, TemplateError):
        return exc.message
    if isinstance(exc, KeyError):
        return f"Properties validation failed with message: [#: required key [{exc.args[0]}] not found]"
    return handler_reason(exc)
