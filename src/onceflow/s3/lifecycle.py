"""S3 lifecycle rules: what PutBucketLifecycleConfiguration accepts, which objects a rule selects
(prefix, tags, sizes), and when a version is due. The sweep that applies them is
S3Service.apply_lifecycle, run on our clock by a thread of s3's setup.

As on AWS, an expiration by `Days` falls due at the midnight UTC after creation + days (a
noncurrent version's from the moment it became noncurrent), one by `Date` at that date (at once
when it is past). Transitions are stored, not applied: there is one storage class here."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from functools import partial
from typing import Any

from onceflow.errors import ServiceError
from onceflow.s3 import errors, store
from onceflow.s3.multipart import Multipart
from onceflow.s3.service import S3Service

DAY = 86400.0


def _bad(message: str) -> ServiceError:
    return errors.invalid_argument(message)


def checked(config: dict[str, Any]) -> dict[str, Any]:
    """The configuration as stored (dates as ISO text), after AWS's checks."""
    rules = config.get("Rules") or []
    if not rules:
        raise errors.malformed_xml()
    ids = [r["ID"] for r in rules if r.get("ID")]
    if len(set(ids)) != len(ids):
        raise _bad("Rule ID must be unique. Found same ID for more than one rule")
    stored = []
    for rule in rules:
        if rule.get("Status") not in ("Enabled", "Disabled"):
            raise errors.malformed_xml()
        if len(rule.get("ID") or "") > 255:
            raise _bad("ID length should not exceed allowed limit of 255")
        actions = ("Expiration", "Transitions", "NoncurrentVersionExpiration", "NoncurrentVersionTransitions",
                   "AbortIncompleteMultipartUpload")
        if not any(rule.get(a) for a in actions):
            raise ServiceError("InvalidRequest", "At least one action needs to be specified in a rule", 400)
        rule = dict(rule)
        expiration = rule.get("Expiration")
        if expiration:
            if "Days" in expiration and "Date" in expiration:
                raise errors.malformed_xml()
            if "Days" in expiration and int(expiration["Days"]) <= 0:
                raise _bad("'Days' for Expiration action must be a positive integer")
            if "Date" in expiration:
                rule["Expiration"] = {**expiration, "Date": _midnight(expiration["Date"])}
        if rule.get("Transitions"):
            rule["Transitions"] = [{**t, "Date": _midnight(t["Date"])} if "Date" in t else t
                                   for t in rule["Transitions"]]
        noncurrent = rule.get("NoncurrentVersionExpiration")
        if noncurrent and int(noncurrent.get("NoncurrentDays", 0)) <= 0:
            raise _bad("'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer")
        abort = rule.get("AbortIncompleteMultipartUpload")
        if abort and int(abort.get("DaysAfterInitiation", 0)) <= 0:
            raise _bad("'DaysAfterInitiation' for AbortIncompleteMultipartUpload action must be a positive integer")
        stored.append(rule)
    return {**config, "Rules": stored}


def _midnight(date: datetime) -> str:
    if date.tzinfo is None:
        date = date.replace(tzinfo=UTC)
    date = date.astimezone(UTC)
    if (date.hour, date.minute, date.second, date.microsecond) != (0, 0, 0, 0):
        raise _bad("'Date' must be at midnight GMT")
    return date.isoformat()


def shown(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored configuration as GetBucketLifecycleConfiguration answers it (dates as datetimes)."""
    rules = []
    for rule in stored.get("Rules") or []:
        rule = dict(rule)
        if "Date" in (rule.get("Expiration") or {}):
            rule["Expiration"] = {**rule["Expiration"], "Date": datetime.fromisoformat(rule["Expiration"]["Date"])}
        if rule.get("Transitions"):
            rule["Transitions"] = [{**t, "Date": datetime.fromisoformat(t["Date"])} if "Date" in t else t
                                   for t in rule["Transitions"]]
        rules.append(rule)
    return {**stored, "Rules": rules}


def prefix_of(rule: dict[str, Any]) -> str:
    f = rule.get("Filter") or {}
    return str(rule.get("Prefix") or f.get("Prefix") or (f.get("And") or {}).get("Prefix") or "")


def selects(rule: dict[str, Any], key: str, size: int, tags: dict[str, str]) -> bool:
    """The rule's filter (its prefix, every tag it names, its size bounds) lets the object in."""
    f = rule.get("Filter") or {}
    both = f.get("And") or {}
    wanted = ([f["Tag"]] if f.get("Tag") else []) + list(both.get("Tags") or [])
    above = f.get("ObjectSizeGreaterThan", both.get("ObjectSizeGreaterThan"))
    below = f.get("ObjectSizeLessThan", both.get("ObjectSizeLessThan"))
    return (key.startswith(prefix_of(rule)) and all(tags.get(t["Key"]) == t.get("Value", "") for t in wanted)
            and (above is None or size > int(above)) and (below is None or size < int(below)))


def _after_days(start: float, days: int) -> float:
    """start + days, rounded up to the next midnight UTC (AWS's rule for `Days`)."""
    return math.ceil((start + days * DAY) / DAY) * DAY


def current_due(rule: dict[str, Any], created: float) -> float | None:
    """When the rule's Expiration removes a current version created at `created` (None: never)."""
    expiration = rule.get("Expiration") or {}
    if "Days" in expiration:
        return _after_days(created, int(expiration["Days"]))
    if "Date" in expiration:
        return datetime.fromisoformat(expiration["Date"]).timestamp()
    return None


def noncurrent_due(rule: dict[str, Any], since: float) -> float | None:
    days = (rule.get("NoncurrentVersionExpiration") or {}).get("NoncurrentDays")
    return _after_days(since, int(days)) if days else None


def upload_due(rule: dict[str, Any], initiated: float) -> float | None:
    days = (rule.get("AbortIncompleteMultipartUpload") or {}).get("DaysAfterInitiation")
    return _after_days(initiated, int(days)) if days else None


# ---------------------------------------------------------------------- the sweep
class Sweeper:
    """Applies every bucket's enabled rules; a bucket is looked at again only when something can have
    fallen due since: every due time is a midnight UTC, so a bucket is rescanned when a midnight
    has passed, when its rules change, or - for rules that act at once (a past `Date`,
    `ExpiredObjectDeleteMarker`) - when its objects have changed."""

    def __init__(self, s3: S3Service, mp: Multipart) -> None:
        self.s3 = s3
        self.mp = mp
        self._seen: dict[str, tuple[str, int, int]] = {}

    def run(self, now: float) -> int:
        """One pass; the number of versions and uploads removed."""
        done = 0
        for bucket in self.s3.db.read(lambda c: store.buckets_with(c, "lifecycle")):
            name = bucket["name"]
            rules = [r for r in bucket["configs"]["lifecycle"].get("Rules") or [] if r.get("Status") == "Enabled"]
            immediate = any(_acts_at_once(r, now) for r in rules)
            # the change tick read before the scan: a write racing the scan brings the bucket back
            stamp = (json.dumps(rules, sort_keys=True, default=str), int(now // DAY),
                     self.s3.changed.get(name, 0) if immediate else 0)
            if not rules or self._seen.get(name) == stamp:
                continue
            done += _sweep_bucket(self.s3, self.mp, bucket, rules, now)
            self._seen[name] = stamp
        return done


def _acts_at_once(rule: dict[str, Any], now: float) -> bool:
    """Whether a change of an object can make it due at once (not only at a coming midnight)."""
    expiration = rule.get("Expiration") or {}
    return bool(expiration.get("ExpiredObjectDeleteMarker")) or (
        "Date" in expiration and datetime.fromisoformat(expiration["Date"]).timestamp() <= now)


def _sweep_bucket(s3: S3Service, mp: Multipart, bucket: dict[str, Any], rules: list[dict[str, Any]],
                  now: float) -> int:
    account, name = bucket["account"], bucket["name"]
    ctx = s3.as_s3(bucket)  # S3 itself removes them: the events name the service, not a caller
    doomed: dict[tuple[str, str | None], str | None] = {}  # (key, version or None for the current) -> If-Match
    for rule in rules:
        rows = s3.db.read(partial(store.versions_under, bucket=name, prefix=prefix_of(rule)))
        keys: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            keys.setdefault(row["key"], []).append(row)
        for key, versions in keys.items():
            _due_versions(rule, key, versions, now, doomed)
    removed = 0
    for (key, version_id), etag in doomed.items():
        try:
            s3.delete_object(account, name, key, version_id, if_match=etag, ctx=ctx, cause="LifecycleExpiration")
            removed += 1
        except ServiceError:  # changed since it was read, or locked (Object Lock holds it): not removed
            continue
    for rule in rules:
        uploads = s3.db.read(partial(store.list_uploads, bucket=name, prefix=prefix_of(rule), after_key="",
                                     limit=1_000_000))
        for upload in uploads:
            due = upload_due(rule, upload["initiated"])
            if due is not None and due <= now:
                try:
                    mp.abort(account, name, upload["key"], upload["upload_id"])
                    removed += 1
                except ServiceError:
                    continue
    return removed


def _due_versions(rule: dict[str, Any], key: str, versions: list[dict[str, Any]], now: float,
                  doomed: dict[tuple[str, str | None], str | None]) -> None:
    """Add to `doomed` what `rule` removes of one key's versions (oldest first)."""
    current = versions[-1]
    if current["latest"] and not current["delete_marker"] \
            and selects(rule, key, current["size"], current["tags"]):
        due = current_due(rule, current["modified"])
        if due is not None and due <= now:
            doomed[(key, None)] = current["etag"]
    if current["latest"] and current["delete_marker"] and len(versions) == 1 \
            and (rule.get("Expiration") or {}).get("ExpiredObjectDeleteMarker"):
        doomed[(key, current["version_id"])] = None  # a marker with nothing left behind it
    noncurrent = rule.get("NoncurrentVersionExpiration") or {}
    if not noncurrent:
        return
    keep = int(noncurrent.get("NewerNoncurrentVersions") or 0)
    older = [(v, versions[i + 1]["modified"]) for i, v in enumerate(versions[:-1])]  # (version, noncurrent since)
    for n, (version, since) in enumerate(reversed(older)):  # newest noncurrent first
        if n < keep or version["delete_marker"] or not selects(rule, key, version["size"], version["tags"]):
            continue
        due = noncurrent_due(rule, since)
        if due is not None and due <= now:
            doomed[(key, version["version_id"])] = None
