"""DynamoDB: tables, a table's items page by page (Scan with ExclusiveStartKey), a query by key,
and one item's JSON."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from onceflow.console.app import HttpError, Response, View
from onceflow.console.aws import decode_key, encode_key

MAX_COLUMNS = 12


def tables(v: View) -> Response:
    names = v.optional(lambda: v.aws.all("dynamodb", "ListTables", {}, "TableNames",
                                         token="ExclusiveStartTableName", out_token="LastEvaluatedTableName"), [])
    described = []
    for name in names[:200]:
        table = v.optional(lambda n=name: v.aws.call("dynamodb", "DescribeTable", {"TableName": n})["Table"], {})
        described.append({"name": name, "table": table or {}})
    return v.page("tables.html", title="DynamoDB tables", tables=described)


def _limit(v: View) -> int:
    text = v.arg("limit", "25")
    if not text.isdigit() or not 1 <= int(text) <= 500:
        raise HttpError(400, "Bad limit", "The page size is a number from 1 to 500.")
    return int(text)


def _start_key(v: View, name: str) -> dict[str, Any] | None:
    token = v.arg(name)
    if not token:
        return None
    try:
        return decode_key(token)
    except ValueError as exc:
        raise HttpError(400, "Bad paging token", "The paging token is not one this console made.") from exc


def _typed(kind: str, text: str, what: str) -> dict[str, Any]:
    if kind == "B":
        try:
            return {"B": base64.b64decode(text, validate=True)}
        except (binascii.Error, ValueError) as exc:
            raise HttpError(400, "Bad key", f"The {what} of this table is binary: give it in base64.") from exc
    return {kind: text}


def table(v: View) -> Response:
    name = v.match["name"]
    described = v.aws.call("dynamodb", "DescribeTable", {"TableName": name})["Table"]
    schema = {k["KeyType"]: k["AttributeName"] for k in described.get("KeySchema") or []}
    kinds = {d["AttributeName"]: d["AttributeType"] for d in described.get("AttributeDefinitions") or []}
    limit = _limit(v)
    pk_value, sk_value = v.arg("pk"), v.arg("sk")
    if pk_value:
        result = _query(v, name, schema, kinds, pk_value, sk_value, limit)
    else:
        params: dict[str, Any] = {"TableName": name, "Limit": limit}
        if (start := _start_key(v, "start")) is not None:
            params["ExclusiveStartKey"] = start
        result = v.aws.call("dynamodb", "Scan", params)
    items = result.get("Items") or []
    keys = [schema[t] for t in ("HASH", "RANGE") if t in schema]
    columns = keys + sorted({a for item in items for a in item} - set(keys))
    last = result.get("LastEvaluatedKey")
    return v.page("table.html", title=name, table=described, schema=schema, kinds=kinds, items=[
        {"item": item, "token": encode_key({k: item[k] for k in keys if k in item})} for item in items],
        columns=columns[:MAX_COLUMNS], hidden_columns=max(0, len(columns) - MAX_COLUMNS),
        next_token=encode_key(last) if last else "", pk=pk_value, sk=sk_value, limit=limit)


def _query(v: View, name: str, schema: dict[str, str], kinds: dict[str, str], pk: str, sk: str,
           limit: int) -> dict[str, Any]:
    names = {"#pk": schema["HASH"]}
    values = {":pk": _typed(kinds.get(schema["HASH"], "S"), pk, "partition key")}
    condition = "#pk = :pk"
    if sk and "RANGE" in schema:
        names["#sk"] = schema["RANGE"]
        values[":sk"] = _typed(kinds.get(schema["RANGE"], "S"), sk, "sort key")
        condition += " AND #sk = :sk"
    params: dict[str, Any] = {"TableName": name, "KeyConditionExpression": condition, "Limit": limit,
                              "ExpressionAttributeNames": names, "ExpressionAttributeValues": values}
    if (start := _start_key(v, "start")) is not None:
        params["ExclusiveStartKey"] = start
    return v.aws.call("dynamodb", "Query", params)


def item(v: View) -> Response:
    name = v.match["name"]
    key = _start_key(v, "key")
    if key is None:
        raise HttpError(400, "Missing key", "Open an item from its table's page.")
    found = v.aws.call("dynamodb", "GetItem", {"TableName": name, "Key": key}).get("Item")
    if found is None:
        raise HttpError(404, "Item not found", f"Table {name} holds no item with this key.")
    return v.page("item.html", title=f"{name}: item", table_name=name, key=key, item=found)
