"""Executing an IMPORT change set: the stack takes the new template and adopts each existing
resource to import (IMPORT_IN_PROGRESS -> IMPORT_COMPLETE); if one has gone since the change set
was made, the stack goes back to what it was (IMPORT_ROLLBACK_COMPLETE) and nothing is deleted:
the resources were never the stack's."""

from __future__ import annotations

import copy
import time
from typing import Any

from onceflow.cloudformation.errors import handler_reason
from onceflow.cloudformation.importing import IMPORTABLE
from onceflow.cloudformation.resources import Caller
from onceflow.cloudformation.stack_updates import StackOps
from onceflow.cloudformation.template import Template, TemplateError, evaluate, order
from onceflow.cloudformation.template import outputs as template_outputs
from onceflow.context import RequestContext
from onceflow.errors import ServiceError

Doc = dict[str, Any]
RESTORED = ("_template", "_processed", "_parameters", "Parameters", "Outputs", "Description", "Capabilities")


class StackImport:
    def __init__(self, svc: StackOps, ctx: RequestContext, old: Doc, doc: Doc, template: Template,
                 wanted: list[Doc]) -> None:
        self.svc, self.ctx, self.old, self.doc, self.template = svc, ctx, old, doc, template
        self.identifiers = {str(w["LogicalResourceId"]): w["ResourceIdentifier"] for w in wanted}
        self.caller = Caller(svc.stack, ctx.principal, ctx.region, doc["StackName"])

    def start(self) -> None:
        self.doc["_previous"] = {k: v for k, v in self.old.items() if k != "_previous"}
        self.svc.status(self.ctx, self.doc, "IMPORT_IN_PROGRESS", "User Initiated")

    def run(self) -> None:
        svc, doc = self.svc, self.doc
        env = svc.env(self.ctx, doc, self.template)
        env.resources = {k: r["PhysicalResourceId"] for k, r in doc["_resources"].items()
                         if r.get("PhysicalResourceId")}
        failed = None
        for logical in [n for n in order(self.template) if n in self.identifiers]:
            body = self.template.resources[logical]
            kind = str(body["Type"])
            key, read = IMPORTABLE[kind]
            res: Doc = {"LogicalResourceId": logical, "PhysicalResourceId": "", "ResourceType": kind,
                        "_policy": body.get("DeletionPolicy"), "_replace_policy": body.get("UpdateReplacePolicy")}
            doc["_resources"][logical] = res
            svc.resource_event(doc, res, "IMPORT_IN_PROGRESS", None)
            try:
                res["_props"] = evaluate(body.get("Properties") or {}, env)
                res["PhysicalResourceId"], res["_attrs"] = read(self.caller, str(self.identifiers[logical][key]))
            except (ServiceError, TemplateError) as exc:
                svc.resource_event(doc, res, "IMPORT_FAILED", exc.message if isinstance(exc, TemplateError)
                                   else handler_reason(exc))
                failed = f"The following resource(s) failed to import: [{logical}]. "
                break
            env.resources[logical] = res["PhysicalResourceId"]
            svc.resource_event(doc, res, "IMPORT_COMPLETE", None)
        if failed is None:
            try:
                outputs = template_outputs(self.template, env)
            except TemplateError as exc:
                failed = exc.message
        if failed is not None:
            self.roll_back(failed)
            return
        if outputs:
            doc["Outputs"] = outputs
        doc["LastUpdatedTime"] = time.time()
        doc.pop("_previous", None)
        svc.status(self.ctx, doc, "IMPORT_COMPLETE", None)

    def roll_back(self, reason: str) -> None:
        """Back to the stack as it was: the imported resources are let go, not deleted."""
        svc, doc, old = self.svc, self.doc, self.old
        svc.status(self.ctx, doc, "IMPORT_ROLLBACK_IN_PROGRESS", reason)
        for key in RESTORED:
            if key in old:
                doc[key] = copy.deepcopy(old[key])
            else:
                doc.pop(key, None)
        doc["_resources"] = copy.deepcopy(old["_resources"])
        doc.pop("_previous", None)
        svc.status(self.ctx, doc, "IMPORT_ROLLBACK_COMPLETE", None)
