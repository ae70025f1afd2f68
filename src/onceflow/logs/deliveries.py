"""Vended logs deliveries: delivery sources, delivery destinations (with their cross-account policy)
and the deliveries that pair one of each (Put/Get/Describe/Delete*, CreateDelivery,
UpdateDeliveryConfiguration), stored in logs_resources (resources.py).

They are configuration: the AWS resources that would send through them (CloudFront distributions,
Bedrock agents...) are not served by onceflow, so nothing is ever delivered. What AWS shows is
followed where it was recorded (LocalStack's test_logs_delivery snapshots, 2026-02): a destination's
answer carries its type from the ARN it names, its outputFormat only when one was given, and no tags.
"""

from __future__ import annotations

import secrets
import sqlite3
import string
from collections.abc import Callable
from typing import Any

from onceflow.context import RequestContext
from onceflow.logs import errors, resources
from onceflow.logs.resources import Row
from onceflow.registry import operation
from onceflow.store.db import Database

Params = dict[str, Any]
SOURCE, DESTINATION, DELIVERY = "delivery-source", "delivery-destination", "delivery"
# The services that may be a delivery source and the log types each sends, from AWS's table of services
# "Supported [V2 Permissions]" (Enabling logging from AWS services). UNCONFIRMED: a subset, as remembered
# from that page; the service is the ARN's third field.
SOURCE_LOG_TYPES: dict[str, frozenset[str]] = {
    "cloudfront": frozenset({"ACCESS_LOGS", "CONNECTION_LOGS"}),
    "codewhisperer": frozenset({"EVENT_LOGS"}),
    "qbusiness": frozenset({"EVENT_LOGS"}),
    "bedrock-agentcore": frozenset({"APPLICATION_LOGS", "USAGE_LOGS", "TRACES"}),
    "entityresolution": frozenset({"WORKFLOW_LOGS"}),
    "mediapackagev2": frozenset({"EGRESS_ACCESS_LOGS", "INGRESS_ACCESS_LOGS"}),
    "mediatailor": frozenset({"AD_DECISION_SERVER_LOGS", "MANIFEST_SERVICE_LOGS", "TRANSCODE_LOGS"}),
    "sso": frozenset({"ERROR_LOGS"}),
    "workmail": frozenset({"ACCESS_CONTROL_LOGS", "AUTHENTICATION_LOGS", "WORKMAIL_AVAILABILITY_PROVIDER_LOGS",
                           "WORKMAIL_MAILBOX_ACCESS_LOGS", "WORKMAIL_PERSONAL_ACCESS_TOKEN_LOGS"}),
    "pcs": frozenset({"PCS_SCHEDULER_LOGS", "PCS_JOBCOMP_LOGS"}),
}
# The destination type a destinationResourceArn names (its service field).
DESTINATION_TYPES = {"s3": "S3", "logs": "CWL", "firehose": "FH", "xray": "XRAY"}
_ID_CHARS = string.ascii_letters + string.digits


def _source_shape(row: Row) -> Params:
    out: Params = {"name": row["name"], "arn": row["arn"], "resourceArns": row["resourceArns"],
                   "service": row["service"], "logType": row["logType"]}
    if row.get("tags"):
        out["tags"] = row["tags"]
    if row.get("deliverySourceConfiguration"):
        out["deliverySourceConfiguration"] = row["deliverySourceConfiguration"]
    return out


def _destination_shape(row: Row) -> Params:
    out: Params = {"name": row["name"], "arn": row["arn"], "deliveryDestinationType": row["deliveryDestinationType"]}
    if row.get("outputFormat"):
        out["outputFormat"] = row["outputFormat"]
    if row.get("deliveryDestinationConfiguration"):
        out["deliveryDestinationConfiguration"] = row["deliveryDestinationConfiguration"]
    return out


_DELIVERY_MEMBERS = ("id", "arn", "deliverySourceName", "deliveryDestinationArn", "deliveryDestinationType",
                     "recordFields", "fieldDelimiter", "s3DeliveryConfiguration", "tags")


def _delivery_shape(row: Row) -> Params:
    return {k: row[k] for k in _DELIVERY_MEMBERS if row.get(k) is not None and (k != "tags" or row[k])}


def _data(row: Row) -> Params:
    return {k: v for k, v in row.items() if k not in ("name", "created")}


class DeliveriesApi:
    def __init__(self, db: Database, clock: Callable[[], int]) -> None:
        self.db = db
        self.clock = clock

    def _get(self, conn: sqlite3.Connection, ctx: RequestContext, kind: str, name: str,
             missing: Callable[[], Exception]) -> Row:
        row = resources.get(conn, ctx.account, ctx.region, kind, name)
        if row is None:
            raise missing()
        return row

    def _read(self, ctx: RequestContext, kind: str, name: str, missing: Callable[[], Exception]) -> Row:
        return self.db.read(lambda conn: self._get(conn, ctx, kind, name, missing))

    def _describe(self, ctx: RequestContext, p: Params, kind: str, shape: Callable[[Row], Params],
                  key: str) -> Params:
        items = self.db.read(lambda conn: resources.every(conn, ctx.account, ctx.region, kind))
        return resources.page(items, p.get("nextToken"), p.get("limit"), kind, shape, key)

    # ------------------------------------------------------------------------------ sources
    @operation("PutDeliverySource")
    def put_delivery_source(self, ctx: RequestContext, p: Params) -> Params:
        name, resource_arn, log_type = p["name"], p["resourceArn"], p["logType"]
        parts = resource_arn.split(":")
        service = parts[2] if len(parts) > 5 and parts[0] == "arn" else ""
        if service not in SOURCE_LOG_TYPES:
            raise errors.source_service_refused()
        if log_type not in SOURCE_LOG_TYPES[service]:
            # UNCONFIRMED wording; AWS answers a ValidationException.
            raise errors.validation(f"Log type {log_type} is not supported for the service {service}.")
        with self.db.transaction() as conn:
            existing = resources.get(conn, ctx.account, ctx.region, SOURCE, name)
            if existing is not None:
                if p.get("tags"):  # UNCONFIRMED wording
                    raise errors.conflict("Tags can only be provided when a resource is being created, not updated.")
                if existing["resourceArns"] != [resource_arn]:  # UNCONFIRMED wording
                    raise errors.conflict("A Delivery Source's resource cannot be changed; create a new Delivery "
                                          "Source instead.")
            data: Params = {
                "arn": resources.arn(ctx.region, ctx.account, SOURCE, name), "resourceArns": [resource_arn],
                "service": service, "logType": log_type,
                "tags": existing.get("tags", {}) if existing is not None else p.get("tags") or {},
            }
            if p.get("deliverySourceConfiguration"):
                data["deliverySourceConfiguration"] = p["deliverySourceConfiguration"]
            created = existing["created"] if existing is not None else self.clock()
            resources.put(conn, ctx.account, ctx.region, SOURCE, name, created, data)
        return {"deliverySource": _source_shape({"name": name, **data})}

    @operation("GetDeliverySource")
    def get_delivery_source(self, ctx: RequestContext, p: Params) -> Params:
        return {"deliverySource": _source_shape(self._read(ctx, SOURCE, p["name"], errors.delivery_source_not_found))}

    @operation("DescribeDeliverySources")
    def describe_delivery_sources(self, ctx: RequestContext, p: Params) -> Params:
        return self._describe(ctx, p, SOURCE, _source_shape, "deliverySources")

    @operation("DeleteDeliverySource")
    def delete_delivery_source(self, ctx: RequestContext, p: Params) -> None:
        with self.db.transaction() as conn:
            self._get(conn, ctx, SOURCE, p["name"], errors.delivery_source_not_found)
            if any(d["deliverySourceName"] == p["name"] for d in resources.every(conn, ctx.account, ctx.region,
                                                                                DELIVERY)):
                # Documented: a source with deliveries cannot be deleted. UNCONFIRMED wording.
                raise errors.conflict("The Delivery Source has deliveries associated with it; delete them first.")
            resources.delete(conn, ctx.account, ctx.region, SOURCE, p["name"])

    # ------------------------------------------------------------------------------ destinations
    @operation("PutDeliveryDestination")
    def put_delivery_destination(self, ctx: RequestContext, p: Params) -> Params:
        name = p["name"]
        config = p.get("deliveryDestinationConfiguration")
        kind = p.get("deliveryDestinationType")
        if config is not None:
            target = config["destinationResourceArn"]
            parts = target.split(":")
            named = DESTINATION_TYPES.get(parts[2]) if len(parts) > 5 and parts[0] == "arn" else None
            if named is None or (kind is not None and kind != named):
                # UNCONFIRMED wording.
                raise errors.validation(f"The destination resource ARN {target} is not a supported destination.")
            kind = named
        elif kind != "XRAY":  # UNCONFIRMED wording: only X-Ray destinations name no resource.
            raise errors.validation("deliveryDestinationConfiguration is required for this destination type.")
        with self.db.transaction() as conn:
            existing = resources.get(conn, ctx.account, ctx.region, DESTINATION, name)
            if existing is not None:
                if p.get("tags"):  # UNCONFIRMED wording
                    raise errors.conflict("Tags can only be provided when a resource is being created, not updated.")
                if p.get("outputFormat") and existing.get("outputFormat") not in (None, p["outputFormat"]):
                    # UNCONFIRMED wording.
                    raise errors.validation("A Delivery Destination's output format cannot be changed; create a new "
                                            "Delivery Destination instead.")
            data: Params = {"arn": resources.arn(ctx.region, ctx.account, DESTINATION, name),
                            "deliveryDestinationType": kind,
                            "tags": existing.get("tags", {}) if existing is not None else p.get("tags") or {}}
            if p.get("outputFormat"):
                data["outputFormat"] = p["outputFormat"]
            if config is not None:
                data["deliveryDestinationConfiguration"] = {"destinationResourceArn": config["destinationResourceArn"]}
            if existing is not None and existing.get("policy"):
                data["policy"] = existing["policy"]
            created = existing["created"] if existing is not None else self.clock()
            resources.put(conn, ctx.account, ctx.region, DESTINATION, name, created, data)
        return {"deliveryDestination": _destination_shape({"name": name, **data})}

    @operation("GetDeliveryDestination")
    def get_delivery_destination(self, ctx: RequestContext, p: Params) -> Params:
        row = self._read(ctx, DESTINATION, p["name"], errors.delivery_destination_not_found)
        return {"deliveryDestination": _destination_shape(row)}

    @operation("DescribeDeliveryDestinations")
    def describe_delivery_destinations(self, ctx: RequestContext, p: Params) -> Params:
        return self._describe(ctx, p, DESTINATION, _destination_shape, "deliveryDestinations")

    @operation("DeleteDeliveryDestination")
    def delete_delivery_destination(self, ctx: RequestContext, p: Params) -> None:
        with self.db.transaction() as conn:
            row = self._get(conn, ctx, DESTINATION, p["name"], errors.delivery_destination_not_found)
            if any(d["deliveryDestinationArn"] == row["arn"] for d in resources.every(conn, ctx.account, ctx.region,
                                                                                     DELIVERY)):
                # Documented: a destination with deliveries cannot be deleted. UNCONFIRMED wording.
                raise errors.conflict("The Delivery Destination has deliveries associated with it; delete them "
                                      "first.")
            resources.delete(conn, ctx.account, ctx.region, DESTINATION, p["name"])

    # ------------------------------------------------------------------------------ destination policies
    def _set_policy(self, ctx: RequestContext, name: str, policy: str | None) -> None:
        with self.db.transaction() as conn:
            row = self._get(conn, ctx, DESTINATION, name, errors.delivery_destination_not_found)
            data = _data(row)
            data.pop("policy", None)
            if policy is not None:
                data["policy"] = policy
            resources.put(conn, ctx.account, ctx.region, DESTINATION, name, row["created"], data)

    @operation("PutDeliveryDestinationPolicy")
    def put_delivery_destination_policy(self, ctx: RequestContext, p: Params) -> Params:
        self._set_policy(ctx, p["deliveryDestinationName"], p["deliveryDestinationPolicy"])
        return {"policy": {"deliveryDestinationPolicy": p["deliveryDestinationPolicy"]}}

    @operation("GetDeliveryDestinationPolicy")
    def get_delivery_destination_policy(self, ctx: RequestContext, p: Params) -> Params:
        row = self._read(ctx, DESTINATION, p["deliveryDestinationName"], errors.delivery_destination_not_found)
        # Without a policy AWS answers an empty policy structure (snapshot-recorded).
        return {"policy": {"deliveryDestinationPolicy": row["policy"]} if row.get("policy") else {}}

    @operation("DeleteDeliveryDestinationPolicy")
    def delete_delivery_destination_policy(self, ctx: RequestContext, p: Params) -> None:
        # UNCONFIRMED: deleting a policy that is not there is taken as done, not refused.
        self._set_policy(ctx, p["deliveryDestinationName"], None)

    # ------------------------------------------------------------------------------ deliveries
    @operation("CreateDelivery")
    def create_delivery(self, ctx: RequestContext, p: Params) -> Params:
        source_name, destination_arn = p["deliverySourceName"], p["deliveryDestinationArn"]
        with self.db.transaction() as conn:
            source = self._get(conn, ctx, SOURCE, source_name, errors.delivery_source_not_found)
            parsed = resources.parse_arn(destination_arn)
            if parsed is None or parsed[2] != DESTINATION:
                raise errors.delivery_destination_not_found()
            # A destination of another account is reached through its policy there; onceflow keeps each
            # account's destinations apart, so one it cannot find is not found.
            region, account, _, destination_name = parsed
            destination = resources.get(conn, account, region, DESTINATION, destination_name)
            if destination is None:
                raise errors.delivery_destination_not_found()
            kind = destination["deliveryDestinationType"]
            for other in resources.every(conn, ctx.account, ctx.region, DELIVERY):
                if other["deliverySourceName"] != source["name"]:
                    continue
                if other["deliveryDestinationArn"] == destination_arn:  # UNCONFIRMED wording
                    raise errors.conflict("The specified Delivery already exists")
                if other["deliveryDestinationType"] == kind:  # UNCONFIRMED wording
                    raise errors.conflict("A Delivery already exists for this Delivery Source with a Delivery "
                                          "Destination of the same type.")
            delivery_id = "".join(secrets.choice(_ID_CHARS) for _ in range(16))
            data: Params = {"id": delivery_id, "arn": resources.arn(ctx.region, ctx.account, DELIVERY, delivery_id),
                            "deliverySourceName": source_name, "deliveryDestinationArn": destination_arn,
                            "deliveryDestinationType": kind, "tags": p.get("tags") or {}}
            for member in ("recordFields", "fieldDelimiter", "s3DeliveryConfiguration"):
                if p.get(member) is not None:
                    data[member] = p[member]
            resources.put(conn, ctx.account, ctx.region, DELIVERY, delivery_id, self.clock(), data)
        return {"delivery": _delivery_shape(data)}

    @operation("GetDelivery")
    def get_delivery(self, ctx: RequestContext, p: Params) -> Params:
        return {"delivery": _delivery_shape(self._read(ctx, DELIVERY, p["id"], errors.delivery_not_found))}

    @operation("DescribeDeliveries")
    def describe_deliveries(self, ctx: RequestContext, p: Params) -> Params:
        items = self.db.read(lambda conn: resources.every(conn, ctx.account, ctx.region, DELIVERY, order="created"))
        return resources.page(items, p.get("nextToken"), p.get("limit"), DELIVERY, _delivery_shape, "deliveries")

    @operation("UpdateDeliveryConfiguration")
    def update_delivery_configuration(self, ctx: RequestContext, p: Params) -> None:
        with self.db.transaction() as conn:
            row = self._get(conn, ctx, DELIVERY, p["id"], errors.delivery_not_found)
            data = _data(row)
            for member in ("recordFields", "fieldDelimiter", "s3DeliveryConfiguration"):
                if p.get(member) is not None:
                    data[member] = p[member]
            resources.put(conn, ctx.account, ctx.region, DELIVERY, p["id"], row["created"], data)

    @operation("DeleteDelivery")
    def delete_delivery(self, ctx: RequestContext, p: Params) -> None:
        with self.db.transaction() as conn:
            if not resources.delete(conn, ctx.account, ctx.region, DELIVERY, p["id"]):
                raise errors.delivery_not_found()
