"""At start: finish what a stop cut, as AWS (which does not stop) would have ended it. A create is
rolled back (ROLLBACK_COMPLETE; CREATE_FAILED with DisableRollback), a rollback or a delete is
carried on to its end, a finished update's cleanup is run again (UPDATE_COMPLETE, the replaced
resources' old copies deleted), an update or its rollback is rolled back to the stack as it was
(UPDATE_ROLLBACK_COMPLETE), and an import lets its resources go (IMPORT_ROLLBACK_COMPLETE). The
reason names the stop."""

from __future__ import annotations

from typing import TYPE_CHECKING

from onceflow.cloudformation.stack_imports import StackImport
from onceflow.cloudformation.stack_updates import StackUpdate
from onceflow.cloudformation.template import Template
from onceflow.context import Principal, RequestContext

if TYPE_CHECKING:
    from onceflow.cloudformation.service import CfnService

INTERRUPTED = "onceflow stopped while this stack operation ran"


def recover(svc: CfnService) -> None:
    for account, region, doc in svc.store.unfinished():
        principal = Principal(**doc["_principal"]) if "_principal" in doc else Principal.root(account)
        ctx = RequestContext("cloudformation", "Recover", account, region, principal, internal=True)
        caller = svc.caller(ctx, doc)
        status = doc["StackStatus"]
        if status == "CREATE_IN_PROGRESS" and doc.get("DisableRollback"):
            svc.status(ctx, doc, "CREATE_FAILED", INTERRUPTED)
        elif status in ("CREATE_IN_PROGRESS", "ROLLBACK_IN_PROGRESS"):
            doc["DisableRollback"] = False
            svc.roll_back_create(ctx, caller, doc, INTERRUPTED)
        elif status == "DELETE_IN_PROGRESS":
            svc.run_delete(ctx, caller, doc)
        elif status.startswith("IMPORT") and "_previous" in doc:
            StackImport(svc, ctx, doc["_previous"], doc, Template(doc.get("_processed") or {}), []).roll_back(
                INTERRUPTED)
        elif status == "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS":
            StackUpdate(svc, ctx, doc.get("_previous") or doc, doc, Template(doc.get("_processed") or {})).clean_up()
        elif status == "UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS" and "_previous" in doc:
            StackUpdate(svc, ctx, doc["_previous"], doc, Template(doc.get("_processed") or {})).clean_up_rollback()
        elif "_previous" in doc:
            StackUpdate.resume(svc, ctx, doc).roll_back(INTERRUPTED)
        else:
            svc.status(ctx, doc, "UPDATE_ROLLBACK_FAILED", INTERRUPTED)
        for cs in svc.store.change_sets(doc["StackId"]):  # the one being executed did not finish
            if cs["ExecutionStatus"] == "EXECUTE_IN_PROGRESS":
                cs["ExecutionStatus"] = "EXECUTE_FAILED"
                svc.store.put_change_set(cs)
