"""Stacks: creating them (directly or through a change set), rolling back a failed create,
deleting them, with the events and statuses CloudFormation reports.

A stack operation is checked in its request (bad input changes nothing), then runs on a thread of
its own, as on AWS: the request answers when the operation ends or after `answer_within_s`
(`serve --stack-answer-within`), whichever comes first, so a waiter's first poll usually finds a
small stack done (`aws cloudformation deploy` polls every 30 s) while a long one answers at once
with *_IN_PROGRESS. The stack document is stored at every event, so DescribeStack* show progress.
A stop cuts the operation; the next start finishes it as AWS would have (recovery.py).
Change sets are changesets.py, updates stack_updates.py, nested stacks nested.py.
Fields of a stack document whose names start with '_' are onceflow's own and never answered.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from onceflow import internal
from onceflow.cloudformation import errors
from onceflow.cloudformation.changesets import ChangeSets
from onceflow.cloudformation.exports import export_conflict, exports, importers
from onceflow.cloudformation.parallel import run_in_order
from onceflow.cloudformation.preparing import prepare
from onceflow.cloudformation.providers import PROVIDERS
from onceflow.cloudformation.resources import Caller
from onceflow.cloudformation.stack_updates import StackUpdate, check_updatable
from onceflow.cloudformation.store import CfnStore
from onceflow.cloudformation.template import (
    Env,
    Template,
    TemplateError,
    conditions,
    dependencies,
    evaluate,
    included,
    order,
    parse,
)
from onceflow.cloudformation.template import outputs as template_outputs
from onceflow.context import Principal, RequestContext
from onceflow.errors import ServiceError
from onceflow.stack import Stack

log = logging.getLogger("onceflow")
Doc = dict[str, Any]


class CfnService:
    def __init__(self, stack: Stack, store: CfnStore, answer_within_s: float = 10.0) -> None:
        self.stack = stack
        self.store = store
        self.answer_within_s = answer_within_s
        self.lock = threading.Lock()  # one stack operation starts at a time (name checks, statuses)
        # A stack document's changes and its storing, one at a time: resources are made at once
        # (parallel.py) and each event stores the document as it stands.
        self.doc_lock = threading.RLock()
        self._running: dict[str, Doc] = {}  # stack id -> the document its operation is changing
        self.change_sets = ChangeSets(self)

    # ------------------------------------------------------------------ running operations
    def background(self, ctx: RequestContext, doc: Doc, work: Callable[[], None]) -> None:
        """Run a stack operation on its own thread; return when it ends or after answer_within_s."""
        doc["_principal"] = dataclasses.asdict(ctx.principal)  # who a restart finishes it as
        self._running[doc["StackId"]] = doc

        def run() -> None:
            try:
                work()
            except Exception:  # a bug, or the database closed under a stopping server
                log.exception("cloudformation: the operation on stack %s failed", doc["StackName"])
                try:
                    status = doc["StackStatus"]
                    failed = "DELETE_FAILED" if status.startswith("DELETE") else "CREATE_FAILED" if \
                        status.startswith("CREATE") else "ROLLBACK_FAILED" if status.startswith("ROLLBACK") else \
                        "UPDATE_ROLLBACK_FAILED"
                    self.status(ctx, doc, failed, "Internal Failure")
                except Exception:
                    log.debug("cloudformation: could not record the failure", exc_info=True)
            finally:
                self._running.pop(doc["StackId"], None)

        thread = threading.Thread(target=run, name=f"cfn-{doc['StackName']}", daemon=True)
        thread.start()
        thread.join(self.answer_within_s)

    # ------------------------------------------------------------------ lookups
    def find(self, ctx: RequestContext, name_or_id: str) -> Doc:
        doc = self.store.by_id(name_or_id) if name_or_id.startswith("arn:") else \
            self.store.live(ctx.account, ctx.region, name_or_id)
        if doc is None:
            raise errors.no_stack(name_or_id)
        return doc

    def caller(self, ctx: RequestContext, doc: Doc) -> Caller:
        """Calls to the other services for the stack's operation, as who it acts as."""
        return Caller(self.stack, ctx.principal, ctx.region, doc["StackName"])

    # ------------------------------------------------------------------ stacks
    def new_doc(self, ctx: RequestContext, p: dict[str, Any], status: str) -> Doc:
        name = p["StackName"]
        doc: Doc = {
            "StackId": f"arn:{ctx.partition}:cloudformation:{ctx.region}:{ctx.account}:stack/{name}/{uuid.uuid4()}",
            "StackName": name, "CreationTime": time.time(), "StackStatus": status,
            "DisableRollback": bool(p.get("DisableRollback", False)) or p.get("OnFailure") == "DO_NOTHING",
            "NotificationARNs": list(p.get("NotificationARNs") or []),
            "Capabilities": list(p.get("Capabilities") or []), "Tags": list(p.get("Tags") or []),
            "EnableTerminationProtection": bool(p.get("EnableTerminationProtection", False)),
            "DriftInformation": {"StackDriftStatus": "NOT_CHECKED"}, "_resources": {},
        }
        if p.get("OnFailure") == "DELETE":
            doc["_on_failure"] = "DELETE"
        if not doc["Capabilities"]:
            del doc["Capabilities"]
        return doc

    def create_stack(self, ctx: RequestContext, p: dict[str, Any]) -> str:
        with self.lock:
            if self.store.live(ctx.account, ctx.region, p["StackName"]) is not None:
                raise errors.already_exists(p["StackName"])
            doc = self.new_doc(ctx, p, "CREATE_IN_PROGRESS")
            template, _ = prepare(self.stack, ctx, p, doc)
            # CreateStack runs a template's transforms only when told it may (change sets show them).
            if parse(doc["_template"]).get("Transform") and "CAPABILITY_AUTO_EXPAND" not in (p.get("Capabilities")
                                                                                         or []):
                raise errors.insufficient_capabilities("CAPABILITY_AUTO_EXPAND")
            ctx = self.acting(ctx, doc, p)
            self.store.put(ctx.account, ctx.region, doc)
            self.event(doc, None, "CREATE_IN_PROGRESS", "User Initiated")
        self.background(ctx, doc, lambda: self.create(ctx, doc, template))
        return str(doc["StackId"])

    def acting(self, ctx: RequestContext, doc: Doc, p: dict[str, Any]) -> RequestContext:
        """Who the operation acts as: the stack's service role (RoleARN, given now or before) as an
        AWSCloudFormation session of it, else the caller."""
        role = p.get("RoleARN")
        if role:
            try:
                internal.call(self.stack, Principal.root(ctx.account), "iam", "GetRole",
                              {"RoleName": str(role).rsplit("/", 1)[-1]}, region=ctx.region)
            except ServiceError:
                raise errors.validation(f"Role {role} is invalid or cannot be assumed") from None
            doc["RoleARN"] = str(role)
        role = doc.get("RoleARN")
        if not role:
            return ctx
        name, session = role.rsplit("/", 1)[-1], "AWSCloudFormation"
        arn = f"arn:{ctx.partition}:sts::{ctx.account}:assumed-role/{name}/{session}"
        principal = Principal(ctx.account, "assumed-role", arn, session, role_arn=role, session_name=session)
        return dataclasses.replace(ctx, principal=principal)

    def create(self, ctx: RequestContext, doc: Doc, template: Template) -> None:
        env = self.env(ctx, doc, template)
        caller = Caller(self.stack, ctx.principal, ctx.region, doc["StackName"])
        failed = None
        try:
            conditions(template, env)
            names = [n for n in order(template) if included(template.resources[n], env)]
        except TemplateError as exc:
            names, failed = [], exc.message
        broken = run_in_order(names, dependencies(template),
                              lambda logical: self.create_one(caller, doc, template, env, logical) is None)
        if broken:
            failed = f"The following resource(s) failed to create: [{', '.join(broken)}]. "
        if failed is None:
            try:
                doc["Outputs"] = template_outputs(template, env)
            except TemplateError as exc:
                failed = exc.message
            failed = failed or export_conflict(self.store, ctx, doc)
        if failed is None:
            if not doc["Outputs"]:
                del doc["Outputs"]
            self.status(ctx, doc, "CREATE_COMPLETE", None)
            return
        self.roll_back_create(ctx, caller, doc, failed)

    def create_one(self, caller: Caller, doc: Doc, template: Template, env: Env, logical: str) -> str | None:
        """Make one resource; the reason it failed, or None."""
        body = template.resources[logical]
        kind = str(body["Type"])
        res: Doc = {"LogicalResourceId": logical, "PhysicalResourceId": "", "ResourceType": kind,
                    "_policy": body.get("DeletionPolicy"), "_replace_policy": body.get("UpdateReplacePolicy")}
        with self.doc_lock:
            doc["_resources"][logical] = res
            self.resource_event(doc, res, "CREATE_IN_PROGRESS", None)
        provider = PROVIDERS.get(kind)
        try:
            if provider is None:
                raise TemplateError(f"Resource type {kind} is not supported by onceflow (it serves the types: "
                                    f"{', '.join(sorted(PROVIDERS))})")
            props = evaluate(body.get("Properties") or {}, env)
            with self.doc_lock:
                res["_props"] = props
            physical, attrs = provider.create(caller, logical, props)  # outside the lock: the slow part
        except (ServiceError, TemplateError) as exc:
            reason = exc.message if isinstance(exc, TemplateError) else \
                errors.handler_reason(exc)
            self.resource_event(doc, res, "CREATE_FAILED", reason)
            return f"The following resource(s) failed to create: [{logical}]. "
        except KeyError as exc:
            reason = f"Properties validation failed for resource {logical} with message: " \
                     f"[#: required key [{exc.args[0]}] not found]"
            self.resource_event(doc, res, "CREATE_FAILED", reason)
            return f"The following resource(s) failed to create: [{logical}]. "
        except Exception:  # a property of a shape onceflow did not expect: the stack fails, not the server
            log.exception("cloudformation: creating %s (%s) failed", logical, kind)
            self.resource_event(doc, res, "CREATE_FAILED", "Internal Failure")
            return f"The following resource(s) failed to create: [{logical}]. "
        with self.doc_lock:
            res["PhysicalResourceId"], res["_attrs"] = physical, attrs
            env.resources[logical] = physical
            self.resource_event(doc, res, "CREATE_IN_PROGRESS", "Resource creation Initiated")
            self.resource_event(doc, res, "CREATE_COMPLETE", None)
        return None

    def roll_back_create(self, ctx: RequestContext, caller: Caller, doc: Doc, reason: str,
                         asked: bool = False) -> None:
        """A failed create rolled back (or, `asked` by RollbackStack, a create that DisableRollback left)."""
        doc["_failure"] = reason  # what a nested stack's parent says of it
        if doc["DisableRollback"] and not asked:
            self.status(ctx, doc, "CREATE_FAILED", reason)
            return
        if doc.get("_on_failure") == "DELETE":  # OnFailure=DELETE: the failed stack goes altogether
            self.status(ctx, doc, "DELETE_IN_PROGRESS", reason + "Delete requested by user." if
                        reason.endswith(". ") else reason)
            self._delete_resources(caller, doc)
            doc.pop("Outputs", None)
            doc["DeletionTime"] = time.time()
            self.status(ctx, doc, "DELETE_COMPLETE", None)
            return
        if not asked:  # RollbackStack has set it
            self.status(ctx, doc, "ROLLBACK_IN_PROGRESS", reason + "Rollback requested by user." if
                        reason.endswith(". ") else reason)
        self._delete_resources(caller, doc)
        doc.pop("Outputs", None)
        self.status(ctx, doc, "ROLLBACK_COMPLETE", None)

    def _delete_resources(self, caller: Caller, doc: Doc) -> bool:
        """Delete a stack's resources, each once what depends on it has gone (independent ones at
        once); whether all went."""
        live = {r["LogicalResourceId"]: r for r in reversed(list(doc["_resources"].values()))
                if r.get("ResourceStatus") != "DELETE_COMPLETE"}
        deps = dependencies(Template(doc.get("_processed") or {}))
        dependents = {n: {m for m, ds in deps.items() if n in ds and m in live} for n in live}
        failed = run_in_order(list(live), dependents, lambda n: self.delete_one(caller, doc, live[n]),
                              keep_going=True)
        # What waits for a failed one was not tried: it stays, and the delete failed.
        ok = not failed and all(r.get("ResourceStatus") in ("DELETE_COMPLETE", "DELETE_SKIPPED")
                                for r in live.values())
        for res in doc.pop("_made", None) or []:  # a failed update rollback's new copies of replaced ones
            ok = self.delete_one(caller, doc, res) and ok
        return ok

    def delete_one(self, caller: Caller, doc: Doc, res: Doc, policy: str = "_policy") -> bool:
        if res.get(policy) == "Retain" and res.get("PhysicalResourceId"):  # DeletionPolicy: Retain keeps it
            self.resource_event(doc, res, "DELETE_SKIPPED", None)
            return True
        if not res.get("PhysicalResourceId"):
            self.resource_event(doc, res, "DELETE_COMPLETE", None)
            return True
        self.resource_event(doc, res, "DELETE_IN_PROGRESS", None)
        try:
            PROVIDERS[res["ResourceType"]].delete(caller, res["PhysicalResourceId"], res.get("_props") or {})
        except ServiceError as exc:
            self.resource_event(doc, res, "DELETE_FAILED", errors.handler_reason(exc))
            return False
        self.resource_event(doc, res, "DELETE_COMPLETE", None)
        return True

    def delete_stack(self, ctx: RequestContext, name_or_id: str) -> None:
        try:
            doc = self.find(ctx, name_or_id)
        except ServiceError:
            return  # deleting a stack that does not exist succeeds, as on AWS
        with self.lock:
            doc = self.store.by_id(doc["StackId"]) or doc  # as it is now, not before the lock
            status = doc["StackStatus"]
            if status in ("DELETE_COMPLETE", "DELETE_IN_PROGRESS"):
                return  # AWS answers a repeated delete as it did the first
            if doc.get("EnableTerminationProtection"):
                raise errors.validation(f"Stack [{doc['StackName']}] cannot be deleted while TerminationProtection "
                                        "is enabled")
            if status.endswith("_IN_PROGRESS") and status != "REVIEW_IN_PROGRESS":
                raise errors.validation(f"Stack [{doc['StackId']}] cannot be deleted while in status {status}")
            self.status(ctx, doc, "DELETE_IN_PROGRESS", "User Initiated")
        ctx = self.acting(ctx, doc, {})
        caller = Caller(self.stack, ctx.principal, ctx.region, doc["StackName"])
        self.background(ctx, doc, lambda: self.run_delete(ctx, caller, doc))

    def run_delete(self, ctx: RequestContext, caller: Caller, doc: Doc) -> None:
        in_use = importers(self.store, ctx, doc)
        if in_use:
            self.status(ctx, doc, "DELETE_FAILED", f"Export {in_use[0][0]} cannot be deleted as it is in use by "
                        f"{in_use[0][1]}")
            return
        if self._delete_resources(caller, doc):
            doc["DeletionTime"] = time.time()
            self.status(ctx, doc, "DELETE_COMPLETE", None)
            self.store.drop_change_sets(doc["StackId"])
        else:
            failed = [r["LogicalResourceId"] for r in doc["_resources"].values()
                      if r.get("ResourceStatus") == "DELETE_FAILED"]
            self.status(ctx, doc, "DELETE_FAILED", f"The following resource(s) failed to delete: "
                         f"[{', '.join(failed)}]. ")

    def update_stack(self, ctx: RequestContext, p: dict[str, Any]) -> str:
        with self.lock:
            doc = self.find(ctx, p["StackName"])
            check_updatable(doc)
            if p.get("UsePreviousTemplate"):
                p = dict(p, TemplateBody=doc["_template"])
            old = copy.deepcopy(doc)
            template, _ = prepare(self.stack, ctx, p, doc, old.get("_parameters"))
            if doc["_template"] == old["_template"] and doc["_parameters"] == old["_parameters"]:
                raise errors.validation("No updates are to be performed.")
            if "DisableRollback" in p:
                doc["DisableRollback"] = bool(p["DisableRollback"])
            ctx = self.acting(ctx, doc, p)
            update = StackUpdate(self, ctx, old, doc, template)
            update.start()  # UPDATE_IN_PROGRESS before the lock goes: a second update is refused
        self.background(ctx, doc, update.run)
        return str(doc["StackId"])

    def continue_update_rollback(self, ctx: RequestContext, p: dict[str, Any]) -> None:
        """UPDATE_ROLLBACK_FAILED -> the rollback carried on from where it stopped, skipping the
        resources named (they are taken as they were, and left as they are)."""
        with self.lock:
            doc = self.find(ctx, p["StackName"])
            if doc.get("ParentId"):
                raise errors.nested_rollback(doc["StackId"], doc.get("RootId"))
            if doc["StackStatus"] != "UPDATE_ROLLBACK_FAILED" or "_previous" not in doc:
                raise errors.validation(f"Stack:{doc['StackId']} is in {doc['StackStatus']} state and can not "
                                        "continue update rollback.")
            skip = frozenset(str(x) for x in p.get("ResourcesToSkip") or [])
            failed = {k for k, r in doc["_resources"].items() if r.get("ResourceStatus") == "UPDATE_FAILED"}
            wrong = sorted(skip - failed)
            if wrong:
                raise errors.validation(f"Resources [{', '.join(wrong)}] cannot be skipped: only resources in "
                                        "UPDATE_FAILED state because their rollback failed can be skipped.")
            ctx = self.acting(ctx, doc, p)
            update = StackUpdate.resume(self, ctx, doc)
            self.status(ctx, doc, "UPDATE_ROLLBACK_IN_PROGRESS", "User Initiated")
        self.background(ctx, doc, lambda: update.roll_back("User Initiated", skip))

    def rollback_stack(self, ctx: RequestContext, p: dict[str, Any]) -> str:
        """A stack DisableRollback left at CREATE_FAILED or UPDATE_FAILED, rolled back to its last
        stable state: the stack as it was before the failed update; none for a failed create, whose
        resources are deleted (ROLLBACK_COMPLETE)."""
        with self.lock:
            doc = self.find(ctx, p["StackName"])
            if doc.get("ParentId"):
                raise errors.nested_rollback(doc["StackId"], doc.get("RootId"))
            status = doc["StackStatus"]
            if status not in ("CREATE_FAILED", "UPDATE_FAILED") or (status == "UPDATE_FAILED"
                                                                     and "_previous" not in doc):
                # UNCONFIRMED: AWS's wording for a stack in another state; this follows its other state refusals.
                raise errors.validation(f"Stack:{doc['StackId']} is in {status} state and can not be rolled back.")
            ctx = self.acting(ctx, doc, p)
            if status == "UPDATE_FAILED":
                update = StackUpdate.resume(self, ctx, doc)
                self.status(ctx, doc, "UPDATE_ROLLBACK_IN_PROGRESS", "User Initiated")

                def work() -> None:
                    update.roll_back("User Initiated")
            else:
                caller = self.caller(ctx, doc)
                self.status(ctx, doc, "ROLLBACK_IN_PROGRESS", "User Initiated")

                def work() -> None:
                    self.roll_back_create(ctx, caller, doc, "User Initiated", asked=True)
        self.background(ctx, doc, work)
        return str(doc["StackId"])

    def set_termination_protection(self, ctx: RequestContext, name: str, enabled: bool) -> str:
        with self.lock:
            doc = self._running.get(self.find(ctx, name)["StackId"]) or self.find(ctx, name)
            doc["EnableTerminationProtection"] = enabled  # on the running operation's copy too
            self.store.put(ctx.account, ctx.region, doc)
        return str(doc["StackId"])

    # A nested stack's provider (nested.py) sits below this module, with the other providers that
    # preparing.py and stack_updates.py import: it runs a child's operations through these.
    def prepare_template(self, ctx: RequestContext, p: dict[str, Any], doc: Doc,
                         previous: dict[str, Any] | None = None) -> tuple[Template, dict[str, Any]]:
        return prepare(self.stack, ctx, p, doc, previous)

    def check_updatable(self, doc: Doc) -> None:
        check_updatable(doc)

    def new_update(self, ctx: RequestContext, old: Doc, doc: Doc, template: Template) -> StackUpdate:
        return StackUpdate(self, ctx, old, doc, template)

    # ------------------------------------------------------------------ events and statuses
    def env(self, ctx: RequestContext, doc: Doc, template: Template) -> Env:
        env = Env(ctx.account, ctx.region, doc["StackName"], doc["StackId"], dict(doc["_parameters"]),
                  mappings=template.doc.get("Mappings") or {})

        def attribute(logical: str, name: str) -> Any:
            attrs = doc["_resources"].get(logical, {}).get("_attrs") or {}
            if name not in attrs:
                raise TemplateError(f"Template error: resource {logical} does not support attribute type {name} "
                                    "in Fn::GetAtt")
            return attrs[name]

        doc["_imports"] = []  # what this operation's template imports, found as it is evaluated

        def imported(name: str) -> Any:
            found = exports(self.store, ctx).get(name)
            if found is None:
                raise TemplateError(f"No export named {name} found")
            if name not in doc["_imports"]:
                doc["_imports"].append(name)
            return found[1]

        env.attributes, env.imports = attribute, imported
        return env

    def status(self, ctx: RequestContext, doc: Doc, status: str, reason: str | None) -> None:
        with self.doc_lock:
            doc["StackStatus"] = status
            if reason is None or (status.endswith("_COMPLETE") and reason == "User Initiated"):
                doc.pop("StackStatusReason", None)
            else:
                doc["StackStatusReason"] = reason
            if status == "DELETE_IN_PROGRESS":
                doc.pop("StackStatusReason", None)
            self.event(doc, None, status, reason, store_doc=True)

    def resource_event(self, doc: Doc, res: Doc, status: str, reason: str | None) -> None:
        with self.doc_lock:
            res["ResourceStatus"], res["Timestamp"] = status, time.time()
            if reason is None:
                res.pop("ResourceStatusReason", None)
            else:
                res["ResourceStatusReason"] = reason
            # Stored with the event, so DescribeStackResources shows the operation's progress.
            self.event(doc, res, status, reason, store_doc=res in doc["_resources"].values())

    def event(self, doc: Doc, res: Doc | None, status: str, reason: str | None, store_doc: bool = False) -> None:
        event: Doc = {"StackId": doc["StackId"], "EventId": str(uuid.uuid4()), "StackName": doc["StackName"]}
        if res is None:
            event.update(LogicalResourceId=doc["StackName"], PhysicalResourceId=doc["StackId"],
                         ResourceType="AWS::CloudFormation::Stack")
        else:
            event.update(LogicalResourceId=res["LogicalResourceId"], PhysicalResourceId=res["PhysicalResourceId"],
                         ResourceType=res["ResourceType"])
            if res.get("_props") is not None:
                event["ResourceProperties"] = json.dumps(res["_props"])
            event["EventId"] = f"{res['LogicalResourceId']}-{status}-{event['EventId']}"
        event.update(Timestamp=time.time(), ResourceStatus=status)
        if reason is not None:
            event["ResourceStatusReason"] = reason
        self.store.add_event(doc["StackId"], event, doc if store_doc else None)

