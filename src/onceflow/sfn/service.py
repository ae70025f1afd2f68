"""Step Functions rules: state machines, executions, histories, task tokens and tags.

Every write validates first and then changes rows in one transaction; StartExecution writes the
execution row and its ExecutionStarted event together and hands the execution to the engine.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import sqlite3
import time
import uuid
from typing import Any

from onceflow import pages
from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.sfn import errors as E
from onceflow.sfn.activities import Activities
from onceflow.sfn.asl.check_states import STATE_TYPES
from onceflow.sfn.asl.payload import MAX_PAYLOAD
from onceflow.sfn.asl.resources import check_sdk_services_with
from onceflow.sfn.described import describe_row, with_default_encryption, with_variable_references
from onceflow.sfn.engine import events as ev
from onceflow.sfn.engine.engine import Engine
from onceflow.sfn.engine.integrations.activity import START_SUFFIX
from onceflow.sfn.engine.integrations.states import PARENT
from onceflow.sfn.engine.state import event_from_row
from onceflow.sfn.exec_logging import ExecLogger, check_logging
from onceflow.sfn.json_input import jackson_reason as _jackson
from onceflow.sfn.json_input import loads as _loads
from onceflow.sfn.maprun import MapRuns
from onceflow.sfn.mocks import MockConfig, MockConfigError, load_file, split_case
from onceflow.sfn.mocks import parse as parse_mock_config
from onceflow.sfn.names import check_encryption, tag_pairs, ts, valid_name
from onceflow.sfn.nested import Nested
from onceflow.sfn.sdk_services import recognized as sdk_service_recognized
from onceflow.sfn.store import SfnStore
from onceflow.sfn.versions import Versions, new_revision, split_qualified
from onceflow.stack import Stack

MAX_INPUT = MAX_PAYLOAD
_ROLE_ARN = re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+$")
log = logging.getLogger(__name__)
DEFAULT_LOGGING = {"level": "OFF", "includeExecutionData": False}


class SfnService:
    def __init__(self, stack: Stack, store: SfnStore, engine: Engine) -> None:
        self.stack = stack
        self.store = store
        self.engine = engine
        check_sdk_services_with(sdk_service_recognized)  # aws-sdk:<service> names, from botocore's models
        self.versions = Versions(self)
        self.activities = Activities(self)
        self.nested = Nested(self)
        self.map_runs = MapRuns(self)  # Distributed Map runs and their child executions
        self.exec_logs = ExecLogger(stack)
        store.on_append.append(self.exec_logs.on_append)
        stack.on_reset.append(self.exec_logs.reset)
        engine.on_closed.append(self._closed)  # map runs to abort, a .sync parent or child to tell
        store.on_token_timed_out.append(self.nested.task_timed_out)
        # Step Functions Local's mock configuration: loaded at start, replaced by /_onceflow/mock-config.
        file = stack.settings.mock_config_file
        self.mock_config: MockConfig | None = load_file(file) if file is not None else None
        stack.on_reset.append(self._reset_mock_config)

    def _closed(self, arn: str) -> None:
        """An execution ended: its map runs still going are aborted, a .sync parent waiting on it is
        told, the children it waited on are stopped. One read says which of these has anything to
        do (most executions have none of them), instead of one read each."""
        runs, parent, children = self.store.close_links(arn)
        for due, hook in ((runs, self.map_runs.parent_closed), (parent, self.nested.child_closed),
                          (children, self.nested.parent_closed)):
            if due:
                try:
                    hook(arn)
                except Exception:  # one hook's failure must not keep the others from running
                    log.exception("close hook for %s failed", arn)

    @staticmethod
    def page(items: list[dict[str, Any]], member: str, p: dict[str, Any]) -> dict[str, Any]:
        """One page of a listing (maxResults, nextToken)."""
        given = p.get("nextToken")
        start = pages.offset_of(given, lambda: E.invalid_page_token(str(given)))
        size = p.get("maxResults") or 100
        out: dict[str, Any] = {member: items[start:start + size]}
        if start + size < len(items):
            out["nextToken"] = pages.offset_token(start + size)
        return out

    # ------------------------------------------------------------------ ARNs
    @staticmethod
    def machine_arn(ctx: RequestContext, name: str) -> str:
        return f"arn:{ctx.partition}:states:{ctx.region}:{ctx.account}:stateMachine:{name}"

    @staticmethod
    def check_arn(arn: str, kind: str) -> list[str]:
        parts = arn.split(":")
        if not arn.startswith("arn:") or len(parts) < 7 or parts[2] != "states":
            raise E.invalid_arn(arn)
        if parts[5] != kind and not (kind == "execution" and parts[5] == "express"):
            raise E.invalid_arn_reason(f"Resource type not valid in this context: {parts[5]}")
        return parts

    def machine(self, arn: str) -> Any:
        self.check_arn(arn, "stateMachine")
        row = self.store.get_machine(arn)
        if row is None:
            raise E.state_machine_does_not_exist(arn)
        return row

    def execution(self, arn: str, express: bool = True) -> Any:
        """The execution's row; `express=False` where AWS serves only standard executions (and a
        Distributed Map's children, found before this): an express ARN is no ARN of this call."""
        parts = self.check_arn(arn, "execution")
        if not express and parts[5] == "express":
            # [AWS] test_sfn_api_express.snapshot.json, test_start_async_describe_history_execution
            raise E.invalid_arn_reason("Resource type not valid in this context: express")
        row = self.store.get_execution(arn)
        if row is None:
            raise E.execution_does_not_exist(arn)
        return row

    # ------------------------------------------------------------------ definitions
    def check_definition(self, definition: str, machine_type: str, arn: str = "") -> None:
        """Reject what AWS rejects; log (once per resource) tasks that onceflow will not run."""
        from onceflow.sfn.asl.check import definition_error_message, validate_definition
        from onceflow.sfn.engine.integrations import log_unsupported

        diags = validate_definition(definition, machine_type)
        if any(d.severity == "ERROR" for d in diags):
            message = definition_error_message(diags)
            raise ServiceError("InvalidDefinition", message, 400)
        if arn:
            log_unsupported(arn, json.loads(definition))

    def validate_definition(self, definition: str, machine_type: str, max_results: int,
                            severity: str = "ERROR") -> dict[str, Any]:
        """`severity` ERROR (the default) lists errors only; WARNING adds the static-analysis warnings."""
        from onceflow.sfn.asl.check import definition_warnings, validate_definition, validation_result

        diags = validate_definition(definition, machine_type)
        if severity == "WARNING":
            diags = [*diags, *definition_warnings(definition)]
        return validation_result(diags, max_results)

    def check_role(self, ctx: RequestContext, role_arn: str, machine_arn: str = "") -> None:
        """The role must exist and trust states.amazonaws.com (or the regional principal), asked
        with the state machine as aws:SourceArn and its account as aws:SourceAccount (a CDK state
        machine's role trusts only its own account's state machines)."""
        if not _ROLE_ARN.match(role_arn):
            raise E.invalid_arn(role_arn)
        iam = self.stack.ports.roles.get()
        if iam is None:
            return
        account = role_arn.split(":")[4]
        for service in ("states.amazonaws.com", f"states.{ctx.region}.amazonaws.com"):
            source = {"aws:SourceAccount": ctx.account, **({"aws:SourceArn": machine_arn} if machine_arn else {})}
            if iam.role_trusts(account, role_arn, ("Service", service), source):
                return
        raise ServiceError("AccessDeniedException", "Neither the global service principal states.amazonaws.com, "
                           "nor the regional one is authorized to assume the provided role.", 400)

    # ------------------------------------------------------------------ state machines
    def create_machine(self, ctx: RequestContext, p: dict[str, Any]) -> dict[str, Any]:
        name, definition, role = p["name"], p["definition"], p["roleArn"]
        machine_type = p.get("type", "STANDARD")
        if not valid_name(name):
            raise E.invalid_name(name)
        if p.get("versionDescription") is not None and not p.get("publish"):
            raise E.validation("Version description can only be set when publish is true")
        self.check_definition(definition, machine_type, self.machine_arn(ctx, name))
        self.check_role(ctx, role, self.machine_arn(ctx, name))
        config = {
            "loggingConfiguration": check_logging(self.stack, p.get("loggingConfiguration") or DEFAULT_LOGGING, role),
            "tracingConfiguration": p.get("tracingConfiguration") or {"enabled": False},
        }
        if p.get("encryptionConfiguration"):
            check_encryption(p["encryptionConfiguration"])
            config["encryptionConfiguration"] = p["encryptionConfiguration"]
        arn = self.machine_arn(ctx, name)
        now = time.time()
        tags = tag_pairs(p.get("tags"))
        with self.stack.db.transaction() as conn:
            existing = self.store.get_machine(arn)
            if existing is not None:
                same = (existing["definition"] == definition and existing["type"] == machine_type
                        and json.loads(existing["config"]) == config)
                if not same:
                    raise E.state_machine_already_exists(arn)
                out = {"stateMachineArn": arn, "creationDate": ts(existing["created"])}
                if p.get("publish"):
                    version = self.versions.publish(conn, existing, p.get("versionDescription"))
                    out["stateMachineVersionArn"] = version[0]
                return out
            self.store.insert_machine(conn, {
                "arn": arn, "account": ctx.account, "region": ctx.region, "name": name, "type": machine_type,
                "definition": definition, "role_arn": role, "created": now, "updated": None,
                "config": json.dumps(config), "revision_id": None, "description": None,  # no revision yet [AWS]
            })
            self.store.put_tags(conn, arn, tags)
            out = {"stateMachineArn": arn, "creationDate": ts(now)}
            if p.get("publish"):
                machine = conn.execute("SELECT * FROM sfn_state_machines WHERE arn=?", (arn,)).fetchone()
                out["stateMachineVersionArn"] = self.versions.publish(conn, machine, p.get("versionDescription"))[0]
        return out

    def describe_machine(self, arn: str) -> dict[str, Any]:
        self.check_arn(arn, "stateMachine")
        if split_qualified(arn)[1] is not None:
            return with_variable_references(with_default_encryption(self.versions.describe_version(arn)))
        return self._machine_shape(self.machine(arn))

    def _machine_shape(self, row: Any) -> dict[str, Any]:
        config = json.loads(row["config"])
        out = {
            "stateMachineArn": row["arn"], "name": row["name"], "status": "ACTIVE", "definition": row["definition"],
            "roleArn": row["role_arn"], "type": row["type"], "creationDate": ts(row["created"]),
            "loggingConfiguration": config["loggingConfiguration"],
            "tracingConfiguration": config["tracingConfiguration"],
        }
        if row["revision_id"]:
            out["revisionId"] = row["revision_id"]
        if "encryptionConfiguration" in config:
            out["encryptionConfiguration"] = config["encryptionConfiguration"]
        return with_variable_references(with_default_encryption(out))

    def update_machine(self, ctx: RequestContext, p: dict[str, Any]) -> dict[str, Any]:
        arn = p["stateMachineArn"]
        row = self.machine(arn)
        keys = ("definition", "roleArn", "loggingConfiguration", "tracingConfiguration", "encryptionConfiguration")
        if not any(k in p for k in keys) and not p.get("publish"):
            raise E.nothing_to_update()
        if p.get("versionDescription") is not None and not p.get("publish"):
            raise E.validation("Version description can only be set when publish is true")
        changes: dict[str, Any] = {}
        if "definition" in p:
            self.check_definition(p["definition"], row["type"], arn)
            changes["definition"] = p["definition"]
        if "roleArn" in p:
            self.check_role(ctx, p["roleArn"], arn)
            changes["role_arn"] = p["roleArn"]
        check_encryption(p.get("encryptionConfiguration"))
        config = json.loads(row["config"])
        for key in ("loggingConfiguration", "tracingConfiguration", "encryptionConfiguration"):
            if key in p:
                config[key] = p[key]
        if "loggingConfiguration" in p:
            config["loggingConfiguration"] = check_logging(self.stack, p["loggingConfiguration"],
                                                           changes.get("role_arn", row["role_arn"]))
        now = time.time()
        # Only a change of value is a new revision: the same values again (or a bare `publish`) keep
        # the current one, as AWS records.
        if any(row[k] != v for k, v in changes.items()) or json.loads(row["config"]) != config:
            changes.update({"config": json.dumps(config), "updated": now, "revision_id": new_revision()})
        else:
            changes = {}
        out: dict[str, Any] = {"updateDate": ts(now)}
        revision = changes.get("revision_id", row["revision_id"])
        if revision:
            out["revisionId"] = revision
        with self.stack.db.transaction() as conn:
            if changes:
                self.store.update_machine(conn, arn, changes)
            if p.get("publish"):
                machine = conn.execute("SELECT * FROM sfn_state_machines WHERE arn=?", (arn,)).fetchone()
                out["stateMachineVersionArn"] = self.versions.publish(conn, machine, p.get("versionDescription"))[0]
        return out

    def delete_machine(self, arn: str) -> None:
        self.check_arn(arn, "stateMachine")
        qualifier = split_qualified(arn)[1]
        if qualifier is not None:  # a version or alias ARN deletes that one, as its own Delete* would
            if qualifier.isdigit():
                self.versions.delete_version({"stateMachineVersionArn": arn})
            else:
                self.versions.delete_alias({"stateMachineAliasArn": arn})
            return
        with self.stack.db.transaction() as conn:
            self.store.delete_machine(conn, arn)
            self.store.delete_machine_family(conn, arn)

    def list_machines(self, ctx: RequestContext, max_results: int | None, token: str | None) -> dict[str, Any]:
        rows = self.store.list_machines(ctx.account, ctx.region)
        start = pages.offset_of(token, lambda: E.invalid_page_token(str(token)))
        size = max_results or 100
        page = rows[start:start + size]
        out: dict[str, Any] = {"stateMachines": [
            {"stateMachineArn": r["arn"], "name": r["name"], "type": r["type"], "creationDate": ts(r["created"])}
            for r in page
        ]}
        if start + size < len(rows):
            out["nextToken"] = pages.offset_token(start + size)
        return out

    # ------------------------------------------------------------------ executions
    def start_execution(self, ctx: RequestContext, p: dict[str, Any], sync: bool = False) -> dict[str, Any]:
        sm_arn_given, case_name = split_case(p["stateMachineArn"])
        target = self.versions.target(sm_arn_given)
        machine = target.machine
        mock_case = self._mock_case(p["stateMachineArn"], machine["name"], case_name)
        sm_arn = machine["arn"]
        name = p.get("name") or str(uuid.uuid4())
        if not valid_name(name):
            raise E.invalid_name(name)
        text = p.get("input")
        text = "{}" if text is None else text
        if len(text.encode()) > MAX_INPUT:
            raise E.invalid_execution_input("Input exceeds the maximum size of 262144 bytes")
        try:
            _loads(text)
        except (ValueError, RecursionError):  # RecursionError: a parser's last word
            raise E.invalid_execution_input(_jackson(text)) from None
        if not text.strip():
            raise E.invalid_execution_input("Invalid execution input.")
        express = machine["type"] == "EXPRESS"
        if sync and not express:
            raise E.state_machine_type_not_supported(
                "This operation is not supported by this type of state machine")
        kind = "express" if express else "execution"
        suffix = f":{uuid.uuid4()}" if express else ""
        arn = f"arn:{ctx.partition}:states:{ctx.region}:{ctx.account}:{kind}:{machine['name']}:{name}{suffix}"
        now = time.time()
        with self.stack.db.transaction() as conn:
            row = {
                "arn": arn, "sm_arn": sm_arn, "account": ctx.account, "region": ctx.region, "name": name,
                "status": "RUNNING", "input": text, "output": None, "error": None, "cause": None, "start": now,
                "stop": None, "definition": target.definition, "role_arn": target.role_arn,
                "type": machine["type"], "redrive_count": 0, "redrive_date": None,
                "version_arn": target.version_arn, "alias_arn": target.alias_arn, "mock_case": mock_case,
            }
            try:
                self.store.insert_execution(conn, row)
            except sqlite3.IntegrityError:  # the name is taken (the primary key): read only then
                existing = self.store.execution_in(conn, arn)
                if existing is None:
                    raise
                if existing["status"] == "RUNNING" and existing["input"] == text and not express:
                    return {"executionArn": arn, "startDate": ts(existing["start"])}
                raise E.execution_already_exists(arn) from None
            if target.version_arn is None:  # the machine row in hand has its logging configuration
                self.exec_logs.started(arn, sm_arn, now, machine["config"])
            parent = PARENT.get()  # started by a states:startExecution task: linked with the row itself
            if parent is not None:
                self.store.link_child(conn, arn, *parent)
            details: dict[str, Any] = {"input": text, "inputDetails": {"truncated": False},
                                       "roleArn": target.role_arn}
            if target.version_arn:
                details["stateMachineVersionArn"] = target.version_arn
            if target.alias_arn:
                details["stateMachineAliasArn"] = target.alias_arn
            started = ev.Event(1, 0, "ExecutionStarted", now, details, "r")
            self.store.append_events(conn, arn, [started])
            if (events := self.stack.ports.events.get()) is not None:  # "Execution Status Change" (events/)
                events.execution_changed(conn, row)  # the row just inserted: no read back
        # "sync" is no column: it rides on the runtime's row only (context_object leaves RedriveCount out)
        self.engine.begin({**row, "sync": True} if sync else row, started)
        if sync:
            self.engine.wait_done(arn, 300)
            return self._sync_result(arn)
        return {"executionArn": arn, "startDate": ts(now)}

    def load_mock_config(self, doc: Any) -> None:
        """Replace the loaded mock configuration (`/_onceflow/mock-config`); a document not in the
        format raises MockConfigError (a ValueError) and changes nothing."""
        self.mock_config = parse_mock_config(doc)

    def _reset_mock_config(self) -> None:
        """A reset puts back the configuration the server started with (one set at run time goes)."""
        file = self.stack.settings.mock_config_file
        try:
            self.mock_config = load_file(file) if file is not None else None
        except MockConfigError:  # the file changed into a bad one since the start: keep none
            self.mock_config = None

    def _mock_case(self, given: str, machine_name: str, case_name: str | None) -> str | None:
        """The test case `<arn>#<case>` names, as stored with the execution (sfn/mocks.py)."""
        if case_name is None:
            return None
        case = self.mock_config.test_case(machine_name, case_name) if self.mock_config is not None else None
        if case is None:  # as Step Functions Local answers a test case its configuration lacks
            raise E.state_machine_does_not_exist(given)
        return case.to_json()

    def _sync_result(self, arn: str) -> dict[str, Any]:
        row = self.execution(arn)
        out = describe_row(row, "REDRIVABLE")
        keep = ("executionArn", "stateMachineArn", "name", "startDate", "stopDate", "status", "error", "cause",
                "input", "inputDetails", "output", "outputDetails")
        result = {k: out[k] for k in keep if k in out}
        # a failed run says its (absent) output was included all the same (test_express_sync[BASE_RAISE_FAILURE])
        result.setdefault("outputDetails", {"included": True})
        # billed by the 100 ms begun, at least one (recorded: 100 for a Pass, 300 with a Lambda, 7600 with
        # retries; AWS's Express pricing rounds the duration up to the nearest 100 ms)
        took_ms = max(0.0, ((row["stop"] or row["start"]) - row["start"]) * 1000)
        result["billingDetails"] = {"billedMemoryUsedInMB": 64,
                                    "billedDurationInMilliseconds": max(100, -(-int(took_ms) // 100) * 100)}
        return result

    def map_child(self, arn: str) -> Any:
        """A Distributed Map's child execution (execution:<machine>/<label>:<name>), or None."""
        parts = arn.split(":")
        if len(parts) < 8 or "/" not in parts[6] or parts[5] not in ("execution", "express"):
            return None
        return self.map_runs.child(arn)

    def describe_execution(self, arn: str) -> dict[str, Any]:
        if (child := self.map_child(arn)) is not None:
            return self.map_runs.describe_child(child)
        row = self.execution(arn, express=False)
        out = describe_row(row, "REDRIVABLE")
        if row["version_arn"]:
            out["stateMachineVersionArn"] = row["version_arn"]
        if row["alias_arn"]:
            out["stateMachineAliasArn"] = row["alias_arn"]
        return out

    def machine_for_execution(self, arn: str) -> dict[str, Any]:
        if (child := self.map_child(arn)) is not None:
            return self.map_runs.machine_for_child(child)
        row = self.execution(arn)
        machine = self.store.get_machine(row["sm_arn"])
        out = {
            "stateMachineArn": row["sm_arn"], "name": row["sm_arn"].rsplit(":", 1)[1],
            "definition": row["definition"], "roleArn": row["role_arn"],
            "updateDate": ts((machine["updated"] or machine["created"]) if machine else row["start"]),
        }
        if machine is not None:
            config = json.loads(machine["config"])
            out["loggingConfiguration"] = config["loggingConfiguration"]
            out["tracingConfiguration"] = config["tracingConfiguration"]
            if "encryptionConfiguration" in config:
                out["encryptionConfiguration"] = config["encryptionConfiguration"]
            with_default_encryption(out)
        version = self.store.get_version(row["version_arn"]) if row["version_arn"] else None
        if version is not None and version["revision_id"]:
            out["revisionId"] = version["revision_id"]
        return with_variable_references(out)

    def list_executions(self, p: dict[str, Any]) -> dict[str, Any]:
        sm_arn = p.get("stateMachineArn")
        if p.get("mapRunArn"):
            if sm_arn:
                raise E.validation("Must provide either a StateMachine ARN or a MapRun ARN, not both")
            return self.map_runs.list_children(p)
        if not sm_arn:
            raise E.validation("Must provide a StateMachine ARN or MapRun ARN")
        self.check_arn(sm_arn, "stateMachine")
        base, qualifier = split_qualified(sm_arn)
        if qualifier is not None:  # the executions started through that version or alias
            if (self.store.get_version(sm_arn) if qualifier.isdigit() else self.store.get_alias(sm_arn)) is None:
                raise E.resource_not_found(sm_arn)
        if self.machine(base)["type"] == "EXPRESS":
            raise E.state_machine_type_not_supported("This operation is not supported by this type of state machine")
        rows = self.store.list_executions(base, p.get("statusFilter"))
        if qualifier is not None:
            column = "version_arn" if qualifier.isdigit() else "alias_arn"
            rows = [r for r in rows if r[column] == sm_arn]
        if p.get("redriveFilter") == "REDRIVEN":
            rows = [r for r in rows if r["redrive_count"] > 0]
        elif p.get("redriveFilter") == "NOT_REDRIVEN":
            rows = [r for r in rows if r["redrive_count"] == 0]
        given = p.get("nextToken")
        start = pages.offset_of(given, lambda: E.invalid_page_token(str(given)))
        size = p.get("maxResults") or 100
        items = []
        for r in rows[start:start + size]:
            item = {"executionArn": r["arn"], "stateMachineArn": r["sm_arn"], "name": r["name"],
                    "status": r["status"], "startDate": ts(r["start"])}
            if r["stop"] is not None:
                item["stopDate"] = ts(r["stop"])
            # [AWS] every listed execution names its redriveCount, 0 too (test_sfn_api.snapshot.json,
            # test_state_machine_status_filter); redriveDate only once redriven.
            item["redriveCount"] = r["redrive_count"]
            if r["redrive_count"]:
                item["redriveDate"] = ts(r["redrive_date"])
            if r["version_arn"]:
                item["stateMachineVersionArn"] = r["version_arn"]
            if r["alias_arn"]:
                item["stateMachineAliasArn"] = r["alias_arn"]
            items.append(item)
        out: dict[str, Any] = {"executions": items}
        if start + size < len(rows):
            out["nextToken"] = pages.offset_token(start + size)
        return out

    def history(self, p: dict[str, Any]) -> dict[str, Any]:
        arn = p["executionArn"]
        if (child := self.map_child(arn)) is not None:
            return self.map_runs.child_history(child, p)
        self.execution(arn, express=False)
        given = p.get("nextToken")
        start = pages.offset_of(given, lambda: E.invalid_page_token(str(given)))
        size = p.get("maxResults") or 100
        rows = self.store.visible_events(arn, bool(p.get("reverseOrder")), start, size + 1)
        include = p.get("includeExecutionData", True)
        out: dict[str, Any] = {"events": [event_from_row(r).to_api(include) for r in rows[:size]]}
        if len(rows) > size:
            out["nextToken"] = pages.offset_token(start + size)
        return out

    def stop_execution(self, p: dict[str, Any]) -> dict[str, Any]:
        arn = p["executionArn"]
        if (child := self.map_child(arn)) is not None:  # a map run's child, on its own
            return self.map_runs.stop_child(child, p.get("error"), p.get("cause"))
        self.execution(arn, express=False)
        self.engine.terminate(arn, "ExecutionAborted", "ABORTED", p.get("error"), p.get("cause"))
        row = self.store.get_execution(arn)
        return {"stopDate": ts(row["stop"] if row is not None and row["stop"] else time.time())}

    def redrive(self, p: dict[str, Any]) -> dict[str, Any]:
        """Run a closed execution on from its unfinished state; finished states are not run again."""
        from onceflow.sfn.engine.state import redrive_superseded

        arn = p["executionArn"]
        row = self.execution(arn)
        if row["type"] == "EXPRESS" or row["status"] not in ("FAILED", "ABORTED", "TIMED_OUT"):
            raise E.execution_not_redrivable(f"Execution cannot be redriven: {arn}. Execution is {row['status']}")
        now = time.time()
        self.engine.forget(arn)
        with self.engine.lock_for(arn), self.stack.db.transaction() as conn:
            events = [event_from_row(r) for r in self.store.events(arn)]
            count = row["redrive_count"] + 1
            self.store.supersede(conn, arn, redrive_superseded(events))
            last = max(e.id for e in events)
            redriven = ev.Event(last + 1, last, "ExecutionRedriven", now, {"redriveCount": count}, "redrive")
            self.store.append_events(conn, arn, [redriven])
            self.store.update_execution(conn, arn, {
                "status": "RUNNING", "output": None, "error": None, "cause": None, "stop": None,
                "redrive_count": count, "redrive_date": now,
            })
        self.engine.wake(arn)
        return {"redriveDate": ts(now)}

    # ------------------------------------------------------------------ TestState
    def test_state(self, ctx: RequestContext, p: dict[str, Any]) -> dict[str, Any]:
        from onceflow.sfn.engine.teststate import find_state, run_test_state, test_state_context, test_state_mock

        try:
            definition = _loads(p["definition"])
        except (ValueError, RecursionError):  # RecursionError: a parser's last word
            raise E.invalid_definition("INVALID_JSON_DESCRIPTION: the definition is not valid JSON") from None
        name = p.get("stateName") or "StateName"  # AWS's name for a lone state ($states.context, recorded)
        language, where = "JSONPath", ""
        if isinstance(definition, dict) and "States" in definition:
            language = definition.get("QueryLanguage", language)
            found = find_state(definition, name)
            if found is None:  # AWS's words (test_test_state_machine_scenarios' recording)
                raise E.validation("State not found in definition")
            definition, where = found
        if isinstance(definition, dict) and "Type" in definition and definition["Type"] not in STATE_TYPES:
            raise E.invalid_definition("SCHEMA_VALIDATION_FAILED: The field 'Type' should have one of these values: "
                                       f"[{', '.join(STATE_TYPES)}] at {where}/Type")
        if not isinstance(definition, dict) or definition.get("Type") not in STATE_TYPES:
            raise E.invalid_definition(f"SCHEMA_VALIDATION_FAILED: The state '{name}' is not a valid state at /")
        if p.get("roleArn"):
            self.check_role(ctx, p["roleArn"])
        mocked = test_state_mock(p.get("mock"), definition, bool(p.get("revealSecrets")))
        if definition["Type"] == "Task" and not p.get("roleArn") and mocked is None:
            # a Task that really runs needs the role (test_base_lambda_service_task_state_no_role_arn_validation)
            raise E.validation("RoleArn must be specified when testing a Task state")
        context = test_state_context(p.get("context"), definition)
        if p.get("revealSecrets"):
            # AWS: revealSecrets needs states:RevealSecrets besides states:TestState
            self.stack.authorize(dataclasses.replace(ctx, operation="RevealSecrets"), p)
        state_input = self._json_input(p.get("input"))
        variables = self._json_input(p.get("variables"))
        config = p.get("stateConfiguration") or {}
        retries = config.get("retrierRetryCount") or 0
        reader_data = self._json_input(config["mapItemReaderData"]) if "mapItemReaderData" in config else None
        return run_test_state(self.engine, ctx.account, ctx.region, definition, name, p.get("roleArn") or "",
                              state_input, variables if isinstance(variables, dict) else {}, language,
                              mocked=mocked, inspection_level=p.get("inspectionLevel") or "INFO",
                              retry_count=retries, reveal_secrets=bool(p.get("revealSecrets")),
                              map_failures=config.get("mapIterationFailureCount"), reader_data=reader_data,
                              context=context)

    @staticmethod
    def _json_input(text: str | None) -> Any:
        if text is None:
            return {}
        try:
            return _loads(text)
        except (ValueError, RecursionError):  # RecursionError: a parser's last word
            raise E.invalid_execution_input(_jackson(text)) from None

    # ------------------------------------------------------------------ task tokens
    def _open_token(self, token: str, output: str | None = None) -> Any:
        """The WAITING token's row. A token onceflow never issued is refused before the output is
        read (a bad token with output "output" is InvalidToken on AWS: moto's aws_verified
        test_send_task_failure_invalid_token); the output is checked before the task's state."""
        row = None if token.endswith(START_SUFFIX) else self.store.get_token(token)
        if row is None:
            raise E.invalid_token()
        if output is not None:
            try:
                _loads(output)
            except (ValueError, RecursionError):  # RecursionError: a parser's last word
                raise E.invalid_output(_jackson(output)) from None
        if row["status"] != "WAITING":
            raise E.task_does_not_exist()
        return row

    def send_task_success(self, token: str, output: str) -> None:
        row = self._open_token(token, output)
        with self.stack.db.transaction() as conn:
            self.store.complete_token(conn, token, "SUCCEEDED", output, None, None)
        self.engine.wake(row["exec_arn"])

    def send_task_failure(self, token: str, error: str | None, cause: str | None) -> None:
        row = self._open_token(token)
        with self.stack.db.transaction() as conn:
            self.store.complete_token(conn, token, "FAILED", None, error, cause)
        self.engine.wake(row["exec_arn"])

    def send_task_heartbeat(self, token: str) -> None:
        self._open_token(token)
        with self.stack.db.transaction() as conn:
            self.store.heartbeat_token(conn, token, time.time())

    # ------------------------------------------------------------------ tags
    def _tagged(self, arn: str) -> None:
        parts = arn.split(":")
        if len(parts) < 7 or parts[2] != "states":
            raise E.invalid_arn(arn)
        if parts[5] == "stateMachine" and self.store.get_machine(arn) is None:
            raise E.resource_not_found(arn)
        if parts[5] == "activity" and self.store.get_activity(arn) is None:
            raise E.resource_not_found(arn)

    def tag(self, arn: str, tags: list[dict[str, str]]) -> None:
        self._tagged(arn)
        pairs = tag_pairs(tags)
        with self.stack.db.transaction() as conn:
            self.store.put_tags(conn, arn, pairs)

    def untag(self, arn: str, keys: list[str]) -> None:
        self._tagged(arn)
        with self.stack.db.transaction() as conn:
            self.store.remove_tags(conn, arn, keys)

    def list_tags(self, arn: str) -> dict[str, Any]:
        self._tagged(arn)
        return {"tags": [{"key": k, "value": v} for k, v in self.store.tags(arn)]}

