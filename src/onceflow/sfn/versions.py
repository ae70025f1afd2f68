"""State machine versions and aliases.

A version is a frozen copy of one revision of a machine (definition, role, logging and tracing),
numbered from 1 and never renumbered; its ARN is the machine's ARN with `:<number>`. An alias
(`:<name>`, a name that is not all digits) routes each StartExecution to one of one or two versions
of the same machine by weight. An execution started through a version or alias runs that version's
copy and remembers both ARNs (DescribeExecution, ListExecutions, the context object).
"""

from __future__ import annotations

import json
import random
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.sfn import errors as E
from onceflow.sfn.names import ts

if TYPE_CHECKING:
    import sqlite3

    from onceflow.sfn.service import SfnService

MAX_VERSIONS = 1000  # per state machine [AWS quota]
MAX_ALIASES = 100


def conflict(message: str) -> ServiceError:
    return ServiceError("ConflictException", message, 400)


def split_qualified(arn: str) -> tuple[str, str | None]:
    """(the machine's ARN, the qualifier or None) of a stateMachine ARN."""
    parts = arn.split(":")
    if len(parts) == 8:
        return ":".join(parts[:7]), parts[7]
    return arn, None


def is_version_qualifier(qualifier: str | None) -> bool:
    return qualifier is not None and qualifier.isdigit()


@dataclass(frozen=True)
class Target:
    """What StartExecution runs: the machine row, and the version copy (and alias) if qualified."""

    machine: Any
    definition: str
    role_arn: str
    version_arn: str | None = None
    alias_arn: str | None = None


class Versions:
    def __init__(self, service: SfnService) -> None:
        self.svc = service
        self.store = service.store
        self.db = service.stack.db

    # ------------------------------------------------------------------ lookups
    def base_machine(self, arn: str) -> Any:
        """The unqualified machine of an ARN that must name one (PublishStateMachineVersion...)."""
        self.svc.check_arn(arn, "stateMachine")
        base, qualifier = split_qualified(arn)
        if qualifier is not None:
            raise E.invalid_arn_reason(f"Resource type not valid in this context: {arn}")
        return self.svc.machine(base)

    def version(self, arn: str) -> Any:
        row = self.store.get_version(arn)
        if row is None:
            raise E.state_machine_does_not_exist(arn)
        return row

    def alias(self, arn: str) -> Any:
        self.svc.check_arn(arn, "stateMachine")
        _, qualifier = split_qualified(arn)
        if qualifier is None or is_version_qualifier(qualifier):
            raise E.invalid_arn_reason(f"Resource type not valid in this context: {arn}")
        row = self.store.get_alias(arn)
        if row is None:
            raise ServiceError("ResourceNotFound", "Request references a resource that does not exist.", 400)
        return row

    def target(self, arn: str) -> Target:
        """The machine, version and alias a StartExecution ARN names."""
        self.svc.check_arn(arn, "stateMachine")
        base, qualifier = split_qualified(arn)
        if qualifier is None:
            machine = self.svc.machine(arn)
            return Target(machine, machine["definition"], machine["role_arn"])
        machine = self.store.get_machine(base)
        if machine is None:
            raise E.state_machine_does_not_exist(arn)
        alias_arn = None
        if is_version_qualifier(qualifier):
            version_arn = arn
        else:
            alias = self.store.get_alias(arn)
            if alias is None:
                raise E.state_machine_does_not_exist(arn)
            alias_arn, version_arn = arn, pick_version(json.loads(alias["routing"]))
        version = self.version(version_arn)
        return Target(machine, version["definition"], version["role_arn"], version_arn, alias_arn)

    # ------------------------------------------------------------------ versions
    def publish(self, conn: sqlite3.Connection, machine: Any, description: str | None) -> tuple[str, float]:
        """Publish the machine's current revision (in the caller's transaction): the latest version
        when it already holds this revision (and no other description is asked for), else a new one."""
        latest = conn.execute("SELECT arn, revision_id, description, created FROM sfn_versions WHERE sm_arn=? "
                              "ORDER BY number DESC LIMIT 1", (machine["arn"],)).fetchone()
        if (latest is not None and latest["revision_id"] == machine["revision_id"]
                and description in (None, latest["description"])):
            return latest["arn"], latest["created"]
        count = conn.execute("SELECT COUNT(*) FROM sfn_versions WHERE sm_arn=?", (machine["arn"],)).fetchone()[0]
        if count >= MAX_VERSIONS:
            raise ServiceError("ServiceQuotaExceededException",
                               f"Maximum number of versions ({MAX_VERSIONS}) reached for state machine "
                               f"'{machine['arn']}'.", 400)
        number = conn.execute("SELECT last_version FROM sfn_state_machines WHERE arn=?",
                              (machine["arn"],)).fetchone()[0] + 1
        arn, now = f"{machine['arn']}:{number}", time.time()
        self.store.insert_version(conn, {
            "arn": arn, "sm_arn": machine["arn"], "number": number, "definition": machine["definition"],
            "role_arn": machine["role_arn"], "config": machine["config"], "revision_id": machine["revision_id"],
            "description": description, "created": now,
        })
        conn.execute("UPDATE sfn_state_machines SET last_version=? WHERE arn=?", (number, machine["arn"]))
        return arn, now

    def publish_version(self, p: dict[str, Any]) -> dict[str, Any]:
        arn = p["stateMachineArn"]
        self.base_machine(arn)
        with self.db.transaction() as conn:
            machine = conn.execute("SELECT * FROM sfn_state_machines WHERE arn=?", (arn,)).fetchone()
            if machine is None:
                raise E.state_machine_does_not_exist(arn)
            wanted = p.get("revisionId")
            if wanted is not None and wanted != machine["revision_id"]:
                raise conflict(f"Failed to publish the State Machine version for revision {wanted}. "
                               f"The current State Machine revision is {machine['revision_id']}.")
            version_arn, created = self.publish(conn, machine, p.get("description"))
        return {"creationDate": _ts(created), "stateMachineVersionArn": version_arn}

    def list_versions(self, p: dict[str, Any]) -> dict[str, Any]:
        machine = self.base_machine(p["stateMachineArn"])
        rows = self.store.versions(machine["arn"])
        items = [{"stateMachineVersionArn": r["arn"], "creationDate": _ts(r["created"])} for r in rows]
        return self.svc.page(items, "stateMachineVersions", p)

    def delete_version(self, p: dict[str, Any]) -> None:
        arn = p["stateMachineVersionArn"]
        self.svc.check_arn(arn, "stateMachine")
        base, qualifier = split_qualified(arn)
        if not is_version_qualifier(qualifier):
            raise E.invalid_arn_reason(f"Resource type not valid in this context: {arn}")
        with self.db.transaction() as conn:
            holders = [a["name"] for a in self.store.aliases(base)
                       if any(r["stateMachineVersionArn"] == arn for r in json.loads(a["routing"]))]
            if holders:
                raise conflict("Version to be deleted must not be referenced by an alias. "
                               f"Current list of aliases referencing this version: [{', '.join(holders)}]")
            self.store.delete_version(conn, arn)

    def describe_version(self, arn: str) -> dict[str, Any]:
        base, _ = split_qualified(arn)
        row = self.version(arn)
        machine = self.store.get_machine(base)
        config = json.loads(row["config"])
        out: dict[str, Any] = {
            "stateMachineArn": arn, "name": machine["name"] if machine else base.rsplit(":", 1)[1],
            "status": "ACTIVE", "definition": row["definition"], "roleArn": row["role_arn"],
            "type": machine["type"] if machine else "STANDARD", "creationDate": _ts(row["created"]),
            "loggingConfiguration": config["loggingConfiguration"],
            "tracingConfiguration": config["tracingConfiguration"],
        }
        if row["description"] is not None:
            out["description"] = row["description"]
        if row["revision_id"]:
            out["revisionId"] = row["revision_id"]
        if "encryptionConfiguration" in config:
            out["encryptionConfiguration"] = config["encryptionConfiguration"]
        return out

    # ------------------------------------------------------------------ aliases
    def _routing(self, routing: list[dict[str, Any]]) -> str:
        """Check a routing configuration; returns the machine ARN its versions belong to."""
        arns = [r["stateMachineVersionArn"] for r in routing]
        listed = f"[{', '.join(arns)}]"
        if len(set(arns)) < len(arns):
            raise E.validation(f"Routing configuration must contain distinct state machine version ARNs. "
                               f"Received: {listed}")
        weights = [r["weight"] for r in routing]
        if sum(weights) != 100:
            raise E.validation(f"Sum of routing configuration weights must equal 100. Received: {json.dumps(weights)}")
        bases = set()
        for arn in arns:
            self.svc.check_arn(arn, "stateMachine")
            base, qualifier = split_qualified(arn)
            if not is_version_qualifier(qualifier):
                raise E.validation(f"Routing configuration must contain state machine version ARNs. Received: {listed}")
            bases.add(base)
        if len(bases) > 1:
            raise E.validation("Both stateMachineVersionArn values must belong to the same state machine")
        base = bases.pop()
        if self.store.get_machine(base) is None:
            raise E.resource_not_found(base)
        for arn in arns:
            if self.store.get_version(arn) is None:
                raise E.resource_not_found(arn)
        return base

    def create_alias(self, ctx: RequestContext, p: dict[str, Any]) -> dict[str, Any]:
        name, routing = p["name"], p["routingConfiguration"]
        if name.isdigit():  # the model's pattern already wants a letter; kept for in-process calls
            raise E.invalid_name(name)
        base = self._routing(routing)
        arn = f"{base}:{name}"
        now = time.time()
        with self.db.transaction() as conn:
            existing = self.store.get_alias(arn)
            if existing is not None:
                same = (json.loads(existing["routing"]) == routing and existing["description"] == p.get("description"))
                if not same:
                    raise conflict("Failed to create alias because an alias with the same name and a different "
                                   "routing configuration already exists.")
                return {"stateMachineAliasArn": arn, "creationDate": _ts(existing["created"])}
            if len(self.store.aliases(base)) >= MAX_ALIASES:
                raise ServiceError("ServiceQuotaExceededException",
                                   f"Maximum number of aliases ({MAX_ALIASES}) reached for state machine '{base}'.",
                                   400)
            self.store.put_alias(conn, {"arn": arn, "sm_arn": base, "name": name, "description": p.get("description"),
                                        "routing": json.dumps(routing), "created": now, "updated": now})
        return {"stateMachineAliasArn": arn, "creationDate": _ts(now)}

    def describe_alias(self, p: dict[str, Any]) -> dict[str, Any]:
        row = self.alias(p["stateMachineAliasArn"])
        out: dict[str, Any] = {"stateMachineAliasArn": row["arn"], "name": row["name"]}
        if row["description"] is not None:
            out["description"] = row["description"]
        out.update({"routingConfiguration": json.loads(row["routing"]), "creationDate": _ts(row["created"]),
                    "updateDate": _ts(row["updated"])})
        return out

    def update_alias(self, p: dict[str, Any]) -> dict[str, Any]:
        row = self.alias(p["stateMachineAliasArn"])
        if "description" not in p and "routingConfiguration" not in p:
            raise E.validation("Request must contain at least one of description or routingConfiguration")
        routing = json.loads(row["routing"])
        if "routingConfiguration" in p:
            if self._routing(p["routingConfiguration"]) != row["sm_arn"]:
                # UNCONFIRMED wording (no AWS recording); the ARNs are listed as AWS's other routing
                # messages list them ("[arn, arn]"), not as the request's structures
                listed = ", ".join(r["stateMachineVersionArn"] for r in p["routingConfiguration"])
                raise E.validation("Routing configuration must contain state machine version ARNs of the state "
                                   f"machine of the alias. Received: [{listed}]")
            routing = p["routingConfiguration"]
        now = time.time()
        with self.db.transaction() as conn:
            self.store.put_alias(conn, {
                "arn": row["arn"], "sm_arn": row["sm_arn"], "name": row["name"],
                "description": p.get("description", row["description"]), "routing": json.dumps(routing),
                "created": row["created"], "updated": now,
            })
        return {"updateDate": _ts(now)}

    def delete_alias(self, p: dict[str, Any]) -> None:
        arn = p["stateMachineAliasArn"]
        self.svc.check_arn(arn, "stateMachine")
        _, qualifier = split_qualified(arn)
        if qualifier is None or is_version_qualifier(qualifier):
            raise E.invalid_arn_reason(f"Resource type not valid in this context: {arn}")
        with self.db.transaction() as conn:  # a missing alias is no error [AWS]
            self.store.delete_alias(conn, arn)

    def list_aliases(self, p: dict[str, Any]) -> dict[str, Any]:
        arn = p["stateMachineArn"]
        self.svc.check_arn(arn, "stateMachine")
        if split_qualified(arn)[1] is not None:
            raise E.invalid_arn_reason(f"Resource type not valid in this context: {arn}")
        if self.store.get_machine(arn) is None:
            raise E.state_machine_does_not_exist(arn)
        items = [{"stateMachineAliasArn": r["arn"], "creationDate": _ts(r["created"])} for r in self.store.aliases(arn)]
        return self.svc.page(items, "stateMachineAliases", p)


def pick_version(routing: list[dict[str, Any]]) -> str:
    """One version by weight (a weight of 0 is never picked while another is positive)."""
    weights = [max(0, int(r["weight"])) for r in routing]
    if not any(weights):
        return str(routing[0]["stateMachineVersionArn"])
    return str(random.choices([r["stateMachineVersionArn"] for r in routing], weights=weights)[0])


def new_revision() -> str:
    return str(uuid.uuid4())


def _ts(value: float) -> Any:
    return ts(value)
