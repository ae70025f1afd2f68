"""A table's schema (keys, indexes, billing, TTL, tags): CreateTable's validation with AWS's
messages, the JSON we persist, and the TableDescription we return."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.ddb import errors, warm
from onceflow.errors import validation_error

KeyDef = tuple[str, str]  # (attribute name, S|N|B)

TABLE_NAME_PATTERN = "[a-zA-Z0-9_.-]+"
_TABLE_NAME = re.compile(TABLE_NAME_PATTERN)


def table_name_ok(name: str) -> bool:
    """Whether a name (not an ARN) keeps DynamoDB's table-name rule: 3 to 255 of [a-zA-Z0-9_.-]."""
    return name.startswith("arn:") or (3 <= len(name) <= 255 and _TABLE_NAME.fullmatch(name) is not None)


def check_table_name(name: str) -> None:
    """DynamoDB's own rule for a table name given by name (an ARN is looked up as it is): 3 to 255 of
    [a-zA-Z0-9_.-]. The model only bounds TableName's length (1..1024, an ARN fits), so an empty or
    missing name is the wire's to report; what the model lets through is reported here in coral's words."""
    if not name or name.startswith("arn:"):
        return
    found = []
    if _TABLE_NAME.fullmatch(name) is None:
        found.append(errors.pattern_constraint(TABLE_NAME_PATTERN))
    if len(name) < 3:
        found.append(errors.NAME_TOO_SHORT)
    elif len(name) > 255:
        found.append(errors.NAME_TOO_LONG)
    if found:
        raise errors.table_name_constraints(name, found)


MAX_INDEX_KEY_PARTS = 4  # a GSI's partition key, and its sort key, may each have up to 4 attributes


@dataclass
class Index:
    name: str
    kind: str  # "GSI" or "LSI"
    hash: KeyDef
    range: KeyDef | None
    projection: dict[str, Any]
    throughput: dict[str, int] | None = None
    # A multi-attribute GSI key's further partition and sort key attributes, in KeySchema order.
    more_hash: list[KeyDef] = field(default_factory=list)
    more_range: list[KeyDef] = field(default_factory=list)
    warm: dict[str, int] | None = None  # WarmThroughput asked for (see ddb/warm.py)

    @property
    def hash_keys(self) -> list[KeyDef]:
        return [self.hash, *self.more_hash]

    @property
    def range_keys(self) -> list[KeyDef]:
        return ([self.range] if self.range else []) + self.more_range

    @property
    def key_names(self) -> list[str]:
        return [kd[0] for kd in self.hash_keys + self.range_keys]

    def key_schema(self) -> list[dict[str, str]]:
        return ([{"AttributeName": kd[0], "KeyType": "HASH"} for kd in self.hash_keys]
                + [{"AttributeName": kd[0], "KeyType": "RANGE"} for kd in self.range_keys])

    def typed(self, attrs: dict[str, str]) -> Index:
        """Each key attribute with its AttributeDefinitions type."""
        self.hash = (self.hash[0], attrs[self.hash[0]])
        self.range = (self.range[0], attrs[self.range[0]]) if self.range else None
        self.more_hash = [(kd[0], attrs[kd[0]]) for kd in self.more_hash]
        self.more_range = [(kd[0], attrs[kd[0]]) for kd in self.more_range]
        return self


@dataclass
class Table:
    id: int
    account: str
    region: str
    name: str
    hash: KeyDef
    range: KeyDef | None
    attributes: dict[str, str]
    indexes: dict[str, Index] = field(default_factory=dict)
    billing: str = "PROVISIONED"
    throughput: dict[str, int] = field(default_factory=lambda: {"ReadCapacityUnits": 0, "WriteCapacityUnits": 0})
    created: float = 0.0
    table_id: str = ""
    tags: dict[str, str] = field(default_factory=dict)
    ttl_attribute: str | None = None
    deletion_protection: bool = False
    stream: dict[str, Any] | None = None
    billing_updated: float | None = None
    table_class: str = "STANDARD"
    pitr_days: int | None = None  # point-in-time recovery period when enabled (recorded, not acted on)
    sse: dict[str, Any] | None = None  # SSEDescription when encrypted with a KMS key (AWS-owned key: None)
    on_demand: dict[str, int] | None = None  # OnDemandThroughput (recorded, not enforced)
    stream_id: int | None = None  # the enabled stream's row in ddb_streams (None: writes record nothing)
    stream_label: str | None = None  # the latest stream's label, kept once it is disabled
    pitr_since: float | None = None  # when point-in-time recovery was last enabled (its history starts there)
    restore: dict[str, Any] | None = None  # RestoreSummary of a table made by a restore (RestoreDateTime: epoch)
    warm: dict[str, int] | None = None  # WarmThroughput asked for (see ddb/warm.py)
    # Contributor Insights by index name ("" for the table): status, mode, when (see ddb/insights.py)
    insights: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Global tables (version 2019.11.21): every member of the replica group by region, this one included,
    # each with its own settings (see ddb/replicas.py); empty for a regional table.
    replicas: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Auto scaling of the table's capacity as UpdateTableReplicaAutoScaling set it (recorded, not acted on).
    autoscaling: dict[str, Any] | None = None
    # A replica's protection from Disassociate (on by default, independent of deletion protection).
    disassociation_protection: bool = True

    @property
    def arn(self) -> str:
        return f"arn:{partition(self.region)}:dynamodb:{self.region}:{self.account}:table/{self.name}"

    @property
    def key_names(self) -> list[str]:
        return [self.hash[0]] + ([self.range[0]] if self.range else [])

    # -------------------------------------------------------------- persistence
    def to_json(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k not in ("id", "indexes")}
        d["indexes"] = [ix.__dict__ for ix in self.indexes.values()]
        return d

    @staticmethod
    def from_json(row_id: int, d: dict[str, Any]) -> Table:
        d = dict(d)
        indexes = {i["name"]: Index(**{**i, "hash": tuple(i["hash"]),
                                       "range": tuple(i["range"]) if i["range"] else None,
                                       "more_hash": [tuple(k) for k in i.get("more_hash", [])],
                                       "more_range": [tuple(k) for k in i.get("more_range", [])]})
                   for i in d.pop("indexes")}
        d["hash"] = tuple(d["hash"])
        d["range"] = tuple(d["range"]) if d["range"] else None
        return Table(id=row_id, indexes=indexes, **d)

    # -------------------------------------------------------------- description
    def describe(self, status: str = "ACTIVE", count: int = 0, size: int = 0,
                 index_counts: dict[str, int] | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "AttributeDefinitions": [{"AttributeName": n, "AttributeType": t} for n, t in self.attributes.items()],
            "TableName": self.name,
            "KeySchema": _key_schema(self.hash, self.range),
            "TableStatus": status,
            "CreationDateTime": datetime.fromtimestamp(self.created, UTC),
            "ProvisionedThroughput": {"NumberOfDecreasesToday": 0, **self.throughput},
            "TableSizeBytes": size,
            "ItemCount": count,
            "TableArn": self.arn,
            "TableId": self.table_id,
        }
        if self.billing == "PAY_PER_REQUEST" or self.billing_updated is not None:
            # Present once the table has been on-demand: it then names the current mode (PROVISIONED
            # after a switch back) and when PAY_PER_REQUEST was last set.
            out["BillingModeSummary"] = {
                "BillingMode": self.billing,
                "LastUpdateToPayPerRequestDateTime": datetime.fromtimestamp(
                    self.billing_updated or self.created, UTC),
            }
        counts = index_counts or {}
        lsis = [self._describe_index(ix, counts.get(ix.name, 0)) for ix in self.indexes.values() if ix.kind == "LSI"]
        gsis = [self._describe_index(ix, counts.get(ix.name, 0)) for ix in self.indexes.values() if ix.kind == "GSI"]
        if lsis:
            out["LocalSecondaryIndexes"] = lsis
        if gsis:
            out["GlobalSecondaryIndexes"] = gsis
        if self.stream and self.stream.get("StreamEnabled"):
            out["StreamSpecification"] = self.stream
        if self.stream_label:
            out["LatestStreamLabel"] = self.stream_label
            out["LatestStreamArn"] = f"{self.arn}/stream/{self.stream_label}"
        if self.restore:
            # The restore's own answer reports it in progress (the table CREATING), as DynamoDB's does;
            # onceflow has finished it by then, so later descriptions do not.
            out["RestoreSummary"] = {**self.restore, "RestoreDateTime": datetime.fromtimestamp(
                self.restore["RestoreDateTime"], UTC), "RestoreInProgress": status == "CREATING"}
        out["TableClassSummary"] = {"TableClass": self.table_class}
        if self.sse:
            out["SSEDescription"] = self.sse
        if self.on_demand:
            out["OnDemandThroughput"] = self.on_demand
        out["DeletionProtectionEnabled"] = self.deletion_protection
        if self.replicas:
            out["GlobalTableVersion"] = GLOBAL_TABLE_VERSION
            out["DisassociationProtectionEnabled"] = self.disassociation_protection
            out["Replicas"] = [replica_description(self, r, e) for r, e in sorted(self.replicas.items())]
        table_warm = warm.describe(self.warm, self.billing)
        if table_warm:
            out["WarmThroughput"] = table_warm
        if status == "DELETING":
            for k in ("AttributeDefinitions", "KeySchema", "CreationDateTime", "BillingModeSummary",
                      "LocalSecondaryIndexes", "GlobalSecondaryIndexes", "TableClassSummary", "WarmThroughput"):
                out.pop(k, None)
        return out

    def _describe_index(self, ix: Index, count: int) -> dict[str, Any]:
        d: dict[str, Any] = {"IndexName": ix.name, "KeySchema": ix.key_schema(),
                             "Projection": ix.projection}
        if ix.kind == "GSI":
            d["IndexStatus"] = "ACTIVE"
            d["ProvisionedThroughput"] = {"NumberOfDecreasesToday": 0,
                                          **(ix.throughput or {"ReadCapacityUnits": 0, "WriteCapacityUnits": 0})}
        d["IndexSizeBytes"] = 0
        d["ItemCount"] = count
        d["IndexArn"] = f"{self.arn}/index/{ix.name}"
        index_warm = warm.describe(ix.warm, self.billing) if ix.kind == "GSI" else None
        if index_warm:
            d["WarmThroughput"] = index_warm
        return d


GLOBAL_TABLE_VERSION = "2019.11.21"


def replica_description(t: Table, region: str, e: dict[str, Any]) -> dict[str, Any]:
    """One member of a global table's replica group as DescribeTable's Replicas lists it."""
    d: dict[str, Any] = {"RegionName": region, "ReplicaStatus": e.get("status", "ACTIVE")}
    d["ReplicaArn"] = f"arn:{partition(region)}:dynamodb:{region}:{t.account}:table/{t.name}"
    if e.get("kms"):
        d["KMSMasterKeyId"] = e["kms"]
    if e.get("rcu") is not None:
        d["ProvisionedThroughputOverride"] = {"ReadCapacityUnits": e["rcu"]}
    if e.get("max_read") is not None:
        d["OnDemandThroughputOverride"] = {"MaxReadRequestUnits": e["max_read"]}
    gsis = []
    for name, ix in t.indexes.items():
        if ix.kind != "GSI":
            continue
        g: dict[str, Any] = {"IndexName": name}
        o = (e.get("gsis") or {}).get(name) or {}
        if o.get("rcu") is not None:
            g["ProvisionedThroughputOverride"] = {"ReadCapacityUnits": o["rcu"]}
        if o.get("max_read") is not None:
            g["OnDemandThroughputOverride"] = {"MaxReadRequestUnits": o["max_read"]}
        gsis.append(g)
    if gsis:
        d["GlobalSecondaryIndexes"] = gsis
    d["ReplicaTableClassSummary"] = {"TableClass": e.get("table_class") or "STANDARD"}
    return d


def _key_schema(h: KeyDef, r: KeyDef | None) -> list[dict[str, str]]:
    ks = [{"AttributeName": h[0], "KeyType": "HASH"}]
    if r:
        ks.append({"AttributeName": r[0], "KeyType": "RANGE"})
    return ks


# ---------------------------------------------------------------------------- CreateTable
def parse_key_schema(ks: list[dict[str, str]], attrs: dict[str, str]) -> tuple[KeyDef, KeyDef | None]:
    if ks[0]["KeyType"] != "HASH":
        raise validation_error(errors.FIRST_NOT_HASH)
    if len(ks) > 1 and ks[1]["KeyType"] != "RANGE":
        raise validation_error(errors.SECOND_NOT_RANGE)
    if len(ks) > 1 and ks[0]["AttributeName"] == ks[1]["AttributeName"]:
        raise validation_error(errors.KEY_WITHOUT_DEFINITION)
    h = (ks[0]["AttributeName"], attrs.get(ks[0]["AttributeName"], ""))
    r = (ks[1]["AttributeName"], attrs.get(ks[1]["AttributeName"], "")) if len(ks) > 1 else None
    return h, r


def _throughput(billing: str, pt: dict[str, int] | None, index: str | None = None) -> dict[str, int]:
    if billing == "PAY_PER_REQUEST":
        if pt is not None:
            raise errors.throughput_with_pay_per_request()
        return {"ReadCapacityUnits": 0, "WriteCapacityUnits": 0}
    if pt is None:
        raise errors.throughput_missing(index)
    return {"ReadCapacityUnits": pt["ReadCapacityUnits"], "WriteCapacityUnits": pt["WriteCapacityUnits"]}


def _projection(p: dict[str, Any]) -> dict[str, Any]:
    kind = p.get("ProjectionType", "ALL") if p else "ALL"
    nka = p.get("NonKeyAttributes") if p else None
    if (kind == "INCLUDE") != bool(nka):
        raise errors.projection_mismatch(kind, include_without_attributes=kind == "INCLUDE")
    return {"ProjectionType": kind, **({"NonKeyAttributes": list(nka)} if nka else {})}


def parse_gsi_key_schema(ks: list[dict[str, str]], attrs: dict[str, str]) -> tuple[list[KeyDef], list[KeyDef]]:
    """A GSI's KeySchema: 1 to 4 HASH elements, then up to 4 RANGE elements (multi-attribute keys)."""
    if ks[0]["KeyType"] != "HASH":
        raise validation_error(errors.FIRST_NOT_HASH)
    kinds = [e["KeyType"] for e in ks]
    hashes = kinds.index("RANGE") if "RANGE" in kinds else len(kinds)
    if "HASH" in kinds[hashes:]:
        raise validation_error(errors.HASH_BEFORE_RANGE)
    for part, count in (("HASH", hashes), ("RANGE", len(kinds) - hashes)):
        if count > MAX_INDEX_KEY_PARTS:
            raise errors.too_many_key_parts(MAX_INDEX_KEY_PARTS, part)
    names = [e["AttributeName"] for e in ks]
    if len(set(names)) != len(names):
        raise validation_error(errors.KEY_WITHOUT_DEFINITION)
    defs = [(n, attrs.get(n, "")) for n in names]
    return defs[:hashes], defs[hashes:]


def parse_index(spec: dict[str, Any], kind: str, attrs: dict[str, str], billing: str,
                table_hash: KeyDef, table_range: KeyDef | None) -> Index:
    name = spec["IndexName"]
    if kind == "GSI":
        hashes, ranges = parse_gsi_key_schema(spec["KeySchema"], attrs)
        return Index(name, kind, hashes[0], ranges[0] if ranges else None, _projection(spec.get("Projection") or {}),
                     _throughput(billing, spec.get("ProvisionedThroughput"), name), hashes[1:], ranges[1:],
                     warm.requested(spec.get("WarmThroughput"), billing, None, name))
    if len(spec["KeySchema"]) > 2:  # only a GSI may have a multi-attribute key
        raise errors.lsi_key_too_long(name)
    h, r = parse_key_schema(spec["KeySchema"], attrs)
    if table_range is None:
        raise validation_error(errors.LSI_WITHOUT_TABLE_RANGE)
    if h[0] != table_hash[0]:
        raise errors.lsi_hash_differs(name, h[0], table_hash[0])
    if r is None:
        raise errors.lsi_without_range(name)
    return Index(name, kind, h, r, _projection(spec.get("Projection") or {}), None)


def new_table(account: str, region: str, p: dict[str, Any], now: float) -> Table:
    ks = p.get("KeySchema")
    if ks is None:  # optional in botocore's model, required by DynamoDB's own (coral's null check)
        raise validation_error(errors.KEY_SCHEMA_NULL)
    if len(ks) > 2:
        raise errors.key_schema_too_long(ks)
    attrs = {a["AttributeName"]: a["AttributeType"] for a in p.get("AttributeDefinitions") or []}
    billing = p.get("BillingMode") or "PROVISIONED"
    h, r = parse_key_schema(ks, attrs)
    tp = _throughput(billing, p.get("ProvisionedThroughput"))
    indexes: dict[str, Index] = {}
    for kind, key in (("LSI", "LocalSecondaryIndexes"), ("GSI", "GlobalSecondaryIndexes")):
        specs = p.get(key)
        if specs is not None and not specs:
            raise errors.empty_index_list(key)
        for spec in specs or []:
            if spec["IndexName"] in indexes:
                raise errors.duplicate_index(spec["IndexName"])
            indexes[spec["IndexName"]] = parse_index(spec, kind, attrs, billing, h, r)
    check_attribute_definitions(attrs, [h, r] + [k for ix in indexes.values() for k in ix.hash_keys + ix.range_keys],
                                bool(indexes))
    stream = p.get("StreamSpecification")
    if stream and bool(stream.get("StreamEnabled")) != bool(stream.get("StreamViewType")):
        raise errors.stream_spec(creating=True, enabling=bool(stream.get("StreamEnabled")))
    check_sse(p.get("SSESpecification"))
    return Table(
        id=0, account=account, region=region, name=p["TableName"],
        hash=(h[0], attrs[h[0]]), range=(r[0], attrs[r[0]]) if r else None, attributes=attrs,
        indexes={n: ix.typed(attrs) for n, ix in indexes.items()}, billing=billing, throughput=tp,
        created=now, table_id=str(uuid.uuid4()),
        tags={t["Key"]: t["Value"] for t in p.get("Tags") or []},
        deletion_protection=bool(p.get("DeletionProtectionEnabled", False)),
        stream=p.get("StreamSpecification"),
        table_class=p.get("TableClass") or "STANDARD",
        sse=sse_description(account, region, p.get("SSESpecification")),
        on_demand=on_demand_throughput(p.get("OnDemandThroughput")),
        warm=warm.requested(p.get("WarmThroughput"), billing, None),
    )


def check_stream_update(t: Table, spec: dict[str, Any]) -> None:
    """UpdateTable's StreamSpecification: a view type exactly when enabling, and a change of state."""
    enabling = bool(spec.get("StreamEnabled"))
    if enabling != bool(spec.get("StreamViewType")):
        raise errors.stream_spec(creating=False, enabling=enabling)
    enabled = bool(t.stream and t.stream.get("StreamEnabled"))
    if enabling == enabled:
        raise errors.stream_state(t.name, enabled)


def check_sse(spec: dict[str, Any] | None) -> None:
    """SSESpecification's members must agree: nothing but Enabled when it is false, KMS only."""
    if not spec:
        return
    if spec.get("Enabled") is False:
        for member in ("SSEType", "KMSMasterKeyId"):
            if spec.get(member):
                raise errors.sse_member_when_disabled(member)
    if spec.get("SSEType") == "AES256":
        raise validation_error(errors.SSE_AES256)
    if spec.get("KMSMasterKeyId") and not spec.get("SSEType"):
        raise validation_error(errors.SSE_KMS_REQUIRED)


def sse_description(account: str, region: str, spec: dict[str, Any] | None) -> dict[str, Any] | None:
    """SSEDescription for SSESpecification: encryption with a KMS key (the account's AWS-managed
    aws/dynamodb key unless KMSMasterKeyId names one), asked for by Enabled or, without Enabled, by
    SSEType KMS; disabled or absent means the AWS-owned key, which DescribeTable does not describe."""
    if not spec or not (spec.get("Enabled") or ("Enabled" not in spec and spec.get("SSEType") == "KMS")):
        return None
    key = spec.get("KMSMasterKeyId") or str(uuid.uuid5(uuid.NAMESPACE_URL, f"aws/dynamodb/{account}/{region}"))
    arn = key if key.startswith("arn:") else f"arn:{partition(region)}:kms:{region}:{account}:key/{key}"
    return {"Status": "ENABLED", "SSEType": spec.get("SSEType") or "KMS", "KMSMasterKeyArn": arn}


def on_demand_throughput(spec: dict[str, Any] | None) -> dict[str, int] | None:
    if not spec:
        return None
    return {k: spec[k] for k in ("MaxReadRequestUnits", "MaxWriteRequestUnits") if k in spec} or None


def check_attribute_definitions(attrs: dict[str, str], keys: list[KeyDef | None], indexed: bool) -> None:
    """Every key attribute defined, and every definition a key of the table or of one of its indexes.
    DynamoDB words both differently when the request declares no index."""
    names = sorted({k[0] for k in keys if k})
    missing = [n for n in names if n not in attrs]
    if missing:
        if not indexed and len(attrs) < len(names):
            raise validation_error(errors.KEY_WITHOUT_DEFINITION)  # aws-cloudformation/cfn-lint#1037
        raise errors.undefined_key_attributes(missing, list(attrs))
    if len(names) != len(attrs):
        raise errors.unused_attribute_definitions(list(attrs), names) if indexed else errors.key_schema_count_mismatch()
