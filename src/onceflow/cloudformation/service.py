"""Stacks: creating them (directly or through a change set), rolling back a failed create,
deleting them, with the events and statuses CloudFormation reports.

A stack operation is checked in its request (bad input changes nothing), then runs on a thread of
its own, as on AWS: the request answers when the operation ends or after `answer_within_s`
(`serve --stack-answer-within`), whichever comes first, so a waiter's first poll usually finds a
small stack done (`aws cloudformation deploy` polls every 30 s) while a long one answers at once
with *_IN_PROGRESS. The stack document is stored at every event, so DescribeStack* show progress.
A stop cuts the operation; the next start finishes it as AWS would have (recover()).
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
from urllib.parse import urlparse

from onceflow import internal
from onceflow.cloudformation import errors
from onceflow.cloudformation.language import LANGUAGE, expand
from onceflow.cloudformation.providers import PROVIDERS
from onceflow.cloudformation.resources import Caller
from onceflow.cloudformation.stack_updates import StackUpdate, changes, check_updatable
from onceflow.cloudformation.store import CfnStore
from onceflow.cloudformation.template import (
    Env,
    Template,
    TemplateError,
    conditions,
    evaluate,
    included,
    order,
    parse,
    resolve_parameters,
)
from onceflow.cloudformation.template import load as load_template
from onceflow.cloudformation.template import outputs as template_outputs
from onceflow.context import Principal, RequestContext
from onceflow.errors import ServiceError
from onceflow.stack import Stack

log = logging.getLogger("onceflow")
Doc = dict[str, Any]
SAM = "AWS::Serverless-2016-10-31"
INTERRUPTED = "onceflow stopped while this stack operation ran"


class CfnService:
    def __init__(self, stack: Stack, store: CfnStore, answer_within_s: float = 10.0) -> None:
        self.stack = stack
        self.store = store
        self.answer_within_s = answer_within_s
        self._lock = threading.Lock()  # one stack operation starts at a time (name checks, statuses)
        self._running: dict[str, Doc] = {}  # stack id -> the document its operation is changing

    # ------------------------------------------------------------------ running operations
    def _background(self, ctx: RequestContext, doc: Doc, work: Callable[[], None]) -> None:
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

    def recover(self) -> None:
        """At start: finish what a stop cut, as AWS (which does not stop) would have ended it. A
        create is rolled back (ROLLBACK_COMPLETE; CREATE_FAILED with DisableRollback), a rollback
        or a delete is carried on to its end, a finished update's cleanup is taken as done
        (UPDATE_COMPLETE; a replaced resource's old copy may be left), and an update or its
        rollback is rolled back to the stack as it was (UPDATE_ROLLBACK_COMPLETE). The reason
        names the stop."""
        for account, region, doc in self.store.unfinished():
            principal = Principal(**doc["_principal"]) if "_principal" in doc else Principal.root(account)
            ctx = RequestContext("cloudformation", "Recover", account, region, principal, internal=True)
            caller = Caller(self.stack, principal, region, doc["StackName"])
            status = doc["StackStatus"]
            if status == "CREATE_IN_PROGRESS" and doc.get("DisableRollback"):
                self.status(ctx, doc, "CREATE_FAILED", INTERRUPTED)
            elif status in ("CREATE_IN_PROGRESS", "ROLLBACK_IN_PROGRESS"):
                doc["DisableRollback"] = False
                self._roll_back(ctx, caller, doc, INTERRUPTED)
            elif status == "DELETE_IN_PROGRESS":
                self._delete(ctx, caller, doc)
            elif status == "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS":
                doc.pop("_previous", None)
                self.status(ctx, doc, "UPDATE_COMPLETE", None)
            elif "_previous" in doc:
                StackUpdate.resume(self, ctx, doc).roll_back(INTERRUPTED)
            else:
                self.status(ctx, doc, "UPDATE_ROLLBACK_FAILED", INTERRUPTED)
            for cs in self.store.change_sets(doc["StackId"]):  # the one being executed did not finish
                if cs["ExecutionStatus"] == "EXECUTE_IN_PROGRESS":
                    cs["ExecutionStatus"] = "EXECUTE_FAILED"
                    self.store.put_change_set(cs)

    # ------------------------------------------------------------------ lookups
    def find(self, ctx: RequestContext, name_or_id: str) -> Doc:
        doc = self.store.by_id(name_or_id) if name_or_id.startswith("arn:") else \
            self.store.live(ctx.account, ctx.region, name_or_id)
        if doc is None:
            raise errors.no_stack(name_or_id)
        return doc

    # ------------------------------------------------------------------ templates
    def template_text(self, ctx: RequestContext, p: dict[str, Any]) -> str:
        if p.get("TemplateBody") is not None:
            if p.get("TemplateURL") is not None:
                raise errors.validation("Specify exactly one of TemplateBody or TemplateUrl.")
            return str(p["TemplateBody"])
        url = p.get("TemplateURL")
        if url is None:
            raise errors.validation("Either Template URL or Template Body must be specified.")
        return self._from_s3(ctx, str(url))

    def _from_s3(self, ctx: RequestContext, url: str) -> str:
        parts = urlparse(url)
        host, path = parts.netloc, parts.path.lstrip("/")
        if ".s3" in host and not host.startswith("s3"):  # virtual-hosted style
            bucket, key = host.split(".s3", 1)[0], path
        else:
            bucket, _, key = path.partition("/")
        try:
            _, pieces = self.stack.services["s3"].get_object(ctx.account, bucket, key)
            return b"".join(pieces).decode("utf-8")
        except (ServiceError, UnicodeDecodeError):
            raise errors.validation(f"TemplateURL must be a supported URL.: {url}") from None

    def load(self, ctx: RequestContext, text: str, given: dict[str, str]) -> Template:
        """The template as it will be made: transforms applied, checked."""
        try:
            if LANGUAGE in text:  # Fn::ForEach first: AWS runs a template's transforms in order
                text = json.dumps(expand(parse(text), given), default=str)
            template = load_template(text) if SAM not in text else _sam(self.stack, ctx, text, given)
        except TemplateError as exc:
            raise errors.validation(exc.message) from None
        return template

    @staticmethod
    def capabilities_needed(template: Template) -> tuple[str | None, list[str]]:
        needed, types = None, []
        for body in template.resources.values():
            provider = PROVIDERS.get(str(body.get("Type")))
            if provider is not None and provider.iam:
                types.append(str(body["Type"]))
                if provider.named_iam and (body.get("Properties") or {}).get(provider.named_iam):
                    needed = "CAPABILITY_NAMED_IAM"
                elif needed is None:
                    needed = "CAPABILITY_IAM"
        return needed, sorted(set(types))

    def _check_capabilities(self, template: Template, given: list[str]) -> None:
        needed, _ = self.capabilities_needed(template)
        if needed == "CAPABILITY_NAMED_IAM" and "CAPABILITY_NAMED_IAM" not in given:
            raise errors.insufficient_capabilities(needed)
        if needed == "CAPABILITY_IAM" and not {"CAPABILITY_IAM", "CAPABILITY_NAMED_IAM"} & set(given):
            raise errors.insufficient_capabilities(needed)

    def _prepare(self, ctx: RequestContext, p: dict[str, Any], doc: Doc,
                 previous: dict[str, Any] | None = None) -> tuple[Template, dict[str, Any]]:
        given = {}
        for x in p.get("Parameters") or []:
            key = x["ParameterKey"]
            if x.get("UsePreviousValue"):
                if previous is None or key not in previous:
                    raise errors.validation(f"Invalid input for parameter key {key}. Cannot specify "
                                            "usePreviousValue as true for a parameter key not in the previous "
                                            "template")
                value = previous[key]
                given[key] = ",".join(value) if isinstance(value, list) else value
            else:
                given[key] = x.get("ParameterValue", "")
        text = self.template_text(ctx, p)
        template = self.load(ctx, text, given)
        try:
            values = resolve_parameters(template, given)
            # Conditions depend on parameters only: a broken one is refused before anything is made.
            conditions(template, Env(ctx.account, ctx.region, str(p.get("StackName", "")), "", values))
        except TemplateError as exc:
            raise errors.validation(exc.message) from None
        self._check_capabilities(template, list(p.get("Capabilities") or []))
        doc["_template"], doc["_processed"] = text, template.doc
        doc["_parameters"] = values
        doc["Parameters"] = [{"ParameterKey": k, "ParameterValue": "****" if template.parameters[k].get("NoEcho")
                              in (True, "true") else (",".join(v) if isinstance(v, list) else v)}
                             for k, v in values.items()]
        if template.description is not None:
            doc["Description"] = template.description
        return template, values

    # ------------------------------------------------------------------ stacks
    def _new_doc(self, ctx: RequestContext, p: dict[str, Any], status: str) -> Doc:
        name = p["StackName"]
        doc: Doc = {
            "StackId": f"arn:aws:cloudformation:{ctx.region}:{ctx.account}:stack/{name}/{uuid.uuid4()}",
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
        with self._lock:
            if self.store.live(ctx.account, ctx.region, p["StackName"]) is not None:
                raise errors.already_exists(p["StackName"])
            doc = self._new_doc(ctx, p, "CREATE_IN_PROGRESS")
            template, _ = self._prepare(ctx, p, doc)
            # CreateStack runs a template's transforms only when told it may (change sets show them).
            if parse(doc["_template"]).get("Transform") and "CAPABILITY_AUTO_EXPAND" not in (p.get("Capabilities")
                                                                                         or []):
                raise errors.insufficient_capabilities("CAPABILITY_AUTO_EXPAND")
            ctx = self._acting(ctx, doc, p)
            self.store.put(ctx.account, ctx.region, doc)
            self._event(doc, None, "CREATE_IN_PROGRESS", "User Initiated")
        self._background(ctx, doc, lambda: self._create(ctx, doc, template))
        return str(doc["StackId"])

    def _acting(self, ctx: RequestContext, doc: Doc, p: dict[str, Any]) -> RequestContext:
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
        principal = Principal(ctx.account, "assumed-role", f"arn:aws:sts::{ctx.account}:assumed-role/{name}/{session}",
                              session, role_arn=role, session_name=session)
        return dataclasses.replace(ctx, principal=principal)

    def create_nested(self, caller: Caller, name: str, p: dict[str, Any]) -> Doc:
        """A nested stack (nested.py), made to its end in the parent's operation. It may do what its
        parent may: onceflow does not track the parent's capabilities, so all are granted."""
        ctx = RequestContext("cloudformation", "CreateStack", caller.account, caller.region, caller.principal,
                             internal=True)
        p = dict(p, StackName=name, Capabilities=["CAPABILITY_IAM", "CAPABILITY_NAMED_IAM", "CAPABILITY_AUTO_EXPAND"])
        with self._lock:
            doc = self._new_doc(ctx, p, "CREATE_IN_PROGRESS")
            template, _ = self._prepare(ctx, p, doc)
            doc["_principal"] = dataclasses.asdict(ctx.principal)
            parent = self.store.live(ctx.account, ctx.region, caller.stack_name)
            if parent is not None:
                doc["ParentId"], doc["RootId"] = parent["StackId"], parent.get("RootId", parent["StackId"])
            self.store.put(ctx.account, ctx.region, doc)
            self._event(doc, None, "CREATE_IN_PROGRESS", "User Initiated")
        self._create(ctx, doc, template)
        return doc

    def update_nested(self, caller: Caller, stack_id: str, p: dict[str, Any]) -> Doc:
        """A nested stack's update, run to its end in the parent's operation; the stack as it is
        when the template and parameters are what it has already."""
        ctx = RequestContext("cloudformation", "UpdateStack", caller.account, caller.region, caller.principal,
                             internal=True)
        with self._lock:
            doc = self.find(ctx, stack_id)
            check_updatable(doc)
            old = copy.deepcopy(doc)
            p = dict(p, StackName=doc["StackName"], Capabilities=["CAPABILITY_IAM", "CAPABILITY_NAMED_IAM",
                                                                  "CAPABILITY_AUTO_EXPAND"])
            template, _ = self._prepare(ctx, p, doc, old.get("_parameters"))
            if doc["_template"] == old["_template"] and doc["_parameters"] == old["_parameters"]:
                return old
            update = StackUpdate(self, ctx, old, doc, template)
            update.start()
        update.run()
        if doc["StackStatus"] != "UPDATE_COMPLETE":
            doc["_failure"] = doc.get("StackStatusReason") or next(
                (e.get("ResourceStatusReason") for e in self.store.events(doc["StackId"])
                 if e["ResourceStatus"] == "UPDATE_ROLLBACK_IN_PROGRESS"), "")
        return doc

    def delete_nested(self, caller: Caller, stack_id: str) -> None:
        doc = self.store.by_id(stack_id)
        if doc is None or doc["StackStatus"] == "DELETE_COMPLETE":
            return
        ctx = RequestContext("cloudformation", "DeleteStack", caller.account, caller.region, caller.principal,
                             internal=True)
        self.status(ctx, doc, "DELETE_IN_PROGRESS", "User Initiated")
        self._delete(ctx, Caller(self.stack, caller.principal, caller.region, doc["StackName"]), doc)
        if doc["StackStatus"] != "DELETE_COMPLETE":
            raise ServiceError("InvalidRequest", f"Embedded stack {stack_id} was not successfully deleted: "
                               f"{doc.get('StackStatusReason', '')}", 400)

    def _create(self, ctx: RequestContext, doc: Doc, template: Template) -> None:
        env = self.env(ctx, doc, template)
        caller = Caller(self.stack, ctx.principal, ctx.region, doc["StackName"])
        failed = None
        try:
            conditions(template, env)
            names = [n for n in order(template) if included(template.resources[n], env)]
        except TemplateError as exc:
            names, failed = [], exc.message
        for logical in names:
            reason = self.create_one(caller, doc, template, env, logical)
            if reason is not None:
                failed = reason
                break
        if failed is None:
            try:
                doc["Outputs"] = template_outputs(template, env)
            except TemplateError as exc:
                failed = exc.message
            failed = failed or self.export_conflict(ctx, doc)
        if failed is None:
            if not doc["Outputs"]:
                del doc["Outputs"]
            self.status(ctx, doc, "CREATE_COMPLETE", None)
            return
        self._roll_back(ctx, caller, doc, failed)

    def create_one(self, caller: Caller, doc: Doc, template: Template, env: Env, logical: str) -> str | None:
        """Make one resource; the reason it failed, or None."""
        body = template.resources[logical]
        kind = str(body["Type"])
        res: Doc = {"LogicalResourceId": logical, "PhysicalResourceId": "", "ResourceType": kind,
                    "_policy": body.get("DeletionPolicy"), "_replace_policy": body.get("UpdateReplacePolicy")}
        doc["_resources"][logical] = res
        self.resource_event(doc, res, "CREATE_IN_PROGRESS", None)
        provider = PROVIDERS.get(kind)
        try:
            if provider is None:
                raise TemplateError(f"Resource type {kind} is not supported by onceflow (it serves the types: "
                                    f"{', '.join(sorted(PROVIDERS))})")
            props = evaluate(body.get("Properties") or {}, env)
            res["_props"] = props
            physical, attrs = provider.create(caller, logical, props)
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
        res["PhysicalResourceId"], res["_attrs"] = physical, attrs
        env.resources[logical] = physical
        self.resource_event(doc, res, "CREATE_IN_PROGRESS", "Resource creation Initiated")
        self.resource_event(doc, res, "CREATE_COMPLETE", None)
        return None

    def _roll_back(self, ctx: RequestContext, caller: Caller, doc: Doc, reason: str) -> None:
        doc["_failure"] = reason  # what a nested stack's parent says of it
        if doc["DisableRollback"]:
            self.status(ctx, doc, "CREATE_FAILED", reason)
            return
        self.status(ctx, doc, "ROLLBACK_IN_PROGRESS", reason + "Rollback requested by user." if
                     reason.endswith(". ") else reason)
        self._delete_resources(caller, doc)
        doc.pop("Outputs", None)
        self.status(ctx, doc, "ROLLBACK_COMPLETE", None)

    def _delete_resources(self, caller: Caller, doc: Doc) -> bool:
        """Delete a stack's resources, last made first; whether all went."""
        ok = True
        for res in reversed(list(doc["_resources"].values())):
            if res.get("ResourceStatus") != "DELETE_COMPLETE":
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
        with self._lock:
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
        ctx = self._acting(ctx, doc, {})
        caller = Caller(self.stack, ctx.principal, ctx.region, doc["StackName"])
        self._background(ctx, doc, lambda: self._delete(ctx, caller, doc))

    def _delete(self, ctx: RequestContext, caller: Caller, doc: Doc) -> None:
        in_use = self.importers(ctx, doc)
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
        with self._lock:
            doc = self.find(ctx, p["StackName"])
            check_updatable(doc)
            if p.get("UsePreviousTemplate"):
                p = dict(p, TemplateBody=doc["_template"])
            old = copy.deepcopy(doc)
            template, _ = self._prepare(ctx, p, doc, old.get("_parameters"))
            if doc["_template"] == old["_template"] and doc["_parameters"] == old["_parameters"]:
                raise errors.validation("No updates are to be performed.")
            if "DisableRollback" in p:
                doc["DisableRollback"] = bool(p["DisableRollback"])
            ctx = self._acting(ctx, doc, p)
            update = StackUpdate(self, ctx, old, doc, template)
            update.start()  # UPDATE_IN_PROGRESS before the lock goes: a second update is refused
        self._background(ctx, doc, update.run)
        return str(doc["StackId"])

    def set_termination_protection(self, ctx: RequestContext, name: str, enabled: bool) -> str:
        with self._lock:
            doc = self._running.get(self.find(ctx, name)["StackId"]) or self.find(ctx, name)
            doc["EnableTerminationProtection"] = enabled  # on the running operation's copy too
            self.store.put(ctx.account, ctx.region, doc)
        return str(doc["StackId"])

    # ------------------------------------------------------------------ change sets
    def create_change_set(self, ctx: RequestContext, p: dict[str, Any]) -> tuple[str, str]:
        kind = p.get("ChangeSetType") or "UPDATE"
        if kind == "IMPORT":  # taken as an update it would make new resources, not adopt existing ones
            raise errors.validation("ChangeSetType IMPORT is not supported by onceflow: it does not import "
                                    "existing resources into a stack")
        with self._lock:
            existing = self.store.live(ctx.account, ctx.region, p["StackName"]) if not \
                str(p["StackName"]).startswith("arn:") else self.store.by_id(p["StackName"])
            if kind == "CREATE":
                if existing is not None and existing["StackStatus"] != "REVIEW_IN_PROGRESS":
                    raise errors.already_exists(p["StackName"])
                doc = existing or self._new_doc(ctx, p, "REVIEW_IN_PROGRESS")
            elif existing is None:
                raise errors.no_stack(p["StackName"])
            else:
                doc = existing
                check_updatable(doc)
                if p.get("UsePreviousTemplate"):
                    p = dict(p, TemplateBody=doc["_template"])
            staged: Doc = {"_resources": {}}
            template, values = self._prepare(ctx, p, staged, doc.get("_parameters"))
            change_set_id = f"arn:aws:cloudformation:{ctx.region}:{ctx.account}:changeSet/{p['ChangeSetName']}/" \
                            f"{uuid.uuid4()}"
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
            if kind == "CREATE":
                cs["Changes"] = [_add_change(logical, str(body["Type"]))
                                 for logical, body in template.resources.items()]
                if existing is None:
                    self.store.put(ctx.account, ctx.region, doc)
                    self._event(doc, None, "REVIEW_IN_PROGRESS", "User Initiated")
            elif staged["_template"] == doc.get("_template") and staged["_parameters"] == doc.get("_parameters"):
                cs.update(Status="FAILED", ExecutionStatus="UNAVAILABLE", Changes=[],
                          StatusReason="The submitted information didn't contain changes. Submit different "
                                       "information to create a change set.")
            else:
                cs["Changes"] = changes(doc, template, values)
                if not cs["Changes"]:
                    cs.update(Status="FAILED", ExecutionStatus="UNAVAILABLE",
                              StatusReason="The submitted information didn't contain changes. Submit different "
                                           "information to create a change set.")
            self.store.put_change_set(cs)
        return change_set_id, str(doc["StackId"])

    def delete_change_set(self, ctx: RequestContext, name: str, stack_name: str | None) -> None:
        cs = self.change_set(ctx, name, stack_name)
        if cs["ExecutionStatus"] == "EXECUTE_IN_PROGRESS":
            raise errors.invalid_change_set_status(f"Cannot delete ChangeSet {cs['ChangeSetId']} as it is in "
                                                   "EXECUTE_IN_PROGRESS status")
        self.store.drop_change_set(cs["ChangeSetId"])

    def change_set(self, ctx: RequestContext, name: str, stack_name: str | None) -> Doc:
        stack_id = None
        if not name.startswith("arn:"):
            if stack_name is None:
                raise errors.validation("StackName must be specified if ChangeSetName is not specified as an ARN.")
            try:
                stack_id = self.find(ctx, stack_name)["StackId"]
            except ServiceError:
                raise errors.change_set_not_found(name) from None
        cs = self.store.change_set(stack_id, name)
        if cs is None:
            raise errors.change_set_not_found(name)
        return cs

    def execute_change_set(self, ctx: RequestContext, p: dict[str, Any]) -> None:
        with self._lock:
            cs = self.change_set(ctx, p["ChangeSetName"], p.get("StackName"))
            if cs["ExecutionStatus"] != "AVAILABLE":
                raise errors.invalid_change_set_status(f"ChangeSet [{cs['ChangeSetId']}] cannot be executed in its "
                                                       f"current status of [{cs['Status']}]")
            doc = self.find(ctx, cs["StackId"])
            if cs["_type"] != "CREATE":
                check_updatable(doc)
            request = dict(cs["_request"])
            if "DisableRollback" in p:
                doc["DisableRollback"] = bool(p["DisableRollback"])
            old = copy.deepcopy(doc)
            template, _ = self._prepare(ctx, request, doc, old.get("_parameters"))
            doc["ChangeSetId"] = cs["ChangeSetId"]
            ctx = self._acting(ctx, doc, request)
            cs.update(ExecutionStatus="EXECUTE_IN_PROGRESS")
            self.store.put_change_set(cs)
            update = None
            if cs["_type"] == "CREATE":
                self.status(ctx, doc, "CREATE_IN_PROGRESS", "User Initiated")
            else:
                update = StackUpdate(self, ctx, old, doc, template)
                update.start()

        def work() -> None:
            if update is None:
                self._create(ctx, doc, template)
            else:
                update.run()
            cs.update(ExecutionStatus="EXECUTE_COMPLETE" if doc["StackStatus"] in ("CREATE_COMPLETE",
                                                                                    "UPDATE_COMPLETE")
                      else "EXECUTE_FAILED")
            self.store.put_change_set(cs)

        self._background(ctx, doc, work)

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
            found = self.exports(ctx).get(name)
            if found is None:
                raise TemplateError(f"No export named {name} found")
            if name not in doc["_imports"]:
                doc["_imports"].append(name)
            return found[1]

        env.attributes, env.imports = attribute, imported
        return env

    def exports(self, ctx: RequestContext) -> dict[str, tuple[Doc, str]]:
        """Export name -> (exporting stack, value), over the account's live stacks in this region."""
        out = {}
        for d in self.store.all(ctx.account, ctx.region, False):
            for o in d.get("Outputs") or []:
                if "ExportName" in o:
                    out[o["ExportName"]] = (d, o["OutputValue"])
        return out

    def export_conflict(self, ctx: RequestContext, doc: Doc) -> str | None:
        """AWS's reason when one of the stack's exports is already another stack's."""
        taken = self.exports(ctx)
        for o in doc.get("Outputs") or []:
            name = o.get("ExportName")
            if name in taken and taken[name][0]["StackId"] != doc["StackId"]:
                return f"Export with name {name} is already exported by stack {taken[name][0]['StackName']}"
        return None

    def importers(self, ctx: RequestContext, doc: Doc) -> list[tuple[str, str]]:
        """(export name, importing stack name) for this stack's exports other stacks import."""
        names = {o["ExportName"] for o in doc.get("Outputs") or [] if "ExportName" in o}
        return [(n, d["StackName"]) for d in self.store.all(ctx.account, ctx.region, False)
                if d["StackId"] != doc["StackId"] for n in d.get("_imports") or [] if n in names]

    def status(self, ctx: RequestContext, doc: Doc, status: str, reason: str | None) -> None:
        doc["StackStatus"] = status
        if reason is None or (status.endswith("_COMPLETE") and reason == "User Initiated"):
            doc.pop("StackStatusReason", None)
        else:
            doc["StackStatusReason"] = reason
        if status == "DELETE_IN_PROGRESS":
            doc.pop("StackStatusReason", None)
        self._event(doc, None, status, reason, store_doc=True)

    def resource_event(self, doc: Doc, res: Doc, status: str, reason: str | None) -> None:
        res["ResourceStatus"], res["Timestamp"] = status, time.time()
        if reason is None:
            res.pop("ResourceStatusReason", None)
        else:
            res["ResourceStatusReason"] = reason
        # Stored with the event, so DescribeStackResources shows the operation's progress.
        self._event(doc, res, status, reason, store_doc=res in doc["_resources"].values())

    def _event(self, doc: Doc, res: Doc | None, status: str, reason: str | None, store_doc: bool = False) -> None:
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


def _add_change(logical: str, kind: str) -> Doc:
    return {"Type": "Resource", "ResourceChange": {"Action": "Add", "LogicalResourceId": logical,
                                                   "ResourceType": kind, "Scope": [], "Details": []}}


def _request_of(p: dict[str, Any], staged: Doc) -> Doc:
    """What executing the change set will create the stack from (the template as given)."""
    return {"StackName": p["StackName"], "TemplateBody": staged["_template"],
            "Parameters": [{"ParameterKey": k, "ParameterValue": ",".join(v) if isinstance(v, list) else v}
                           for k, v in staged["_parameters"].items()
                           if k in {x["ParameterKey"] for x in p.get("Parameters") or []}],
            "Capabilities": list(p.get("Capabilities") or []),
            **({"RoleARN": p["RoleARN"]} if p.get("RoleARN") else {})}


def _sam(stack: Stack, ctx: RequestContext, text: str, given: dict[str, str]) -> Template:
    """A SAM template turned into plain CloudFormation by AWS's own translator."""
    from onceflow.cloudformation.sam import translate

    return translate(stack, ctx, text, given)
