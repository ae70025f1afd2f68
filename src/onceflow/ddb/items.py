"""Keys, index entries, sizes and return values of items against a table's schema."""

from __future__ import annotations

from typing import Any

from onceflow.ddb import errors
from onceflow.ddb.errors import INVALID, EmptyIndexKey, key_mismatch
from onceflow.ddb.keys import encode_key, encode_keys
from onceflow.ddb.schema import Table
from onceflow.ddb.store import IndexRow
from onceflow.ddb.values import MAX_ITEM_BYTES, Item, item_size, normalize_value, type_of
from onceflow.errors import validation_error


def empty_kind(v: dict[str, Any]) -> str | None:
    if v.get("S") == "":
        return "string"
    if v.get("B") == b"":
        return "binary"
    return None


def _check_key_size(v: dict[str, Any], is_hash: bool) -> None:
    x = v.get("S", v.get("B"))
    if x is None:
        return
    size = len(x.encode()) if isinstance(x, str) else len(x)
    if is_hash and size > 2048:
        # sic: DynamoDB's message has no space in "of2048".
        raise validation_error(errors.HASH_KEY_TOO_LONG)
    if not is_hash and size > 1024:
        raise validation_error(errors.RANGE_KEY_TOO_LONG)


def key_bytes(t: Table, key: dict[str, Any]) -> tuple[bytes, bytes, Item]:
    """(hash bytes, range bytes, normalised key) of a Key parameter, or AWS's schema error."""
    if len(key) != (2 if t.range else 1):
        raise key_mismatch()
    norm: Item = {}
    for name, typ in (t.hash, t.range) if t.range else (t.hash,):
        v = key.get(name)
        if v is None:
            raise key_mismatch()
        v = normalize_value(v)
        if type_of(v) != typ:
            raise key_mismatch()
        if (kind := empty_kind(v)) is not None:
            raise errors.empty_key(kind, name)
        _check_key_size(v, name == t.hash[0])
        norm[name] = v
    hk = encode_key(norm[t.hash[0]])
    rk = encode_key(norm[t.range[0]]) if t.range else b""
    return hk, rk, norm


def item_key_bytes(t: Table, item: Item, batch: bool = False) -> tuple[bytes, bytes]:
    """The key of a whole item (PutItem): missing and mistyped keys get PutItem's messages; a
    BatchWriteItem PutRequest (batch) calls a mistyped key a key that does not match the schema."""
    out = []
    for kd in (t.hash, t.range) if t.range else (t.hash,):
        name, typ = kd
        v = item.get(name)
        if v is None:
            raise errors.missing_key(name)
        actual = type_of(v)
        if actual != typ:
            if batch:
                raise key_mismatch()
            raise errors.key_type_mismatch(name, typ, actual)
        if (kind := empty_kind(v)) is not None:
            raise errors.empty_key(kind, name)
        _check_key_size(v, kd is t.hash)
        out.append(encode_key(v))
    return out[0], out[1] if len(out) > 1 else b""


def index_rows(t: Table, item: Item | None) -> list[IndexRow]:
    """The index entries an item has; an item lacking an index key is not in that index.

    A mistyped or empty index key is reported against the first index by name that keys on it, as
    DynamoDB reports it."""
    if not item or not t.indexes:
        return []
    rows = []
    for ix in sorted(t.indexes.values(), key=lambda ix: ix.name):
        parts = []
        for kd in ix.hash_keys + ix.range_keys:
            v = item.get(kd[0])
            if v is None:  # every key attribute must be there (a multi-attribute key's too)
                break
            actual = type_of(v)
            if actual != kd[1]:
                raise errors.index_key_type_mismatch(kd[0], kd[1], actual, ix.name)
            if (kind := empty_kind(v)) is not None:
                raise EmptyIndexKey(kind, ix.name, kd[0])
            _check_key_size(v, kd in ix.hash_keys)  # an index key keeps the table key's size limits
            parts.append(v)
        else:
            n = len(ix.hash_keys)
            rows.append((ix.name, encode_keys(parts[:n]), encode_keys(parts[n:]) if parts[n:] else b""))
    return rows


def check_size(size: int, update: bool = False) -> None:
    if size > MAX_ITEM_BYTES:
        raise errors.item_too_large(update)


# What UpdateItem charges its statement against the 400 KB gate besides the attributes it writes
# (measured against eu-west-2 by nubo-db/dynamodb-conformance, tests/tier3/limits/itemSizeBySurface).
UPDATE_BASE, UPDATE_SET, UPDATE_REMOVE = 3, 19, 2


def check_update_size(upd: Any, new: Item) -> None:
    """UpdateItem (alone: not inside a transaction) measures what its statement writes as well as the
    finished item: the attributes its SET and ADD actions write, name and value, plus 3 bytes, 19 per SET
    or ADD action (one more through a list index) and 2 per REMOVE or DELETE action. So the key and the
    attributes the statement leaves alone are out of that figure; check_size bounds the finished item."""
    cost = (UPDATE_BASE + UPDATE_SET * (len(upd.sets) + len(upd.adds))
            + UPDATE_REMOVE * (len(upd.removes) + len(upd.deletes))
            + sum(1 for a in upd.sets if any(isinstance(e, int) for e in a.path.elements)))
    written = {a.path.elements[0] for a in (*upd.sets, *upd.adds)}
    if cost + item_size({n: new[n] for n in written if n in new}) > MAX_ITEM_BYTES:
        check_size(MAX_ITEM_BYTES + 1, update=True)


def expiry(t: Table, item: Item) -> float | None:
    if not t.ttl_attribute:
        return None
    v = item.get(t.ttl_attribute)
    if v is None or "N" not in v:
        return None
    return float(v["N"])


def key_of(t: Table, item: Item) -> Item:
    return {k: item[k] for k in t.key_names if k in item}


def index_key_of(t: Table, index: str, item: Item) -> Item:
    ix = t.indexes[index]
    names = t.key_names + [n for n in ix.key_names if n not in t.key_names]
    return {k: item[k] for k in names if k in item}


def project_index(t: Table, index: str, item: Item) -> Item:
    """What an index holds of an item: table and index keys, plus its projection."""
    ix = t.indexes[index]
    p = ix.projection
    if p["ProjectionType"] == "ALL":
        return item
    keep = set(t.key_names) | set(ix.key_names) | set(p.get("NonKeyAttributes", []))
    return {k: v for k, v in item.items() if k in keep}


__all__ = ["INVALID"]
