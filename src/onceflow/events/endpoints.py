"""Global endpoints (Create/Describe/List/Update/DeleteEndpoint): a name in a home Region over two
event buses of one name in two Regions, a Route 53 health check that would fail events over to the
secondary Region, and event replication between them through a role EventBridge assumes.

Stored with the model's shapes. A Create answers CREATING and an Update UPDATING, as AWS does; the
endpoint is ACTIVE at the next read (onceflow has no Route 53 health check and no DNS name to wait
for). A PutEvents with EndpointId (SDKs sign it with SigV4a, wire/sigv4.py) goes to the endpoint's bus
in its primary Region, the endpoint's home, as AWS routes it while the primary is healthy; with no
health check to fail, onceflow never fails over, and it does not replicate. Rules from the EventBridge
user guide ("Making applications Regional-fault tolerant with global endpoints"): the event buses have
the same name in each Region, the secondary Region is the other bus's; replication is ENABLED unless
said otherwise, and then needs a role. Error texts UNCONFIRMED unless marked."""

from __future__ import annotations

import secrets
import string
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from onceflow.awsmodels.partitions import partition
from onceflow.errors import ServiceError
from onceflow.events import errors, store
from onceflow.events.paging import paginate

if TYPE_CHECKING:
    import sqlite3

    from onceflow.events.service import EventsService

Key = tuple[str, str]
TABLE = "events_endpoints"
EVENTS_PRINCIPAL = ("Service", "events.amazonaws.com")
_SHOWN = ("Name", "Description", "Arn", "RoutingConfig", "ReplicationConfig", "EventBuses", "RoleArn", "EndpointId",
          "EndpointUrl", "State", "StateReason", "CreationTime", "LastModifiedTime")
_ANSWERED = ("Name", "Arn", "RoutingConfig", "ReplicationConfig", "EventBuses", "RoleArn", "State")


def _missing(name: str) -> ServiceError:
    return ServiceError("ResourceNotFoundException", f"Endpoint '{name}' does not exist.", 400)


def _exists(name: str) -> ServiceError:
    return ServiceError("ResourceAlreadyExistsException", f"Endpoint '{name}' already exists.", 400)


def _endpoint_id() -> str:
    """An id shaped as AWS's ("abcde.veo", the API reference's example): the URL's subdomain."""
    alnum = string.ascii_lowercase + string.digits
    head = "".join(secrets.choice(alnum) for _ in range(5))
    return f"{head}.{''.join(secrets.choice(string.ascii_lowercase) for _ in range(3))}"


def _when(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC)


def _out(body: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: _when(body[k]) if k.endswith("Time") else body[k] for k in keys if body.get(k) is not None}


def _bus_region_and_name(arn: str) -> tuple[str, str]:
    parts = arn.split(":", 5)  # the model's pattern holds it to arn:aws..:events:<region>:<account>:event-bus/<name>
    return parts[3], parts[5].split("/", 1)[1]


class Endpoints:
    def __init__(self, events: EventsService) -> None:
        self.db = events.db
        self.stack = events.stack

    # ------------------------------------------------------------------ checks
    def check(self, key: Key, body: dict[str, Any]) -> None:
        """The rules that hold the whole endpoint, checked on Create and on the result of an Update."""
        buses = [_bus_region_and_name(b["EventBusArn"]) for b in body["EventBuses"]]
        if buses[0][1] != buses[1][1]:
            raise errors.validation("The event buses of an endpoint must have the same name in each Region.")
        regions = {region for region, _ in buses}
        secondary = body["RoutingConfig"]["FailoverConfig"]["Secondary"]["Route"]
        if len(regions) != 2 or key[1] not in regions or secondary not in regions or secondary == key[1]:
            raise errors.validation(f"The event buses of an endpoint must be in its primary Region {key[1]} and "
                                    f"its secondary Region {secondary}.")
        replicating = (body.get("ReplicationConfig") or {}).get("State", "ENABLED") == "ENABLED"
        role = body.get("RoleArn")
        if replicating and not role:
            raise errors.validation("RoleArn is required when event replication is enabled.")
        if role:
            self._check_role(key, role)

    def _check_role(self, key: Key, role: str) -> None:
        iam = self.stack.ports.roles.get()
        if iam is not None and not iam.role_trusts(key[0], role, EVENTS_PRINCIPAL):
            # AWS's words (a CreateEndpoint refusal in the Terraform provider's acceptance output)
            raise errors.validation(f"Provided role '{role}' cannot be assumed by principal 'events.amazonaws.com'.")

    # ------------------------------------------------------------------ operations
    def create(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        name, now = p["Name"], time.time()
        endpoint_id = _endpoint_id()
        body = {"Name": name, "Description": p.get("Description"),
                "Arn": f"arn:{partition(key[1])}:events:{key[1]}:{key[0]}:endpoint/{name}",
                "RoutingConfig": p["RoutingConfig"], "ReplicationConfig": p.get("ReplicationConfig") or {
                    "State": "ENABLED"}, "EventBuses": p["EventBuses"], "RoleArn": p.get("RoleArn"),
                "EndpointId": endpoint_id, "EndpointUrl": f"https://{endpoint_id}.endpoints.event.amazonaws.com",
                "State": "ACTIVE", "CreationTime": now, "LastModifiedTime": now}
        self.check(key, body)
        with self.db.transaction() as conn:
            if store.json_get(conn, TABLE, key, name) is not None:
                raise _exists(name)
            store.json_put(conn, TABLE, key, name, body)
        return {**_out(body, _ANSWERED), "State": "CREATING"}

    def route_of(self, account: str, endpoint_id: str) -> tuple[Key, str]:
        """PutEvents(EndpointId): the (account, Region) and bus name its events go to: the endpoint's bus
        in its home (primary) Region. An unknown id is refused (UNCONFIRMED: on AWS its host would not resolve)."""
        for region, body in self.db.read(lambda c: store.json_all_regions(c, TABLE, account)):
            if body.get("EndpointId") == endpoint_id:
                arns = [b["EventBusArn"] for b in body["EventBuses"]]
                primary = next((a for a in arns if a.split(":")[3] == region), arns[0])
                return (account, region), primary.split(":event-bus/", 1)[1]
        raise ServiceError("ResourceNotFoundException", f"Endpoint {endpoint_id} does not exist.", 400)

    def _get(self, conn: sqlite3.Connection, key: Key, name: str) -> dict[str, Any]:
        body = store.json_get(conn, TABLE, key, name)
        if body is None:
            raise _missing(name)
        return body

    def describe(self, key: Key, name: str, home: str | None) -> dict[str, Any]:
        where = (key[0], home or key[1])
        return _out(self.db.read(lambda c: self._get(c, where, name)), _SHOWN)

    def list(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        where = (key[0], p.get("HomeRegion") or key[1])
        bodies = self.db.read(lambda c: store.json_all(c, TABLE, where))
        found = [_out(b, _SHOWN) for b in bodies if b["Name"].startswith(p.get("NamePrefix") or "")]
        page, token = paginate(found, p.get("MaxResults"), p.get("NextToken"))
        return {"Endpoints": page, **({"NextToken": token} if token else {})}

    def update(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        name = p["Name"]
        with self.db.transaction() as conn:
            body = self._get(conn, key, name)
            changed = {k: p[k] for k in ("Description", "RoutingConfig", "ReplicationConfig", "EventBuses",
                                         "RoleArn") if k in p}
            body = {**body, **changed, "LastModifiedTime": time.time()}
            self.check(key, body)
            store.json_put(conn, TABLE, key, name, body)
        return {**_out(body, (*_ANSWERED, "EndpointId", "EndpointUrl")), "State": "UPDATING"}

    def delete(self, key: Key, name: str) -> None:
        with self.db.transaction() as conn:
            self._get(conn, key, name)
            store.json_delete(conn, TABLE, key, name)
